// The output held back while the untimed check runs (output_hold.hpp): an emitter and a writer
// over an anonymous file (memfd, else an unlinked temporary file), copied to the output when
// the check passes and dropped when it fails.
#include "output/output_hold.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tlbf_dedup {
namespace {

Fd anonymous_file() {
  int fd = ::memfd_create("tlbf-dedup-held-output", MFD_CLOEXEC);
  if (fd < 0) {  // (a kernel without memfd): an unlinked file in the temporary directory
    const char* dir = std::getenv("TMPDIR");
    std::string name = std::string(dir && *dir ? dir : "/tmp") + "/tlbf-dedup-held-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0)
    throw OutputError(std::string("cannot hold the output back in a temporary file: ") + std::strerror(errno));
  return Fd(fd);
}

}  // namespace

OutputHold::OutputHold(const OutputMode& mode)
    : file_(anonymous_file()), writer_(file_.get()), emitter_(writer_, mode) {}

void OutputHold::release_into(Writer& out) {
  writer_.flush();
  char buf[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(file_.get(), buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw OutputError(std::string("cannot read back the output held: ") + std::strerror(errno));
    if (n == 0) break;
    out.write(std::string_view(buf, static_cast<std::size_t>(n)));
    at += n;
  }
  out.flush();
}

}  // namespace tlbf_dedup
