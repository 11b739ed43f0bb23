// Durations and byte sizes as typed on the command line (src/base/duration.hpp).
#include <doctest/doctest.h>

#include "base/duration.hpp"

TEST_SUITE("duration") {
  using namespace tlbf_dedup;
  constexpr tlbf::Duration kS = tlbf::kSecond;

  TEST_CASE("units and bare numbers") {
    CHECK(parse_duration("250ms") == 250 * tlbf::kMillisecond);
    CHECK(parse_duration("30s") == 30 * kS);
    CHECK(parse_duration("5m") == 300 * kS);
    CHECK(parse_duration("2h") == 7200 * kS);
    CHECK(parse_duration("1d") == 86400 * kS);
    CHECK(parse_duration("90") == 90 * kS);
    CHECK(parse_duration("1.5s") == 1500 * tlbf::kMillisecond);
    CHECK(parse_duration("10us") == 10 * tlbf::kMicrosecond);
    CHECK(parse_duration("7ns") == 7);
    CHECK(parse_duration("0") == 0);
  }

  TEST_CASE("rejects what it does not fully understand") {
    CHECK_FALSE(parse_duration(""));
    CHECK_FALSE(parse_duration("s"));
    CHECK_FALSE(parse_duration("5x"));
    CHECK_FALSE(parse_duration("5 m"));
    CHECK_FALSE(parse_duration("-5s"));
    CHECK_FALSE(parse_duration("1000000000000d"));  // overflows int64 nanoseconds
  }

  TEST_CASE("compound durations and min") {
    CHECK(parse_duration("5min") == 300 * kS);
    CHECK(parse_duration("1h30m") == 5400 * kS);
    CHECK(parse_duration("1h30min") == 5400 * kS);
    CHECK(parse_duration("1d2h3m4s5ms6us7ns") ==
          ((86400 + 7200 + 180 + 4) * kS + 5 * tlbf::kMillisecond + 6 * tlbf::kMicrosecond + 7));
    CHECK(parse_duration("2m30.5s") == 150500 * tlbf::kMillisecond);
    CHECK(parse_duration("1h0m") == 3600 * kS);
    CHECK_FALSE(parse_duration("30m1h"));  // the units get shorter
    CHECK_FALSE(parse_duration("1m1m"));
    CHECK_FALSE(parse_duration("1h30"));     // each term has its unit
    CHECK_FALSE(parse_duration("1.5h30m"));  // a fraction only in the last term
    CHECK_FALSE(parse_duration("1h 30m"));
    CHECK_FALSE(parse_duration("1hm"));
    CHECK_FALSE(parse_duration("5mins"));
    CHECK_FALSE(parse_duration("5M"));
    // Too long as a sum: said so, not "not a duration".
    CHECK(is_duration_too_long("36500d1s"));
    CHECK_FALSE(is_duration_too_long("36499d23h59m59s"));
    CHECK(is_duration_too_long("99999999999999999999999d"));
    CHECK(is_duration_too_long("1d99999999999999999999999h"));
    CHECK_FALSE(is_duration_too_long("99999999999999999999999x"));
    CHECK_FALSE(is_duration_too_long("1h1h"));
  }

  TEST_CASE("format_duration reads back") {
    for (const char* s : {"5m", "250ms", "1500us", "1d", "7ns", "61s"}) {
      auto d = parse_duration(s);
      REQUIRE(d);
      CHECK(format_duration(*d) == s);
      CHECK(parse_duration(format_duration(*d)) == d);
    }
  }

  TEST_CASE("byte sizes") {
    CHECK(parse_byte_size("512M") == 512ULL << 20);
    CHECK(parse_byte_size("2G") == 2ULL << 30);
    CHECK(parse_byte_size("64K") == 64ULL << 10);
    CHECK(parse_byte_size("1GiB") == 1ULL << 30);
    CHECK(parse_byte_size("1MB") == 1ULL << 20);
    CHECK(parse_byte_size("4096") == 4096);
    CHECK(parse_byte_size("1.5K") == 1536);
    CHECK_FALSE(parse_byte_size("lots"));
    CHECK_FALSE(parse_byte_size("5Q"));
    CHECK_FALSE(parse_byte_size("99999999999T"));
  }
}
