// Fuzzes every timestamp parser (src/extract/timestamp.hpp) with the input as the timestamp text; when
// the input holds a newline, the part before it is also compiled as a strftime-style pattern
// and the part after it parsed with that pattern. The input's lines are also fed, in order,
// to stateful TimeParsers (syslog, auto, and that pattern), which exercises the year rollover.
//
// Invariants checked: a time any parser accepts, written back in that parser's own format (in
// UTC, with nanoseconds), parses to the same time; parse_auto only returns what one of the
// fixed parsers returns; TimeParser strips brackets without changing the result; a time
// written with the pattern "%Y-%m-%dT%H:%M:%S.%f%z" parses back through TimePattern; a date
// only is a midnight (or, past 2262, the last time there is); over a sequence of stamps the rollover year never goes
// back, advances by one exactly when the parser says so, a year-less stamp parses to what the pure parser gives in the
// year it was placed in, and a stamp that does not parse changes no state; a time of day alone is the pure parse (on
// 1970-01-01) moved by whole days, the date never goes back and advances by one day exactly when the parser says so; a
// parser with a fixed
// --timezone gives what the plain one gives, moved by that offset (a zoned stamp or an epoch
// not at all); and YearStart::not_after never places a first month after the reference month.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "extract/timestamp.hpp"

namespace {

using tlbf::Time;
constexpr std::int64_t kNs = 1000000000;

[[noreturn]] void broken(const char* what, std::string_view input, Time t) {
  std::fprintf(stderr, "fuzz_timestamp: invariant broken: %s (input \"%.*s\", time %" PRId64 ")\n", what,
               static_cast<int>(input.size()), input.data(), t);
  std::abort();
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// UTC fields of a time, by Howard Hinnant's civil_from_days
// (http://howardhinnant.github.io/date_algorithms.html), written independently of the parser's
// days_from_civil so the round trip checks one against the other.
struct Fields {
  std::int64_t year;
  unsigned month, day, hour, minute, second, weekday;  // weekday 0 = Sunday
  std::int64_t nanos;
};

Fields fields_of(Time t) {
  const std::int64_t secs = floor_div(t, kNs);
  Fields f{};
  f.nanos = t - secs * kNs;
  std::int64_t days = floor_div(secs, 86400);
  const std::int64_t sod = secs - days * 86400;
  f.hour = static_cast<unsigned>(sod / 3600);
  f.minute = static_cast<unsigned>(sod % 3600 / 60);
  f.second = static_cast<unsigned>(sod % 60);
  f.weekday = static_cast<unsigned>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  f.day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  f.month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  f.year = yoe + era * 400 + (f.month <= 2 ? 1 : 0);
  return f;
}

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

std::string fmt(const char* format, const Fields& f, const char* zone = "") {
  char buf[128];
  int n = 0;
  const std::string frac = f.nanos ? "." + std::to_string(kNs + f.nanos).substr(1) : std::string();
  if (format[0] == 'R')
    n = std::snprintf(buf, sizeof buf, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u%sZ", f.year, f.month, f.day, f.hour,
                      f.minute, f.second, frac.c_str());
  else if (format[0] == 'C')
    n = std::snprintf(buf, sizeof buf, "%02u/%s/%04" PRId64 ":%02u:%02u:%02u%s%s", f.day, kMonths[f.month - 1], f.year,
                      f.hour, f.minute, f.second, frac.c_str(), zone);
  else if (format[0] == 'S')
    n = std::snprintf(buf, sizeof buf, "%s %2u %02u:%02u:%02u%s", kMonths[f.month - 1], f.day, f.hour, f.minute,
                      f.second, frac.c_str());
  else if (format[0] == 'T')
    n = std::snprintf(buf, sizeof buf, "%s %s %02u %02u:%02u:%02u%s %04" PRId64, kDays[f.weekday], kMonths[f.month - 1],
                      f.day, f.hour, f.minute, f.second, frac.c_str(), f.year);
  else if (format[0] == '/')
    n = std::snprintf(buf, sizeof buf, "%04" PRId64 "/%02u/%02u %02u:%02u:%02u%s", f.year, f.month, f.day, f.hour,
                      f.minute, f.second, frac.c_str());
  else if (format[0] == 'M')
    n = std::snprintf(buf, sizeof buf, "%s, %u %s %04" PRId64 " %02u:%02u:%02u%s GMT", kDays[f.weekday], f.day,
                      kMonths[f.month - 1], f.year, f.hour, f.minute, f.second, frac.c_str());
  else if (format[0] == 'P')  // for the pattern "%Y-%m-%dT%H:%M:%S.%f%z"
    n = std::snprintf(buf, sizeof buf, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%09" PRId64 "+0000", f.year, f.month,
                      f.day, f.hour, f.minute, f.second, f.nanos);
  return std::string(buf, static_cast<std::size_t>(n));
}

// "<seconds>.<nanoseconds>" with the sign in front, as parse_epoch reads it.
std::string epoch_text(Time t) {
  const std::uint64_t mag = t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%09" PRIu64, t < 0 ? "-" : "", mag / kNs, mag % kNs);
  return std::string(buf, static_cast<std::size_t>(n));
}

void expect_same(std::optional<Time> got, Time want, const char* what, std::string_view input) {
  if (!got || *got != want) broken(what, input, want);
}

bool strippable(char c) { return c == ' ' || c == '\t' || c == '[' || c == ']' || c == '"' || c == '(' || c == ')'; }

void check_fixed_parsers(std::string_view s, int year) {
  using namespace tlbf_dedup;
  std::optional<Time> rfc = parse_rfc3339(s), clf = parse_clf(s), sys = parse_syslog(s, year), ct = parse_ctime(s),
                      ep = parse_epoch_auto(s), slash = parse_slash_date(s), mail = parse_rfc2822(s),
                      tod = parse_time_of_day(s);
  if (rfc) {
    Fields f = fields_of(*rfc);
    expect_same(parse_rfc3339(fmt("R", f)), *rfc, "rfc3339 round trip", s);
    expect_same(parse_strftime(fmt("P", f), "%Y-%m-%dT%H:%M:%S.%f%z", year), *rfc, "pattern agrees with rfc3339", s);
  }
  if (clf) expect_same(parse_clf(fmt("C", fields_of(*clf), " +0000")), *clf, "clf round trip", s);
  if (sys) {
    Fields f = fields_of(*sys);
    if (f.year == year) expect_same(parse_syslog(fmt("S", f), year), *sys, "syslog round trip", s);
  }
  if (ct) expect_same(parse_ctime(fmt("T", fields_of(*ct))), *ct, "ctime round trip", s);
  if (slash) expect_same(parse_slash_date(fmt("/", fields_of(*slash))), *slash, "slash date round trip", s);
  if (mail) expect_same(parse_rfc2822(fmt("M", fields_of(*mail))), *mail, "rfc2822 round trip", s);
  if (tod) {  // with its zone applied, a time of day is within a day and a zone of midnight
    if (*tod < -26 * 3600 * kNs || *tod > (86400 + 26 * 3600) * kNs) broken("a time of day out of its day", s, *tod);
    const Fields f = fields_of(*tod);
    if (*tod >= 0 && *tod < 86400 * kNs && s.find_first_of("Zz+-") == std::string_view::npos) {
      char buf[64];
      const int n = std::snprintf(buf, sizeof buf, "%02u:%02u:%02u.%09" PRId64, f.hour, f.minute, f.second, f.nanos);
      expect_same(parse_time_of_day(std::string_view(buf, static_cast<std::size_t>(n))), *tod, "time of day round trip",
                  s);
    }
  }
  for (Time unit : {tlbf::kSecond, tlbf::kMillisecond, Time{1}}) {
    if (auto t = parse_epoch(s, unit))
      expect_same(parse_epoch(epoch_text(*t), tlbf::kSecond), *t, "epoch round trip", s);
  }
  if (ep) expect_same(parse_epoch(epoch_text(*ep), tlbf::kSecond), *ep, "epoch_auto round trip", s);

  const std::optional<Time> a = parse_auto(s, year);
  if (a && *a != rfc.value_or(~*a) && *a != clf.value_or(~*a) && *a != sys.value_or(~*a) && *a != ct.value_or(~*a) &&
      *a != ep.value_or(~*a) && *a != slash.value_or(~*a) && *a != mail.value_or(~*a) && *a != tod.value_or(~*a))
    broken("parse_auto returned what no fixed parser did", s, *a);

  if (!s.empty() && !strippable(s.front()) && !strippable(s.back())) {
    TimeParser parser(TimeFormat::auto_detect, std::nullopt, year);
    const std::string bracketed = "  [" + std::string(s) + "]\t";
    const TimeReading r = parser.parse(bracketed);
    if (r.value() != a) broken("TimeParser strips brackets and blanks only", s, a.value_or(0));
    if (r.date_only) {
      if (!r.parsed) broken("a date only that did not parse", s, 0);
      // A date past 2262 reads as the last time there is (a future stamp), which is no midnight.
      const bool midnight =
          !fields_of(r.time).hour && !fields_of(r.time).minute && !fields_of(r.time).second && !fields_of(r.time).nanos;
      if (!midnight && r.time != std::numeric_limits<Time>::max()) broken("a date only is a midnight", s, r.time);
    }
  }
}

// One year-less stamp's (or time of day's) parse by a stateful parser, against the rollovers'
// promises.
void check_step(tlbf_dedup::TimeParser& parser, std::string_view line, std::string_view input,
                const tlbf_dedup::TimePattern* pattern) {
  using namespace tlbf_dedup;
  const std::optional<int> before = parser.years().year();
  const std::optional<std::int64_t> day_before = parser.days().day();
  const TimeReading r = parser.parse(line);
  const std::optional<int> after = parser.years().year();
  const std::optional<std::int64_t> day_after = parser.days().day();
  if (!r.parsed && (after != before || day_after != day_before))
    broken("a stamp that did not parse moved the year or the date", input, 0);
  if (before && (!after || *after < *before)) broken("the rollover year went back", input, after.value_or(0));
  const bool stepped = before && after && *after == *before + 1;
  if (r.year_advanced != stepped || (before && after && *after > *before + 1))
    broken("year_advanced is the year going up by one", input, r.time);
  if (day_before && (!day_after || *day_after < *day_before)) broken("the date went back", input, r.time);
  const bool day_stepped = day_before && day_after && *day_after == *day_before + 1;
  if (r.day_advanced != day_stepped || (day_before && day_after && *day_after > *day_before + 1))
    broken("day_advanced is the date going up by one", input, r.time);
  if (r.time_of_day) {
    // Dated by the rollover: the pure reading (on 1970-01-01) moved by whole days.
    const std::optional<Time> pure = pattern ? pattern->parse(line, 0) : parse_time_of_day(line);
    if (!pure) broken("a time of day the pure parser does not read", input, r.time);
    if (r.time != std::numeric_limits<Time>::max() && (r.time - *pure) % (86400 * kNs) != 0)
      broken("a time of day moved by other than whole days", input, r.time);
    return;
  }
  if (r.parsed && after) {
    // A year-less stamp was placed in *after; any other ignores the year: either way the pure
    // parser given that year agrees.
    const std::optional<Time> pure = pattern ? pattern->parse(line, *after) : parse_auto(line, *after);
    if (pure != r.value()) broken("a rolled stamp differs from the pure parse in its year", input, r.time);
  }
}

// A parser with a fixed --timezone reads what the plain one reads, a stamp without a zone
// moved by the offset (the same instant for a zoned stamp or an epoch number).
void check_zone(tlbf_dedup::TimeParser& zoned, tlbf_dedup::TimeParser& plain, std::string_view line,
                std::string_view input, Time offset) {
  const tlbf_dedup::TimeReading z = zoned.parse(line), p = plain.parse(line);
  if (p.parsed && p.time < std::numeric_limits<Time>::min() + 26 * 3600 * kNs) return;  // 1677: no room to move
  if (z.parsed != p.parsed) broken("--timezone changed whether a stamp reads", input, p.time);
  if (!z.parsed || z.time == p.time) return;
  if (p.time == std::numeric_limits<Time>::max() || z.time == std::numeric_limits<Time>::max())
    broken("--timezone moved a stamp past 2262", input, z.time);
  if (p.time - z.time != offset) broken("--timezone moved a stamp by other than its offset", input, z.time);
}

// YearStart::not_after(t) puts a first stamp of any month at most at the month of t + 14 h,
// and less than a year before it.
void check_year_start(Time t, std::string_view input) {
  constexpr Time kAhead = 14 * 3600 * kNs;
  if (t > INT64_MAX - kAhead) return;
  const Fields ref = fields_of(t + kAhead);
  const tlbf_dedup::YearStart start = tlbf_dedup::YearStart::not_after(t);
  for (unsigned m = 1; m <= 12; ++m) {
    const std::int64_t months = static_cast<std::int64_t>(start.year_for(m)) * 12 + m;
    const std::int64_t ref_months = ref.year * 12 + ref.month;
    if (months > ref_months || months <= ref_months - 12) broken("not_after placed a month outside its year", input, t);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (int year : {2024, 1677, 2262, 0, -44})  // year-less formats at the edges of the time range
    check_fixed_parsers(text, year);

  if (auto t = tlbf_dedup::parse_epoch_auto(text)) check_year_start(*t, text);
  if (auto t = tlbf_dedup::parse_rfc3339(text)) check_year_start(*t, text);

  const std::size_t newline = text.find('\n');
  std::optional<tlbf_dedup::TimePattern> pattern;
  if (newline != std::string_view::npos) {
    std::string error;
    pattern = tlbf_dedup::TimePattern::compile(text.substr(0, newline), &error);
    if (pattern) {
      (void)pattern->parse(text.substr(newline + 1), 2024);
    } else if (error.empty()) {
      broken("a refused pattern says why", text, 0);
    }
  }

  // The lines in order through stateful parsers: syslog, auto, and the first line's pattern
  // over the lines after it.
  using tlbf_dedup::TimeFormat;
  tlbf_dedup::TimeParser syslog(TimeFormat::syslog, std::nullopt, 2024),
      automatic(TimeFormat::auto_detect, std::nullopt, 2024);
  tlbf_dedup::TimeParser patterned(TimeFormat::pattern, pattern, tlbf_dedup::YearStart::not_after(1700000000 * kNs));
  patterned.restart_days(1700000000 * kNs);
  tlbf_dedup::TimeSettings india;
  india.zone = std::make_shared<const tlbf_dedup::TimeZone>(tlbf_dedup::TimeZone::fixed(19800, "+05:30"));
  india.date = 19000;
  tlbf_dedup::TimeSettings utc_date;
  utc_date.date = 19000;
  tlbf_dedup::TimeParser zoned(TimeFormat::auto_detect, std::nullopt, 2024, india),
      unzoned(TimeFormat::auto_detect, std::nullopt, 2024, utc_date);
  std::size_t start = 0;
  for (int line_no = 0; start <= text.size(); ++line_no) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const bool plain = line.empty() || (!strippable(line.front()) && !strippable(line.back()));
    if (plain) {  // the pure parsers see the text the stateful ones see after stripping
      check_step(syslog, line, text, nullptr);
      check_step(automatic, line, text, nullptr);
      if (pattern && line_no > 0) check_step(patterned, line, text, &*pattern);
      check_zone(zoned, unzoned, line, text, 19800 * kNs);
    }
    start = end + 1;
  }
  return 0;
}
