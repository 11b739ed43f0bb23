// The record reader (src/input/record_reader.hpp): terminators, CRLF, the unterminated last
// record, several inputs, buffer growth for long records, and the input-pause hook.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "input/record_reader.hpp"
#include "test_helpers_cli.hpp"

namespace {
struct Got {
  std::string text;
  std::uint32_t term;
};

std::vector<Got> read_all(tlbf_dedup::RecordReader& r) {
  std::vector<Got> out;
  tlbf_dedup::Record rec;
  while (r.next(rec)) {
    // The padding after every record is readable (simdjson parses in place).
    volatile char last_pad = rec.data[rec.size + tlbf_dedup::RecordReader::kTailPadding - 1];
    (void)last_pad;
    out.push_back({std::string(rec.text()), rec.term_len});
  }
  return out;
}
}  // namespace

TEST_SUITE("record_reader") {
  using tlbf_dedup::RecordReader;
  using tlbf_dedup_test::TempFile;

  TEST_CASE("LF, CRLF, a lone CR and the last record without terminator") {
    TempFile f("a\nb\r\nc\rd\n\nlast");
    RecordReader r({f.path()}, '\n');
    auto got = read_all(r);
    REQUIRE(got.size() == 5);
    CHECK(got[0].text == "a");
    CHECK(got[0].term == 1);
    CHECK(got[1].text == "b");
    CHECK(got[1].term == 2);  // the CR belongs to the terminator
    CHECK(got[2].text == "c\rd");
    CHECK(got[3].text == "");
    CHECK(got[4].text == "last");
    CHECK(got[4].term == 0);
    CHECK(r.bytes_read() == 14);
    CHECK(r.total_size() == 14);
  }

  TEST_CASE("NUL records keep newlines and CRs inside") {
    TempFile f(std::string("x\r\ny\0z\r\0", 8));
    RecordReader r({f.path()}, '\0');
    auto got = read_all(r);
    REQUIRE(got.size() == 2);
    CHECK(got[0].text == "x\r\ny");
    CHECK(got[0].term == 1);
    CHECK(got[1].text == "z\r");  // a CR before NUL is data
  }

  TEST_CASE("files in order, each one's last record ends with the file, in the file's own convention") {
    TempFile a("1\n2"), b(""), c("3\r\n4"), d("5\n6");
    RecordReader r({a.path(), b.path(), c.path(), d.path()}, '\n');
    std::vector<std::string> bytes;
    std::vector<std::uint64_t> numbers;
    tlbf_dedup::Record rec;
    while (r.next(rec)) {
      bytes.emplace_back(rec.bytes());
      numbers.push_back(r.record_in_input());
    }
    // A following input ends the record: LF after an LF file, CR LF after a CR LF file; the
    // very last input's last record keeps its missing terminator.
    CHECK(bytes == std::vector<std::string>{"1\n", "2\n", "3\r\n", "4\r\n", "5\n", "6"});
    CHECK(numbers == std::vector<std::uint64_t>{1, 2, 1, 2, 1, 2});
  }

  TEST_CASE("-z: a following input ends the last record with NUL") {
    TempFile a(std::string("x\0y", 3)), b("z");
    RecordReader r({a.path(), b.path()}, '\0');
    auto got = read_all(r);
    REQUIRE(got.size() == 3);
    CHECK(got[1].text == "y");
    CHECK(got[1].term == 1);
    CHECK(got[2].term == 0);
  }

  TEST_CASE("records far longer than the buffer grow it, bytes are intact") {
    std::string big(300000, 'x');
    for (std::size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
    std::string contents = "s\n" + big + "\r\nt\n" + big;
    TempFile f(contents);
    RecordReader r({f.path()}, '\n', 4096);
    auto got = read_all(r);
    REQUIRE(got.size() == 4);
    CHECK(got[1].text == big);
    CHECK(got[1].term == 2);
    CHECK(got[2].text == "t");
    CHECK(got[3].text == big);
    CHECK(got[3].term == 0);
  }

  TEST_CASE("a large first buffer (huge pages) grows out of its block with its bytes") {
    const std::size_t size = RecordReader::kHugeBufferFrom;
    std::string big(3 * size, 'x');
    for (std::size_t i = 0; i < big.size(); i += 991) big[i] = static_cast<char>('a' + i % 26);
    std::string contents;
    for (int i = 0; contents.size() < size / 2; ++i) contents += "line-" + std::to_string(i) + "\n";
    const std::size_t lines = static_cast<std::size_t>(std::count(contents.begin(), contents.end(), '\n'));
    contents += big + "\nlast\n";
    TempFile f(contents);
    RecordReader r({f.path()}, '\n', size);
    auto got = read_all(r);
    REQUIRE(got.size() == lines + 2);
    CHECK(got[0].text == "line-0");
    CHECK(got[lines - 1].text == "line-" + std::to_string(lines - 1));
    CHECK(got[lines].text == big);
    CHECK(got[lines + 1].text == "last");
  }

  TEST_CASE("handed-out records stay unchanged until the buffer-reuse hook runs") {
    // Lines of varied lengths over a small buffer (slides and a growth), then a second input.
    std::string a, b;
    for (int i = 0; i < 3000; ++i)
      a += "line-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 50), 'x') + "\n";
    a += std::string(9000, 'L') + "\n";  // longer than the buffer: it grows
    for (int i = 0; i < 500; ++i) b += "second-" + std::to_string(i) + "\n";
    TempFile fa(a), fb(b);
    RecordReader r({fa.path(), fb.path()}, '\n', 4096);
    struct Seen {
      std::string_view where;  // into the reader's buffer
      std::string copy;
    };
    std::vector<Seen> since_hook;
    int hooks = 0, checked = 0;
    auto check_all = [&] {
      for (const Seen& s : since_hook) {
        CHECK(s.where == s.copy);
        ++checked;
      }
      since_hook.clear();
    };
    r.on_buffer_reuse([&] {
      ++hooks;
      check_all();
    });
    tlbf_dedup::Record rec;
    std::string all;
    while (r.next(rec)) {
      since_hook.push_back({rec.bytes(), std::string(rec.bytes())});
      all += rec.bytes();
    }
    check_all();
    CHECK(all == a + b);
    CHECK(hooks >= 3);  // slides, the growth, the second input
    CHECK(checked == 3000 + 1 + 500);
  }

  TEST_CASE("a CR LF split across two reads is still one terminator") {
    // 4096-byte buffer: put the CR as the last byte of the first read.
    std::string first(4095, 'a');
    TempFile f(first + "\r\nb\n");
    RecordReader r({f.path()}, '\n', 4096);
    auto got = read_all(r);
    REQUIRE(got.size() == 2);
    CHECK(got[0].text == first);
    CHECK(got[0].term == 2);
  }

  TEST_CASE("a missing file is an InputError naming it") {
    RecordReader r({"/nonexistent/tlbf-input"}, '\n');
    tlbf_dedup::Record rec;
    CHECK_THROWS_WITH_AS(r.next(rec), doctest::Contains("/nonexistent/tlbf-input"), tlbf_dedup::InputError);
  }

  TEST_CASE("the pause hook runs when a pipe has no data yet, before blocking") {
    tlbf_dedup_test::StdinPipe pipe;
    int pauses = 0;
    std::vector<std::string> seen_at_pause;
    {
      RecordReader r({"-"}, '\n');
      std::vector<std::string> got;
      r.on_input_pause([&]() -> int {
        ++pauses;
        seen_at_pause.push_back(got.empty() ? "" : got.back());
        return -1;
      });
      REQUIRE(::write(pipe.write_fd(), "a\n", 2) == 2);
      std::thread writer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        (void)::write(pipe.write_fd(), "b\n", 2);
        pipe.close_write();
      });
      tlbf_dedup::Record rec;
      while (r.next(rec)) got.emplace_back(rec.text());
      writer.join();
      CHECK(got == std::vector<std::string>{"a", "b"});
    }
    CHECK(pauses >= 1);
    CHECK(std::find(seen_at_pause.begin(), seen_at_pause.end(), "a") !=
          seen_at_pause.end());  // "a" was out before the wait
  }

  TEST_CASE("--multiline: a start line and its continuation lines are one record, head first") {
    TempFile f("pre\n2024-01 a\n  at x\r\n  at y\n2024-02 b\n2024-03 c\n  tail");
    tlbf_dedup::ReaderConfig config;
    config.multiline = "^\\d{4}-";
    RecordReader r({f.path()}, config);
    std::vector<std::string> bytes, heads;
    tlbf_dedup::Record rec;
    while (r.next(rec)) {
      bytes.emplace_back(rec.bytes());
      heads.emplace_back(rec.head().text());
      CHECK(!rec.continues);
    }
    // Lines before the first start line are a record of their own; every byte is kept.
    CHECK(bytes ==
          std::vector<std::string>{"pre\n", "2024-01 a\n  at x\r\n  at y\n", "2024-02 b\n", "2024-03 c\n  tail"});
    CHECK(heads == std::vector<std::string>{"pre", "2024-01 a", "2024-02 b", "2024-03 c"});
    CHECK(r.record_in_input() == 4);
  }

  TEST_CASE("--multiline: \\d means a digit, an unterminated start line ends the record before") {
    TempFile f("1 a\n more\n2 b");
    tlbf_dedup::ReaderConfig config;
    config.multiline = "^\\d ";
    RecordReader r({f.path()}, config);
    auto got = read_all(r);
    REQUIRE(got.size() == 2);
    CHECK(got[0].text == "1 a\n more");
    CHECK(got[1].text == "2 b");
    CHECK(got[1].term == 0);
    CHECK_THROWS_AS(tlbf_dedup::LineStartPattern("(a"), std::invalid_argument);
  }

  TEST_CASE("--max-record: a longer line or multi-line record is an InputError naming file and record") {
    TempFile f("short\n" + std::string(5000, 'x') + "\n");
    tlbf_dedup::ReaderConfig config;
    config.max_record = 100;
    config.buffer_size = 4096;
    RecordReader r({f.path()}, config);
    tlbf_dedup::Record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.text() == "short");
    const std::string message = f.path() + ": record 2 is longer than --max-record 100 bytes";
    CHECK_THROWS_WITH_AS(r.next(rec), doctest::Contains(message.c_str()), tlbf_dedup::InputError);

    TempFile m("A 1\n" + std::string(60, 'y') + "\n" + std::string(60, 'y') + "\nA 2\n");
    config.multiline = "^A";
    RecordReader rm({m.path()}, config);
    CHECK_THROWS_WITH_AS(rm.next(rec), doctest::Contains("record 1 is longer"), tlbf_dedup::InputError);
  }

  TEST_CASE("--max-record is exact whatever the reads: a record found in one read is checked too") {
    // One read takes the whole file into the grown buffer; the limit still holds to the byte.
    TempFile f("a\r\n" + std::string(20000, 'x') + "\r\nb");
    for (std::size_t limit : {std::size_t{19999}, std::size_t{20000}}) {
      tlbf_dedup::ReaderConfig config;
      config.max_record = limit;
      config.buffer_size = 4096;
      RecordReader r({f.path()}, config);
      tlbf_dedup::Record rec;
      REQUIRE(r.next(rec));
      CHECK(rec.text() == "a");
      if (limit < 20000) {
        CHECK_THROWS_WITH_AS(r.next(rec), doctest::Contains("record 2 is longer than --max-record 19999 bytes"),
                             tlbf_dedup::InputError);
      } else {
        REQUIRE(r.next(rec));
        CHECK(rec.size == 20000);
        CHECK(rec.term_len == 2);
        REQUIRE(r.next(rec));
        CHECK(rec.text() == "b");
      }
    }
  }

  TEST_CASE("--multiline: a record open when a pipe pauses goes out after the timeout, later lines continue it") {
    tlbf_dedup_test::StdinPipe pipe;
    std::vector<std::string> got;
    std::vector<bool> continues;
    std::atomic<bool> first_out{false};
    {
      tlbf_dedup::ReaderConfig config;
      config.multiline = "^[0-9]";
      config.multiline_timeout_ms = 50;
      RecordReader r({"-"}, config);
      REQUIRE(::write(pipe.write_fd(), "1 a\n x\n", 7) == 7);
      std::thread writer([&] {
        // Only once "1 a" came out on its own (the timeout) do the next lines go in.
        while (!first_out) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        (void)::write(pipe.write_fd(), " y\n2 b\n", 7);
        pipe.close_write();
      });
      tlbf_dedup::Record rec;
      while (r.next(rec)) {
        got.emplace_back(rec.bytes());
        continues.push_back(rec.continues);
        first_out = true;
      }
      writer.join();
    }
    CHECK(got == std::vector<std::string>{"1 a\n x\n", " y\n", "2 b\n"});
    CHECK(continues == std::vector<bool>{false, true, false});
  }
}
