// The check of --multiline's pattern over a run's first lines (src/pipeline/multiline_check.hpp):
// it passes at the first record that starts at a matching line, fails once the lines before
// any such one reach 1000 (or a MiB) or the input ends, and says so once.
#include <doctest/doctest.h>

#include <string>

#include "pipeline/multiline_check.hpp"

namespace {
using tlbf_dedup::MultilineCheck;
using tlbf_dedup::pattern_for_line;
}  // namespace

TEST_SUITE("multiline_check") {
  TEST_CASE("a record that starts at a matching line passes the check") {
    MultilineCheck c("^\\d{4}-", '\n');
    CHECK_FALSE(c.look("Picked up JAVA_TOOL_OPTIONS\n", false));  // lines before the first match
    CHECK_FALSE(c.decided());
    CHECK_FALSE(c.look("2024-03-05 10:00:01 INFO x\n\tat y\n", false));
    CHECK(c.decided());
    CHECK_FALSE(c.at_end());
  }

  TEST_CASE("1000 lines before any match fail it, once, naming the first line") {
    MultilineCheck c("^\\d{4}-", '\n');
    std::string lines;
    for (int i = 0; i < 999; ++i) lines += "17/06/09 20:10:40 INFO a\n";
    CHECK_FALSE(c.look(lines, false));
    const auto warning = c.look("\tat b\r\n", true);  // continuation lines count too
    REQUIRE(warning);
    CHECK(warning->find("--multiline '^\\d{4}-' matched none of the first 1000 lines (the first: \"17/06/09 "
                        "20:10:40 INFO a\")") == 0);
    CHECK(warning->find("start like '^\\d{2}/\\d{2}/\\d{2}'") != std::string::npos);
    CHECK(c.decided());
    CHECK_FALSE(c.look("more\n", false));
    CHECK_FALSE(c.at_end());
  }

  TEST_CASE("the end of the input decides: a warning when any line was read") {
    MultilineCheck c("^x", '\0');
    CHECK_FALSE(c.look(std::string("a\0b", 3), false));  // -z: NUL ends a line; the last has none
    const auto warning = c.at_end();
    REQUIRE(warning);
    CHECK(warning->find("matched none of the 2 lines read (the first: \"a\")") != std::string::npos);
    MultilineCheck empty("^x", '\n');
    CHECK_FALSE(empty.at_end());
  }

  TEST_CASE("a pattern for a line: its first word's shape, checked against it") {
    CHECK(pattern_for_line("[2016-12-19 16:31:47,999] INFO") == "^\\[\\d{4}-\\d{2}-\\d{2}");
    CHECK(pattern_for_line("081109 203615 148 INFO") == "^\\d{6}");
    CHECK(pattern_for_line("1.2.3 x") == "^\\d\\.\\d\\.\\d");
    CHECK(pattern_for_line("Mar 27 13:06:56 host") == "");  // no digit in the first word
    CHECK(pattern_for_line("") == "");
  }
}
