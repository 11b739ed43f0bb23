// Owned descriptors and atomic file replacement (src/base/atomic_file.hpp).
#include <doctest/doctest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/atomic_file.hpp"
#include "test_helpers_cli.hpp"

namespace {
using tlbf_dedup::Fd;

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// Entries of `dir` other than "." and "..".
int entries(const std::string& dir) {
  int n = 0;
  DIR* d = ::opendir(dir.c_str());
  while (const dirent* e = ::readdir(d)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
  ::closedir(d);
  return n;
}
}  // namespace

TEST_SUITE("atomic_file") {
  TEST_CASE("Fd closes its descriptor at scope exit, once, and moves ownership") {
    int raw = -1;
    {
      Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      REQUIRE(a);
      raw = a.get();
      Fd b(std::move(a));
      CHECK(!a);
      CHECK(b.get() == raw);
      CHECK(is_open(raw));
    }
    CHECK(!is_open(raw));
    Fd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    CHECK(c.close() == 0);
    CHECK(!c);
    CHECK(c.close() == 0);  // nothing left to close
  }

  TEST_CASE("write_file_atomically replaces the file, keeps its mode and leaves no temporary file") {
    char dir_template[] = "/tmp/tlbf-atomic-XXXXXX";
    REQUIRE(::mkdtemp(dir_template) != nullptr);
    const std::string dir = dir_template, path = dir + "/f";
    tlbf_dedup::write_file_atomically(path, "first");
    ::chmod(path.c_str(), 0640);
    tlbf_dedup::write_file_atomically(path, "second, longer");
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    CHECK(tlbf_dedup::read_all(fd, path) == "second, longer");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    CHECK(entries(dir) == 1);
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }

  TEST_CASE("a failure names the file and the step") {
    try {
      tlbf_dedup::write_file_atomically("/nonexistent-dir/f", "x");
      FAIL("wrote into a missing directory");
    } catch (const tlbf_dedup::FileError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("'/nonexistent-dir/f': cannot create temporary file") == 0);
      CHECK(msg.find("No such file or directory") != std::string::npos);
    }
  }

  TEST_CASE("ExclusiveLock: one holder at a time, the holder's pid in the message, free again when it ends") {
    using tlbf_dedup::ExclusiveLock;
    using namespace std::chrono_literals;
    tlbf_dedup_test::TempFile lock_file;  // flock conflicts between two open files even in one process
    const volatile int no_stop = 0;
    {
      auto first = ExclusiveLock::acquire(lock_file.path(), 0ms, &no_stop);
      REQUIRE(first.has_value());
      CHECK(lock_file.read() == std::to_string(::getpid()) + "\n");
      try {
        (void)ExclusiveLock::acquire(lock_file.path(), 50ms, &no_stop);
        FAIL("a second lock was granted while the first is held");
      } catch (const tlbf_dedup::LockBusy& e) {
        CHECK(e.holder_pid() == ::getpid());
        CHECK(std::string(e.what()).find("'" + lock_file.path() + "': locked by another process (pid ") == 0);
      }
      const volatile int stopped = 15;  // a signal arrived while waiting: give up, no lock
      CHECK_FALSE(ExclusiveLock::acquire(lock_file.path(), 10s, &stopped).has_value());
    }
    CHECK(ExclusiveLock::acquire(lock_file.path(), 0ms, &no_stop).has_value());
  }
}
