// Buffered output (src/output/writer.hpp): order, borrowing, broken pipes and stops.
#include <doctest/doctest.h>

#include <csignal>
#include <string_view>

#include <unistd.h>
#include <string>

#include "output/writer.hpp"
#include "test_helpers_cli.hpp"

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

  TEST_CASE("borrowed bytes go out in order with copied ones, runs of adjacent ones as one piece") {
    TempFile f;
    int fd = f.open_for_writing();
    {
      Writer w(fd, 64);
      const std::string input = "r1\nr2\nr3\nr4\nr5\n";
      const std::string_view in(input);
      w.write_borrowed(in.substr(0, 3));
      w.write_borrowed(in.substr(3, 3));  // adjacent: extends the piece
      w.write("new\t");                   // copied between borrowed pieces
      w.write_borrowed(in.substr(9, 3));
      w.write_borrowed(in.substr(12, 3));
      CHECK(f.read().empty());  // nothing written before a flush
      CHECK(w.bytes_written() == 16);
      w.return_borrowed();
      CHECK(f.read() == "r1\nr2\nnew\tr4\nr5\n");
      w.write("copied only");
      w.return_borrowed();  // nothing borrowed: the buffer waits for flush()
      CHECK(f.read() == "r1\nr2\nnew\tr4\nr5\n");
      w.flush();
      CHECK(f.read() == "r1\nr2\nnew\tr4\nr5\ncopied only");
    }
    ::close(fd);
  }

  TEST_CASE("borrowed bytes pending stay under the buffer's size and IOV_MAX pieces") {
    TempFile f;
    int fd = f.open_for_writing();
    std::string expected;
    {
      Writer w(fd, 64);
      const std::string input(200, 'x');
      for (std::size_t i = 0; i < 200; i += 10) w.write_borrowed(std::string_view(input).substr(i, 10));
      CHECK(f.read().size() >= 128);  // a buffer's worth went out without a flush
      w.flush();
      CHECK(f.read() == input);
      // Pieces that are not adjacent (every other record dropped): no more than IOV_MAX wait.
      std::string many;
      for (int i = 0; i < 3000; ++i) many += static_cast<char>('a' + i % 26);
      Writer wide(fd, std::size_t{1} << 20);
      for (std::size_t i = 0; i < many.size(); i += 2) {
        wide.write_borrowed(std::string_view(many).substr(i, 1));
        expected += many[i];
      }
      CHECK(f.read().size() > input.size());
      wide.flush();
    }
    CHECK(f.read() == std::string(200, 'x') + expected);
    ::close(fd);
  }

  TEST_CASE(
      "borrowed runs shorter than kMinBorrowedRun are copied from the next flush on (unless told not to), long runs "
      "borrowed again") {
    TempFile f;
    int fd = f.open_for_writing();
    std::string expected;
    {
      Writer w(fd, std::size_t{1} << 20);
      std::string input(64 * 1024, '\0');
      for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<char>('a' + i % 26);
      const std::string_view in(input);
      // Every other 100-byte record kept: runs of 100 bytes.
      auto short_runs = [&] {
        for (std::size_t i = 0; i < 20000; i += 200) {
          w.write_borrowed(in.substr(i, 100));
          expected += input.substr(i, 100);
        }
      };
      short_runs();
      CHECK_FALSE(w.copying_runs());  // borrowed until a flush has seen the runs
      w.flush();
      CHECK(w.copying_runs());
      short_runs();
      input.replace(0, 20000, 20000, '#');  // copied: what was handed over goes out unchanged
      w.flush();
      CHECK(f.read() == expected);
      CHECK(w.copying_runs());
      // Runs of 8 KiB: borrowed again after the next flush, and then not copied.
      for (std::size_t i = 0; i < input.size(); i += 16384) {
        w.write_borrowed(in.substr(i, 8192));
        expected += input.substr(i, 8192);
      }
      w.flush();
      CHECK_FALSE(w.copying_runs());
      w.write_borrowed(in.substr(30000, 100));
      input[30000] = '!';
      expected += input.substr(30000, 100);
      w.flush();
      // Told not to, it borrows short runs too.
      Writer borrowing(fd, std::size_t{1} << 20);
      borrowing.copy_short_runs(false);
      for (std::size_t i = 0; i < 20000; i += 200) {
        borrowing.write_borrowed(in.substr(i, 100));
        expected += input.substr(i, 100);
      }
      borrowing.flush();
      CHECK_FALSE(borrowing.copying_runs());
      for (std::size_t i = 0; i < 20000; i += 200) {
        borrowing.write_borrowed(in.substr(i, 100));
        input[i] = '?';  // borrowed: the change goes out
        expected += input.substr(i, 100);
      }
      borrowing.flush();
    }
    CHECK(f.read() == expected);
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

  TEST_CASE("after a stop, a full pipe ends the write with OutputStopped, and a pipe with room takes the bytes") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    volatile int stop = 0;
    Writer w(fds[1], 1 << 20);
    w.set_stop_flag(&stop);
    const std::string chunk(1 << 12, 'x');
    // Before the stop: the pipe (64 KiB) takes 16 chunks and the rest waits in the buffer.
    for (int i = 0; i < 16; ++i) w.write(chunk);
    w.flush();
    w.write(chunk);
    w.write(chunk);
    stop = SIGTERM;
    std::uint64_t unwritten = 0;
    try {
      w.flush();
    } catch (const OutputStopped& e) {
      unwritten = e.unwritten;
    }
    CHECK(unwritten == 2 * chunk.size());
    // Room again: 8 chunks are read out, then 8 are written after the stop without blocking.
    std::string got(8 * chunk.size(), '\0');
    REQUIRE(::read(fds[0], got.data(), got.size()) == static_cast<ssize_t>(got.size()));
    for (int i = 0; i < 8; ++i) w.write(chunk);
    CHECK_NOTHROW(w.flush());
    CHECK(w.bytes_written() == 24 * chunk.size());  // the 2 stopped chunks never count
    ::close(fds[0]);
    ::close(fds[1]);
  }

  TEST_CASE("after a stop, OutputStopped also counts the bytes whose write or borrow needed the flush") {
    const std::string chunk(1 << 12, 'x');
    const std::string big(6 << 10, 'y');  // with 3 chunks buffered, more than a 16 KiB buffer holds
    for (bool borrowed : {false, true}) {
      CAPTURE(borrowed);
      int fds[2];
      REQUIRE(::pipe(fds) == 0);
      volatile int stop = 0;
      Writer w(fds[1], 16 << 10);
      w.set_stop_flag(&stop);
      for (int i = 0; i < 16; ++i) {  // fill the pipe (64 KiB)
        w.write(chunk);
        w.flush();
      }
      for (int i = 0; i < 3; ++i) borrowed ? w.write_borrowed(chunk) : w.write(chunk);
      stop = SIGTERM;
      std::uint64_t unwritten = 0;
      try {
        borrowed ? w.write_borrowed(big) : w.write(big);
      } catch (const OutputStopped& e) {
        unwritten = e.unwritten;
      }
      CHECK(unwritten == 3 * chunk.size() + big.size());
      ::close(fds[0]);
      ::close(fds[1]);
    }
  }

  TEST_CASE("writes that stay inside room() never flush: nothing reaches the descriptor before flush()") {
    std::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    ::close(fds[0]);  // any write(2) would fail with EPIPE
    Writer w(fds[1], 4096);
    std::string chunk(100, 'x');
    std::string borrowed(8192, 'y');
    WriterRoom room = w.room();
    std::size_t at = 0;
    // Alternate copies and non-adjacent borrows (each a piece of its own) while they fit.
    for (int i = 0; room.calls > 0; ++i) {
      if (i % 2 == 0) {
        if (chunk.size() > room.copied) break;
        w.write(chunk);
        room.copied -= chunk.size();
      } else {
        if (at + 10 > borrowed.size() || 9 > room.borrowed) break;
        w.write_borrowed(std::string_view(borrowed).substr(at, 9));  // a gap of 1: never adjacent
        at += 10;
        room.borrowed -= 9;
      }
      --room.calls;
    }
    CHECK(w.bytes_written() > 0);
    CHECK_THROWS_AS(w.flush(), BrokenPipe);  // the first write(2) of the run
    ::close(fds[1]);
  }
}
