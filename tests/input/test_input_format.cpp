// The one rule of auto mode (src/input/input_format.hpp): what an input's first bytes, or a
// record framed as a line, are read as: JSON, a Zeek log or lines.
#include <doctest/doctest.h>

#include "input/input_format.hpp"

namespace {
using tlbf_dedup::detect_format;
using tlbf_dedup::FormatHead;
using tlbf_dedup::InputFormat;

TEST_SUITE("input_format") {
  TEST_CASE("an object is JSON, anything else with content lines") {
    CHECK(detect_format(" \n{\"a\":1}", FormatHead::input) == InputFormat::json);
    CHECK(detect_format("{", FormatHead::record) == InputFormat::json);
    CHECK(detect_format("a {", FormatHead::input) == InputFormat::lines);
    CHECK(detect_format("[INFO] start", FormatHead::input) == InputFormat::lines);
    CHECK(detect_format("[07/Mar/2004:16:05:49 -0800]", FormatHead::input) == InputFormat::lines);
  }

  TEST_CASE("an array of objects is JSON only where the reader frames its objects") {
    CHECK(detect_format("[ \n {\"a\":1}]", FormatHead::input) == InputFormat::json);
    CHECK(detect_format("[{\"a\":1}]", FormatHead::record) == InputFormat::lines);
  }

  TEST_CASE("a Zeek log is its #separator line, any other # line is lines") {
    CHECK(detect_format("#separator \\x09\n#set_separator\t,", FormatHead::input) == InputFormat::zeek);
    CHECK(detect_format("#separator \\x09", FormatHead::record) == InputFormat::zeek);
    CHECK(detect_format("#sep", FormatHead::input) == InputFormat::auto_detect);
    CHECK(detect_format("# a comment", FormatHead::input) == InputFormat::lines);
    CHECK(detect_format("#separator", FormatHead::record) == InputFormat::auto_detect);
  }

  TEST_CASE("too little to tell is undecided") {
    CHECK(detect_format("", FormatHead::input) == InputFormat::auto_detect);
    CHECK(detect_format(" \r\n\t", FormatHead::record) == InputFormat::auto_detect);
    CHECK(detect_format("[ \n", FormatHead::input) == InputFormat::auto_detect);
  }
}

}  // namespace
