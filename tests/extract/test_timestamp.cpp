// Timestamp parsers (src/extract/timestamp.hpp): each fixed format against known instants, the
// strftime patterns against the fixed parsers, rejection of anything not fully matched, what
// auto-detection picks where forms look alike, dates without a time of day, and the year
// rollover of stamps without a year.
#include <doctest/doctest.h>

#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "extract/timestamp.hpp"

namespace {
using tlbf::Time;
constexpr Time kS = tlbf::kSecond;
// 2000-10-10T20:55:36Z, the CLF example's instant.
constexpr Time kClfExample = 971211336 * kS;

// Reference conversion through the C library (timegm), for random civil times.
Time reference(int y, int mo, int d, int h, int mi, int s) { return tlbf_test::utc_seconds(y, mo, d, h, mi, s) * kS; }
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
    CHECK(parse_epoch("1234567890123456789", 1) == 1234567890123456789);  // 19 digits fit
  }

  TEST_CASE("epoch past 2262 is the last time there is (a future stamp), before 1677 none") {
    constexpr Time kMax = std::numeric_limits<Time>::max();
    CHECK(parse_epoch("99999999999", kS * 1000000000) == kMax);  // overflows int64 ns by the unit
    CHECK(parse_epoch("9234567890123456789", 1) == kMax);        // by its digits
    CHECK(parse_epoch("92345678901234567890123", 1) == kMax);    // far past
    CHECK(parse_epoch("9223372036.854775807", kS) == kMax);      // the last one there is, exactly
    CHECK(parse_epoch("9223372036.854775806", kS) == kMax - 1);
    CHECK(parse_epoch("9223372037", kS) == kMax);
    CHECK(parse_epoch_auto("99999999999999999999") == kMax);
    CHECK(parse_epoch_auto("253402300800") == 253402300800 * tlbf::kMillisecond);  // 12 digits: ms, in range
    CHECK_FALSE(parse_epoch("-9234567890123456789", 1));                           // before 1677
    CHECK_FALSE(parse_epoch("-99999999999", kS));
    CHECK_FALSE(parse_epoch("99999999999x", kS));  // overflow does not make text a number
  }

  TEST_CASE("epoch with an exponent, as JSON writes numbers") {
    CHECK(parse_epoch("1.7e9", kS) == 1700000000 * kS);
    CHECK(parse_epoch("1.7E+9", kS) == 1700000000 * kS);
    CHECK(parse_epoch("17e8", kS) == 1700000000 * kS);
    CHECK(parse_epoch("1.763750000001e9", kS) == 1763750000 * kS + 1000000);
    CHECK(parse_epoch("15e-1", kS) == 1500000000);
    CHECK(parse_epoch("-1.5e3", kS) == -1500 * kS);
    CHECK(parse_epoch("0.00017e13", kS) == 1700000000 * kS);
    CHECK(parse_epoch("0e999999", kS) == 0);
    CHECK(parse_epoch("1e-999999", kS) == 0);
    CHECK(parse_epoch("1e999999", kS) == std::numeric_limits<Time>::max());
    CHECK_FALSE(parse_epoch("-1e999999", kS));
    CHECK_FALSE(parse_epoch("1e", kS));
    CHECK_FALSE(parse_epoch("e9", kS));
    CHECK_FALSE(parse_epoch("1e9.5", kS));
    CHECK_FALSE(parse_epoch("1.7e9 ", kS));
    // The unit by the value's magnitude: 1.7e12 is milliseconds, 1.7e18 nanoseconds.
    CHECK(parse_epoch_auto("1.7e9") == 1700000000 * kS);
    CHECK(parse_epoch_auto("1.7e12") == 1700000000 * kS);
    CHECK(parse_epoch_auto("1.7e+18") == 1700000000 * kS);
    CHECK(parse_auto("1.7e9", 2024) == 1700000000 * kS);
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
    CHECK(parse_rfc3339("2018-03-24 17:15:20,") == t);                 // Windows CBS
    CHECK(parse_rfc3339("2018-03-24T17:15") == reference(2018, 3, 24, 17, 15, 0));
    CHECK(parse_rfc3339("2018-03-24") == reference(2018, 3, 24, 0, 0, 0));
    CHECK_FALSE(parse_rfc3339("2018-02-30T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-13-01T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T24:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T17:15:20Zjunk"));
    CHECK_FALSE(parse_rfc3339("2018-03-24T17:15:20+25:00"));
    CHECK(parse_rfc3339("2016-02-29T00:00:00Z"));
    CHECK_FALSE(parse_rfc3339("2017-02-29T00:00:00Z"));
    // Past the clock's range (2262-04-11T23:47:16Z): the last time there is, a future stamp.
    constexpr Time kLast = std::numeric_limits<Time>::max();
    CHECK(parse_rfc3339("9999-12-31T23:59:59Z") == kLast);
    CHECK(parse_rfc3339("2262-04-12") == kLast);
    CHECK(parse_rfc3339("2262-04-11T23:47:15Z") == Time{9223372035} * 1000000000);
    CHECK_FALSE(parse_rfc3339("9999-02-30T00:00:00Z"));  // still a calendar date
    CHECK_FALSE(parse_rfc3339("1600-01-01T00:00:00Z"));  // before the range: unreadable
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

  TEST_CASE("a CLF time cut off before its zone by a field list is marked so") {
    for (TimeFormat f : {TimeFormat::auto_detect, TimeFormat::clf}) {
      TimeParser p(f, std::nullopt, 2017);
      const TimeReading cut = p.parse("[07/Mar/2004:16:05:49");  // -t 4 of [07/Mar/2004:16:05:49 -0800]
      CHECK(cut.parsed);
      CHECK(cut.zone_cut);
      CHECK_FALSE(p.parse("[07/Mar/2004:16:05:49 -0800]").zone_cut);  // -t 4,5
      CHECK_FALSE(p.parse("[07/Mar/2004:16:05:49]").zone_cut);        // written without a zone
      CHECK_FALSE(p.parse("07/Mar/2004:16:05:49").zone_cut);
    }
    TimeParser iso(TimeFormat::auto_detect, std::nullopt, 2017);
    CHECK_FALSE(iso.parse("[2016-12-19 16:31:47,999").zone_cut);  // not CLF: a zone is not expected
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

  TEST_CASE("slash dates are read year first, two-digit years as POSIX %y") {
    const Time t = reference(2017, 6, 9, 20, 10, 40);
    CHECK(parse_slash_date("17/06/09 20:10:40") == t);  // Spark
    CHECK(parse_slash_date("2017/06/09 20:10:40") == t);
    CHECK(parse_slash_date("2017/6/9 20:10:40") == t);
    CHECK(parse_slash_date("17/06/09  20:10:40") == t);  // fields joined by more blanks
    CHECK(parse_slash_date("17/06/09 20:10:40.250") == t + 250000000);
    CHECK(parse_slash_date("17/06/09 20:10:40,250") == t + 250000000);
    CHECK(parse_slash_date("2017/06/09 22:10:40 +02:00") == t);
    CHECK(parse_slash_date("2017/06/09 20:10:40Z") == t);
    // 69-99 → 19xx, 00-68 → 20xx.
    CHECK(parse_slash_date("68/12/31 23:59:59") == reference(2068, 12, 31, 23, 59, 59));
    CHECK(parse_slash_date("69/01/01 00:00:00") == reference(1969, 1, 1, 0, 0, 0));
    CHECK(parse_slash_date("99/12/31 23:59:59") == reference(1999, 12, 31, 23, 59, 59));
    CHECK(parse_slash_date("00/02/29 00:00:00") == reference(2000, 2, 29, 0, 0, 0));  // 2000 was a leap year
    CHECK(parse_slash_date("2016/02/29 12:00:00"));
    CHECK_FALSE(parse_slash_date("2017/02/29 12:00:00"));
    CHECK_FALSE(parse_slash_date("2100/02/29 12:00:00"));
    CHECK_FALSE(parse_slash_date("17/06/09 24:00:00"));
    CHECK_FALSE(parse_slash_date("17/13/09 20:10:40"));
    CHECK_FALSE(parse_slash_date("17/06/31 20:10:40"));
    CHECK_FALSE(parse_slash_date("17/06/09 20:10"));  // %H:%M:%S: seconds are required
    CHECK_FALSE(parse_slash_date("17/06/09T20:10:40"));
    CHECK_FALSE(parse_slash_date("017/06/09 20:10:40"));
    CHECK_FALSE(parse_slash_date("20170/06/09 20:10:40"));
    CHECK_FALSE(parse_slash_date("17/06/09 20:10:40 INFO"));
    // A four-digit year may stand alone; "17/06/09" alone might as well be 6 September.
    CHECK(parse_slash_date("2017/06/09") == reference(2017, 6, 9, 0, 0, 0));
    CHECK_FALSE(parse_slash_date("17/06/09"));
  }

  TEST_CASE("RFC 2822 dates") {
    const Time t = reference(2023, 10, 10, 10, 0, 5);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 +0000") == t);
    CHECK(parse_rfc2822("10 Oct 2023 10:00:05 +0000") == t);
    CHECK(parse_rfc2822("Tuesday, 10 October 2023 10:00:05 +0000") == t);
    CHECK(parse_rfc2822("Tue,10 Oct 2023 10:00:05 +0000") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 12:00:05 +0200") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 03:00:05 -0700") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 12:00:05 +02:00") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 GMT") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 gmt") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 UT") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 UTC") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 Z") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 05:00:05 EST") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 03:00:05 PDT") == t);
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00:05") == t);  // no zone: UTC
    CHECK(parse_rfc2822("Tue, 10 Oct 2023 10:00 +0000") == t - 5 * kS);
    CHECK(parse_rfc2822("Sun, 1 Oct 2023 10:00:05 +0000") == reference(2023, 10, 1, 10, 0, 5));
    CHECK(parse_rfc2822("Mon, 29 Feb 2016 00:00:00 +0000"));
    CHECK(parse_rfc2822("Tue, 29 Feb 2000 00:00:00 +0000"));
    CHECK_FALSE(parse_rfc2822("Thu, 29 Feb 1900 00:00:00 +0000"));
    CHECK_FALSE(parse_rfc2822("Wed, 29 Feb 2017 00:00:00 +0000"));
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 2023 24:00:00 +0000"));
    CHECK_FALSE(parse_rfc2822("Tue 10 Oct 2023 10:00:05 +0000"));  // the weekday needs its comma
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 23 10:00:05 +0000"));   // obsolete two-digit year
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 XYZ"));
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 +0000 (UTC)"));
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 +2500"));
    CHECK_FALSE(parse_rfc2822("Tue, 10 Oct 2023 10:00:05 GMTX"));
    CHECK_FALSE(parse_rfc2822("Tue, 10 Foo 2023 10:00:05 +0000"));
  }

  TEST_CASE("auto detection of the forms logs write, and which reading wins") {
    const Time t = reference(2023, 10, 10, 10, 0, 5);
    CHECK(parse_auto("23/10/10 10:00:05", 1970) == t);
    CHECK(parse_auto("2023/10/10 10:00:05", 1970) == t);
    CHECK(parse_auto("2023-10-10 10:00:05,123", 1970) == t + 123000000);  // log4j
    CHECK(parse_auto("2023-10-10t10:00:05z", 1970) == t);
    CHECK(parse_auto("2023-10-10t10:00:05.5z", 1970) == t + 500000000);
    CHECK(parse_auto("Tue, 10 Oct 2023 10:00:05 +0000", 1970) == t);
    CHECK(parse_auto("10 Oct 2023 10:00:05 +0000", 1970) == t);
    CHECK(parse_auto("1 Oct 2023 10:00:05 GMT", 1970) == reference(2023, 10, 1, 10, 0, 5));
    // A slash date is year first even where month-first would also fit.
    CHECK(parse_auto("12/04/05 10:00:00", 1970) == reference(2012, 4, 5, 10, 0, 0));
    CHECK_FALSE(parse_auto("12/31/05 10:00:00", 1970));  // month-first: not auto-detected
    // CLF's month name keeps it apart from slash dates; ctime's missing comma from RFC 2822.
    CHECK(parse_auto("10/Oct/2000:13:55:36 -0700", 1970) == kClfExample);
    CHECK(parse_auto("1/Oct/2000:13:55:36", 1970) == reference(2000, 10, 1, 13, 55, 36));
    CHECK(parse_auto("Tue Oct 10 10:00:05 2023", 1970) == t);
    CHECK(parse_auto("Oct 10 10:00:05", 2023) == t);
    // Numbers stay epochs.
    CHECK(parse_auto("1696932005", 1970) == t);
    CHECK(parse_auto("-5", 1970) == -5 * kS);
    CHECK_FALSE(parse_auto("17/06", 1970));
    CHECK_FALSE(parse_auto("10 Oct", 1970));
  }

  TEST_CASE("a date without a time of day is flagged") {
    TimeParser p(TimeFormat::auto_detect, std::nullopt, 2017);
    TimeReading r = p.parse("2017-05-16");
    CHECK(r.parsed);
    CHECK(r.date_only);
    CHECK(r.time == reference(2017, 5, 16, 0, 0, 0));
    CHECK(p.parse("[2017/05/16]").date_only);
    r = p.parse("2017-05-16 10:00:00");
    CHECK(r.parsed);
    CHECK_FALSE(r.date_only);
    CHECK_FALSE(p.parse("2017-05-16T10:00").date_only);
    CHECK_FALSE(p.parse("17/05/16 10:00:00").date_only);
    CHECK_FALSE(p.parse("1494928800").date_only);
    CHECK_FALSE(p.parse("x").parsed);
    CHECK_FALSE(p.parse("x").date_only);
    TimeParser fixed(TimeFormat::rfc3339, std::nullopt, 2017);
    CHECK(fixed.parse("2017-05-16").date_only);
    TimeParser date_pattern(TimeFormat::pattern, TimePattern::compile("%Y.%m.%d"), 2017);
    r = date_pattern.parse("2005.06.03");  // BGL's third field
    CHECK(r.parsed);
    CHECK(r.date_only);
    TimeParser clock_pattern(TimeFormat::pattern, TimePattern::compile("%y%m%d %H%M%S"), 2017);
    r = clock_pattern.parse("081109 203615");
    CHECK(r.parsed);
    CHECK_FALSE(r.date_only);
    CHECK(TimePattern::compile("%F")->names_year());
    CHECK_FALSE(TimePattern::compile("%F")->names_time_of_day());
    CHECK(TimePattern::compile("%s")->names_time_of_day());
    CHECK_FALSE(TimePattern::compile("%b %e %T")->names_year());
    CHECK(TimePattern::compile("%D %I:%M %p")->names_year());
  }

  TEST_CASE("syslog stamps roll over into the next year") {
    TimeParser p(TimeFormat::auto_detect, std::nullopt, 2023);
    CHECK_FALSE(p.years().year());
    TimeReading r = p.parse("Dec 31 23:59:50");
    CHECK(r.time == reference(2023, 12, 31, 23, 59, 50));
    CHECK_FALSE(r.year_advanced);
    CHECK(p.years().year() == 2023);
    r = p.parse("Jan  1 05:00:00");
    CHECK(r.time == reference(2024, 1, 1, 5, 0, 0));
    CHECK(r.year_advanced);
    r = p.parse("Jan  1 05:00:01");
    CHECK(r.time == reference(2024, 1, 1, 5, 0, 1));
    CHECK_FALSE(r.year_advanced);
    // Stamps with a year neither use nor move it.
    CHECK(p("2010-01-01T00:00:00Z") == reference(2010, 1, 1, 0, 0, 0));
    CHECK(p.years().year() == 2024);
    TimeParser fixed(TimeFormat::syslog, std::nullopt, 2023);
    CHECK(fixed("Dec 31 23:59:50") == reference(2023, 12, 31, 23, 59, 50));
    CHECK(fixed("[Jan  1 05:00:00]") == reference(2024, 1, 1, 5, 0, 0));
  }

  TEST_CASE("the year advances only when the month goes back by more than six") {
    TimeParser p(TimeFormat::syslog, std::nullopt, 2023);
    CHECK(p("Feb  1 00:00:05") == reference(2023, 2, 1, 0, 0, 5));
    // Out of order at a month boundary: stays in 2023 (a late record for the pipeline).
    TimeReading r = p.parse("Jan 31 23:59:58");
    CHECK(r.time == reference(2023, 1, 31, 23, 59, 58));
    CHECK_FALSE(r.year_advanced);
    CHECK(p("Aug  1 00:00:00") == reference(2023, 8, 1, 0, 0, 0));
    CHECK(p("Feb  3 00:00:00") == reference(2023, 2, 3, 0, 0, 0));  // six back: same year
    CHECK(p("Mar  1 00:00:00") == reference(2023, 3, 1, 0, 0, 0));  // the latest month stays August
    CHECK(p("Jan  5 00:00:00") == reference(2024, 1, 5, 0, 0, 0));  // seven back from August
    // A log with a gap: October, then February.
    TimeParser gap(TimeFormat::syslog, std::nullopt, 2023);
    CHECK(gap("Oct 30 00:00:00") == reference(2023, 10, 30, 0, 0, 0));
    CHECK(gap("Feb  2 00:00:00") == reference(2024, 2, 2, 0, 0, 0));
    // Month by month over three years: the year steps once a year and never goes back.
    TimeParser years(TimeFormat::syslog, std::nullopt, 2020);
    int advanced = 0;
    for (int i = 0; i < 36; ++i) {
      static const char* const kNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
      r = years.parse(std::string(kNames[i % 12]) + " 15 12:00:00");
      CHECK(r.time == reference(2020 + i / 12, i % 12 + 1, 15, 12, 0, 0));
      advanced += r.year_advanced;
    }
    CHECK(advanced == 2);
  }

  TEST_CASE("a stamp that is not a date leaves the year alone") {
    TimeParser p(TimeFormat::syslog, std::nullopt, 2022);
    CHECK(p("Dec  1 00:00:00"));
    CHECK_FALSE(p("Feb 29 00:00:00"));  // 2023 is not a leap year
    CHECK_FALSE(p("Jan 45 00:00:00"));
    CHECK(p.years().year() == 2022);
    CHECK(p("Jan  5 00:00:00") == reference(2023, 1, 5, 0, 0, 0));
    // Into a leap year, 29 February exists.
    TimeParser leap(TimeFormat::syslog, std::nullopt, 2023);
    CHECK(leap("Dec 31 00:00:00"));
    CHECK(leap("Feb 29 00:00:00") == reference(2024, 2, 29, 0, 0, 0));
  }

  TEST_CASE("patterns without a year roll over too") {
    TimeParser android(TimeFormat::pattern, TimePattern::compile("%m-%d %H:%M:%S.%f"), 2016);
    CHECK(android("12-31 23:59:59.500") == reference(2016, 12, 31, 23, 59, 59) + 500000000);
    TimeReading r = android.parse("01-01 00:00:00.250");
    CHECK(r.time == reference(2017, 1, 1, 0, 0, 0) + 250000000);
    CHECK(r.year_advanced);
    TimeParser yday(TimeFormat::pattern, TimePattern::compile("%j %T"), 2023);
    CHECK(yday("365 23:00:00") == reference(2023, 12, 31, 23, 0, 0));
    CHECK(yday("001 01:00:00") == reference(2024, 1, 1, 1, 0, 0));
    CHECK(yday("366 01:00:00") == reference(2024, 12, 31, 1, 0, 0));  // 2024 has 366 days
    // A pattern that names the year never rolls.
    TimeParser dated(TimeFormat::pattern, TimePattern::compile("%Y-%m-%d %T"), 2023);
    CHECK(dated("2023-12-31 23:00:00") == reference(2023, 12, 31, 23, 0, 0));
    CHECK(dated("2023-01-01 01:00:00") == reference(2023, 1, 1, 1, 0, 0));
    CHECK_FALSE(dated.years().year());
  }

  TEST_CASE("each parser copy keeps its own year, and restart_years starts again") {
    TimeParser a(TimeFormat::syslog, std::nullopt, 2023);
    CHECK(a("Dec 31 00:00:00"));
    TimeParser b = a;
    CHECK(a("Jan  1 00:00:00") == reference(2024, 1, 1, 0, 0, 0));
    CHECK(b.years().year() == 2023);
    CHECK(b("Dec 31 12:00:00") == reference(2023, 12, 31, 12, 0, 0));
    a.restart_years(2030);
    CHECK_FALSE(a.years().year());
    CHECK(a("Dec 31 00:00:00") == reference(2030, 12, 31, 0, 0, 0));
  }

  TEST_CASE("the first year-less stamp cannot come after the text was written") {
    // Written on 15 March 2024: March and earlier months are 2024, later ones 2023.
    const YearStart march = YearStart::not_after(reference(2024, 3, 15, 12, 0, 0));
    CHECK(march.year_for(1) == 2024);
    CHECK(march.year_for(3) == 2024);
    CHECK(march.year_for(4) == 2023);
    CHECK(march.year_for(12) == 2023);
    // Near New Year the month is taken 14 hours on: local time may already be January.
    const YearStart late = YearStart::not_after(reference(2023, 12, 31, 20, 0, 0));
    CHECK(late.year_for(1) == 2024);
    CHECK(late.year_for(12) == 2023);
    const YearStart morning = YearStart::not_after(reference(2023, 12, 31, 9, 0, 0));
    CHECK(morning.year_for(1) == 2023);
    CHECK(morning.year_for(12) == 2023);
    // Before 1970 (negative times) too.
    CHECK(YearStart::not_after(reference(1969, 6, 15, 0, 0, 0)).year_for(7) == 1968);
    CHECK(YearStart::not_after(reference(1969, 6, 15, 0, 0, 0)).year_for(6) == 1969);
    CHECK(YearStart::not_after(reference(1969, 12, 31, 12, 0, 0) + 1).year_for(1) == 1970);
    (void)YearStart::not_after(std::numeric_limits<Time>::max()).year_for(1);  // no overflow
    for (unsigned m = 1; m <= 12; ++m) CHECK(YearStart(2023).year_for(m) == 2023);
    // In a parser: a log written in March 2024 that starts in November.
    TimeParser p(TimeFormat::syslog, std::nullopt, YearStart::not_after(reference(2024, 3, 15, 12, 0, 0)));
    CHECK(p("Nov  5 10:00:00") == reference(2023, 11, 5, 10, 0, 0));
    CHECK(p("Jan  2 10:00:00") == reference(2024, 1, 2, 10, 0, 0));
  }

  TEST_CASE("strftime patterns") {
    CHECK(parse_strftime("081109 203615", "%y%m%d %H%M%S", 1970) == reference(2008, 11, 9, 20, 36, 15));
    CHECK(parse_strftime("2005-06-03-15.42.50.675872", "%Y-%m-%d-%H.%M.%S.%f", 1970) ==
          reference(2005, 6, 3, 15, 42, 50) + 675872000);
    CHECK(parse_strftime("20171223-22:15:5", "%Y%m%d-%H:%M:%S", 1970) == reference(2017, 12, 23, 22, 15, 5));
    CHECK(parse_strftime("03-17 16:13:38.811", "%m-%d %H:%M:%S.%f", 2017) ==
          reference(2017, 3, 17, 16, 13, 38) + 811000000);
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
      int y = 1971 + static_cast<int>(rng() % 250), mo = 1 + static_cast<int>(rng() % 12),
          d = 1 + static_cast<int>(rng() % 28);
      int h = static_cast<int>(rng() % 24), mi = static_cast<int>(rng() % 60), s = static_cast<int>(rng() % 60);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
      Time want = reference(y, mo, d, h, mi, s);
      CHECK(parse_rfc3339(buf) == want);
      CHECK(pattern->parse(buf, 1970) == want);
      buf[4] = buf[7] = '/';
      buf[10] = ' ';
      CHECK(parse_slash_date(buf) == want);
      static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
      std::snprintf(buf, sizeof buf, "%d %s %04d %02d:%02d:%02d +0000", d, kMonths[mo - 1], y, h, mi, s);
      CHECK(parse_rfc2822(buf) == want);
    }
  }
}
