// JSON string escaping (src/base/json_text.hpp).
#include <doctest/doctest.h>

#include <string>

#include "base/json_text.hpp"

using namespace tlbf_dedup;

TEST_SUITE("json_text") {
  TEST_CASE("json_escape") {
    CHECK(json_escape("dup") == "dup");
    CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
    CHECK(json_escape(std::string("\x01\n", 2)) == "\\u0001\\u000a");
  }
}
