// strftime-style patterns (--time-format '%y%m%d %H%M%S'): compiled once into a list of
// operations, then matched against each record's time text.
//
// Invariant: a compiled pattern has at least one field; scan() reads the whole text or fails,
// filling only the Civil fields the pattern names (to_time checks them against the calendar),
// and with %s the instant itself.
#include "extract/timestamp.hpp"
#include "extract/timestamp_scan.hpp"

namespace tlbf_dedup {

using detail::Civil;
using detail::is_blank;
using detail::is_digit;
using detail::lower;
using detail::parse_with;
using detail::Scanner;
using tlbf::Time;

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
    p.names_date_ =
        p.names_date_ || (op.kind != 0 && std::string_view("Yymdbjs").find(op.kind) != std::string_view::npos);
  }
  return p;
}

namespace {

// What a pattern's fields leave besides the Civil: %p's half of the day for %I's 12-hour
// clock, and the instant of %s.
struct PatternClock {
  bool pm = false, twelve = false, have_epoch = false;
  std::int64_t epoch = 0;
};

// %p: AM or PM, any case.
bool scan_am_pm(Scanner& sc, bool& pm) {
  if (sc.i + 2 > sc.s.size()) return false;
  char a = lower(sc.s[sc.i]), b = lower(sc.s[sc.i + 1]);
  if (b != 'm' || (a != 'a' && a != 'p')) return false;
  pm = a == 'p';
  sc.i += 2;
  return true;
}

// %s: epoch seconds, as parse_epoch reads them.
bool scan_epoch_seconds(Scanner& sc, std::int64_t& epoch) {
  std::size_t start = sc.i;
  if (sc.peek() == '-') ++sc.i;
  while (!sc.done() && is_digit(sc.peek())) ++sc.i;
  auto t = parse_epoch(sc.s.substr(start, sc.i - start), tlbf::kSecond);
  if (!t) return false;
  epoch = *t;
  return true;
}

// One field (an Op's directive letter) at the scanner's position.
bool scan_field(Scanner& sc, char kind, Civil& c, PatternClock& clock, const TimeZone* zone) {
  switch (kind) {
    case 'Y': {
      bool neg = sc.lit('-');
      if (!sc.num64(1, 4, c.year)) return false;
      if (neg) c.year = -c.year;
      return true;
    }
    case 'y': {
      unsigned yy;
      if (!sc.num(1, 2, yy)) return false;
      c.year = detail::year_of_two_digits(yy);
      return true;
    }
    case 'm':
      return sc.num(1, 2, c.month);
    case 'd':
      sc.blanks();
      return sc.num(1, 2, c.day);
    case 'H':
      return sc.num(1, 2, c.hour);
    case 'I':
      if (!sc.num(1, 2, c.hour) || c.hour < 1 || c.hour > 12) return false;
      clock.twelve = true;
      return true;
    case 'M':
      return sc.num(1, 2, c.minute);
    case 'S':
      return sc.num(1, 2, c.second);
    case 'f':
      return sc.fraction(c.nanos);
    case 'z':
      return sc.zone(c);
    case 'Z': {
      // A name the scanner knows (UTC, GMT, UT, Z, the US zones of RFC 2822) gives its offset,
      // and so does one of --timezone's zone (CET and CEST in Europe/Berlin); with another the
      // stamp is not read: never silently UTC.
      if (sc.mail_zone(c)) return true;
      const std::size_t start = sc.i;
      while (!sc.done() && detail::lower(sc.peek()) >= 'a' && detail::lower(sc.peek()) <= 'z') ++sc.i;
      const std::optional<std::int32_t> offset =
          zone && sc.i > start ? zone->offset_of_abbreviation(sc.s.substr(start, sc.i - start)) : std::nullopt;
      if (!offset) return false;
      c.offset_seconds = *offset;
      c.zoned = true;
      return true;
    }
    case 'b':
      return sc.month_name(c.month);
    case 'a':
      return sc.weekday_name();
    case 'j': {
      unsigned j;
      if (!sc.num(1, 3, j) || j == 0) return false;
      c.yday = static_cast<int>(j);
      return true;
    }
    case 'p':
      return scan_am_pm(sc, clock.pm);
    case 's':
      if (!scan_epoch_seconds(sc, clock.epoch)) return false;
      clock.have_epoch = true;
      return true;
    default:
      return false;
  }
}

}  // namespace

bool TimePattern::scan(std::string_view text, Civil& c, const TimeZone* zone) const {
  Scanner sc{text};
  c.has_year = names_year_;
  c.has_time_of_day = names_time_of_day_;
  c.has_date = names_date_ || !names_time_of_day_;
  PatternClock clock;
  for (const Op& op : ops_) {
    if (op.kind == 0) {
      if (sc.s.substr(sc.i, op.text.size()) != op.text) return false;
      sc.i += op.text.size();
    } else if (op.kind == ' ') {
      sc.blanks();
    } else if (!scan_field(sc, op.kind, c, clock, zone)) {
      return false;
    }
  }
  sc.blanks();
  if (!sc.done()) return false;
  if (clock.have_epoch) {
    std::int64_t t;
    if (__builtin_add_overflow(clock.epoch, c.nanos, &t)) return false;  // beyond year 2262
    c.instant = t;
  }
  if (clock.twelve) c.hour = (c.hour % 12) + (clock.pm ? 12 : 0);
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

}  // namespace tlbf_dedup
