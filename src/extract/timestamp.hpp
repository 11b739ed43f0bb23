// Timestamp parsers: text → nanoseconds since the Unix epoch (tlbf::Time).
//
// Every parse_* function is a pure function of its input (the year for year-less formats is
// passed in), returns nullopt for text it does not fully match, and never throws, so each can
// be fuzzed on its own. Times without a zone are taken as UTC.
//
// TimeParser is what the program calls per record. It adds the one piece of state a stream
// of timestamps needs: the year of stamps that do not name one (syslog, patterns without %Y
// or %y), which starts from a YearStart and rolls over (YearRollover) when the month goes
// back by more than six months, as it does from December to January. Each copy of a
// TimeParser keeps its own year; the extractor owns the copy that sees the records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

namespace detail {
struct Civil;  // the fields a textual timestamp names (timestamp_scan.hpp)
}  // namespace detail

// "1763750000", "1763750000.001", "-5": a count of `unit`s (tlbf::kSecond, kMillisecond...)
// with an optional fraction. `unit` is a power of ten.
std::optional<tlbf::Time> parse_epoch(std::string_view text, tlbf::Duration unit);
// The unit chosen by magnitude of the whole part: < 1e11 seconds, < 1e14 milliseconds,
// < 1e17 microseconds, else nanoseconds.
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
// ctime/asctime, as in Apache error logs: "Sun Dec 04 04:47:44 2005".
std::optional<tlbf::Time> parse_ctime(std::string_view text);
// Tries the formats above (numbers as epoch by magnitude); `year` for syslog stamps. Text
// that starts with a digit is RFC 3339 when its fifth character is '-', a slash date when
// its fifth or third is '/' followed by a digit, RFC 2822 when a blank follows the day, else
// CLF; other text is syslog, ctime or RFC 2822. So a slash date is always read year first:
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

  struct Op {
    char kind;         // directive letter, or 0 for a literal, or ' ' for blanks
    std::string text;  // the literal
  };

 private:
  friend class TimeParser;
  // The fields of `text`, not yet checked against the calendar.
  bool scan(std::string_view text, detail::Civil& out) const;

  std::vector<Op> ops_;
  bool names_year_ = false;
  bool names_time_of_day_ = false;
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

// What TimeParser::parse found in one record's time text.
struct TimeReading {
  tlbf::Time time = 0;         // valid when `parsed`
  bool parsed = false;         // false: not a time in the expected format(s) ("untimed")
  bool date_only = false;      // a day without a time of day, read as its midnight (UTC)
  bool year_advanced = false;  // a year-less stamp that started the next year (rollover)
  bool present = false;        // the record had a time field: `text` is it (else "field absent")
  // A CLF stamp cut off after its time by a field list ("[07/Mar/2004:16:05:49" of -t 4 where
  // -t 4,5 holds the zone): read as UTC, while the log wrote a zone.
  bool zone_cut = false;
  std::string_view text;  // the field as given to the parser, valid until it parses again

  std::optional<tlbf::Time> value() const { return parsed ? std::optional<tlbf::Time>(time) : std::nullopt; }
  explicit operator bool() const { return parsed; }
  friend bool operator==(const TimeReading& r, tlbf::Time t) { return r.parsed && r.time == t; }
};

// The parser the program uses for every record: one format (or auto), with surrounding
// blanks, brackets and quotes stripped first ("[10/Oct/2000:13:55:36 -0700]"). Year-less
// stamps (syslog, and patterns that do not name the year) get their year from a
// YearRollover: parsing is not const, and a stamp that does not parse leaves the year alone.
class TimeParser {
 public:
  TimeParser(TimeFormat format, std::optional<TimePattern> pattern, YearStart year_start)
      : format_(format), pattern_(std::move(pattern)), years_(year_start) {}

  TimeReading parse(std::string_view text);
  TimeReading operator()(std::string_view text) { return parse(text); }
  // As parse(), into `r`, but the reading's `text` is `text` itself, not a copy: for a caller
  // whose text stays valid as long as the reading is used (a field of the record being
  // judged). Filled in place, field by field: a reading returned by value was stored in parts
  // and then loaded whole, a stalled load on every record.
  void parse_in_place(std::string_view text, TimeReading& r) {
    parse_trimmed(text, r);
    r.present = true;
    r.text = text;
  }

  // Forgets the months seen: the next year-less stamp starts again from `start` (for a new
  // input file with its own modification time).
  void restart_years(YearStart start) { years_ = YearRollover(start); }
  const YearRollover& years() const { return years_; }

 private:
  void parse_trimmed(std::string_view text, TimeReading& r);
  void place(detail::Civil& c, TimeReading& r);

  TimeFormat format_;
  std::optional<TimePattern> pattern_;
  YearRollover years_;
  std::string last_text_;  // what TimeReading::text shows
};

// `t` as RFC 3339 in UTC: "2023-10-10T10:00:05Z", with as many fraction digits as it needs
// ("...05.25Z").
std::string format_rfc3339(tlbf::Time t);

// The current UTC year, the default for year-less formats.
int current_year();

}  // namespace tlbf_dedup
