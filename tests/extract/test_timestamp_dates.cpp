// What TimeParser adds to the pure parsers (src/extract/timestamp_parser.cpp): times of day
// without a date, dated by --date or the input's modification time and rolled over at
// midnight; --timezone for stamps that name no zone (and the zone names of %Z); --time-regex.
// The zone conversions are checked against the C library's own (localtime_r under TZ).
#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "base/line_regex.hpp"
#include "civil_time.hpp"
#include "extract/timestamp.hpp"

namespace {
using tlbf::Time;
constexpr Time kS = tlbf::kSecond;
constexpr Time kHour = 3600 * kS;
constexpr std::int64_t kDaySeconds = 86400;

// Days since 1970-01-01 of a date, by timegm.
std::int64_t day_of(int y, int m, int d) { return tlbf_test::utc_seconds(y, m, d) / kDaySeconds; }
Time at(int y, int mo, int d, int h, int mi, int s) {
  return (day_of(y, mo, d) * kDaySeconds + h * 3600 + mi * 60 + s) * kS;
}

// The UTC instant of a local time in the zone TZ names, by the C library: mktime with the DST
// flag of each reading tried (the earlier instant wins, as the program's rule says for a
// repeated hour). Only for times that exist there (not in a gap).
std::optional<Time> libc_local_to_utc(int y, int mo, int d, int h, int mi, int s) {
  std::optional<Time> best;
  for (int dst : {0, 1}) {
    std::tm tm = tlbf_test::civil_tm(y, mo, d, h, mi, s);
    tm.tm_isdst = dst;
    const std::time_t t = mktime(&tm);
    // mktime normalises a reading that does not exist: keep it only if it reads back as given.
    if (tm.tm_isdst == dst && tm.tm_hour == h && tm.tm_min == mi && tm.tm_mday == d)
      if (!best || static_cast<Time>(t) * kS < *best) best = static_cast<Time>(t) * kS;
  }
  return best;
}

// Sets TZ for the C library while it lives, and puts the old value back.
class ScopedTz {
 public:
  explicit ScopedTz(const char* zone) {
    if (const char* old = std::getenv("TZ")) saved_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ScopedTz() {
    if (saved_)
      setenv("TZ", saved_->c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }

 private:
  std::optional<std::string> saved_;
};

tlbf_dedup::TimeParser parser_with(tlbf_dedup::TimeSettings settings,
                                   tlbf_dedup::TimeFormat format = tlbf_dedup::TimeFormat::auto_detect,
                                   const char* pattern = nullptr) {
  std::optional<tlbf_dedup::TimePattern> p;
  if (pattern) p = tlbf_dedup::TimePattern::compile(pattern);
  return tlbf_dedup::TimeParser(format, p, 2024, std::move(settings));
}

std::shared_ptr<const tlbf_dedup::TimeZone> zone(const char* name) {
  return std::make_shared<const tlbf_dedup::TimeZone>(tlbf_dedup::TimeZone::named(name));
}
}  // namespace

TEST_SUITE("timestamp_dates") {
  using namespace tlbf_dedup;

  TEST_CASE("a time of day alone: the pure parsers read it as the time since midnight") {
    CHECK(parse_time_of_day("15:54:07") == (15 * 3600 + 54 * 60 + 7) * kS);
    CHECK(parse_time_of_day("15:54:07,115") == (15 * 3600 + 54 * 60 + 7) * kS + 115000000);
    CHECK(parse_time_of_day("15:54:07.115") == (15 * 3600 + 54 * 60 + 7) * kS + 115000000);
    CHECK(parse_time_of_day("9:05:00") == (9 * 3600 + 5 * 60) * kS);
    CHECK(parse_time_of_day("15:54:07Z") == (15 * 3600 + 54 * 60 + 7) * kS);
    CHECK(parse_time_of_day("01:00:00 +02:00") == -kHour);  // the zone applies: 23:00 the day before
    CHECK(parse_auto("15:54:07,115", 2024) == parse_time_of_day("15:54:07,115"));
    CHECK_FALSE(parse_time_of_day("15:54"));  // seconds required: "10:30" in a text stays no time
    CHECK_FALSE(parse_time_of_day("24:00:00"));
    CHECK_FALSE(parse_time_of_day("12:60:00"));
    CHECK_FALSE(parse_time_of_day("12:00:00 INFO"));
    CHECK_FALSE(parse_auto("15:54", 2024));
    // A pattern with a time of day and no date reads times of day.
    const auto p = TimePattern::compile("%H:%M:%S,%f");
    REQUIRE(p);
    CHECK_FALSE(p->names_date());
    CHECK(TimePattern::compile("%d %H:%M")->names_date());
    CHECK(p->parse("15:54:07,115", 2024) == parse_time_of_day("15:54:07,115"));
  }

  TEST_CASE("--date dates the first time of day, and midnight rolls the date over") {
    TimeSettings s;
    s.date = day_of(2024, 3, 5);
    TimeParser p = parser_with(s);
    p.restart_days(at(2030, 1, 1, 0, 0, 0));  // a file's modification time does not override --date
    TimeReading r = p.parse("23:59:58,100");
    CHECK(r == at(2024, 3, 5, 23, 59, 58) + 100000000);
    CHECK(r.time_of_day);
    CHECK_FALSE(r.day_advanced);
    r = p.parse("00:00:01,000");
    CHECK(r == at(2024, 3, 6, 0, 0, 1));
    CHECK(r.day_advanced);
    // A record a little late across midnight stays on the day before ...
    r = p.parse("23:59:59,500");
    CHECK(r == at(2024, 3, 5, 23, 59, 59) + 500000000);
    CHECK_FALSE(r.day_advanced);
    // ... and the date does not go back.
    CHECK(p.parse("00:00:02") == at(2024, 3, 6, 0, 0, 2));
    // Late by less than 12 hours within a day: the same day.
    CHECK(p.parse("10:00:00") == at(2024, 3, 6, 10, 0, 0));
    CHECK(p.parse("04:00:00") == at(2024, 3, 6, 4, 0, 0));
    // A quiet spell forward of more than an hour stays on the day.
    CHECK(p.parse("23:30:00") == at(2024, 3, 6, 23, 30, 0));
    // Back by more than 12 hours: the next day.
    CHECK(p.parse("11:29:59") == at(2024, 3, 7, 11, 29, 59));
    CHECK(p.days().day() == day_of(2024, 3, 7));
    // A new input starts again from --date.
    p.restart_days(at(2030, 1, 1, 0, 0, 0));
    CHECK_FALSE(p.days().day());
    CHECK(p.parse("12:00:00") == at(2024, 3, 5, 12, 0, 0));
  }

  TEST_CASE("a time of day that does not parse changes no date") {
    TimeSettings s;
    s.date = day_of(2024, 3, 5);
    TimeParser p = parser_with(s);
    CHECK(p.parse("23:00:00") == at(2024, 3, 5, 23, 0, 0));
    CHECK_FALSE(p.parse("01:61:00"));
    CHECK_FALSE(p.parse("25:00:00"));
    CHECK(p.days().day() == day_of(2024, 3, 5));
    CHECK(p.parse("22:00:00") == at(2024, 3, 5, 22, 0, 0));
  }

  TEST_CASE("without --date, the first time of day is not after the file was written") {
    TimeParser p = parser_with({});
    // Written at 16:00 UTC: a first stamp up to 14 hours later (a zone ahead of UTC) is that
    // day; 14 hours is past the end of the day, so every time of day is.
    p.restart_days(at(2024, 3, 5, 16, 0, 0));
    CHECK(p.parse("15:54:07") == at(2024, 3, 5, 15, 54, 7));
    p.restart_days(at(2024, 3, 5, 16, 0, 0));
    CHECK(p.parse("23:59:00") == at(2024, 3, 5, 23, 59, 0));
    // Written at 00:30: a first stamp at 23:00 is the day before, one at 00:10 that day.
    p.restart_days(at(2024, 3, 6, 0, 30, 0));
    CHECK(p.parse("23:00:00") == at(2024, 3, 5, 23, 0, 0));
    p.restart_days(at(2024, 3, 6, 0, 30, 0));
    CHECK(p.parse("00:10:00") == at(2024, 3, 6, 0, 10, 0));
    // With a zone, local dates, and stamps run ahead of the file's clock by an hour at most.
    TimeSettings s;
    s.zone = zone("+05:00");
    TimeParser q = parser_with(s);
    q.restart_days(at(2024, 3, 5, 20, 0, 0));  // 01:00 on 6 March there
    CHECK(q.parse("00:59:00") == at(2024, 3, 5, 19, 59, 0));
    q.restart_days(at(2024, 3, 5, 20, 0, 0));
    CHECK(q.parse("02:30:00") == at(2024, 3, 4, 21, 30, 0));  // 6 March 02:30 would be after: 5 March
    CHECK(DayStart::not_after(at(2024, 3, 5, 20, 0, 0), 0, kHour).day_for(21 * kHour + 1) == day_of(2024, 3, 4));
    CHECK(DayStart::not_after(at(2024, 3, 5, 20, 0, 0), 0, kHour).day_for(21 * kHour) == day_of(2024, 3, 5));
  }

  TEST_CASE("--timezone: stamps without a zone are local times there, others are not moved") {
    TimeSettings s;
    s.zone = zone("Europe/Berlin");
    TimeParser p = parser_with(s);
    CHECK(p.parse("2024-07-01 12:00:00") == at(2024, 7, 1, 10, 0, 0));   // CEST, +02:00
    CHECK(p.parse("2024-01-15 12:00:00") == at(2024, 1, 15, 11, 0, 0));  // CET, +01:00
    CHECK(p.parse("2024-07-01T12:00:00Z") == at(2024, 7, 1, 12, 0, 0));
    CHECK(p.parse("2024-07-01T12:00:00+05:00") == at(2024, 7, 1, 7, 0, 0));
    CHECK(p.parse("10/Oct/2000:13:55:36 -0700") == at(2000, 10, 10, 20, 55, 36));
    CHECK(p.parse("1700000000") == 1700000000 * kS);
    CHECK(p.parse("2024-07-01") == at(2024, 6, 30, 22, 0, 0));  // a date only: local midnight
    CHECK(p.parse("Jul  1 12:00:00") == at(2024, 7, 1, 10, 0, 0));
    CHECK(p.parse("9999-01-01 00:00:00") == std::numeric_limits<Time>::max());
    // The night the clocks go forward (31 March 2024, 02:00 → 03:00): 02:30 does not exist
    // and is read with the offset before; the night they go back (27 October, 03:00 → 02:00)
    // 02:30 happens twice and is read as the first.
    CHECK(p.parse("2024-03-31 01:59:59") == at(2024, 3, 31, 0, 59, 59));
    CHECK(p.parse("2024-03-31 02:30:00") == at(2024, 3, 31, 1, 30, 0));
    CHECK(p.parse("2024-03-31 03:00:00") == at(2024, 3, 31, 1, 0, 0));
    CHECK(p.parse("2024-10-27 02:30:00") == at(2024, 10, 27, 0, 30, 0));
    CHECK(p.parse("2024-10-27 03:00:00") == at(2024, 10, 27, 2, 0, 0));
    // A fixed offset.
    s.zone = zone("-05:30");
    TimeParser q = parser_with(s);
    CHECK(q.parse("2024-07-01 12:00:00") == at(2024, 7, 1, 17, 30, 0));
  }

  TEST_CASE("--timezone agrees with the C library on random local times") {
    std::mt19937_64 rng(53);
    for (const char* name : {"Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
                             "America/Sao_Paulo", "Pacific/Chatham", "Africa/Casablanca"}) {
      TimeSettings s;
      s.zone = zone(name);
      TimeParser p = parser_with(s);
      const ScopedTz tz(name);
      int compared = 0;
      for (int i = 0; i < 1000; ++i) {
        const int y = 1971 + static_cast<int>(rng() % 130), mo = 1 + static_cast<int>(rng() % 12),
                  d = 1 + static_cast<int>(rng() % 28), h = static_cast<int>(rng() % 24),
                  mi = static_cast<int>(rng() % 60), sec = static_cast<int>(rng() % 60);
        const std::optional<Time> want = libc_local_to_utc(y, mo, d, h, mi, sec);
        if (!want) continue;  // a time that does not exist there
        char text[32];
        std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d", y, mo, d, h, mi, sec);
        INFO(name << " " << text);
        CHECK(p.parse(text) == *want);
        ++compared;
      }
      CHECK(compared > 950);
    }
  }

  TEST_CASE("times of day in a zone: dated there, converted with that date's offset") {
    TimeSettings s;
    s.zone = zone("Europe/Berlin");
    s.date = day_of(2024, 3, 30);
    TimeParser p = parser_with(s);
    CHECK(p.parse("23:00:00") == at(2024, 3, 30, 22, 0, 0));   // CET
    CHECK(p.parse("00:30:00") == at(2024, 3, 30, 23, 30, 0));  // 31 March, still CET
    CHECK(p.parse("04:00:00") == at(2024, 3, 31, 2, 0, 0));    // CEST from 02:00 (03:00) on
  }

  TEST_CASE("%Z reads the zone names it knows, and no other as UTC") {
    const auto p = TimePattern::compile("%Y-%m-%d %H:%M:%S %Z");
    REQUIRE(p);
    CHECK(p->parse("2024-07-01 12:00:00 UTC", 0) == at(2024, 7, 1, 12, 0, 0));
    CHECK(p->parse("2024-07-01 12:00:00 GMT", 0) == at(2024, 7, 1, 12, 0, 0));
    CHECK(p->parse("2024-07-01 12:00:00 EST", 0) == at(2024, 7, 1, 17, 0, 0));
    CHECK(p->parse("2024-07-01 12:00:00 PDT", 0) == at(2024, 7, 1, 19, 0, 0));
    CHECK(p->parse("2024-07-01 12:00:00 Z", 0) == at(2024, 7, 1, 12, 0, 0));
    CHECK_FALSE(p->parse("2024-07-01 12:00:00 CEST", 0));  // not silently UTC
    CHECK_FALSE(p->parse("2024-07-01 12:00:00 XYZ", 0));
    CHECK_FALSE(p->parse("2024-07-01 12:00:00 ", 0));
    // With --timezone, the zone's own names, each with its offset.
    TimeSettings s;
    s.zone = zone("Europe/Berlin");
    TimeParser berlin = parser_with(s, TimeFormat::pattern, "%Y-%m-%d %H:%M:%S %Z");
    CHECK(berlin.parse("2024-07-01 12:00:00 CEST") == at(2024, 7, 1, 10, 0, 0));
    CHECK(berlin.parse("2024-01-15 12:00:00 CET") == at(2024, 1, 15, 11, 0, 0));
    CHECK(berlin.parse("2024-01-15 12:00:00 cet") == at(2024, 1, 15, 11, 0, 0));
    CHECK(berlin.parse("2024-07-01 12:00:00 UTC") == at(2024, 7, 1, 12, 0, 0));
    CHECK_FALSE(berlin.parse("2024-07-01 12:00:00 XYZ"));
    TimeParser plain = parser_with({}, TimeFormat::pattern, "%Y-%m-%d %H:%M:%S %Z");
    CHECK_FALSE(plain.parse("2024-07-01 12:00:00 CEST"));
  }

  TEST_CASE("--time-regex: the time is the capture, read by the format") {
    TimeSettings s;
    s.regex = std::make_shared<const LineRegex>("audit\\(([0-9]+\\.[0-9]+):");
    TimeParser p = parser_with(s);
    TimeReading r = p.parse("msg=audit(1569293197.911:672):");
    CHECK(r == 1569293197 * kS + 911000000);
    CHECK(r.text == "1569293197.911");
    r = p.parse("msg=something(else)");
    CHECK_FALSE(r);
    CHECK(r.present);
    CHECK(r.regex_missed);
    CHECK(r.text == "msg=something(else)");
    // In place: the reading's text is a view of the capture.
    const std::string field = "x=audit(1569293198.000:673): y";
    TimeReading in_place;
    p.parse_in_place(field, in_place);
    CHECK(in_place == 1569293198 * kS);
    CHECK(in_place.text.data() == field.data() + 8);
    // \d, and a --time-format for the capture; no group: the whole match.
    s.regex = std::make_shared<const LineRegex>("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d");
    TimeParser q = parser_with(s, TimeFormat::pattern, "%Y-%m-%d %H:%M");
    CHECK(q.parse("[worker 3] 2024-03-05 10:07 started") == at(2024, 3, 5, 10, 7, 0));
    // A capture that is no time: untimed, its text shown.
    s.regex = std::make_shared<const LineRegex>("id=([a-z]+)");
    TimeParser u = parser_with(s);
    r = u.parse("id=abc");
    CHECK_FALSE(r);
    CHECK_FALSE(r.regex_missed);
    CHECK(r.text == "abc");
  }
}
