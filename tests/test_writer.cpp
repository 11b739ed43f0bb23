// Buffered output and the --mark forms (src/writer.hpp).
#include <doctest/doctest.h>

#include <csignal>
#include <string>

#include "test_helpers_cli.hpp"
#include "writer.hpp"

TEST_SUITE("writer") {
  using namespace tlbf_dedup;
  using tlbf_dedup_test::TempFile;

  TEST_CASE("bytes arrive in order, unchanged, only when flushed or the buffer fills") {
    TempFile f;
    int fd = f.open_for_writing();
    {
      Writer w(fd, 64);
      w.write("abc");
      w.write(std::string("\0\xff\r\n", 4));
      CHECK(f.read().empty());  // still buffered
      w.flush();
      CHECK(f.read() == std::string("abc\0\xff\r\n", 7));
      std::string big(1000, 'z');  // larger than the buffer: written straight through
      w.write(big);
      w.write("tail");
      w.flush();
      CHECK(f.read() == std::string("abc\0\xff\r\n", 7) + big + "tail");
      CHECK(w.bytes_written() == 7 + 1000 + 4);
    }
    ::close(fd);
  }

  TEST_CASE("a closed pipe is BrokenPipe, not an error") {
    std::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    ::close(fds[0]);
    Writer w(fds[1], 16);
    w.write("hello");
    CHECK_THROWS_AS(w.flush(), BrokenPipe);
    ::close(fds[1]);
  }

  TEST_CASE("mark: lines get a column, JSON objects a member before the closing brace") {
    TempFile f;
    int fd = f.open_for_writing();
    Writer w(fd);
    auto mark = [&](std::string_view bytes, std::size_t text_size, bool json, bool dup) {
      write_marked(w, bytes, text_size, json, dup, json_escape("dup"));
    };
    mark("a b\n", 3, false, true);
    mark("c\r\n", 1, false, false);
    mark("{\"k\":1}\n", 7, true, true);
    mark("{\"k\":1}  \r\n", 9, true, false);
    mark("{ }\n", 3, true, false);
    mark("[1]\n", 3, true, false);   // not an object: unchanged
    mark("{\"k\":1}", 7, true, false);  // no terminator stays without one
    w.flush();
    CHECK(f.read() ==
          "dup\ta b\n"
          "new\tc\r\n"
          "{\"k\":1,\"dup\":true}\n"
          "{\"k\":1,\"dup\":false}  \r\n"
          "{ \"dup\":false}\n"
          "[1]\n"
          "{\"k\":1,\"dup\":false}");
    ::close(fd);
  }

  TEST_CASE("json_escape") {
    CHECK(json_escape("dup") == "dup");
    CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
    CHECK(json_escape(std::string("\x01\n", 2)) == "\\u0001\\u000a");
  }
}
