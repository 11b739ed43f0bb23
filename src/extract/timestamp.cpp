// The fixed timestamp formats of logs (epoch numbers, RFC 3339, slash dates, RFC 2822, CLF,
// syslog, ctime, a time of day alone), auto-detection among them, and the per-record path of
// TimeParser, which the extractors call for every record. strftime patterns are matched in
// timestamp_pattern.cpp; the year, the date and the zone TimeParser gives a stamp that names
// them not, in timestamp_parser.cpp; what they share (the Civil fields, the calendar, the
// Scanner) is in timestamp_scan.hpp.
//
// Each format is read in two steps: a scanner (scan_rfc3339, scan_syslog...) checks the
// syntax and fills a Civil with the fields the text names, then to_time checks them against
// the calendar and converts. Between the two, TimeParser gives year-less stamps their year
// from its YearRollover (and times of day their date), so a stamp is placed only once it is
// known to be a real date (an unreadable "Feb 30" never moves the year on).
//
// Invariant: a parser either consumes its whole input (after the caller's stripping) and
// returns a time that round-trips through the civil calendar (month 1-12, a day that exists
// in that month, hour < 24, minute < 60, second <= 60), or returns nullopt. Civil dates are
// converted with Howard Hinnant's days_from_civil algorithm
// (http://howardhinnant.github.io/date_algorithms.html), valid for the proleptic Gregorian
// calendar; a time past the 64-bit nanosecond range (after 2262-04-11) is the last time there
// is, one before it (1677) nullopt.
#include "extract/timestamp.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>

#include "extract/timestamp_scan.hpp"

namespace tlbf_dedup {

using detail::Civil;
using detail::is_blank;
using detail::is_digit;
using detail::kNsPerSec;
using detail::month_of_day_of_year;
using detail::parse_with;
using detail::read_as;
using detail::Scanner;
using detail::to_time;
using detail::year_of_two_digits;
using tlbf::Time;

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

namespace {

// A number with an exponent ("1.7e9", "-1.5E+3") written without it ("1700000000", "-1500"),
// so that the plain reader below reads it; nullopt when `text` is not such a number. The
// exponent's effect is capped at 400 places either way: beyond, the value is past 2262 (or
// before 1677) as a plain number of 400 digits is, or a fraction finer than a nanosecond.
std::optional<std::string> without_exponent(std::string_view text) {
  std::size_t i = 0;
  std::string out;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) out += text[i++];
  std::string digits;
  std::int64_t point = 0;  // digits before the decimal point
  for (; i < text.size() && is_digit(text[i]); ++i, ++point) digits += text[i];
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && is_digit(text[i]); ++i) digits += text[i];
  if (digits.empty() || i == text.size() || (text[i] != 'e' && text[i] != 'E')) return std::nullopt;
  ++i;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::int64_t exponent = 0;
  const std::size_t exponent_start = i;
  for (; i < text.size() && is_digit(text[i]); ++i)
    exponent = std::min<std::int64_t>(exponent * 10 + (text[i] - '0'), 400);
  if (i == exponent_start || i != text.size()) return std::nullopt;
  point += negative ? -exponent : exponent;
  const std::size_t lead = std::min(digits.find_first_not_of('0'), digits.size());  // leading zeros add nothing
  digits.erase(0, lead);
  point -= static_cast<std::int64_t>(lead);
  if (digits.empty() || point < -400) return out + "0";
  if (point <= 0) return out + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  if (static_cast<std::size_t>(point) >= digits.size())
    return out + digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0');
  return out + digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
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
  bool overflow = false;  // past 2262 (or, negative, before 1677)
  const char* start = p;
  for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p) {
    if (p - start >= 18) {
      overflow =
          overflow || __builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, *p - '0', &whole);
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
  if (any && p < end && (*p == 'e' || *p == 'E')) {
    const std::optional<std::string> plain = without_exponent(text);
    return plain ? parse_epoch(*plain, unit) : std::nullopt;
  }
  if (!any || p != end) return std::nullopt;
  std::int64_t ns = 0;
  overflow = overflow || __builtin_mul_overflow(whole, unit, &ns);
  // frac / 10^frac_digits of one unit = 10^unit_digits ns: a multiplication unless the
  // text is finer than a nanosecond (no division on the common path).
  int unit_digits = 0;
  while (unit_digits < 18 && kPow10[unit_digits] < unit) ++unit_digits;
  std::int64_t part =
      frac_digits <= unit_digits ? frac * kPow10[unit_digits - frac_digits] : frac / kPow10[frac_digits - unit_digits];
  overflow = overflow || __builtin_add_overflow(ns, part, &ns);
  // Past the end of the clock: the last time there is, a stamp in the future (as a civil
  // stamp of year 9999 is); before its start, no time.
  if (overflow) return negative ? std::nullopt : std::optional<Time>(std::numeric_limits<Time>::max());
  return negative ? -ns : ns;
}

std::optional<Time> parse_epoch_auto(std::string_view text) {
  if (Time t; fast_epoch_seconds(text, t)) return t;  // at most 10 digits: seconds
  std::size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i + digits < text.size() && is_digit(text[i + digits])) ++digits;
  if (i + digits < text.size()) {  // an exponent after the mantissa: the magnitude is the value's
    std::size_t end = i + digits;
    if (text[end] == '.') end = std::min(text.find_first_not_of("0123456789", end + 1), text.size());
    if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
      const std::optional<std::string> plain = without_exponent(text);
      return plain ? parse_epoch_auto(*plain) : std::nullopt;
    }
  }
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
  return sc.clock(c, true) && sc.end_with_optional_zone(c);
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
  return sc.gap() && sc.clock(c, false) && sc.end_with_optional_zone(c);
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
  return sc.gap() && sc.mail_zone(c) && sc.done();
}

bool scan_clf(std::string_view text, Civil& c) {
  Scanner sc{text};
  if (!sc.num(1, 2, c.day) || !sc.lit('/') || !sc.month_name(c.month) || !sc.lit('/') || !sc.num64(4, 4, c.year) ||
      !sc.lit(':') || !sc.clock(c, false))
    return false;
  c.zone_cut = sc.done();
  return sc.end_with_optional_zone(c);
}

bool scan_syslog(std::string_view text, Civil& c) {
  Scanner sc{text};
  c.has_year = false;
  return sc.month_name(c.month) && sc.gap() && sc.num(1, 2, c.day) && sc.gap() && sc.clock(c, false) && sc.done();
}

// "15:54:07,115": the time of day alone; seconds required, so that "10:30" in a text stays
// no time. Not inlined: auto-detection's common forms keep the code they had without it.
[[gnu::noinline]] bool scan_time_of_day(std::string_view text, Civil& c) {
  Scanner sc{text};
  c.has_date = false;
  return sc.clock(c, false) && sc.end_with_optional_zone(c);
}

bool scan_ctime(std::string_view text, Civil& c) {
  Scanner sc{text};
  return sc.weekday_name() && sc.gap() && sc.month_name(c.month) && sc.gap() && sc.num(1, 2, c.day) && sc.gap() &&
         sc.clock(c, false) && sc.gap() && sc.num64(4, 4, c.year) && sc.done();
}

// Auto-detection: the shape of the text picks the scanner, so each stamp is scanned once
// (and the common RFC 3339 and CLF stamps skip the epoch attempt). Text that starts with a
// digit: '-' at [4] is RFC 3339; '/' at [4], or at [2] before a digit, a slash date; a blank
// at [1] or [2] RFC 2822 without its weekday; '/' at [1] or [2] CLF; ':' at [1] or [2] a time
// of day; else a number. None of these shapes is a number, so trying them first changes no
// number's reading. Other text is syslog, ctime or RFC 2822 with its weekday, which differ in
// their first fields.
bool scan_auto(std::string_view text, Civil& c) {
  if (text.empty()) return false;
  const char c0 = text[0];
  auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  if (is_digit(c0)) {
    if (at(4) == '-') return scan_rfc3339(text, c);
    if (at(4) == '/' || (at(2) == '/' && is_digit(at(3)))) return scan_slash_date(text, c);
    if (is_blank(at(1)) || is_blank(at(2))) return scan_rfc2822(text, c);
    if (at(1) == '/' || at(2) == '/') return scan_clf(text, c);
    if (at(1) == ':' || at(2) == ':') return scan_time_of_day(text, c);
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

}  // namespace

std::optional<Time> parse_rfc3339(std::string_view text) { return parse_with(scan_rfc3339, text); }
std::optional<Time> parse_slash_date(std::string_view text) { return parse_with(scan_slash_date, text); }
std::optional<Time> parse_rfc2822(std::string_view text) { return parse_with(scan_rfc2822, text); }
std::optional<Time> parse_clf(std::string_view text) { return parse_with(scan_clf, text); }
std::optional<Time> parse_syslog(std::string_view text, int year) { return parse_with(scan_syslog, text, year); }
std::optional<Time> parse_ctime(std::string_view text) { return parse_with(scan_ctime, text); }
std::optional<Time> parse_time_of_day(std::string_view text) { return parse_with(scan_time_of_day, text); }
std::optional<Time> parse_auto(std::string_view text, int year) { return parse_with(scan_auto, text, year); }

namespace {

// How TimeParser reads each format: by a scanner, as a number of epoch units, or (neither) by
// its pattern. Indexed by the format's value.
struct FormatReader {
  TimeFormat format;
  bool (*scan)(std::string_view, Civil&);
  tlbf::Duration epoch_unit;
};
constexpr FormatReader kFormatReaders[] = {
    {TimeFormat::auto_detect, scan_auto, 0},
    {TimeFormat::epoch, nullptr, tlbf::kSecond},
    {TimeFormat::epoch_ms, nullptr, tlbf::kMillisecond},
    {TimeFormat::epoch_us, nullptr, tlbf::kMicrosecond},
    {TimeFormat::epoch_ns, nullptr, 1},
    {TimeFormat::rfc3339, scan_rfc3339, 0},
    {TimeFormat::clf, scan_clf, 0},
    {TimeFormat::syslog, scan_syslog, 0},
    {TimeFormat::ctime, scan_ctime, 0},
    {TimeFormat::pattern, nullptr, 0},
};
constexpr bool in_format_order() {
  for (std::size_t i = 0; i < std::size(kFormatReaders); ++i)
    if (static_cast<std::size_t>(kFormatReaders[i].format) != i) return false;
  return std::size(kFormatReaders) == static_cast<std::size_t>(TimeFormat::pattern) + 1;
}
static_assert(in_format_order(), "kFormatReaders has a row for each TimeFormat, in the enum's order");

}  // namespace

TimeReading TimeParser::parse(std::string_view text) {
  TimeReading r;
  parse_in_place(text, r);
  // A copy: the caller's text may live in a buffer that its next lookup overwrites (simdjson's
  // string buffer), and a warning about this record is written after its key is read.
  last_text_.assign(r.text.data(), r.text.size());
  r.text = last_text_;
  return r;
}

void TimeParser::parse_trimmed(std::string_view text, TimeReading& r) {
  // Plain epoch seconds need no trimming (they start and end with a digit).
  if (Time t; (format_ == TimeFormat::auto_detect || format_ == TimeFormat::epoch) && fast_epoch_seconds(text, t))
    return read_as(t, r);
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  if (text.size() >= 2 && ((text.front() == '[' && text.back() == ']') || (text.front() == '"' && text.back() == '"') ||
                           (text.front() == '(' && text.back() == ')'))) {
    text = text.substr(1, text.size() - 2);
  }
  // "[2016-12-19 16:31:47,999]" cut off before its "]" by a field list: for a CLF stamp, its
  // zone was cut off with it.
  const bool cut = !text.empty() && text.front() == '[';
  if (cut) text.remove_prefix(1);
  Civil c;
  bool scanned = false;
  const FormatReader& reader = kFormatReaders[static_cast<std::size_t>(format_)];
  if (reader.scan)
    scanned = reader.scan(text, c);
  else if (reader.epoch_unit)
    c.instant = parse_epoch(text, reader.epoch_unit);
  else
    scanned = pattern_ && pattern_->scan(text, c, settings_.zone.get());
  if (c.instant) return read_as(*c.instant, r);
  r = TimeReading{};
  if (!scanned) return;
  place(c, r);
  r.zone_cut = cut && c.zone_cut;
}

// `r`, reset by the caller, as the civil time c reads. Here, beside parse_trimmed(), for the
// usual stamps; a time of day alone and --timezone are placed in timestamp_parser.cpp.
void TimeParser::place(Civil& c, TimeReading& r) {
  if (!c.has_date) return place_time_of_day(c, r);
  const unsigned month = c.yday > 0 ? month_of_day_of_year(c.yday) : c.month;
  if (!c.has_year) c.year = years_.year_for(month);
  std::optional<Time> t = to_time(c);
  if (t && !c.zoned && settings_.zone) t = from_local(*t);
  if (!t) return;
  read_as(*t, r);
  r.date_only = !c.has_time_of_day;
  // Placed only once the calendar accepts the date, so a stamp that is not one (month 13,
  // "Feb 29" of a common year) cannot move the year on.
  if (!c.has_year) r.year_advanced = years_.accept(month);
}

}  // namespace tlbf_dedup
