// Owned descriptors, atomic file replacement and exclusive file locks, as a unit of their own
// (ccache's Fd and AtomicFile are the model). Nothing here knows what the bytes mean.
//
// Invariant of write_file_atomically(): the file at `path` is, at every moment, either the
// old file or the new one complete, never a mix, and once it returns the new one survives a
// power cut. Invariant of ExclusiveLock: while one exists, no other ExclusiveLock on the same
// lock file exists in any process, and it ends with its owner or its owner's process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tlbf_dedup {

// One open descriptor, closed when this goes out of scope (a close error there is ignored:
// destructors do not throw; call close() to see it).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Returns close(2)'s result (errno set on -1); the descriptor is given up either way.
  int close();

 private:
  int fd_ = -1;
};

// The message names the file and the failed step, with strerror.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `data` to a fresh temporary file beside `path` (same directory: rename is only
// atomic within one file system; created with O_EXCL and O_NOFOLLOW, mode 0600), syncs it,
// keeps the mode of the file it replaces, renames it over `path` and syncs the directory.
// Only a regular file is replaced: a symbolic link, a device, a FIFO or a directory at
// `path` is left alone and reported. A temporary file left by a killed writer is removed by
// the next call for the same path. Throws FileError("'<path>': <problem>").
void write_file_atomically(const std::string& path, std::string_view data);

// What a file that is not a regular one is, for messages: "a directory", "a FIFO", ...
const char* file_kind(mode_t mode);

// The identity of a file, to tell whether two names or descriptors are one file.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
  bool operator!=(const FileId& o) const { return !(*this == o); }
};
// stat(2) of `path` (links followed) or fstat(2) of `fd`; nullopt when there is nothing to see.
std::optional<FileId> file_id(const std::string& path);
std::optional<FileId> file_id(int fd);

// Another process holds the lock; `holder_pid()` is the pid it wrote into the lock file (0 when
// it could not be read, e.g. the holder is still writing it).
class LockBusy : public FileError {
 public:
  LockBusy(const std::string& message, long holder_pid) : FileError(message), holder_pid_(holder_pid) {}
  long holder_pid() const { return holder_pid_; }

 private:
  long holder_pid_;
};

// An exclusive advisory lock (flock(2)) on a lock file, held until this is destroyed or its
// process ends in any way, kill -9 included: the kernel drops the lock with the last
// descriptor, so a lock file left behind by a dead process never blocks anyone.
class ExclusiveLock {
 public:
  // Creates `lock_path` if needed (mode 0600) and locks it, retrying until `wait` has passed
  // (zero: one try). Then writes this process's pid into it, for the message another process
  // shows. The lock file must be a regular file, its name not a symbolic link (never
  // followed), and the pid is written only into a file with no other name (no hard link).
  // Gives up early, with nullopt, once *stop becomes non-zero (a signal while waiting).
  // Throws LockBusy when another process still holds it, FileError on any other problem.
  static std::optional<ExclusiveLock> acquire(const std::string& lock_path, std::chrono::milliseconds wait,
                                              const volatile int* stop);

 private:
  explicit ExclusiveLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;  // the lock lives exactly as long as this descriptor
};

// The whole contents of an open descriptor; `name` is used in the FileError message.
std::string read_all(const Fd& fd, const std::string& name);

}  // namespace tlbf_dedup
