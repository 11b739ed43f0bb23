// cut-style field lists and field splitting (src/extract/field_list.hpp).
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "extract/field_list.hpp"

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

TEST_SUITE("field_list") {
  // Every blank-scanning build of the splitter against a plain reference, on random lines
  // of every length around the 16- and 64-byte blocks, so the scalar version (what a target
  // without SSE2 runs) is built and checked here too.
  template <tlbf_dedup::Scan S>
  std::vector<std::string> split_with(std::string_view line, std::uint32_t last) {
    std::vector<std::string> out;
    tlbf_dedup::FieldSplitter(-1).split<S>(line, last, [&](std::uint32_t n, std::string_view f) {
      CHECK(n == out.size() + 1);
      out.emplace_back(f);
      return true;
    });
    return out;
  }

  std::vector<std::string> reference_split(const std::string& line, std::uint32_t last) {
    std::vector<std::string> out;
    std::string field;
    for (char c : line + ' ') {
      if (c != ' ' && c != '\t') {
        field += c;
      } else if (!field.empty()) {
        if (out.size() < last) out.push_back(field);
        field.clear();
      }
    }
    return out;
  }

  TEST_CASE("scalar and SSE2 blank scanning split every line alike") {
    std::mt19937 rng(7);
    const char alphabet[] = {' ', ' ', '\t', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '1'};
    for (int trial = 0; trial < 20000; ++trial) {
      std::string line(rng() % 160, 'x');
      // Sometimes long fields, sometimes long blank runs, sometimes a mix byte by byte.
      const auto style = static_cast<unsigned>(rng() % 3);
      for (char& c : line) {
        if (style == 0)
          c = alphabet[rng() % sizeof alphabet];
        else if (style == 1)
          c = rng() % 20 == 0 ? ' ' : 'x';
        else
          c = rng() % 20 == 0 ? 'x' : '\t';
      }
      const auto last = static_cast<std::uint32_t>(rng() % 4 == 0 ? 1 + rng() % 5 : UINT32_MAX);
      INFO("line [" << line << "] last " << last);
      const std::vector<std::string> want = reference_split(line, last);
      REQUIRE(split_with<tlbf_dedup::Scan::scalar>(line, last) == want);
#if defined(__SSE2__)
      REQUIRE(split_with<tlbf_dedup::Scan::sse2>(line, last) == want);
#endif
      REQUIRE(split(line, -1, last) == want);  // the build the program uses
    }
  }
}
