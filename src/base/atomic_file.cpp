// Owned descriptors (Fd) and atomic, durable replacement of a file.
//
// write_file_atomically() keeps the invariant "the file on disk is the old one or the new
// one, complete": the bytes go to a fresh temporary file in the same directory (rename is
// only atomic within one file system), which is fsynced before the rename so the new name
// never points at unwritten blocks, and the directory is fsynced after it so the rename
// itself survives a power cut. A process killed mid-write leaves only a temporary file,
// which the next write of the same path removes once its writer is gone. Every descriptor
// is owned by an Fd, so no path out of here leaks one.
//
// Only regular files are created or replaced here, never through a planted name: the
// temporary file is created with O_EXCL (which refuses any existing name, a link included),
// the target of the rename is checked to be a regular file or nothing, and the lock file is
// opened with O_NOFOLLOW and checked to be a regular file before anything is written into it.
// New files are 0600: a state file holds the secret seed of its keys' hashes.
//
// ExclusiveLock keeps "one holder at a time" with flock(2) rather than by the lock file's
// existence: the lock belongs to the open file description, so it is released by the kernel
// however its process ends, and a lock file left on disk is harmless (it is never removed:
// removing it would let a waiter lock an unlinked file while a newcomer locks a fresh one).
// On NFS, Linux turns flock into a POSIX byte-range lock handled by the server's lock
// manager, which works across clients as long as the lock manager runs.
#include "base/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

namespace tlbf_dedup {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() { close(); }

int Fd::close() {
  if (fd_ < 0) return 0;
  return ::close(release());
}

namespace {

[[noreturn]] void fail_errno(const std::string& name, const std::string& what, int err) {
  throw FileError("'" + name + "': " + what + ": " + std::strerror(err));
}

void write_all(int fd, std::string_view data, const std::string& name, const std::string& tmp) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(name, "cannot write temporary file '" + tmp + "'", errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void sync_fd(int fd, const std::string& name, const std::string& what) {
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    // Some file systems cannot sync a directory; the rename is then as durable as they allow.
    if (errno == EINVAL) return;
    fail_errno(name, "cannot sync " + what, errno);
  }
}

struct PathParts {
  std::string dir;   // for open() and fsync()
  std::string base;  // the file name alone
};

PathParts split_path(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Temporary names are "<base>.tmp.<pid>.<n>": unique among live processes, and the pid says
// whether the writer of a leftover is still running.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// Removes temporary files left by writers that were killed mid-write. Best effort: a leftover
// that cannot be removed costs disk space, not correctness, so no error is raised.
void remove_stale_temps(const PathParts& parts) {
  DIR* d = ::opendir(parts.dir.c_str());
  if (!d) return;
  const std::string prefix = parts.base + ".tmp.";
  const pid_t self = ::getpid();
  while (const dirent* e = ::readdir(d)) {
    std::string_view n(e->d_name);
    if (n.substr(0, prefix.size()) != prefix) continue;
    n.remove_prefix(prefix.size());
    std::size_t dot = n.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot > 9) continue;
    long pid = 0;
    bool digits = true;
    for (char ch : n.substr(0, dot)) {
      if (ch < '0' || ch > '9')
        digits = false;
      else
        pid = pid * 10 + (ch - '0');
    }
    if (!digits || pid <= 0 || pid == self) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

// The temporary file's name, removed on every path out unless the rename consumed it.
class TempName {
 public:
  explicit TempName(std::string path) : path_(std::move(path)) {}
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;
  ~TempName() {
    if (!renamed_) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  void mark_renamed() { renamed_ = true; }

 private:
  std::string path_;
  bool renamed_ = false;
};

// The file at `path` itself (not where a link leads): nullopt when there is none; throws
// FileError when it is there but not a regular file, which is never replaced.
std::optional<struct stat> replaceable(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    fail_errno(path, "cannot look at it", errno);
  }
  if (S_ISLNK(st.st_mode)) throw FileError("'" + path + "': is a symbolic link, which is never replaced or followed");
  if (!S_ISREG(st.st_mode))
    throw FileError("'" + path + "': is " + file_kind(st.st_mode) + ", which is never replaced (only a regular file)");
  return st;
}

}  // namespace

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return S_ISREG(mode) ? "a regular file" : "not a regular file";
}

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

std::optional<FileId> file_id(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

void write_file_atomically(const std::string& path, std::string_view data) {
  const PathParts parts = split_path(path);
  // 0. Only a regular file, or nothing, is replaced: a device, a FIFO or a link is refused
  //    before anything is created.
  const std::optional<struct stat> old_st = replaceable(path);
  remove_stale_temps(parts);

  // 1. Create a fresh temporary file beside the target (O_EXCL: never reuse someone's file).
  //    The name is declared first so the descriptor is closed before the name is removed.
  TempName tmp(temp_name(path));
  Fd file(::open(tmp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file) fail_errno(path, "cannot create temporary file '" + tmp.path() + "'", errno);

  // 2. Keep the permissions of the file being replaced.
  if (old_st && ::fchmod(file.get(), old_st->st_mode & 07777) != 0)
    fail_errno(path, "cannot set the mode of temporary file '" + tmp.path() + "'", errno);

  // 3. Write everything and make it durable before it gets the real name.
  write_all(file.get(), data, path, tmp.path());
  sync_fd(file.get(), path, "temporary file '" + tmp.path() + "'");
  if (file.close() != 0) fail_errno(path, "cannot close temporary file '" + tmp.path() + "'", errno);

  // 4. Replace the old file in one step (still a regular file, or nothing), then make the
  //    rename itself durable.
  replaceable(path);
  if (::rename(tmp.path().c_str(), path.c_str()) != 0)
    fail_errno(path, "cannot rename '" + tmp.path() + "' over it", errno);
  tmp.mark_renamed();
  Fd dir(::open(parts.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) fail_errno(path, "saved, but cannot open directory '" + parts.dir + "' to sync it", errno);
  sync_fd(dir.get(), path, "directory '" + parts.dir + "'");
}

std::optional<ExclusiveLock> ExclusiveLock::acquire(const std::string& lock_path, std::chrono::milliseconds wait,
                                                    const volatile int* stop) {
  // Not through a link (O_NOFOLLOW), and not waiting on a FIFO (O_NONBLOCK, which a regular
  // file ignores); what is there must be a regular file before anything is written into it.
  Fd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!fd && errno == ELOOP)
    throw FileError("'" + lock_path + "': is a symbolic link; a lock file is never followed (remove the link)");
  if (!fd) fail_errno(lock_path, "cannot open the lock file", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(lock_path, "cannot look at the lock file", errno);
  if (!S_ISREG(st.st_mode))
    throw FileError("'" + lock_path + "': is " + std::string(file_kind(st.st_mode)) +
                    "; a lock file is a regular file (remove it)");
  // Polling rather than a blocking flock() with an alarm: the wait then ends on time and on
  // a signal without touching the process's timers.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) fail_errno(lock_path, "cannot lock", errno);
    if (stop && *stop) return std::nullopt;
    if (std::chrono::steady_clock::now() >= deadline) {
      long pid = 0;
      std::string text;
      try {
        text = read_all(fd, lock_path);
      } catch (const FileError&) {
        // The pid is only for the message; without it the message says so.
      }
      for (char ch : text) {
        if (ch < '0' || ch > '9' || pid > 1000000000) break;
        pid = pid * 10 + (ch - '0');
      }
      throw LockBusy("'" + lock_path + "': locked by another process (" +
                         (pid > 0 ? "pid " + std::to_string(pid) : std::string("pid unknown")) + ")",
                     pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The pid is a courtesy for the message of the next process, not part of the lock: a
  // failure to write it does not make the lock any less held.
  // A lock file with another name (a hard link) is someone's file too: it is only locked.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (st.st_nlink == 1 && ::ftruncate(fd.get(), 0) == 0) (void)!::pwrite(fd.get(), pid.data(), pid.size(), 0);
  return ExclusiveLock(std::move(fd));
}

std::string read_all(const Fd& fd, const std::string& name) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(name, "cannot read", errno);
    }
    if (n == 0) return data;
    data.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace tlbf_dedup
