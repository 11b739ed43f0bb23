// Helpers shared by the tests of the program's stages: temporary files and pipes.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

namespace tlbf_dedup_test {

// A file in the temporary directory, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(std::string_view contents = {}) {
    char name[] = "/tmp/tlbf-test-XXXXXX";
    int fd = ::mkstemp(name);
    path_ = name;
    std::size_t off = 0;
    while (off < contents.size()) {
      ssize_t w = ::write(fd, contents.data() + off, contents.size() - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    ::close(fd);
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  std::string read() const {
    std::string out;
    FILE* f = std::fopen(path_.c_str(), "rb");
    if (!f) return out;
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
    return out;
  }
  int open_for_writing() const { return ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC); }

 private:
  std::string path_;
};

}  // namespace tlbf_dedup_test
