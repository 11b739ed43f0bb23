// TimeParser's state (timestamp.hpp): the year of year-less stamps (YearStart, YearRollover),
// the date of stamps that are a time of day only (DayStart, DayRollover), --timezone for
// stamps that name no zone, and --time-regex; and the clock-free helpers around them.
//
// Invariant: a stamp moves the year or the date on only once the calendar has accepted it,
// so a stamp that does not parse changes no state; a stamp that names its zone, or is an
// epoch number, is never shifted by --timezone.
#include <cstdio>
#include <ctime>
#include <limits>

#include "base/json_text.hpp"
#include "base/line_regex.hpp"
#include "extract/timestamp.hpp"
#include "extract/timestamp_scan.hpp"

namespace tlbf_dedup {

using detail::Civil;
using detail::kNsPerSec;
using detail::read_as;
using tlbf::Time;

namespace {

constexpr Time kHour = 3600 * tlbf::kSecond;

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// a + b, or nullopt past either end of the clock.
std::optional<Time> add(Time a, Time b) {
  Time sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

}  // namespace

YearStart YearStart::not_after(Time written_by) {
  constexpr Time kLocalAhead = 14 * kHour;  // UTC+14, the furthest zone ahead
  const Time t = written_by > std::numeric_limits<Time>::max() - kLocalAhead ? written_by : written_by + kLocalAhead;
  const std::time_t secs = floor_div(t, kNsPerSec);  // before 1970 too
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

DayStart DayStart::not_after(Time written_by, std::int32_t offset_seconds, tlbf::Duration ahead) {
  const Time local = add(written_by, offset_seconds * tlbf::kSecond).value_or(written_by);
  const std::int64_t day = floor_div(local, DayRollover::kDay);
  const Time time_of_day = local - day * DayRollover::kDay;
  const std::optional<Time> latest = add(time_of_day, ahead);
  return DayStart(day, latest && *latest < DayRollover::kDay ? *latest : std::numeric_limits<Time>::max());
}

std::int64_t DayRollover::accept(Time time_of_day, bool& advanced) {
  advanced = false;
  if (latest_ < 0) {
    day_ = start_.day_for(time_of_day);
    latest_ = time_of_day;
    return day_;
  }
  if (time_of_day + kMaxBack < latest_) {  // 23:59:58, then 00:00:01
    ++day_;
    latest_ = time_of_day;
    advanced = true;
    return day_;
  }
  if (time_of_day > latest_ && latest_ + kDay - time_of_day <= kLateAcrossMidnight)
    return day_ - 1;  // 00:00:01, then 23:59:59
  if (time_of_day > latest_) latest_ = time_of_day;
  return day_;
}

TimeParser::TimeParser(TimeFormat format, std::optional<TimePattern> pattern, YearStart year_start,
                       TimeSettings settings)
    : format_(format),
      pattern_(std::move(pattern)),
      years_(year_start),
      settings_(std::move(settings)),
      days_(DayStart(settings_.date.value_or(0))) {}

void TimeParser::restart_days(Time written_by) {
  if (settings_.date) {
    days_ = DayRollover(DayStart(*settings_.date));
    return;
  }
  // Stamps in a zone given run ahead of the file's clock only by clock skew; in a zone not
  // given (read as UTC), by up to 14 hours (UTC+14).
  const std::int32_t offset = settings_.zone ? settings_.zone->offset_at(floor_div(written_by, kNsPerSec)) : 0;
  days_ = DayRollover(DayStart::not_after(written_by, offset, settings_.zone ? kHour : 14 * kHour));
}

void TimeParser::parse_captured(std::string_view text, TimeReading& r) {
  const std::optional<std::string_view> part = settings_.regex->group_or_match(text);
  if (!part) {
    r = TimeReading{};
    r.regex_missed = true;
  } else {
    parse_trimmed(*part, r);
  }
  r.present = true;
  r.text = part.value_or(text);
}

std::optional<Time> TimeParser::from_local(Time local) {
  if (local == std::numeric_limits<Time>::max()) return local;  // past 2262 in any zone
  const std::int64_t seconds = floor_div(local, kNsPerSec);
  if (!zone_span_.contains(seconds)) zone_span_ = settings_.zone->span_of_local(seconds);
  const std::optional<Time> utc = add(local, -static_cast<Time>(zone_span_.offset) * tlbf::kSecond);
  if (!utc) return local > 0 ? std::optional<Time>(std::numeric_limits<Time>::max()) : std::nullopt;
  return utc;
}

void TimeParser::place_time_of_day(Civil& c, TimeReading& r) {
  if (c.hour > 23 || c.minute > 59 || c.second > 60) return;
  const Time time_of_day = (c.hour * 3600LL + c.minute * 60 + c.second) * tlbf::kSecond + c.nanos;
  bool advanced = false;
  const std::int64_t day = days_.accept(time_of_day, advanced);
  // Days stay within +-10^6 of 1970 (--date's years, one more a stamp): no overflow here.
  const std::int64_t seconds = day * 86400 + (c.hour * 3600LL + c.minute * 60 + c.second) - c.offset_seconds;
  std::optional<Time> t;
  if (seconds > 9223372035LL)
    t = std::numeric_limits<Time>::max();
  else if (seconds >= -9223372035LL)
    t = seconds * kNsPerSec + c.nanos;
  if (t && !c.zoned && settings_.zone) t = from_local(*t);
  if (!t) return;
  read_as(*t, r);
  r.time_of_day = true;
  r.day_advanced = advanced;
}

std::string quoted_time(const TimeReading& t) {
  return t.present ? "\"" + json_escape(t.text) + "\"" : std::string("(field absent)");
}

std::string format_rfc3339(Time t) {
  const std::time_t secs = floor_div(t, kNsPerSec);
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
