// Helpers shared by the tests of the program's stages: temporary files, a clock driven by
// hand and a diagnostics sink that records instead of printing.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "base/clock.hpp"
#include "report/diagnostics.hpp"

namespace tlbf_dedup_test {

// Stdin replaced by the read end of a pipe while this lives, so a reader of "-" takes the
// pipe path (pauses, the pause hook); the test writes to write_fd() and calls close_write()
// for the end of input.
class StdinPipe {
 public:
  StdinPipe() {
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    saved_ = ::dup(0);
    ::dup2(fds[0], 0);
    ::close(fds[0]);
    write_ = fds[1];
  }
  ~StdinPipe() {
    close_write();
    ::dup2(saved_, 0);
    ::close(saved_);
  }
  StdinPipe(const StdinPipe&) = delete;
  StdinPipe& operator=(const StdinPipe&) = delete;
  int write_fd() const { return write_; }
  void close_write() {
    if (write_ >= 0) ::close(write_);
    write_ = -1;
  }

 private:
  int saved_ = -1;
  int write_ = -1;
};

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

// Time moves only when a test says so: every wall_ns() read is one arrival and moves wall and
// steady time forward by `tick` (0: time stands still); steady_ns() only reads.
class ManualClock final : public tlbf_dedup::Clock {
 public:
  explicit ManualClock(std::int64_t tick = 0) : tick_(tick) {}
  tlbf::Time wall_ns() override {
    wall_ += tick_;
    steady_ += tick_;
    return wall_;
  }
  std::int64_t steady_ns() override { return steady_; }
  void advance(std::int64_t ns) {
    wall_ += ns;
    steady_ += ns;
  }

 private:
  std::int64_t tick_;
  tlbf::Time wall_ = 0;
  std::int64_t steady_ = 0;
};

class RecordingDiagnostics final : public tlbf_dedup::Diagnostics {
 public:
  void warning(const tlbf_dedup::Warning& w) override { warnings.push_back(w); }
  void summary(const tlbf_dedup::RunStats& s) override { summaries.push_back(s); }
  std::vector<tlbf_dedup::Warning> warnings;
  std::vector<tlbf_dedup::RunStats> summaries;
};

}  // namespace tlbf_dedup_test
