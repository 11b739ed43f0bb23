// cut-style field lists and field splitting (src/field_list.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "field_list.hpp"

namespace {
std::vector<std::string> split(std::string_view line, int delimiter, std::uint32_t last = UINT32_MAX) {
  std::vector<std::string> out;
  tlbf_dedup::FieldSplitter(delimiter).split(line, last, [&](std::uint32_t n, std::string_view f) {
    CHECK(n == out.size() + 1);
    out.emplace_back(f);
    return true;
  });
  return out;
}
}  // namespace

TEST_SUITE("field_list") {
  using tlbf_dedup::FieldList;

  TEST_CASE("parses cut's forms and merges ranges") {
    auto l = FieldList::parse("3");
    REQUIRE(l);
    CHECK(l->contains(3));
    CHECK_FALSE(l->contains(2));
    CHECK(l->required_fields() == 3);

    l = FieldList::parse("6-,1,4");
    REQUIRE(l);
    CHECK(l->ranges().size() == 3);
    CHECK(l->ranges()[0].first == 1);  // sorted: fields come out in line order
    CHECK(l->contains(1));
    CHECK(l->contains(4));
    CHECK_FALSE(l->contains(5));
    CHECK(l->contains(6));
    CHECK(l->contains(1000));  // beyond the bit mask
    CHECK(l->last_field() == FieldList::kOpenEnd);
    CHECK(l->required_fields() == 6);

    l = FieldList::parse("2-5,4-8,9");
    REQUIRE(l);
    CHECK(l->ranges().size() == 1);  // overlapping and adjacent ranges merge
    CHECK(l->ranges()[0].first == 2);
    CHECK(l->ranges()[0].last == 9);
    CHECK(l->required_fields() == 9);

    l = FieldList::parse("70-72");
    REQUIRE(l);
    CHECK(l->contains(71));
    CHECK_FALSE(l->contains(69));
    CHECK_FALSE(l->contains(73));
  }

  TEST_CASE("rejects bad lists") {
    for (const char* bad : {"", "0", "a", "1,", ",1", "3-1", "-5", "1--2", "1-2-3", "1 2", "9999999999"})
      CHECK_MESSAGE(!FieldList::parse(bad), bad);
  }

  TEST_CASE("splits at runs of blanks, ignoring leading blanks") {
    CHECK(split("  a \t b   c ", -1) == std::vector<std::string>{"a", "b", "c"});
    CHECK(split("", -1).empty());
    CHECK(split("a b c d", -1, 2) == std::vector<std::string>{"a", "b"});  // stops early
  }

  TEST_CASE("splits at every delimiter, keeping empty fields") {
    CHECK(split("a,,b,", ',') == std::vector<std::string>{"a", "", "b", ""});
    CHECK(split("", ',') == std::vector<std::string>{""});
    CHECK(split("a b,c", ',') == std::vector<std::string>{"a b", "c"});
    CHECK(split(std::string_view("x\0y", 3), 0) == std::vector<std::string>{"x", "y"});
  }
}
