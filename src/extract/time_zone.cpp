// Time zones (time_zone.hpp): TZif files (RFC 8536) and POSIX TZ rules read into one table of
// transitions, and the two lookups the time parser needs, UTC to offset and local to UTC.
//
// Invariant: a TimeZone's transitions strictly increase, each changes the offset, and the local
// times around them increase too (at_[i] + max(offset before, after) <= at_[i+1] + min(...)),
// so each local time falls in exactly one Span. A footer's rule is turned into transitions up
// to the end of 2262 when the zone is loaded, so a lookup is one binary search whatever the
// date. Nothing read from a file is trusted: counts are checked against the bytes there are,
// indices against the tables, offsets against +-26 hours.
#include "extract/time_zone.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract/timestamp_scan.hpp"

namespace tlbf_dedup {
namespace {

using detail::days_from_civil;
using detail::days_in_month;
using detail::is_digit;
using detail::is_leap;

constexpr std::int32_t kMostOffset = 26 * 3600;  // RFC 8536: |utoff| < 25 h; margin for old files
constexpr std::int64_t kFirstRuleYear = 1900;    // a footer's rule is applied from here ...
constexpr std::int64_t kLastRuleYear = 2262;     // ... to the end of the nanosecond clock
constexpr std::size_t kMostTzifBytes = 1 << 20;  // real files are a few KiB

bool fail(std::string* error, std::string what) {
  if (error) *error = std::move(what);
  return false;
}
std::nullopt_t none(std::string* error, std::string what) {
  fail(error, std::move(what));
  return std::nullopt;
}

// --- POSIX TZ rules: std offset [dst [offset] [,start[/time],end[/time]]] ---

struct RuleDate {
  char kind = 'M';  // 'J' (1-365, no 29 February), 'n' (0-365), 'M' (month.week.weekday)
  int a = 3, b = 2, c = 0;
  std::int64_t time = 7200;  // seconds after local midnight, -167 h .. 167 h
};

struct PosixRule {
  std::string std_name, dst_name;
  std::int32_t std_offset = 0, dst_offset = 0;  // east of UTC
  bool has_dst = false;
  RuleDate start{'M', 3, 2, 0, 7200}, end{'M', 11, 1, 0, 7200};  // the default: the US rule
};

class RuleText {
 public:
  explicit RuleText(std::string_view s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  bool lit(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  // A zone name: three or more letters, or <...> of letters, digits, '+' and '-'.
  bool name(std::string& out) {
    const std::size_t start = i_;
    if (lit('<')) {
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '+' || s_[i_] == '-'))
        ++i_;
      if (i_ - start - 1 < 3 || !lit('>')) return false;
      out.assign(s_.substr(start + 1, i_ - start - 2));
      return true;
    }
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ - start < 3) return false;
    out.assign(s_.substr(start, i_ - start));
    return true;
  }
  bool number(int min, int max, int& out) {
    const std::size_t start = i_;
    long v = 0;
    while (i_ < s_.size() && is_digit(s_[i_]) && i_ - start < 4) v = v * 10 + (s_[i_++] - '0');
    if (i_ == start || v < min || v > max) return false;
    out = static_cast<int>(v);
    return true;
  }
  // [+-]hh[:mm[:ss]], hours up to `max_hours`.
  bool hms(int max_hours, std::int64_t& secs) {
    const bool negative = lit('-');
    if (!negative) lit('+');
    int h = 0, m = 0, sec = 0;
    if (!number(0, max_hours, h)) return false;
    if (lit(':') && (!number(0, 59, m) || (lit(':') && !number(0, 59, sec)))) return false;
    secs = (negative ? -1 : 1) * (static_cast<std::int64_t>(h) * 3600 + m * 60 + sec);
    return true;
  }
  bool date(RuleDate& d) {
    if (lit('J')) {
      d.kind = 'J';
      if (!number(1, 365, d.a)) return false;
    } else if (lit('M')) {
      d.kind = 'M';
      if (!number(1, 12, d.a) || !lit('.') || !number(1, 5, d.b) || !lit('.') || !number(0, 6, d.c)) return false;
    } else {
      d.kind = 'n';
      if (!number(0, 365, d.a)) return false;
    }
    d.time = 7200;
    return !lit('/') || hms(167, d.time);
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

std::optional<PosixRule> read_posix_rule(std::string_view text, std::string* error) {
  RuleText t(text);
  PosixRule r;
  std::int64_t off = 0;
  if (!t.name(r.std_name) || !t.hms(24, off)) return none(error, "no standard time name and offset");
  r.std_offset = static_cast<std::int32_t>(-off);  // POSIX counts west of UTC
  if (!t.done()) {
    if (!t.name(r.dst_name)) return none(error, "a daylight time name expected");
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (t.peek() != ',' && !t.done()) {
      if (!t.hms(24, off)) return none(error, "a daylight time offset expected");
      r.dst_offset = static_cast<std::int32_t>(-off);
    }
    if (t.lit(',') && (!t.date(r.start) || !t.lit(',') || !t.date(r.end)))
      return none(error, "daylight time rules expected as start[/time],end[/time]");
  }
  if (!t.done()) return none(error, "unexpected text after the rule");
  return r;
}

// The local day (days since 1970-01-01) on which `d` falls in `year`.
std::int64_t rule_day(const RuleDate& d, std::int64_t year) {
  const std::int64_t jan1 = days_from_civil(year, 1, 1);
  if (d.kind == 'J') return jan1 + d.a - 1 + (is_leap(year) && d.a >= 60 ? 1 : 0);
  if (d.kind == 'n') return jan1 + d.a;
  const unsigned month = static_cast<unsigned>(d.a);
  const std::int64_t first = days_from_civil(year, month, 1);
  const std::int64_t weekday = ((first % 7) + 11) % 7;  // 0 = Sunday; 1970-01-01 was a Thursday
  std::int64_t day = 1 + (d.c - weekday + 7) % 7 + 7 * (d.b - 1);
  while (day > static_cast<std::int64_t>(days_in_month(year, month))) day -= 7;  // week 5: the last such weekday
  return first + day - 1;
}

std::int32_t read_be32(const unsigned char* p) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
                                   static_cast<std::uint32_t>(p[2]) << 8 | p[3]);
}
std::int64_t read_be64(const unsigned char* p) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(read_be32(p))) << 32 |
                                   static_cast<std::uint32_t>(read_be32(p + 4)));
}

// The counts of a TZif header (RFC 8536 section 3.1), in the order they appear.
struct TzifCounts {
  std::uint32_t isut, isstd, leap, time, type, chars;
  // The bytes of the data block that follows the header, with times of `time_size` bytes.
  std::uint64_t block(std::uint64_t time_size) const {
    return time * time_size + time + type * 6ULL + chars + leap * (time_size + 4) + isstd + isut;
  }
};

bool read_header(std::string_view bytes, std::size_t at, TzifCounts& c, char& version) {
  if (bytes.size() < at + 44 || bytes.substr(at, 4) != "TZif") return false;
  version = bytes[at + 4];
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at + 20);
  std::uint32_t v[6];
  for (int i = 0; i < 6; ++i) v[i] = static_cast<std::uint32_t>(read_be32(p + 4 * i));
  c = TzifCounts{v[0], v[1], v[2], v[3], v[4], v[5]};
  return true;
}

// An offset such as +02:00, -0530 or +02 (hours to 23): its seconds east of UTC.
std::optional<std::int32_t> parse_fixed_offset(std::string_view s) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  auto two = [&](std::size_t i) {
    return is_digit(s[i]) && is_digit(s[i + 1]) ? (s[i] - '0') * 10 + s[i + 1] - '0' : -1;
  };
  const int h = two(1);
  int m = 0;
  if (s.size() == 6 && s[3] == ':')
    m = two(4);
  else if (s.size() == 5)
    m = two(3);
  else if (s.size() != 3)
    return std::nullopt;
  if (h < 0 || h > 23 || m < 0 || m > 59) return std::nullopt;
  return (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
}

std::string offset_name(std::int32_t offset) {
  const std::int32_t a = offset < 0 ? -offset : offset;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  return buf;
}

// An IANA name: letters, digits, '_', '+', '-' in parts joined by '/', none starting with '.'.
bool is_zone_name(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.back() == '/') return false;
  char before = '/';
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' || c == '/' || c == '.'))
      return false;
    if ((c == '.' || c == '/') && before == '/') return false;
    before = c;
  }
  return true;
}

// The file's bytes, or nullopt with `problem` set: not there, not a regular file, too long.
std::optional<std::string> read_small_file(const std::string& path, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    problem = std::strerror(errno);
    return std::nullopt;
  }
  struct stat st;
  std::string bytes;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > kMostTzifBytes) {
    problem = "not a time zone file";
    ::close(fd);
    return std::nullopt;
  }
  bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace

TimeZone TimeZone::fixed(std::int32_t offset_seconds, std::string name) {
  TimeZone z;
  z.initial_offset_ = offset_seconds;
  z.name_ = std::move(name);
  return z;
}

TimeZone TimeZone::named(const std::string& spec) {
  if (spec == "UTC" || spec == "Z" || spec == "utc") return TimeZone();
  if (spec[0] == '+' || spec[0] == '-') {
    if (const std::optional<std::int32_t> off = parse_fixed_offset(spec)) return fixed(*off, offset_name(*off));
    throw std::invalid_argument("not an offset such as +02:00, -0530 or +02 (hours to 23)");
  }
  if (!is_zone_name(spec))
    throw std::invalid_argument("expected an IANA zone name such as Europe/Berlin, an offset such as +02:00, or UTC");
  const char* dir = std::getenv("TZDIR");
  const std::string root = dir && *dir ? dir : "/usr/share/zoneinfo";
  std::string problem;
  const std::optional<std::string> bytes = read_small_file(root + "/" + spec, problem);
  if (!bytes)
    throw std::invalid_argument("no time zone of that name in " + root + " (" + problem +
                                "); IANA names such as Europe/Berlin or America/New_York come with the tzdata "
                                "package, or give an offset such as +02:00");
  std::optional<TimeZone> z = from_tzif(*bytes, spec, &problem);
  if (!z) throw std::invalid_argument(root + "/" + spec + " is not a usable time zone file: " + problem);
  return std::move(*z);
}

std::optional<TimeZone> TimeZone::from_posix_rule(std::string_view text, std::string* error) {
  const std::optional<PosixRule> r = read_posix_rule(text, error);
  if (!r) return std::nullopt;
  TimeZone z;
  z.name_ = std::string(text);
  z.initial_offset_ = r->std_offset;
  z.abbreviations_ = {{r->std_name, r->std_offset}};
  if (!r->has_dst) return z;
  z.abbreviations_.emplace_back(r->dst_name, r->dst_offset);
  for (std::int64_t year = kFirstRuleYear; year <= kLastRuleYear; ++year) {
    const std::int64_t start = rule_day(r->start, year) * 86400 + r->start.time - r->std_offset;
    const std::int64_t end = rule_day(r->end, year) * 86400 + r->end.time - r->dst_offset;
    const bool start_first = start <= end;  // else the southern hemisphere's order
    z.at_.push_back(start_first ? start : end);
    z.offset_.push_back(start_first ? r->dst_offset : r->std_offset);
    z.at_.push_back(start_first ? end : start);
    z.offset_.push_back(start_first ? r->std_offset : r->dst_offset);
  }
  if (!z.normalise(error)) return std::nullopt;
  return z;
}

std::optional<TimeZone> TimeZone::from_tzif(std::string_view bytes, std::string name, std::string* error) {
  TzifCounts c{};
  char version = 0;
  if (!read_header(bytes, 0, c, version)) return none(error, "no TZif header");
  std::size_t at = 44;
  std::uint64_t time_size = 4;
  if (version >= '2') {  // skip the 32-bit block: the second header and 64-bit times follow it
    const std::uint64_t v1 = c.block(4);
    if (v1 > bytes.size() - at || !read_header(bytes, at + v1, c, version))
      return none(error, "truncated (the first data block)");
    at += v1 + 44;
    time_size = 8;
  }
  if (c.block(time_size) > bytes.size() - at) return none(error, "truncated (the data block)");
  if (c.leap != 0) return none(error, "it counts leap seconds (a right/ zone)");
  if (c.type == 0 || c.chars == 0) return none(error, "no local time types");
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  const unsigned char* index = p + c.time * time_size;
  const unsigned char* types = index + c.time;
  const char* chars = reinterpret_cast<const char*>(types + c.type * 6ULL);
  auto type_offset = [&](std::uint32_t t) { return read_be32(types + 6 * t); };
  auto type_name = [&](std::uint32_t t) -> std::optional<std::string> {
    const std::uint32_t from = types[6 * t + 5];
    if (from >= c.chars) return std::nullopt;
    const std::size_t n = strnlen(chars + from, c.chars - from);
    return std::string(chars + from, n);
  };
  for (std::uint32_t t = 0; t < c.type; ++t)
    if (type_offset(t) <= -kMostOffset || type_offset(t) >= kMostOffset || !type_name(t))
      return none(error, "a local time type out of range");

  TimeZone z;
  z.name_ = std::move(name);
  z.initial_offset_ = type_offset(0);
  z.abbreviations_.emplace_back(*type_name(0), type_offset(0));
  for (std::uint32_t i = 0; i < c.time; ++i) {
    const std::uint32_t t = index[i];
    if (t >= c.type) return none(error, "a transition to a local time type that is not there");
    z.at_.push_back(time_size == 8 ? read_be64(p + 8 * i) : read_be32(p + 4 * i));
    z.offset_.push_back(type_offset(t));
    z.abbreviations_.emplace_back(*type_name(t), type_offset(t));
  }
  // The footer (version 2 and later): "\n" rule "\n", for the times after the last transition.
  const std::size_t footer = at + static_cast<std::size_t>(c.block(time_size));
  if (version >= '2' && footer < bytes.size()) {
    const std::string_view rest = bytes.substr(footer);
    const std::size_t close = rest.size() >= 2 ? rest.find('\n', 1) : std::string_view::npos;
    if (rest[0] != '\n' || close == std::string_view::npos) return none(error, "a damaged footer");
    if (close > 1) {
      std::string problem;
      const std::optional<TimeZone> rule = from_posix_rule(rest.substr(1, close - 1), &problem);
      if (!rule) return none(error, "its footer's rule: " + problem);
      if (z.at_.empty()) z.initial_offset_ = rule->initial_offset_;
      z.extend_by(*rule);
    }
  }
  if (!z.normalise(error)) return std::nullopt;
  return z;
}

void TimeZone::extend_by(const TimeZone& rule) {
  const std::int64_t last = at_.empty() ? std::numeric_limits<std::int64_t>::min() : at_.back();
  for (std::size_t i = 0; i < rule.at_.size(); ++i) {
    if (rule.at_[i] <= last) continue;
    at_.push_back(rule.at_[i]);
    offset_.push_back(rule.offset_[i]);
  }
  // The rule's names are the ones in use now: they win over older uses of a name.
  abbreviations_.insert(abbreviations_.end(), rule.abbreviations_.begin(), rule.abbreviations_.end());
}

bool TimeZone::normalise(std::string* error) {
  std::vector<std::int64_t> at;
  std::vector<std::int32_t> offset;
  for (std::size_t i = 0; i < at_.size(); ++i) {
    if (!at.empty() && at_[i] < at.back()) return fail(error, "transitions out of order");
    if (!at.empty() && at_[i] == at.back()) {
      offset.back() = offset_[i];
    } else {
      at.push_back(at_[i]);
      offset.push_back(offset_[i]);
    }
  }
  at_.clear();
  offset_.clear();
  for (std::size_t i = 0; i < at.size(); ++i) {
    const std::int32_t before = offset_.empty() ? initial_offset_ : offset_.back();
    if (offset[i] == before) continue;
    if (!at_.empty()) {
      const std::int32_t prev_before = offset_.size() >= 2 ? offset_[offset_.size() - 2] : initial_offset_;
      if (at_.back() + std::max(prev_before, before) > at[i] + std::min(before, offset[i]))
        return fail(error, "changes of offset too close together");
    }
    at_.push_back(at[i]);
    offset_.push_back(offset[i]);
  }
  return true;
}

std::int32_t TimeZone::offset_at(std::int64_t utc_seconds) const {
  const auto it = std::upper_bound(at_.begin(), at_.end(), utc_seconds);
  return it == at_.begin() ? initial_offset_ : offset_[static_cast<std::size_t>(it - at_.begin()) - 1];
}

TimeZone::Span TimeZone::span_of_local(std::int64_t local) const {
  auto before = [&](std::size_t i) { return i == 0 ? initial_offset_ : offset_[i - 1]; };
  auto low = [&](std::size_t i) { return at_[i] + std::min(before(i), offset_[i]); };
  auto high = [&](std::size_t i) { return at_[i] + std::max(before(i), offset_[i]); };
  // The last transition whose window starts at or before `local`.
  std::size_t lo = 0, hi = at_.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (low(mid) <= local)
      lo = mid + 1;
    else
      hi = mid;
  }
  Span s;
  if (lo == 0) {
    s.offset = initial_offset_;
    if (!at_.empty()) s.local_to = low(0);
    return s;
  }
  const std::size_t i = lo - 1;
  if (local < high(i)) return Span{before(i), low(i), high(i)};  // inside the change: the offset before it
  s.offset = offset_[i];
  s.local_from = high(i);
  if (i + 1 < at_.size()) s.local_to = low(i + 1);
  return s;
}

std::optional<std::int32_t> TimeZone::offset_of_abbreviation(std::string_view abbreviation) const {
  for (auto it = abbreviations_.rbegin(); it != abbreviations_.rend(); ++it)
    if (it->first.size() == abbreviation.size() &&
        std::equal(it->first.begin(), it->first.end(), abbreviation.begin(),
                   [](char a, char b) { return detail::lower(a) == detail::lower(b); }))
      return it->second;
  return std::nullopt;
}

}  // namespace tlbf_dedup
