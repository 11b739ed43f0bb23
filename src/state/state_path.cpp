// Resolving a --state path to the regular file it names (state_path.hpp).
//
// Invariant: the result names a regular file, or nothing when `path` itself names nothing (a
// link to nothing is refused), with no symbolic link as its last component, so that the lock
// file beside it ("<result>.lock") is the same for every name of the state file, and saving
// (a rename over the result) replaces the file, never a link. Only lstat(2) and readlink(2)
// are used: a FIFO or a device is judged without being opened.
#include "state/state_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/atomic_file.hpp"
#include "state/state_store.hpp"

namespace tlbf_dedup {
namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit (ELOOP)

// The target of the link at `link`, as a path usable from here.
std::string link_target(const std::string& link, std::size_t size_hint, const std::string& name) {
  std::vector<char> buf(size_hint + 2);
  while (true) {
    const ssize_t n = ::readlink(link.c_str(), buf.data(), buf.size());
    if (n < 0)
      throw StateFileError("state file '" + name + "': cannot read the link '" + link + "': " + std::strerror(errno));
    if (static_cast<std::size_t>(n) < buf.size()) {
      const std::string target(buf.data(), static_cast<std::size_t>(n));
      const std::size_t slash = link.find_last_of('/');
      if (target.empty() || target[0] == '/' || slash == std::string::npos) return target;
      return link.substr(0, slash + 1) + target;
    }
    buf.resize(buf.size() * 2);  // the link changed since lstat(): read it again
  }
}

}  // namespace

std::string resolve_state_path(const std::string& path) {
  std::string p = path;
  for (int links = 0;; ++links) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT && p == path) return p;  // nothing there yet: the first save creates it
      // A link to nothing: creating its target would let whoever planted the link choose
      // the file written (as root, anywhere).
      if (errno == ENOENT)
        throw StateFileError("state file '" + path + "': is a symbolic link to '" + p +
                             "', which does not exist; a link is followed only to an existing state file");
      throw StateFileError("state file '" + path + "': cannot look at '" + p + "': " + std::strerror(errno));
    }
    if (S_ISREG(st.st_mode)) return p;
    if (!S_ISLNK(st.st_mode)) {
      const std::string resolved = p == path ? "" : " (which leads to '" + p + "')";
      throw StateFileError("state file '" + path + "'" + resolved + ": is " + file_kind(st.st_mode) +
                           "; a state file is a regular file, or absent");
    }
    if (links == kMaxLinks)
      throw StateFileError("state file '" + path + "': more than " + std::to_string(kMaxLinks) + " symbolic links");
    p = link_target(p, static_cast<std::size_t>(st.st_size), path);
  }
}

}  // namespace tlbf_dedup
