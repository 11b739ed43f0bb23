// Timestamp parsers (src/timestamp.hpp): each fixed format against known instants, the
// strftime patterns against the fixed parsers, and rejection of anything not fully matched.
#include <doctest/doctest.h>

#include <ctime>
#include <random>

#include "timestamp.hpp"

namespace {
using tlbf::Time;
constexpr Time kS = tlbf::kSecond;
// 2000-10-10T20:55:36Z, the CLF example's instant.
constexpr Time kClfExample = 971211336 * kS;

// Reference conversion through the C library (timegm), for random civil times.
Time reference(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<Time>(timegm(&tm)) * kS;
}
}  // namespace

TEST_SUITE("timestamp") {
  using namespace tlbf_dedup;

  TEST_CASE("epoch with explicit units and fractions") {
    CHECK(parse_epoch("1763750000", kS) == 1763750000 * kS);
    CHECK(parse_epoch("1763750000.001", kS) == 1763750000 * kS + 1000000);
    CHECK(parse_epoch("1446249499322", tlbf::kMillisecond) == 1446249499322 * tlbf::kMillisecond);
    CHECK(parse_epoch("1.5", tlbf::kMillisecond) == 1500000);
    CHECK(parse_epoch("-5", kS) == -5 * kS);
    CHECK(parse_epoch("0.1234567891", kS) == 123456789);  // beyond ns precision: truncated
    CHECK(parse_epoch("12", 1) == 12);
    CHECK_FALSE(parse_epoch("", kS));
    CHECK_FALSE(parse_epoch(".", kS));
    CHECK_FALSE(parse_epoch("12a", kS));
    CHECK_FALSE(parse_epoch("1 2", kS));
    CHECK_FALSE(parse_epoch("99999999999", kS * 1000000000));  // overflows int64 ns
    CHECK(parse_epoch("1234567890123456789", 1) == 1234567890123456789);  // 19 digits fit
    CHECK_FALSE(parse_epoch("9234567890123456789", 1));                      // but not this one
  }

  TEST_CASE("epoch unit chosen by magnitude") {
    CHECK(parse_epoch_auto("1763750000") == 1763750000 * kS);
    CHECK(parse_epoch_auto("1446249499322") == 1446249499322 * tlbf::kMillisecond);
    CHECK(parse_epoch_auto("1446249499322123") == 1446249499322123 * tlbf::kMicrosecond);
    CHECK(parse_epoch_auto("1446249499322123456") == 1446249499322123456);
    CHECK(parse_epoch_auto("0000000005") == 5 * kS);  // leading zeros do not make it ms
  }

  TEST_CASE("RFC 3339 / ISO 8601 variants") {
    const Time t = reference(2018, 3, 24, 17, 15, 20);
    CHECK(parse_rfc3339("2018-03-24T17:15:20Z") == t);
    CHECK(parse_rfc3339("2018-03-24T17:15:20.865716Z") == t + 865716000);
    CHECK(parse_rfc3339("2018-03-24 17:15:20") == t);
    CHECK(parse_rfc3339("2018-03-24t17:15:20z") == t);
    CHECK(parse_rfc3339("2018-03-24T19:15:20+02:00") == t);
    CHECK(parse_rfc3339("2018-03-24T12:15:20-0500") == t);
    CHECK(parse_rfc3339("2018-03-24T18:15:20+01") == t);
    CHECK(parse_rfc3339("2018-03-24 17:15:20,999") == t + 999000000);  // log4j comma
    CHECK(parse_rfc3339("2018-03-24 17:15:20,") == t);                // Windows CBS
    CHECK(parse_rfc3339("2018-03-24T17:15") == reference(2018, 3, 24, 17, 15, 0));
    CHECK(parse_rfc3339("2018-03-24") == reference(2018, 3, 24, 0, 0, 0));
    CHECK_FALSE(parse_rfc3339("2018-02-30T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-13-01T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T24:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T17:15:20Zjunk"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T17:15:20+25:00"));
    CHECK(parse_rfc3339("2016-02-29T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2017-02-29T00:00:00Z"));
  }

  TEST_CASE("CLF, syslog and ctime") {
    CHECK(parse_clf("10/Oct/2000:13:55:36 -0700") == kClfExample);
    CHECK(parse_clf("10/oct/2000:20:55:36") == kClfExample);
    CHECK(parse_clf("10/Oct/2000:13:55:36 -07:00") == kClfExample);
    CHECK_FALSE(parse_clf("10/Foo/2000:13:55:36 -0700"));
    CHECK_FALSE(parse_clf("10/Oct/2000 13:55:36"));
    CHECK(parse_syslog("Mar 27 13:06:56", 2017) == reference(2017, 3, 27, 13, 6, 56));
    CHECK(parse_syslog("Jul  1 09:00:55", 2017) == reference(2017, 7, 1, 9, 0, 55));
    CHECK(parse_syslog("Feb 29 00:00:00", 2016));
    CHECK_FALSE(parse_syslog("Feb 29 00:00:00", 2017));
    CHECK_FALSE(parse_syslog("Mar 27 13:06", 2017));
    CHECK(parse_ctime("Sun Dec 04 04:47:44 2005") == reference(2005, 12, 4, 4, 47, 44));
    CHECK(parse_ctime("Sunday Dec  4 04:47:44 2005") == reference(2005, 12, 4, 4, 47, 44));
    CHECK_FALSE(parse_ctime("Sun Dec 04 04:47:44"));
  }

  TEST_CASE("auto detection and the TimeParser's stripping") {
    TimeParser p(TimeFormat::auto_detect, std::nullopt, 2017);
    CHECK(p("[10/Oct/2000:13:55:36 -0700]") == kClfExample);
    CHECK(p("1763750000.001") == 1763750000 * kS + 1000000);
    CHECK(p("\"2018-03-24T17:15:20Z\"") == reference(2018, 3, 24, 17, 15, 20));
    CHECK(p("[2016-12-19 16:31:47,999]") == reference(2016, 12, 19, 16, 31, 47) + 999000000);
    CHECK(p("[2016-12-19 16:31:47,999") == reference(2016, 12, 19, 16, 31, 47) + 999000000);
    CHECK(p("Mar 27 13:06:56") == reference(2017, 3, 27, 13, 6, 56));
    CHECK(p("[Sun Dec 04 04:47:44 2005]") == reference(2005, 12, 4, 4, 47, 44));
    CHECK(p("  971211336 ") == kClfExample);
    CHECK_FALSE(p("at org.apache.kafka.Foo"));
    CHECK_FALSE(p(""));
    CHECK_FALSE(p("[]"));
    TimeParser ms(TimeFormat::epoch_ms, std::nullopt, 2017);
    CHECK(ms("971211336000") == kClfExample);
    CHECK_FALSE(ms("2018-03-24T17:15:20Z"));
  }

  TEST_CASE("strftime patterns") {
    CHECK(parse_strftime("081109 203615", "%y%m%d %H%M%S", 1970) == reference(2008, 11, 9, 20, 36, 15));
    CHECK(parse_strftime("2005-06-03-15.42.50.675872", "%Y-%m-%d-%H.%M.%S.%f", 1970) ==
          reference(2005, 6, 3, 15, 42, 50) + 675872000);
    CHECK(parse_strftime("20171223-22:15:5", "%Y%m%d-%H:%M:%S", 1970) == reference(2017, 12, 23, 22, 15, 5));
    CHECK(parse_strftime("03-17 16:13:38.811", "%m-%d %H:%M:%S.%f", 2017) == reference(2017, 3, 17, 16, 13, 38) + 811000000);
    CHECK(parse_strftime("10/Oct/2000:13:55:36 -0700", "%d/%b/%Y:%H:%M:%S %z", 1970) == kClfExample);
    CHECK(parse_strftime("Sun Dec  4 04:47:44 2005", "%a %b %e %T %Y", 1970) == reference(2005, 12, 4, 4, 47, 44));
    CHECK(parse_strftime("2005 338 04:47:44", "%Y %j %T", 1970) == reference(2005, 12, 4, 4, 47, 44));
    CHECK(parse_strftime("12/04/05 04:47:44 PM", "%D %I:%M:%S %p", 1970) == reference(2005, 12, 4, 16, 47, 44));
    CHECK(parse_strftime("12:30:00 AM 2005-12-04", "%I:%M:%S %p %F", 1970) == reference(2005, 12, 4, 0, 30, 0));
    CHECK(parse_strftime("@971211336", "@%s", 1970) == kClfExample);
    CHECK(parse_strftime("2005%", "%Y%%", 1970) == reference(2005, 1, 1, 0, 0, 0));
    CHECK(parse_strftime("2005-12-04 UTC", "%F %Z", 1970) == reference(2005, 12, 4, 0, 0, 0));
    CHECK_FALSE(parse_strftime("081109 2036", "%y%m%d %H%M%S", 1970));
    CHECK_FALSE(parse_strftime("081109 203615 x", "%y%m%d %H%M%S", 1970));
    std::string err;
    CHECK_FALSE(TimePattern::compile("%Q", &err));
    CHECK(err.find("%Q") != std::string::npos);
    CHECK_FALSE(TimePattern::compile("no fields", &err));
    CHECK_FALSE(TimePattern::compile("%", &err));
  }

  TEST_CASE("fixed parsers agree with patterns and with timegm on random instants") {
    std::mt19937_64 rng(42);
    auto pattern = TimePattern::compile("%Y-%m-%dT%H:%M:%S");
    REQUIRE(pattern);
    for (int i = 0; i < 2000; ++i) {
      int y = 1971 + static_cast<int>(rng() % 250), mo = 1 + static_cast<int>(rng() % 12), d = 1 + static_cast<int>(rng() % 28);
      int h = static_cast<int>(rng() % 24), mi = static_cast<int>(rng() % 60), s = static_cast<int>(rng() % 60);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
      Time want = reference(y, mo, d, h, mi, s);
      CHECK(parse_rfc3339(buf) == want);
      CHECK(pattern->parse(buf, 1970) == want);
    }
  }
}
