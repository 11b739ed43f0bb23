// The item list of TLBF.MADD (tlbf/item_list.hpp): what append_item() writes parse_items()
// reads back, item for item, whatever the bytes; and any list that is not exactly a sequence
// of netstrings is refused whole.
#include "tlbf/item_list.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

TEST_SUITE("item_list") {
  TEST_CASE("netstrings as written") {
    std::string list;
    tlbf::append_item(list, "abc");
    tlbf::append_item(list, "");
    tlbf::append_item(list, std::string(12, 'x'));
    CHECK(list == "3:abc,0:,12:xxxxxxxxxxxx,");
    const auto items = tlbf::parse_items(list);
    REQUIRE(items);
    CHECK(*items == std::vector<std::string_view>{"abc", "", "xxxxxxxxxxxx"});
    CHECK(tlbf::parse_items("")->empty());
  }

  TEST_CASE("random items round-trip, delimiters and NUL bytes included") {
    std::mt19937_64 rng(5);
    for (int round = 0; round < 200; ++round) {
      std::vector<std::string> want(rng() % 40);
      std::string list;
      for (std::string& item : want) {
        item.resize(rng() % 130);
        for (char& c : item) c = "09:,\0ab"[rng() % 7];
        tlbf::append_item(list, item);
      }
      const auto got = tlbf::parse_items(list);
      REQUIRE(got);
      REQUIRE(got->size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) CHECK((*got)[i] == want[i]);
    }
  }

  TEST_CASE("a malformed list is refused") {
    for (const char* bad :
         {"3:abc", "3:ab,", "3:abcd,", "03:abc,", ":abc,", "-1:a,", "3abc,", "3:abc,x", "3:abc,1", "1:a,,",
          "99999999999999999999:a,", "18446744073709551617:a,", "9999999999999999999:a,", " 1:a,", "1 :a,"}) {
      CAPTURE(bad);
      CHECK_FALSE(tlbf::parse_items(bad));
    }
    CHECK_FALSE(tlbf::parse_items(std::string_view("1:\0,2", 5)));
    CHECK(tlbf::parse_items(std::string_view("1:\0,", 4))->at(0) == std::string_view("\0", 1));
  }
}
