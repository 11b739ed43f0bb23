// The files a run writes beside its output (written_files.hpp).
//
// Invariant: the run creates, replaces or truncates only regular files that are none of the
// files it reads or writes otherwise (told apart by st_dev and st_ino, so every name of one
// file counts: /dev/stdout, /proc/self/fd/1, a hard link), and never through a symbolic link
// that is the last component of a name it was given (the --state path's links are resolved
// on purpose, state_path.hpp, and only to an existing file). A FIFO, a pipe, /dev/null or the
// run's own stderr is written into as it is, never replaced. Everything is judged before the
// run locks or reads anything, so a refused file is a usage error (exit 2) with no output; the
// write at exit checks again what it writes to (atomic_file.hpp refuses to replace anything
// but a regular file).
#include "app/written_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "app/options.hpp"

namespace tlbf_dedup {
namespace {

// What the file `id` is to the run besides the summary's destination: its output, an input,
// the state file or its lock; nullptr when it is none of them.
const char* role_of(const FileId& id, const Options& o, bool state_too) {
  if (file_id(STDOUT_FILENO) == id) return "the run's output (stdout)";
  if (o.files.empty() && file_id(STDIN_FILENO) == id) return "the run's input (stdin)";
  for (const std::string& f : o.files)
    if ((f == "-" ? file_id(STDIN_FILENO) : file_id(f)) == id) return "one of the run's inputs";
  if (state_too && !o.state_file.empty()) {
    if (file_id(o.state_file) == id) return "the --state file";
    if (file_id(o.state_file + ".lock") == id) return "the --state file's lock";
  }
  return nullptr;
}

bool is_dev_null(const struct stat& st) {
  struct stat null {};
  return S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) && null.st_rdev == st.st_rdev;
}

[[noreturn]] void fail_errno(const std::string& path, const std::string& what, int err) {
  throw FileError("'" + path + "': " + what + ": " + std::strerror(err));
}

}  // namespace

StatsFile StatsFile::judge(const Options& o) {
  try {
    return judge_path(o.stats_file, o);
  } catch (const FileError& e) {
    throw UsageError(std::string("--stats-file ") + e.what());
  }
}

StatsFile StatsFile::judge_path(const std::string& path, const Options& o) {
  const auto refuse = [&](const std::string& why) -> FileError {
    return FileError("'" + path + "': " + why +
                     "; the summary goes to a regular file it replaces, a FIFO, /dev/null or the run's stderr");
  };
  // 1. Nothing there: created at exit, unless the name is a link to nothing.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    struct stat link {};
    if (errno == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw refuse("is a symbolic link to nothing, which is never followed");
    return StatsFile(path, Way::replace, std::nullopt);  // (any other problem is the write's to report)
  }
  // 2. What the run already writes to or reads, by identity: stderr is written to as it is,
  //    /dev/null too; the output, an input, the state or its lock are never written.
  const FileId id{st.st_dev, st.st_ino};
  if (file_id(STDERR_FILENO) == id) return StatsFile(path, Way::to_stderr, id);
  if (is_dev_null(st)) return StatsFile(path, Way::in_place, id);
  if (const char* role = role_of(id, o, true)) throw refuse(std::string("is ") + role);
  // 3. A FIFO or a pipe is written into; a regular file is replaced, but not through a link.
  if (S_ISFIFO(st.st_mode)) return StatsFile(path, Way::in_place, id);
  if (!S_ISREG(st.st_mode)) throw refuse(std::string("is ") + file_kind(st.st_mode));
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    throw refuse("is a symbolic link, which is never followed (name the file it leads to)");
  return StatsFile(path, Way::replace, std::nullopt);
}

void StatsFile::write(std::string_view text) const {
  if (way_ == Way::replace) return write_file_atomically(path_, text);
  if (way_ == Way::to_stderr) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    if (std::fflush(stderr) != 0) fail_errno(path_, "cannot write to stderr", errno);
    return;
  }
  // In place: opened without waiting for a reader (a FIFO nobody reads is an error, not a
  // hang) and checked to be the file judged at the start.
  Fd fd(::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd && errno == ENXIO) throw FileError("'" + path_ + "': no process has the FIFO open for reading");
  if (!fd) fail_errno(path_, "cannot open", errno);
  if (file_id(fd.get()) != id_) throw FileError("'" + path_ + "': is not the file it was when the run began");
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) fail_errno(path_, "cannot set it up", errno);
  while (!text.empty()) {
    const ssize_t n = ::write(fd.get(), text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path_, "cannot write", errno);
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (fd.close() != 0) fail_errno(path_, "cannot close", errno);
}

void check_state_files(const Options& o) {
  if (o.state_file.empty()) return;
  for (const std::string& path : {o.state_file, o.state_file + ".lock"}) {
    const std::optional<FileId> id = file_id(path);
    if (!id) continue;
    if (const char* role = role_of(*id, o, false))
      throw UsageError("state file '" + o.state_file + "': '" + path + "' is " + role + ", which " +
                       (path == o.state_file ? "saving the state would replace" : "locking would truncate"));
  }
}

}  // namespace tlbf_dedup
