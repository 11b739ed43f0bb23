// The emitter (src/output/emitter.hpp): what --only-dups, --mark, --compact and --explain write
// for a judged record, and which records are borrowed rather than copied.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include <unistd.h>

#include "output/emitter.hpp"
#include "output/json_member.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::TempFile;

// What an emitter in `mode` writes for the calls `fn` makes.
template <class Fn>
std::string emitted(const OutputMode& mode, Fn&& fn) {
  TempFile f;
  const int fd = f.open_for_writing();
  {
    Writer w(fd);
    Emitter e(w, mode);
    fn(e);
    w.flush();
  }
  ::close(fd);
  return f.read();
}

OutRecord line(std::string_view bytes, std::size_t text_size, bool borrowable = false) {
  return OutRecord{bytes, text_size, InputFormat::lines, borrowable};
}
OutRecord object(std::string_view bytes, std::size_t text_size) {
  return OutRecord{bytes, text_size, InputFormat::json, false};
}

}  // namespace

TEST_SUITE("emitter") {
  TEST_CASE("mark: lines get a column, JSON objects a member before the closing brace") {
    OutputMode mode;
    mode.mark = true;
    const std::string out = emitted(mode, [](Emitter& e) {
      e.decided(line("a b\n", 3), true);
      e.decided(line("c\r\n", 1), false);
      e.decided(object("{\"k\":1}\n", 7), true);
      e.decided(object("{\"k\":1}  \r\n", 9), false);
      e.decided(object("{ }\n", 3), false);
      e.decided(object("[1]\n", 3), false);      // not an object: unchanged
      e.decided(object("{\"k\":1}", 7), false);  // no terminator stays without one
    });
    CHECK(out ==
          "dup\ta b\n"
          "new\tc\r\n"
          "{\"k\":1,\"dup\":true}\n"
          "{\"k\":1,\"dup\":false}  \r\n"
          "{ \"dup\":false}\n"
          "[1]\n"
          "{\"k\":1,\"dup\":false}");
  }

  TEST_CASE("mark: a member of the flag's name has its value replaced, not a second member added") {
    OutputMode mode;
    mode.mark = true;
    mode.mark_name = "seen";
    const std::string out = emitted(mode, [](Emitter& e) {
      e.decided(object("{\"seen\":\"x\",\"k\":1}\n", 18), true);
      e.decided(object("{\"k\":{\"seen\":1}, \"seen\" : [1, 2] }\n", 34), false);
    });
    CHECK(out ==
          "{\"seen\":true,\"k\":1}\n"
          "{\"k\":{\"seen\":1}, \"seen\" : false }\n");
  }

  TEST_CASE("only-dups writes the duplicates, without it the new records, undecided ones always") {
    OutputMode keep;
    CHECK(emitted(keep, [](Emitter& e) {
            CHECK(e.decided(line("a\n", 1), false));
            CHECK_FALSE(e.decided(line("b\n", 1), true));
            e.undecided(line("c\n", 1));
          }) == "a\nc\n");
    OutputMode dups;
    dups.only_dups = true;
    CHECK(emitted(dups, [](Emitter& e) {
            CHECK_FALSE(e.decided(line("a\n", 1), false));
            CHECK(e.decided(line("b\n", 1), true));
            e.continuation("  more\n");
          }) == "b\n  more\n");
    dups.mark = true;
    CHECK(emitted(dups, [](Emitter& e) {
            CHECK_FALSE(e.decided(line("a\n", 1), false));
            CHECK(e.decided(line("b\n", 1), true));
            e.undecided(line("c\n", 1));
          }) == "dup\tb\nnew\tc\n");
  }

  TEST_CASE("compact: a valid JSON value is minified, anything else written as read") {
    OutputMode compact;
    compact.compact = true;
    const auto json_line = [](std::string_view bytes) { return object(bytes, bytes.size() - 1); };
    CHECK(emitted(compact, [&](Emitter& e) {
            CHECK(e.decided(json_line("{ \"a\" : [1, 2],\t\"b\": \"x  y\" }\n"), false));
            CHECK(e.decided(json_line("[ 1, 2 ]\n"), false));
            e.undecided(json_line("hello   world  x\n"));  // text, as --on-error pass writes it
            CHECK(e.decided(json_line("1 2\n"), false));   // two values: glued, they would be 12
            CHECK(e.decided(json_line("{\"a\": 1 2}\n"), false));
            CHECK(e.decided(json_line("{\"a\": 1\n"), false));
          }) == "{\"a\":[1,2],\"b\":\"x  y\"}\n[1,2]\nhello   world  x\n1 2\n{\"a\": 1 2}\n{\"a\": 1\n");
  }

  TEST_CASE("a borrowable record is not copied: the writer reads it at the flush") {
    std::string source = "a\n";
    TempFile f;
    const int fd = f.open_for_writing();
    {
      Writer w(fd);
      Emitter e(w, OutputMode{});
      e.decided(line(source, 1, true), false);
      source[0] = 'b';  // changed before the flush: the writer sees the change
      std::string copied = "c\n";
      e.decided(line(copied, 1, false), false);
      copied[0] = 'x';  // a copy was taken: the change is not seen
      w.flush();
    }
    ::close(fd);
    CHECK(f.read() == "b\nc\n");
  }

  TEST_CASE("explain: one line of columns per record instead of the record") {
    const std::string_view key = "a";
    TimeReading t;
    t.present = t.parsed = true;
    t.text = "5";
    t.time = 5 * tlbf::kSecond;
    const std::string out = emitted(OutputMode{}, [&](Emitter& e) {
      e.explain_header();
      e.explain(ExplainLine{"in.txt", 3, &key, false, &t, 9 * tlbf::kSecond, "dup late"});
      e.explain(ExplainLine{"in.txt", 4, nullptr, false, nullptr, 9 * tlbf::kSecond, "error"});
    });
    CHECK(out ==
          "#record\tkey\ttime_text\ttime\tclock\tdecision\n"
          "in.txt:3\t[\"a\"]\t\"5\"\t1970-01-01T00:00:05Z\t1970-01-01T00:00:09Z\tdup late\n"
          "in.txt:4\t-\t-\t-\t1970-01-01T00:00:09Z\terror\n");
  }

  TEST_CASE("the member scanner finds top-level members only, and gives up on damaged objects") {
    constexpr auto npos = std::string_view::npos;
    using Span = std::pair<std::size_t, std::size_t>;
    CHECK(find_member_value(R"({"a":1,"dup":true})", "dup") == Span{13, 17});
    CHECK(find_member_value(R"({"a":{"dup":1}})", "dup") == Span{npos, npos});
    CHECK(find_member_value(R"({"a":"x\"dup","dup" : "y" })", "dup") == Span{22, 25});
    CHECK(find_member_value(R"({"a":"unclosed)", "dup") == Span{npos, npos});
    CHECK(find_member_value(R"({"a" 1})", "dup") == Span{npos, npos});
  }
}
