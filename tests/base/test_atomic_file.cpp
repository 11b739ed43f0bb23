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

  TEST_CASE("only a regular file is created or replaced, 0600 when new, never through a link") {
    char dir_template[] = "/tmp/tlbf-atomic-XXXXXX";
    REQUIRE(::mkdtemp(dir_template) != nullptr);
    const std::string dir = dir_template;
    const auto contents = [](const std::string& path) {
      Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
      return tlbf_dedup::read_all(fd, path);
    };
    tlbf_dedup::write_file_atomically(dir + "/new", "x");
    struct stat st {};
    REQUIRE(::stat((dir + "/new").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    // A link (to a file, or to nothing) and a FIFO are left as they are, and said.
    tlbf_dedup::write_file_atomically(dir + "/victim", "data");
    REQUIRE(::symlink("victim", (dir + "/link").c_str()) == 0);
    REQUIRE(::symlink("nowhere", (dir + "/dangling").c_str()) == 0);
    REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(tlbf_dedup::write_file_atomically(dir + "/link", "y"),
                         doctest::Contains("is a symbolic link, which is never replaced"), tlbf_dedup::FileError);
    CHECK_THROWS_AS(tlbf_dedup::write_file_atomically(dir + "/dangling", "y"), tlbf_dedup::FileError);
    CHECK_THROWS_WITH_AS(tlbf_dedup::write_file_atomically(dir + "/fifo", "y"), doctest::Contains("is a FIFO"),
                         tlbf_dedup::FileError);
    CHECK(contents(dir + "/victim") == "data");
    REQUIRE(::lstat((dir + "/link").c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(::access((dir + "/nowhere").c_str(), F_OK) != 0);
    // The lock file: a link is refused, not followed; a FIFO refused; a second name (a hard
    // link) locked but not written; a new one 0600.
    CHECK_THROWS_WITH_AS(tlbf_dedup::ExclusiveLock::acquire(dir + "/link", {}, nullptr),
                         doctest::Contains("a lock file is never followed"), tlbf_dedup::FileError);
    CHECK_THROWS_WITH_AS(tlbf_dedup::ExclusiveLock::acquire(dir + "/fifo", {}, nullptr), doctest::Contains("is a FIFO"),
                         tlbf_dedup::FileError);
    REQUIRE(::link((dir + "/victim").c_str(), (dir + "/hard.lock").c_str()) == 0);
    CHECK(tlbf_dedup::ExclusiveLock::acquire(dir + "/hard.lock", {}, nullptr).has_value());
    CHECK(contents(dir + "/victim") == "data");
    CHECK(tlbf_dedup::ExclusiveLock::acquire(dir + "/new.lock", {}, nullptr).has_value());
    REQUIRE(::stat((dir + "/new.lock").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    for (const char* name : {"new", "victim", "link", "dangling", "fifo", "hard.lock", "new.lock"})
      ::unlink((dir + "/" + name).c_str());
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
