// Timestamp parsers: text → nanoseconds since the Unix epoch (tlbf::Time).
//
// Every parse_* function is a pure function of its input (the year for year-less formats is
// passed in), returns nullopt for text it does not fully match, and never throws, so each can
// be fuzzed on its own. Times without a zone are taken as UTC; a time of day without a date is
// placed on 1970-01-01 (its value is the time since midnight).
//
// TimeParser is what the program calls per record. It adds the state a stream of timestamps
// needs: the year of stamps that do not name one (syslog, patterns without %Y or %y), which
// starts from a YearStart and rolls over (YearRollover) when the month goes back by more than
// six months, as it does from December to January; and the date of stamps that are a time of
// day only (log4j's "15:54:07,115"), which starts from a DayStart and rolls over (DayRollover)
// at midnight. Its TimeSettings add --time-regex (the time is a part of the text) and
// --timezone (the zone of stamps that name none). Each copy of a TimeParser keeps its own year
// and date; the extractor owns the copy that sees the records.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/time_zone.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

class LineRegex;

namespace detail {
struct Civil;  // the fields a textual timestamp names (timestamp_scan.hpp)
}  // namespace detail

// "1763750000", "1763750000.001", "-5", "1.7e9": a count of `unit`s (tlbf::kSecond,
// kMillisecond...) with an optional fraction and an optional exponent (as JSON writes large
// numbers). `unit` is a power of ten. A time past the end of 64-bit nanoseconds (2262-04-11)
// is the last time there is, std::numeric_limits<Time>::max(): a stamp in the future, as for
// the civil formats; one before 1677 is nullopt.
std::optional<tlbf::Time> parse_epoch(std::string_view text, tlbf::Duration unit);
// The unit chosen by magnitude of the whole part (of the value, with an exponent): < 1e11
// seconds, < 1e14 milliseconds, < 1e17 microseconds, else nanoseconds.
std::optional<tlbf::Time> parse_epoch_auto(std::string_view text);
// RFC 3339 / ISO 8601: "2018-03-24T17:15:20.865716Z", "2016-12-19 16:31:47,999" (log4j),
// "2015-05-17T10:05:03+02:00", "2018-03-24t17:15:20z"; no zone = UTC. A lone trailing
// fraction separator is ignored. "2018-03-24" alone is that day's midnight (a date only).
std::optional<tlbf::Time> parse_rfc3339(std::string_view text);
// Year first with slashes: "17/06/09 20:10:40" (Spark, log4j's yy/MM/dd) and
// "2017/06/09 20:10:40", an optional fraction after '.' or ',' and an optional zone as in
// RFC 3339. A two-digit year is 1969-2068 (POSIX's %y: 69-99 → 19xx, 00-68 → 20xx). With a
// four-digit year the date may stand alone (a date only); with two digits the time of day is
// required, since "17/06/09" alone is as likely a month-first or day-first date.
std::optional<tlbf::Time> parse_slash_date(std::string_view text);
// RFC 2822 (e-mail, HTTP): "Tue, 10 Oct 2023 10:00:05 +0000", the weekday optional (it is
// not checked against the date), seconds optional, a four-digit year; the zone as +HHMM or
// ±HH:MM, Z, UT, UTC, GMT or a US zone name (EST, EDT, CST, CDT, MST, MDT, PST, PDT), or none
// (UTC). Obsolete two-digit years and comments in parentheses are not read.
std::optional<tlbf::Time> parse_rfc2822(std::string_view text);
// Common Log Format: "10/Oct/2000:13:55:36 -0700" (zone optional: without, UTC).
std::optional<tlbf::Time> parse_clf(std::string_view text);
// Syslog (RFC 3164): "Mar 27 13:06:56", "Jul  1 09:00:55"; the year is not in the text.
std::optional<tlbf::Time> parse_syslog(std::string_view text, int year);
// A time of day alone, as log4j's %d{ABSOLUTE} and Tomcat write it: "15:54:07", "15:54:07,115",
// "9:05:00.5", an optional zone as in RFC 3339; the time since midnight (on 1970-01-01).
std::optional<tlbf::Time> parse_time_of_day(std::string_view text);
// ctime/asctime, as in Apache error logs: "Sun Dec 04 04:47:44 2005".
std::optional<tlbf::Time> parse_ctime(std::string_view text);
// Tries the formats above (numbers as epoch by magnitude); `year` for syslog stamps. Text
// that starts with a digit is RFC 3339 when its fifth character is '-', a slash date when
// its fifth or third is '/' followed by a digit, RFC 2822 when a blank follows the day, CLF
// when its second or third is '/', a time of day when its second or third is ':'; other text
// is syslog, ctime or RFC 2822. So a slash date is always read year first:
// "12/04/05 10:00:00" is 2012-04-05, never 4 December or 12 April 2005 (name such a format
// with a pattern: --time-format '%m/%d/%y %T').
std::optional<tlbf::Time> parse_auto(std::string_view text, int year);

// A strftime-style pattern compiled once: %Y %y %m %d %e %H %I %M %S %f (fraction digits)
// %z %Z %b %h %B %a %A %j %p %s %T %F %D %% and literal characters; whitespace in the pattern
// matches any run of blanks (as strptime does). Numeric fields take up to their usual
// width, so unpadded values ("22:15:5") parse too. %y is 1969-2068 as in parse_slash_date.
class TimePattern {
 public:
  // nullopt (with `error` set) for an unknown directive or a pattern without any field.
  static std::optional<TimePattern> compile(std::string_view pattern, std::string* error = nullptr);
  std::optional<tlbf::Time> parse(std::string_view text, int default_year) const;
  // Whether the pattern names the year (%Y, %y, %D, %F or %s); without, TimeParser rolls
  // the year over as for syslog.
  bool names_year() const { return names_year_; }
  // Whether it names a time of day (%H, %I, %T or %s); without, every stamp is a date only.
  bool names_time_of_day() const { return names_time_of_day_; }
  // Whether it names any part of a date (%Y %y %m %d %e %b %B %h %j %s %F %D); a pattern with
  // a time of day and no date ('%H:%M:%S,%f') reads times of day, dated by TimeParser.
  bool names_date() const { return names_date_; }

  struct Op {
    char kind;         // directive letter, or 0 for a literal, or ' ' for blanks
    std::string text;  // the literal
  };

 private:
  friend class TimeParser;
  // The fields of `text`, not yet checked against the calendar.
  // `zone`: --timezone's, whose abbreviations %Z reads too.
  bool scan(std::string_view text, detail::Civil& out, const TimeZone* zone = nullptr) const;

  std::vector<Op> ops_;
  bool names_year_ = false;
  bool names_time_of_day_ = false;
  bool names_date_ = false;
};

std::optional<tlbf::Time> parse_strftime(std::string_view text, std::string_view pattern, int default_year);

enum class TimeFormat { auto_detect, epoch, epoch_ms, epoch_us, epoch_ns, rfc3339, clf, syslog, ctime, pattern };

// Where the year of the first year-less stamp comes from. Later stamps follow it by
// YearRollover.
class YearStart {
 public:
  // The first stamp is in `year`, whatever its month (--year, or the wall clock's year).
  // Implicit, so that a year can be passed where a YearStart is expected.
  YearStart(int year) : year_(year) {}  // NOLINT(google-explicit-constructor)
  // The text was written no later than `written_by` (a file's modification time; the wall
  // clock for a live stream): the first stamp is in the year of `written_by`, or in the year
  // before when its month comes after the month of `written_by` (a log cannot start after it
  // was last written). The month is taken 14 hours after `written_by`, since year-less
  // stamps are usually local time and local time runs up to 14 hours ahead of UTC: a log
  // written on 1 January in Sydney still has a UTC modification time of 31 December.
  static YearStart not_after(tlbf::Time written_by);
  // The year of a first stamp in `month` (1-12).
  int year_for(unsigned month) const { return month > reference_month_ ? year_ - 1 : year_; }

 private:
  YearStart(int year, unsigned reference_month) : year_(year), reference_month_(reference_month) {}
  int year_;
  unsigned reference_month_ = 12;  // 12: no month is after it, so a fixed year stays fixed
};

// The year of a stream of year-less stamps. It remembers the year it placed the last stamp in
// and the latest month seen in that year. A stamp whose month is more than kMaxMonthsBack
// months before that latest month starts the next year (December → January; also October →
// February in a log with a gap), because the year after puts it nearer to the stamps before
// it than the same year would. A stamp going back by less (Feb 1 00:00:05 then Jan 31
// 23:59:58, as merged or buffered logs do at a month boundary) stays in the current year,
// where it is simply a late record. Months going forward never change the year, and the year
// never goes back.
class YearRollover {
 public:
  static constexpr unsigned kMaxMonthsBack = 6;

  explicit YearRollover(YearStart start) : start_(start) {}
  // The year a stamp in `month` (1-12) would be placed in now; changes nothing.
  int year_for(unsigned month) const {
    if (latest_month_ == 0) return start_.year_for(month);
    return month + kMaxMonthsBack < latest_month_ ? year_ + 1 : year_;
  }
  // Places a stamp in `month` in year_for(month). True when that advanced the year.
  bool accept(unsigned month);
  // The year of the last accepted stamp; nullopt before the first.
  std::optional<int> year() const { return latest_month_ == 0 ? std::nullopt : std::optional<int>(year_); }

 private:
  YearStart start_;
  int year_ = 0;
  unsigned latest_month_ = 0;  // the latest month accepted in year_; 0 = none yet
};

// Where the date of the first stamp that is a time of day only comes from (days count from
// 1970-01-01). Later stamps follow it by DayRollover.
class DayStart {
 public:
  // The first such stamp is on `day` (--date).
  explicit DayStart(std::int64_t day) : day_(day) {}
  // The text was written no later than `written_by` (a file's modification time; the wall
  // clock for a live stream), in a zone whose offset was then `offset_seconds`: the first
  // stamp is on the local date of `written_by`, or on the day before when its time of day is
  // later than that of `written_by` by more than `ahead` (the time a stamp may run ahead of
  // the clock that dated the file: a log cannot start after it was last written).
  static DayStart not_after(tlbf::Time written_by, std::int32_t offset_seconds, tlbf::Duration ahead);
  // The day of a first stamp at `time_of_day` (nanoseconds since midnight).
  std::int64_t day_for(tlbf::Time time_of_day) const { return time_of_day > latest_ ? day_ - 1 : day_; }

 private:
  DayStart(std::int64_t day, tlbf::Time latest) : day_(day), latest_(latest) {}
  std::int64_t day_;
  tlbf::Time latest_ = std::numeric_limits<tlbf::Time>::max();  // a later time of day is the day before
};

// The date of a stream of stamps that are times of day only. It remembers the date it placed
// the last stamp on and the latest time of day seen on that date. A stamp more than
// kMaxBack (12 hours) before that latest time of day starts the next date (23:59:58, then
// 00:00:01). A stamp that would fall at most kLateAcrossMidnight (1 hour) before the latest
// stamp when placed on the date before is a record a little late across midnight (00:00:01,
// then 23:59:59) and is placed there. Any other stays on the current date: going back by 12
// hours or less it is a late record, going forward a later one. So a log needs a stamp at
// least every 12 hours to be dated right; the date never goes back.
class DayRollover {
 public:
  static constexpr tlbf::Time kMaxBack = 12 * 3600 * tlbf::kSecond;
  static constexpr tlbf::Time kLateAcrossMidnight = 3600 * tlbf::kSecond;
  static constexpr tlbf::Time kDay = 24 * 3600 * tlbf::kSecond;

  explicit DayRollover(DayStart start) : start_(start) {}
  // Places a stamp at `time_of_day` (nanoseconds since midnight, up to 86400 s for a leap
  // second): its day. `advanced` says whether it started the next date.
  std::int64_t accept(tlbf::Time time_of_day, bool& advanced);
  // The date of the current stamps; nullopt before the first.
  std::optional<std::int64_t> day() const { return latest_ < 0 ? std::nullopt : std::optional<std::int64_t>(day_); }

 private:
  DayStart start_;
  std::int64_t day_ = 0;
  tlbf::Time latest_ = -1;  // the latest time of day on day_; -1 = none yet
};

// What TimeParser::parse found in one record's time text.
struct TimeReading {
  tlbf::Time time = 0;         // valid when `parsed`
  bool parsed = false;         // false: not a time in the expected format(s) ("untimed")
  bool date_only = false;      // a day without a time of day, read as its midnight (UTC)
  bool year_advanced = false;  // a year-less stamp that started the next year (rollover)
  bool time_of_day = false;    // a time of day without a date, dated by the DayRollover
  bool day_advanced = false;   // ... which started the next date (rollover at midnight)
  bool regex_missed = false;   // --time-regex did not match the field (`text` is the field)
  bool present = false;        // the record had a time field: `text` is it (else "field absent")
  // A CLF stamp cut off after its time by a field list ("[07/Mar/2004:16:05:49" of -t 4 where
  // -t 4,5 holds the zone): read as UTC, while the log wrote a zone.
  bool zone_cut = false;
  // The field as given to the parser (with --time-regex, the part it matched), valid until it
  // parses again.
  std::string_view text;

  std::optional<tlbf::Time> value() const { return parsed ? std::optional<tlbf::Time>(time) : std::nullopt; }
  explicit operator bool() const { return parsed; }
  friend bool operator==(const TimeReading& r, tlbf::Time t) { return r.parsed && r.time == t; }
};

// What a TimeParser adds to a format: each optional.
struct TimeSettings {
  // --time-regex: the time is capture group 1 of this regex in the text (the whole match when
  // it has no group); text it does not match has no time.
  std::shared_ptr<const LineRegex> regex;
  // --timezone: stamps that name no zone are local times there (else UTC); zone names of %Z
  // that the parser does not know are looked up among this zone's abbreviations.
  std::shared_ptr<const TimeZone> zone;
  // --date: the date of each input's first stamp that is a time of day only (days since
  // 1970-01-01); else the date of the input's modification time (restart_days).
  std::optional<std::int64_t> date;
};

// The parser the program uses for every record: one format (or auto), with surrounding
// blanks, brackets and quotes stripped first ("[10/Oct/2000:13:55:36 -0700]"). Year-less
// stamps (syslog, and patterns that do not name the year) get their year from a
// YearRollover, times of day their date from a DayRollover: parsing is not const, and a
// stamp that does not parse leaves the year and the date alone.
class TimeParser {
 public:
  TimeParser(TimeFormat format, std::optional<TimePattern> pattern, YearStart year_start, TimeSettings settings = {});

  TimeReading parse(std::string_view text);
  TimeReading operator()(std::string_view text) { return parse(text); }
  // As parse(), into `r`, but the reading's `text` is `text` itself, not a copy: for a caller
  // whose text stays valid as long as the reading is used (a field of the record being
  // judged). Filled in place, field by field: a reading returned by value was stored in parts
  // and then loaded whole, a stalled load on every record.
  void parse_in_place(std::string_view text, TimeReading& r) {
    if (settings_.regex) return parse_captured(text, r);  // without --time-regex, a branch never taken
    parse_trimmed(text, r);
    r.present = true;
    r.text = text;
  }

  // Forgets the months seen: the next year-less stamp starts again from `start` (for a new
  // input file with its own modification time).
  void restart_years(YearStart start) { years_ = YearRollover(start); }
  const YearRollover& years() const { return years_; }
  // Forgets the dates seen: the next time of day alone starts again on --date, else as
  // DayStart::not_after(written_by) in the zone (for a new input).
  void restart_days(tlbf::Time written_by);
  const DayRollover& days() const { return days_; }

 private:
  void parse_trimmed(std::string_view text, TimeReading& r);
  // parse_in_place() with --time-regex: the time text is the regex's capture in `text`.
  void parse_captured(std::string_view text, TimeReading& r);
  void place(detail::Civil& c, TimeReading& r);
  // A time of day's date from the DayRollover, then as place().
  void place_time_of_day(detail::Civil& c, TimeReading& r);
  // A local time (nanoseconds, read as if UTC) in the --timezone zone, as UTC.
  std::optional<tlbf::Time> from_local(tlbf::Time local);

  TimeFormat format_;
  std::optional<TimePattern> pattern_;
  YearRollover years_;
  TimeSettings settings_;
  DayRollover days_;
  TimeZone::Span zone_span_{0, 0, 0};  // the zone's last span used (empty: none yet)
  std::string last_text_;              // what TimeReading::text shows
};

// `t` as RFC 3339 in UTC: "2023-10-10T10:00:05Z", with as many fraction digits as it needs
// ("...05.25Z").
std::string format_rfc3339(tlbf::Time t);

// A record's time text as a JSON string, so that blanks and binary bytes stay visible; for a
// record without the time field, "(field absent)". What --explain and the warnings show.
std::string quoted_time(const TimeReading& t);

// The current UTC year, the default for year-less formats.
int current_year();

}  // namespace tlbf_dedup
