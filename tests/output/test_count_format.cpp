// The count fields of --count (src/output/count_format.hpp): the line template and its
// errors, the JSON members (added, or replacing a member of the same name), the time forms.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include <unistd.h>

#include "output/count_format.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::TempFile;

// What `format` writes for `r`.
std::string written(const CountFormat& format, const CountedRecord& r) {
  TempFile f;
  const int fd = f.open_for_writing();
  {
    Writer w(fd);
    format.write(w, r);
    w.flush();
  }
  ::close(fd);
  return f.read();
}

CountedRecord counted(std::string_view bytes, std::size_t text_size, bool json, std::uint64_t count,
                      SeenTime first = {}, SeenTime last = {}) {
  return CountedRecord{bytes, text_size, json ? InputFormat::json : InputFormat::lines, count, first, last};
}

SeenTime bare(std::string_view text) { return SeenTime{SeenForm::bare, text, 0, std::nullopt}; }
SeenTime string(std::string_view text) { return SeenTime{SeenForm::string, text, 0, std::nullopt}; }

}  // namespace

TEST_SUITE("count format") {
  TEST_CASE("lines: the count and a space in front by default, the terminator kept") {
    const CountFormat f;
    CHECK(written(f, counted("a b\n", 3, false, 3)) == "3 a b\n");
    CHECK(written(f, counted("c\r\n", 1, false, 1)) == "1 c\r\n");
    CHECK(written(f, counted("last", 4, false, 12)) == "12 last");
  }

  TEST_CASE("lines: a template puts the fields where it says, the times as the input wrote them") {
    CountFormat f;
    std::string problem;
    REQUIRE(f.set_template("{record}\\t{count}\\t{first}..{last} {{x}}\\\\", problem));
    CHECK(written(f, counted("GET /\n", 5, false, 2, bare("[10/Oct/2023:10:00:05 +0000]"), bare("12:01"))) ==
          "GET /\t2\t[10/Oct/2023:10:00:05 +0000]..12:01 {x}\\\n");
    // Without -t the times are the clock's, in RFC 3339; a record without the time field has "-".
    const SeenTime clock{SeenForm::clock, {}, 1700000000 * tlbf::kSecond, std::nullopt};
    CHECK(written(f, counted("x\n", 1, false, 1, clock, SeenTime{SeenForm::absent, {}, 0, std::nullopt})) ==
          "x\t1\t2023-11-14T22:13:20Z..- {x}\\\n");
  }

  TEST_CASE("lines: a template that is not one") {
    CountFormat f;
    std::string problem;
    CHECK_FALSE(f.set_template("{count}", problem));
    CHECK(problem.find("{record} once") != std::string::npos);
    CHECK_FALSE(f.set_template("{record}{record}", problem));
    CHECK_FALSE(f.set_template("{cnt} {record}", problem));
    CHECK(problem.find("{count}, {first}, {last} or {record}") != std::string::npos);
    CHECK_FALSE(f.set_template("{record}\\n", problem));
    CHECK(problem.find("\\t") != std::string::npos);
    // A refused template leaves the one before.
    CHECK(written(f, counted("a\n", 1, false, 2)) == "2 a\n");
  }

  TEST_CASE("JSON: members before the closing brace, or in place of members of the same names") {
    const CountFormat f;
    CHECK(written(f, counted("{\"k\":1}\n", 7, true, 3, bare("10.5"), bare("11"))) ==
          "{\"k\":1,\"dup_count\":3,\"first_seen\":10.5,\"last_seen\":11}\n");
    CHECK(written(f, counted("{ }  \r\n", 5, true, 1, string("a\"b"), string("c"))) ==
          "{ \"dup_count\":1,\"first_seen\":\"a\\\"b\",\"last_seen\":\"c\"}  \r\n");
    // Replaced where they stand, whatever their order; the missing one is added.
    CHECK(written(f, counted("{\"last_seen\":null, \"k\":2, \"dup_count\" : [1,{}]}", 47, true, 7, bare("1"),
                             bare("2"))) == "{\"last_seen\":2, \"k\":2, \"dup_count\" : 7,\"first_seen\":1}");
    // Not an object: unchanged, as --mark leaves it.
    CHECK(written(f, counted("[1]\n", 3, true, 2)) == "[1]\n");
  }

  TEST_CASE("JSON: the times' forms, and names chosen or left out") {
    CountFormat f;
    std::string problem;
    REQUIRE(f.set_names("n,,since", problem));
    const SeenTime clock{SeenForm::clock, {}, 1700000000 * tlbf::kSecond, std::nullopt};
    CHECK(written(f, counted("{\"k\":1}\n", 7, true, 2, clock, SeenTime{SeenForm::absent, {}, 0, std::nullopt})) ==
          "{\"k\":1,\"n\":2,\"since\":null}\n");
    CHECK_FALSE(f.set_names("a,b", problem));
    CHECK_FALSE(f.set_names("a,b,c,d", problem));
    CHECK_FALSE(f.set_names("a,b,a", problem));
    CHECK(problem.find("twice") != std::string::npos);
    CHECK(f.set_names(",,", problem));
    CHECK(written(f, counted("{\"k\":1}\n", 7, true, 2)) == "{\"k\":1}\n");
  }
}
