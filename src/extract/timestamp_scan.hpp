// What the timestamp parsers of timestamp.cpp and timestamp_pattern.cpp share: the fields a
// stamp names (Civil), the civil calendar that checks and converts them, and the Scanner
// every format's scanner reads with. Internal to src/extract: only those two files and the time
// zones' (time_zone.cpp, for the calendar) include it.
//
// Invariant: to_time() accepts only a date that exists (month 1-12, a day of that month,
// hour < 24, minute < 60, second <= 60) and a time inside 64-bit nanoseconds. Everything but
// Civil has internal linkage (an unnamed namespace): each of the two files compiles its own
// copy as its own code, free to inline it or call it with the file's register conventions,
// which keeps the per-record parsers as fast as when all of it was one file.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "extract/timestamp.hpp"

namespace tlbf_dedup {
namespace detail {

using tlbf::Time;

// The fields a textual timestamp names; `to_time` validates and converts them.
struct Civil {
  std::int64_t year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0;
  std::int64_t offset_seconds = 0;  // east of UTC
  int yday = 0;                     // %j, 1-based; 0 = unused
  bool has_year = true;             // false: the year is the caller's (syslog, patterns without %Y)
  bool has_time_of_day = true;      // false: a date only, read as its midnight
  bool zone_cut = false;            // a CLF stamp without its zone
  bool zoned = false;               // the text named its zone: offset_seconds is it
  // false: a time of day alone ("15:54:07,115"); the pure parsers put it on 1970-01-01, so its
  // time is the time since midnight, and TimeParser gives it its date.
  bool has_date = true;
  std::optional<Time> instant;  // the whole time, given as a number (epoch, %s)
};

namespace {

constexpr std::int64_t kNsPerSec = 1000000000;

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

inline std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

inline bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

inline unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Two-digit years as POSIX strptime's %y reads them: 69-99 → 1969-1999, 00-68 → 2000-2068.
inline std::int64_t year_of_two_digits(unsigned yy) { return yy < 69 ? 2000 + yy : 1900 + yy; }

// The month (1-12) a day of the year falls in, counted in a common year: only the year
// rollover asks, and it needs no more than the month.
inline unsigned month_of_day_of_year(int yday) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  unsigned m = 1;
  for (int d : kDays) {
    if (yday <= d || m == 12) break;
    yday -= d;
    ++m;
  }
  return m;
}

inline std::optional<Time> to_time(const Civil& c) {
  if (c.month < 1 || c.month > 12 || c.hour > 23 || c.minute > 59 || c.second > 60) return std::nullopt;
  std::int64_t days;
  if (c.yday > 0) {
    if (c.yday > (is_leap(c.year) ? 366 : 365)) return std::nullopt;
    days = days_from_civil(c.year, 1, 1) + c.yday - 1;
  } else {
    if (c.day < 1 || c.day > days_in_month(c.year, c.month)) return std::nullopt;
    days = days_from_civil(c.year, c.month, c.day);
  }
  std::int64_t secs = days * 86400 + c.hour * 3600 + c.minute * 60 + c.second - c.offset_seconds;
  // int64 nanoseconds cover 1677-09-21 .. 2262-04-11. A later stamp (year 9999) is a time
  // all the same, the last one there is: a stamp in the future, not an unreadable one.
  if (secs > 9223372035LL) return std::numeric_limits<Time>::max();
  if (secs < -9223372035LL) return std::nullopt;
  return secs * kNsPerSec + c.nanos;
}

// A cursor over the text with the small matchers every format needs.
struct Scanner {
  std::string_view s;
  std::size_t i = 0;

  bool done() const { return i == s.size(); }
  char peek() const { return i < s.size() ? s[i] : '\0'; }
  bool lit(char c) {
    if (peek() != c) return false;
    ++i;
    return true;
  }
  // min..max digits.
  bool num(std::size_t min, std::size_t max, unsigned& out) {
    std::size_t start = i;
    unsigned v = 0;
    while (i < s.size() && i - start < max && is_digit(s[i])) v = v * 10 + static_cast<unsigned>(s[i++] - '0');
    if (i - start < min) return false;
    out = v;
    return true;
  }
  bool num64(std::size_t min, std::size_t max, std::int64_t& out) {
    unsigned v;
    if (max > 9) return false;
    if (!num(min, max, v)) return false;
    out = v;
    return true;
  }
  void blanks() {
    while (i < s.size() && is_blank(s[i])) ++i;
  }
  // A fraction after '.' or ',': up to 9 digits count, further digits are consumed.
  bool fraction(std::int64_t& nanos) {
    std::size_t start = i;
    std::int64_t v = 0;
    std::size_t n = 0;
    while (i < s.size() && is_digit(s[i])) {
      if (n < 9) {
        v = v * 10 + (s[i] - '0');
        ++n;
      }
      ++i;
    }
    if (i == start) return false;
    for (; n < 9; ++n) v *= 10;
    nanos = v;
    return true;
  }
  // Z, ±HH, ±HHMM, ±HH:MM: c.offset_seconds, and c is zoned.
  bool zone(Civil& c) {
    if (!zone_offset(c.offset_seconds)) return false;
    c.zoned = true;
    return true;
  }
  bool zone_offset(std::int64_t& offset) {
    if (lit('Z') || lit('z')) {
      offset = 0;
      return true;
    }
    char sign = peek();
    if (sign != '+' && sign != '-') return false;
    ++i;
    unsigned hh, mm = 0;
    if (!num(2, 2, hh)) return false;
    if (lit(':')) {
      if (!num(2, 2, mm)) return false;
    } else if (is_digit(peek())) {
      if (!num(2, 2, mm)) return false;
    }
    if (hh > 23 || mm > 59) return false;
    offset = (sign == '-' ? -1 : 1) * static_cast<std::int64_t>(hh * 3600 + mm * 60);
    return true;
  }
  // The end of the text, or blanks, a zone (as zone()) and the end.
  bool end_with_optional_zone(Civil& c) {
    if (done()) return true;
    blanks();
    return zone(c) && done();
  }
  // zone(), or a zone name of RFC 2822 (section 3.3 and 4.3), any case; UTC too, as HTTP
  // servers write it.
  bool mail_zone(Civil& c) {
    if (zone(c)) return true;
    if (!zone_name(c.offset_seconds)) return false;
    c.zoned = true;
    return true;
  }
  // A zone name of mail_zone(), the letters ending there.
  bool zone_name(std::int64_t& offset) {
    static constexpr struct {
      const char* name;
      int hours;
    } kZones[] = {{"ut", 0},   {"utc", 0},  {"gmt", 0},  {"est", -5}, {"edt", -4}, {"cst", -6},
                  {"cdt", -5}, {"mst", -7}, {"mdt", -6}, {"pst", -8}, {"pdt", -7}};
    std::size_t end = i;
    while (end < s.size() && lower(s[end]) >= 'a' && lower(s[end]) <= 'z') ++end;
    for (const auto& z : kZones) {
      const std::size_t n = std::strlen(z.name);
      if (end - i != n) continue;
      std::size_t k = 0;
      while (k < n && lower(s[i + k]) == z.name[k]) ++k;
      if (k == n) {
        offset = z.hours * 3600;
        i = end;
        return true;
      }
    }
    return false;
  }
  // At least one blank, and all that follow.
  bool gap() {
    if (!is_blank(peek())) return false;
    blanks();
    return true;
  }
  // A month name, abbreviated or full, any case; 1-12.
  bool month_name(unsigned& month) {
    static constexpr const char* kNames[12] = {"january", "february", "march",     "april",   "may",      "june",
                                               "july",    "august",   "september", "october", "november", "december"};
    if (i + 3 > s.size()) return false;
    for (unsigned m = 0; m < 12; ++m) {
      const char* n = kNames[m];
      if (lower(s[i]) == n[0] && lower(s[i + 1]) == n[1] && lower(s[i + 2]) == n[2]) {
        i += 3;
        std::size_t k = 3;
        std::size_t save = i;
        while (n[k] && i < s.size() && lower(s[i]) == n[k]) ++i, ++k;
        if (n[k]) i = save;  // only a full name may extend the abbreviation
        month = m + 1;
        return true;
      }
    }
    return false;
  }
  bool weekday_name() {
    static constexpr const char* kNames[7] = {"sunday",   "monday", "tuesday", "wednesday",
                                              "thursday", "friday", "saturday"};
    if (i + 3 > s.size()) return false;
    for (const char* n : kNames) {
      if (lower(s[i]) == n[0] && lower(s[i + 1]) == n[1] && lower(s[i + 2]) == n[2]) {
        i += 3;
        std::size_t k = 3;
        std::size_t save = i;
        while (n[k] && i < s.size() && lower(s[i]) == n[k]) ++i, ++k;
        if (n[k]) i = save;
        return true;
      }
    }
    return false;
  }
  bool clock(Civil& c, bool seconds_optional) {
    if (!num(1, 2, c.hour) || !lit(':') || !num(2, 2, c.minute)) return false;
    if (!lit(':')) return seconds_optional;
    if (!num(2, 2, c.second)) return false;
    if (peek() == '.' || peek() == ',') {
      ++i;
      if (!fraction(c.nanos) && !done()) return false;  // "04:30:30," (a bare separator) is allowed at the end
    }
    return true;
  }
};

// `r` anew, read as t.
inline void read_as(Time t, TimeReading& r) {
  r = TimeReading{};
  r.time = t;
  r.parsed = true;
}

// A pure parser: scan, give a year-less stamp `year`, convert.
template <class Scan>
std::optional<Time> parse_with(Scan scan, std::string_view text, std::int64_t year = 0) {
  Civil c;
  if (!scan(text, c)) return std::nullopt;
  if (c.instant) return c.instant;
  if (!c.has_year && c.has_date) c.year = year;  // a time of day alone stays on 1970-01-01
  return to_time(c);
}

}  // namespace

}  // namespace detail
}  // namespace tlbf_dedup
