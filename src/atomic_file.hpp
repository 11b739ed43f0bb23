// Owned descriptors and atomic file replacement, as a unit of their own (ccache's Fd and
// AtomicFile are the model). Nothing here knows what the bytes mean.
//
// Invariant of write_file_atomically(): the file at `path` is, at every moment, either the
// old file or the new one complete, never a mix, and once it returns the new one survives a
// power cut.
#pragma once

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
// atomic within one file system), syncs it, keeps the mode of the file it replaces,
// renames it over `path` and syncs the directory. A temporary file left by a killed writer
// is removed by the next call for the same path. Throws FileError("'<path>': <problem>").
void write_file_atomically(const std::string& path, std::string_view data);

// The whole contents of an open descriptor; `name` is used in the FileError message.
std::string read_all(const Fd& fd, const std::string& name);

}  // namespace tlbf_dedup
