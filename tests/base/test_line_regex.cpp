// LineRegex (src/base/line_regex.hpp): POSIX extended syntax with \d, leftmost-longest
// matches, group 1 or the whole match, bytes as bytes, time linear in the text, and the forms
// RE2 lacks refused by name.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "base/line_regex.hpp"

using tlbf_dedup::LineRegex;

TEST_SUITE("line_regex") {
  TEST_CASE("POSIX extended, leftmost-longest, group 1 or the whole match") {
    CHECK(LineRegex("a|ab").group_or_match("xabc") == "ab");  // not "a": POSIX's longest match
    const LineRegex alternative("k=(\\d+)|^x");
    CHECK(alternative.group_or_match("k=12") == "12");
    CHECK(alternative.group_or_match("xyz") == "x");  // group 1 took no part: the whole match
    CHECK_FALSE(alternative.group_or_match("y"));
    CHECK(LineRegex("[[:upper:]]+", true).group_or_match("ab1") == "ab");
    CHECK(LineRegex("^\\d{4}-").matches("2024-01-01 x"));
    CHECK_FALSE(LineRegex("^\\d{4}-").matches(" 2024-01-01"));
  }

  TEST_CASE("every group of a match, and the groups counted without compiling") {
    const LineRegex re("user=([a-z]+) (GET|POST) (/[^ ]*)?");
    CHECK(re.groups() == 3);
    std::vector<std::string_view> parts;
    REQUIRE(re.match_groups("x user=ann GET /a y", parts));
    CHECK(parts == std::vector<std::string_view>{"ann", "GET", "/a"});
    REQUIRE(re.match_groups("user=bob POST ", parts));
    CHECK(parts == std::vector<std::string_view>{"bob", "POST", ""});  // a group that took no part: empty
    CHECK_FALSE(re.match_groups("nothing", parts));
    std::string many;
    for (int i = 0; i < 20; ++i) many += "([0-9])";
    const LineRegex twenty(many);
    REQUIRE(twenty.match_groups("01234567890123456789", parts));
    CHECK(parts.size() == 20);
    CHECK(parts[19] == "9");
    for (const char* p : {"a", "(a)", "(a)(b)", "((a)b)", "\\(a\\)", "[(]a", "[]()]a(b)", "[^]()](c)",
                          "[[:alpha:](](d)", "(a|(b))c\\d(e)", many.c_str()})
      CHECK(LineRegex::count_groups(p) == LineRegex(p).groups());
  }

  TEST_CASE("bytes as bytes: NUL, newlines and invalid UTF-8 in the text") {
    CHECK(LineRegex("id=([0-9]+)").group_or_match(std::string("\0id=7", 5)) == "7");
    CHECK(LineRegex("^a.b$").matches("a\nb"));     // '.' takes a newline, ^ $ are the text's ends
    CHECK_FALSE(LineRegex("^b").matches("a\nb"));  // not a line's start inside the text
    CHECK(LineRegex("^.$").matches("\xff"));       // one byte, not a UTF-8 character
  }

  TEST_CASE("time linear in the text where a backtracking matcher takes exponential time") {
    CHECK_FALSE(LineRegex("^(a*)*$").matches(std::string(100000, 'a') + "b"));
    CHECK_FALSE(LineRegex("^(a|aa)*$").matches(std::string(100000, 'a') + "b"));
  }

  TEST_CASE("what RE2 lacks is refused by name") {
    CHECK_THROWS_WITH_AS(LineRegex("(.)\\1"), doctest::Contains("\\1: backreferences are not supported"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(LineRegex("\\<a"), doctest::Contains("\\< is not supported"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(LineRegex("[[=a=]]"), doctest::Contains("equivalence classes"), std::invalid_argument);
    CHECK_THROWS_AS(LineRegex("("), std::invalid_argument);
    CHECK_THROWS_AS(LineRegex("a{1001}"), std::invalid_argument);
    // Nested counts are bounded by their product, and the message says so.
    CHECK(LineRegex("(a{10}){100}").matches(std::string(1000, 'a')));
    CHECK_THROWS_WITH_AS(LineRegex("(a{100}){100}"), doctest::Contains("the product of nested counts"),
                         std::invalid_argument);
  }
}
