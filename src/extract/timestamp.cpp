// Hand-written parsers for the fixed timestamp formats of logs, a small strftime-style
// pattern matcher for the rest, and the year rollover of stamps that do not name their year.
//
// Each format is read in two steps: a scanner (scan_rfc3339, scan_syslog...) checks the
// syntax and fills a Civil with the fields the text names, then to_time checks them against
// the calendar and converts. Between the two, TimeParser gives year-less stamps their year
// from its YearRollover, so a stamp is placed only once it is known to be a real date (an
// unreadable "Feb 30" never moves the year on).
//
// Invariant: a parser either consumes its whole input (after the caller's stripping) and
// returns a time that round-trips through the civil calendar (month 1-12, a day that exists
// in that month, hour < 24, minute < 60, second <= 60), or returns nullopt. Civil dates are
// converted with Howard Hinnant's days_from_civil algorithm
// (http://howardhinnant.github.io/date_algorithms.html), valid for the proleptic Gregorian
// calendar; overflow of the 64-bit nanosecond range (years beyond ~1677..2262) is nullopt.
#include "extract/timestamp.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>

namespace tlbf_dedup {
namespace {

using tlbf::Time;

constexpr std::int64_t kNsPerSec = 1000000000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Two-digit years as POSIX strptime's %y reads them: 69-99 → 1969-1999, 00-68 → 2000-2068.
std::int64_t year_of_two_digits(unsigned yy) { return yy < 69 ? 2000 + yy : 1900 + yy; }

// The month (1-12) a day of the year falls in, counted in a common year: only the year
// rollover asks, and it needs no more than the month.
unsigned month_of_day_of_year(int yday) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  unsigned m = 1;
  for (int d : kDays) {
    if (yday <= d || m == 12) break;
    yday -= d;
    ++m;
  }
  return m;
}

}  // namespace

namespace detail {
// The fields a textual timestamp names; `to_time` validates and converts them.
struct Civil {
  std::int64_t year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0;
  std::int64_t offset_seconds = 0;  // east of UTC
  int yday = 0;                     // %j, 1-based; 0 = unused
  bool has_year = true;             // false: the year is the caller's (syslog, patterns without %Y)
  bool has_time_of_day = true;      // false: a date only, read as its midnight
  std::optional<Time> instant;      // the whole time, given as a number (epoch, %s)
};
}  // namespace detail

namespace {

using detail::Civil;

std::optional<Time> to_time(const Civil& c) {
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
  // int64 nanoseconds cover 1677-09-21 .. 2262-04-11.
  if (secs < -9223372035LL || secs > 9223372035LL) return std::nullopt;
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
  // Z, ±HH, ±HHMM, ±HH:MM.
  bool zone(std::int64_t& offset) {
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
  bool end_with_optional_zone(std::int64_t& offset) {
    if (done()) return true;
    blanks();
    return zone(offset) && done();
  }
  // zone(), or a zone name of RFC 2822 (section 3.3 and 4.3), any case; UTC too, as HTTP
  // servers write it.
  bool mail_zone(std::int64_t& offset) {
    if (zone(offset)) return true;
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

}  // namespace

namespace {

// Whether the 8 bytes of v (in memory order) are all ASCII digits, and their value read as
// a decimal number (Lemire's SWAR conversion; x86 and other little-endian machines).
bool all_eight_digits(std::uint64_t v) {
  return (((v & 0xF0F0F0F0F0F0F0F0ULL) | (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
          0x3333333333333333ULL);
}
std::uint64_t eight_digits_value(std::uint64_t v) {
  v = (v & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
  v = (v & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
  return (v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
}

// The common case of epoch seconds, "1763750000" or "1763750000.001": 1-10 digits, an
// optional fraction of at most 9 digits, nothing else. Gives the same value as
// parse_epoch(text, kSecond) and false for anything else (which then takes the general
// path). A whole part of 9e9 or more also goes the general way, which checks overflow.
bool fast_epoch_seconds(std::string_view text, Time& out) {
  static constexpr std::int64_t kScale[10] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                              10000,      1000,      100,      10,      1};
  const std::size_t n = text.size();
  // The usual shape, ten digits, a dot and 1-8 fraction digits ("1763750000.001", any time
  // from 2001 to 2286), in three SWAR steps: the first eight digits, the next two, and the
  // last eight bytes with those before the fraction replaced by '0'.
  if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && n >= 12 && n <= 19 && text[10] == '.') {
    std::uint64_t hi, lo;
    std::memcpy(&hi, text.data(), 8);
    std::memcpy(&lo, text.data() + n - 8, 8);
    const std::size_t digits = n - 11;
    const std::uint64_t keep = ~std::uint64_t{0} << (8 * (8 - digits));
    lo = (lo & keep) | (0x3030303030303030ULL & ~keep);
    const unsigned d8 = static_cast<unsigned>(text[8] - '0'), d9 = static_cast<unsigned>(text[9] - '0');
    if (all_eight_digits(hi) && all_eight_digits(lo) && d8 < 10 && d9 < 10) {
      const auto whole = static_cast<std::int64_t>(eight_digits_value(hi) * 100 + d8 * 10 + d9);
      if (whole < 9000000000) {
        out = whole * tlbf::kSecond + static_cast<std::int64_t>(eight_digits_value(lo)) * kScale[digits];
        return true;
      }
    }
  }
  std::size_t i = 0;
  std::int64_t whole = 0;
  // Eight digits at once when they are there (a digit-per-iteration loop cost ~12
  // instructions a digit), then the rest one by one.
  if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && n >= 8) {
    std::uint64_t v;
    std::memcpy(&v, text.data(), 8);
    if (all_eight_digits(v)) {
      whole = static_cast<std::int64_t>(eight_digits_value(v));
      i = 8;
    }
  }
  while (i < n && i < 11 && static_cast<unsigned>(text[i] - '0') < 10) whole = whole * 10 + (text[i++] - '0');
  if (i == 0 || i > 10 || whole >= 9000000000) return false;
  std::int64_t frac = 0;
  std::size_t digits = 0;
  if (i < n) {
    if (text[i] != '.' || n - i - 1 > 9) return false;
    for (++i; i < n; ++i, ++digits) {
      const unsigned d = static_cast<unsigned>(text[i] - '0');
      if (d >= 10) return false;
      frac = frac * 10 + d;
    }
  }
  out = whole * tlbf::kSecond + frac * kScale[digits];
  return true;
}

}  // namespace

std::optional<Time> parse_epoch(std::string_view text, tlbf::Duration unit) {
  if (Time t; unit == tlbf::kSecond && fast_epoch_seconds(text, t)) return t;
  static constexpr std::int64_t kPow10[19] = {1,
                                              10,
                                              100,
                                              1000,
                                              10000,
                                              100000,
                                              1000000,
                                              10000000,
                                              100000000,
                                              1000000000,
                                              10000000000,
                                              100000000000,
                                              1000000000000,
                                              10000000000000,
                                              100000000000000,
                                              1000000000000000,
                                              10000000000000000,
                                              100000000000000000,
                                              1000000000000000000};
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = false;
  if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
  // 18 digits always fit an int64; from the 19th on, check for overflow.
  std::int64_t whole = 0;
  const char* start = p;
  for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p) {
    if (p - start >= 18) {
      if (__builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, *p - '0', &whole))
        return std::nullopt;
    } else {
      whole = whole * 10 + (*p - '0');
    }
  }
  bool any = p > start;
  std::int64_t frac = 0;
  int frac_digits = 0;
  if (p < end && *p == '.') {
    const char* fstart = ++p;
    for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p) {
      if (frac_digits < 18) {
        frac = frac * 10 + (*p - '0');
        ++frac_digits;
      }
    }
    any = any || p > fstart;
  }
  if (!any || p != end) return std::nullopt;
  std::int64_t ns;
  if (__builtin_mul_overflow(whole, unit, &ns)) return std::nullopt;
  // frac / 10^frac_digits of one unit = 10^unit_digits ns: a multiplication unless the
  // text is finer than a nanosecond (no division on the common path).
  int unit_digits = 0;
  while (unit_digits < 18 && kPow10[unit_digits] < unit) ++unit_digits;
  std::int64_t part =
      frac_digits <= unit_digits ? frac * kPow10[unit_digits - frac_digits] : frac / kPow10[frac_digits - unit_digits];
  if (__builtin_add_overflow(ns, part, &ns)) return std::nullopt;
  return negative ? -ns : ns;
}

std::optional<Time> parse_epoch_auto(std::string_view text) {
  if (Time t; fast_epoch_seconds(text, t)) return t;  // at most 10 digits: seconds
  std::size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i + digits < text.size() && is_digit(text[i + digits])) ++digits;
  while (digits > 1 && text[i] == '0') ++i, --digits;  // leading zeros do not add magnitude
  tlbf::Duration unit = digits <= 11   ? tlbf::kSecond
                        : digits <= 14 ? tlbf::kMillisecond
                        : digits <= 17 ? tlbf::kMicrosecond
                                       : 1;
  return parse_epoch(text, unit);
}

namespace {

// The scanners: each reads one format into `c` (fresh, as Civil{} leaves it) and says whether
// the whole text matched; to_time checks the calendar afterwards.

bool scan_rfc3339(std::string_view text, Civil& c) {
  Scanner sc{text};
  if (!sc.num64(4, 4, c.year) || !sc.lit('-') || !sc.num(1, 2, c.month) || !sc.lit('-') || !sc.num(1, 2, c.day))
    return false;
  if (sc.done()) {
    c.has_time_of_day = false;
    return true;
  }
  if (!(sc.lit('T') || sc.lit('t') || sc.lit(' '))) return false;
  return sc.clock(c, true) && sc.end_with_optional_zone(c.offset_seconds);
}

bool scan_slash_date(std::string_view text, Civil& c) {
  Scanner sc{text};
  unsigned year;
  if (!sc.num(2, 4, year) || sc.i == 3) return false;
  const bool four_digits = sc.i == 4;
  c.year = four_digits ? year : year_of_two_digits(year);
  if (!sc.lit('/') || !sc.num(1, 2, c.month) || !sc.lit('/') || !sc.num(1, 2, c.day)) return false;
  if (sc.done()) {
    c.has_time_of_day = false;
    return four_digits;
  }
  return sc.gap() && sc.clock(c, false) && sc.end_with_optional_zone(c.offset_seconds);
}

bool scan_rfc2822(std::string_view text, Civil& c) {
  Scanner sc{text};
  if (!is_digit(sc.peek())) {
    if (!sc.weekday_name() || !sc.lit(',')) return false;
    sc.blanks();
  }
  if (!sc.num(1, 2, c.day) || !sc.gap() || !sc.month_name(c.month) || !sc.gap() || !sc.num64(4, 4, c.year) ||
      !sc.gap() || !sc.clock(c, true))
    return false;
  if (sc.done()) return true;
  return sc.gap() && sc.mail_zone(c.offset_seconds) && sc.done();
}

bool scan_clf(std::string_view text, Civil& c) {
  Scanner sc{text};
  return sc.num(1, 2, c.day) && sc.lit('/') && sc.month_name(c.month) && sc.lit('/') && sc.num64(4, 4, c.year) &&
         sc.lit(':') && sc.clock(c, false) && sc.end_with_optional_zone(c.offset_seconds);
}

bool scan_syslog(std::string_view text, Civil& c) {
  Scanner sc{text};
  c.has_year = false;
  return sc.month_name(c.month) && sc.gap() && sc.num(1, 2, c.day) && sc.gap() && sc.clock(c, false) && sc.done();
}

bool scan_ctime(std::string_view text, Civil& c) {
  Scanner sc{text};
  return sc.weekday_name() && sc.gap() && sc.month_name(c.month) && sc.gap() && sc.num(1, 2, c.day) && sc.gap() &&
         sc.clock(c, false) && sc.gap() && sc.num64(4, 4, c.year) && sc.done();
}

// Auto-detection: the shape of the text picks the scanner, so each stamp is scanned once
// (and the common RFC 3339 and CLF stamps skip the epoch attempt). Text that starts with a
// digit: '-' at [4] is RFC 3339; '/' at [4], or at [2] before a digit, a slash date; a blank
// at [1] or [2] RFC 2822 without its weekday; '/' at [1] or [2] CLF; else a number. None of
// these shapes is a number, so trying them first changes no number's reading. Other text
// is syslog, ctime or RFC 2822 with its weekday, which differ in their first fields.
bool scan_auto(std::string_view text, Civil& c) {
  if (text.empty()) return false;
  const char c0 = text[0];
  auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  if (is_digit(c0)) {
    if (at(4) == '-') return scan_rfc3339(text, c);
    if (at(4) == '/' || (at(2) == '/' && is_digit(at(3)))) return scan_slash_date(text, c);
    if (is_blank(at(1)) || is_blank(at(2))) return scan_rfc2822(text, c);
    if (at(1) == '/' || at(2) == '/') return scan_clf(text, c);
  }
  if (is_digit(c0) || c0 == '-' || c0 == '+' || c0 == '.') {
    c.instant = parse_epoch_auto(text);
    return c.instant.has_value();
  }
  if (scan_syslog(text, c)) return true;
  c = Civil{};
  if (scan_ctime(text, c)) return true;
  c = Civil{};
  return scan_rfc2822(text, c);
}

// A pure parser: scan, give a year-less stamp `year`, convert.
template <class Scan>
std::optional<Time> parse_with(Scan scan, std::string_view text, std::int64_t year = 0) {
  Civil c;
  if (!scan(text, c)) return std::nullopt;
  if (c.instant) return c.instant;
  if (!c.has_year) c.year = year;
  return to_time(c);
}

}  // namespace

std::optional<Time> parse_rfc3339(std::string_view text) { return parse_with(scan_rfc3339, text); }
std::optional<Time> parse_slash_date(std::string_view text) { return parse_with(scan_slash_date, text); }
std::optional<Time> parse_rfc2822(std::string_view text) { return parse_with(scan_rfc2822, text); }
std::optional<Time> parse_clf(std::string_view text) { return parse_with(scan_clf, text); }
std::optional<Time> parse_syslog(std::string_view text, int year) { return parse_with(scan_syslog, text, year); }
std::optional<Time> parse_ctime(std::string_view text) { return parse_with(scan_ctime, text); }
std::optional<Time> parse_auto(std::string_view text, int year) { return parse_with(scan_auto, text, year); }

std::optional<TimePattern> TimePattern::compile(std::string_view pattern, std::string* error) {
  TimePattern p;
  bool any_field = false;
  auto fail = [&](std::string msg) -> std::optional<TimePattern> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char ch = pattern[i];
    if (is_blank(ch)) {
      if (p.ops_.empty() || p.ops_.back().kind != ' ') p.ops_.push_back({' ', {}});
      continue;
    }
    if (ch != '%') {
      if (p.ops_.empty() || p.ops_.back().kind != 0) p.ops_.push_back({0, {}});
      p.ops_.back().text += ch;
      continue;
    }
    if (++i == pattern.size()) return fail("pattern ends with a lone '%'");
    char d = pattern[i];
    switch (d) {
      case 'T':
        p.ops_.insert(p.ops_.end(), {{'H', {}}, {0, ":"}, {'M', {}}, {0, ":"}, {'S', {}}});
        any_field = true;
        break;
      case 'F':
        p.ops_.insert(p.ops_.end(), {{'Y', {}}, {0, "-"}, {'m', {}}, {0, "-"}, {'d', {}}});
        any_field = true;
        break;
      case 'D':
        p.ops_.insert(p.ops_.end(), {{'m', {}}, {0, "/"}, {'d', {}}, {0, "/"}, {'y', {}}});
        any_field = true;
        break;
      case '%':
        p.ops_.push_back({0, "%"});
        break;
      case 'n':
      case 't':
        p.ops_.push_back({' ', {}});
        break;
      case 'Y':
      case 'y':
      case 'm':
      case 'd':
      case 'e':
      case 'H':
      case 'I':
      case 'M':
      case 'S':
      case 'f':
      case 'z':
      case 'Z':
      case 'b':
      case 'h':
      case 'B':
      case 'a':
      case 'A':
      case 'j':
      case 'p':
      case 's':
        p.ops_.push_back({d == 'h' ? 'b' : d == 'B' ? 'b' : d == 'A' ? 'a' : d == 'e' ? 'd' : d, {}});
        any_field = true;
        break;
      default:
        return fail(std::string("unsupported directive %") + d);
    }
  }
  if (!any_field) return fail("the pattern has no time field");
  for (const Op& op : p.ops_) {
    p.names_year_ = p.names_year_ || op.kind == 'Y' || op.kind == 'y' || op.kind == 's';
    p.names_time_of_day_ = p.names_time_of_day_ || op.kind == 'H' || op.kind == 'I' || op.kind == 's';
  }
  return p;
}

bool TimePattern::scan(std::string_view text, Civil& c) const {
  Scanner sc{text};
  c.has_year = names_year_;
  c.has_time_of_day = names_time_of_day_;
  bool pm = false, twelve = false, have_epoch = false;
  std::int64_t epoch = 0;
  for (const Op& op : ops_) {
    switch (op.kind) {
      case 0:
        if (sc.s.substr(sc.i, op.text.size()) != op.text) return false;
        sc.i += op.text.size();
        break;
      case ' ':
        sc.blanks();
        break;
      case 'Y': {
        bool neg = sc.lit('-');
        if (!sc.num64(1, 4, c.year)) return false;
        if (neg) c.year = -c.year;
        break;
      }
      case 'y': {
        unsigned yy;
        if (!sc.num(1, 2, yy)) return false;
        c.year = year_of_two_digits(yy);
        break;
      }
      case 'm':
        if (!sc.num(1, 2, c.month)) return false;
        break;
      case 'd':
        sc.blanks();
        if (!sc.num(1, 2, c.day)) return false;
        break;
      case 'H':
        if (!sc.num(1, 2, c.hour)) return false;
        break;
      case 'I':
        if (!sc.num(1, 2, c.hour) || c.hour < 1 || c.hour > 12) return false;
        twelve = true;
        break;
      case 'M':
        if (!sc.num(1, 2, c.minute)) return false;
        break;
      case 'S':
        if (!sc.num(1, 2, c.second)) return false;
        break;
      case 'f':
        if (!sc.fraction(c.nanos)) return false;
        break;
      case 'z':
        if (!sc.zone(c.offset_seconds)) return false;
        break;
      case 'Z':
        while (!sc.done() && ((sc.peek() >= 'A' && sc.peek() <= 'Z') || (sc.peek() >= 'a' && sc.peek() <= 'z'))) ++sc.i;
        break;
      case 'b':
        if (!sc.month_name(c.month)) return false;
        break;
      case 'a':
        if (!sc.weekday_name()) return false;
        break;
      case 'j': {
        unsigned j;
        if (!sc.num(1, 3, j) || j == 0) return false;
        c.yday = static_cast<int>(j);
        break;
      }
      case 'p': {
        if (sc.i + 2 > text.size()) return false;
        char a = lower(text[sc.i]), b = lower(text[sc.i + 1]);
        if (b != 'm' || (a != 'a' && a != 'p')) return false;
        pm = a == 'p';
        sc.i += 2;
        break;
      }
      case 's': {
        std::size_t start = sc.i;
        if (sc.peek() == '-') ++sc.i;
        while (!sc.done() && is_digit(sc.peek())) ++sc.i;
        auto t = parse_epoch(text.substr(start, sc.i - start), tlbf::kSecond);
        if (!t) return false;
        epoch = *t;
        have_epoch = true;
        break;
      }
      default:
        return false;
    }
  }
  sc.blanks();
  if (!sc.done()) return false;
  if (have_epoch) {
    std::int64_t t;
    if (__builtin_add_overflow(epoch, c.nanos, &t)) return false;  // beyond year 2262
    c.instant = t;
  }
  if (twelve) c.hour = (c.hour % 12) + (pm ? 12 : 0);
  return true;
}

std::optional<Time> TimePattern::parse(std::string_view text, int default_year) const {
  return parse_with([this](std::string_view t, Civil& c) { return scan(t, c); }, text, default_year);
}

std::optional<Time> parse_strftime(std::string_view text, std::string_view pattern, int default_year) {
  auto p = TimePattern::compile(pattern);
  if (!p) return std::nullopt;
  return p->parse(text, default_year);
}

YearStart YearStart::not_after(Time written_by) {
  constexpr Time kLocalAhead = 14 * 3600 * tlbf::kSecond;  // UTC+14, the furthest zone ahead
  const Time t = written_by > std::numeric_limits<Time>::max() - kLocalAhead ? written_by : written_by + kLocalAhead;
  const std::time_t secs = t / kNsPerSec - (t % kNsPerSec < 0);  // floor division: before 1970 too
  std::tm tm{};
  gmtime_r(&secs, &tm);  // any int64 nanosecond time is a year gmtime_r can hold
  return YearStart(tm.tm_year + 1900, static_cast<unsigned>(tm.tm_mon + 1));
}

bool YearRollover::accept(unsigned month) {
  const int year = year_for(month);
  const bool advanced = latest_month_ != 0 && year != year_;
  if (latest_month_ == 0 || advanced) {
    year_ = year;
    latest_month_ = month;
  } else if (month > latest_month_) {
    latest_month_ = month;
  }
  return advanced;
}

namespace {
TimeReading read_as(Time t) {
  TimeReading r;
  r.time = t;
  r.parsed = true;
  return r;
}
}  // namespace

TimeReading TimeParser::parse(std::string_view text) {
  TimeReading r = parse_trimmed(text);
  r.present = true;
  // A copy: the caller's text may live in a buffer that its next lookup overwrites (simdjson's
  // string buffer), and a warning about this record is written after its key is read.
  last_text_.assign(text.data(), text.size());
  r.text = last_text_;
  return r;
}

TimeReading TimeParser::parse_trimmed(std::string_view text) {
  // Plain epoch seconds need no trimming (they start and end with a digit).
  if (Time t; (format_ == TimeFormat::auto_detect || format_ == TimeFormat::epoch) && fast_epoch_seconds(text, t))
    return read_as(t);
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  if (text.size() >= 2 && ((text.front() == '[' && text.back() == ']') || (text.front() == '"' && text.back() == '"') ||
                           (text.front() == '(' && text.back() == ')'))) {
    text = text.substr(1, text.size() - 2);
  } else if (!text.empty() && text.front() == '[') {
    text.remove_prefix(1);  // "[2016-12-19 16:31:47,999]" cut off before its "]" by a field list
  }
  Civil c;
  bool scanned = false;
  switch (format_) {
    case TimeFormat::auto_detect:
      scanned = scan_auto(text, c);
      break;
    case TimeFormat::epoch:
      c.instant = parse_epoch(text, tlbf::kSecond);
      break;
    case TimeFormat::epoch_ms:
      c.instant = parse_epoch(text, tlbf::kMillisecond);
      break;
    case TimeFormat::epoch_us:
      c.instant = parse_epoch(text, tlbf::kMicrosecond);
      break;
    case TimeFormat::epoch_ns:
      c.instant = parse_epoch(text, 1);
      break;
    case TimeFormat::rfc3339:
      scanned = scan_rfc3339(text, c);
      break;
    case TimeFormat::clf:
      scanned = scan_clf(text, c);
      break;
    case TimeFormat::syslog:
      scanned = scan_syslog(text, c);
      break;
    case TimeFormat::ctime:
      scanned = scan_ctime(text, c);
      break;
    case TimeFormat::pattern:
      scanned = pattern_ && pattern_->scan(text, c);
      break;
  }
  if (c.instant) return read_as(*c.instant);
  if (!scanned) return {};
  return place(c);
}

TimeReading TimeParser::place(Civil& c) {
  const unsigned month = c.yday > 0 ? month_of_day_of_year(c.yday) : c.month;
  if (!c.has_year) c.year = years_.year_for(month);
  const std::optional<Time> t = to_time(c);
  if (!t) return {};
  TimeReading r = read_as(*t);
  r.date_only = !c.has_time_of_day;
  // Placed only once the calendar accepts the date, so a stamp that is not one (month 13,
  // "Feb 29" of a common year) cannot move the year on.
  if (!c.has_year) r.year_advanced = years_.accept(month);
  return r;
}

std::string format_rfc3339(Time t) {
  const std::time_t secs = t / kNsPerSec - (t % kNsPerSec < 0);
  Time frac = t - static_cast<Time>(secs) * kNsPerSec;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf, n);
  if (frac != 0) {
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(frac));
    std::string digits(buf);
    while (digits.back() == '0') digits.pop_back();
    out += digits;
  }
  out += 'Z';
  return out;
}

int current_year() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return tm.tm_year + 1900;
}

}  // namespace tlbf_dedup
