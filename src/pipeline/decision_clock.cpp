// The decision clock (decision_clock.hpp).
//
// Invariants: the clock never goes backwards; it is the largest record time accepted, or
// with a saved clock at least that. A time further ahead of the wall clock than --max-future
// is not accepted (judged as untimed), so one bad stamp cannot carry the clock away; jumps
// between consecutive times are warned about, not refused. Each kind of trouble is warned
// about once, at its first record, and totalled at the end.
#include "pipeline/decision_clock.hpp"

#include <fmt/format.h>

#include "base/duration.hpp"
#include "output/emitter.hpp"

namespace tlbf_dedup {
namespace {

// |a - b| as a duration that cannot overflow.
std::uint64_t distance(tlbf::Time a, tlbf::Time b) {
  return a > b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
               : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

// Where -t should reach to take the zone after a CLF time: the next field.
std::string zone_advice(const std::string& time_option) {
  if (!time_option.empty() && time_option.size() <= 9 &&
      time_option.find_first_not_of("0123456789") == std::string::npos)
    return fmt::format("give -t {},{}", time_option, std::stoul(time_option) + 1);
  return "name that field in -t too";
}

}  // namespace

std::string readable_duration(std::uint64_t ns) {
  if (ns > static_cast<std::uint64_t>(std::numeric_limits<tlbf::Duration>::max())) return "centuries";
  constexpr std::uint64_t kS = tlbf::kSecond, kMin = 60 * kS, kH = 60 * kMin, kD = 24 * kH;
  auto two = [&](std::uint64_t big, const char* a, std::uint64_t small, const char* b) {
    const std::uint64_t rest = ns % big / small;
    return rest ? fmt::format("{}{}{}{}", ns / big, a, rest, b) : fmt::format("{}{}", ns / big, a);
  };
  if (ns >= 100 * kD) return fmt::format("{}d", ns / kD);
  if (ns >= kD) return two(kD, "d", kH, "h");
  if (ns >= kH) return two(kH, "h", kMin, "m");
  if (ns >= kMin) return two(kMin, "m", kS, "s");
  if (ns >= kS)
    return ns % kS < kS / 10 ? fmt::format("{}s", ns / kS) : fmt::format("{}.{}s", ns / kS, ns % kS / (kS / 10));
  if (ns >= tlbf::kMillisecond) return fmt::format("{}ms", ns / tlbf::kMillisecond);
  if (ns >= tlbf::kMicrosecond) return fmt::format("{}us", ns / tlbf::kMicrosecond);
  return fmt::format("{}ns", ns);
}

DecisionClock::DecisionClock(const ClockPolicy& policy, std::string time_option, tlbf::Time start, Clock& wall)
    : policy_(policy),
      time_option_(std::move(time_option)),
      wall_(&wall),
      clock_(start),
      jump_(policy.jump_threshold()) {
  if (clock_ != 0) previous_ = clock_;  // a saved clock: the first record's step counts from it
}

void DecisionClock::refresh_future_limit() {
  if (!policy_.max_future || time_option_.empty()) return;
  const tlbf::Time now = wall_->wall_ns();
  const tlbf::Time max = std::numeric_limits<tlbf::Time>::max();
  future_limit_ = now > max - *policy_.max_future ? max : now + *policy_.max_future;
}

TimeVerdict DecisionClock::accept_slow(const TimeReading& t, RecordWarnings& warnings) {
  if (!t.parsed) {
    if (counts_.untimed++ == 0) {
      untimed_advice_ = warnings.untimed_advice(t);
      warnings.warn(WarningKind::untimed,
                    fmt::format("no readable time at -t {}: {}; judged at the current clock ({}; further ones are "
                                "counted, see the summary at exit)",
                                time_option_, quoted_time(t), untimed_advice_));
    }
    // The probe: the run stops reading here, and reports it after the summary.
    if (!timed_seen_ && !policy_.allow_untimed && counts_.untimed == ClockPolicy::kUntimedProbe) probe_failed_ = true;
    if (counts_.untimed == 1) first_untimed_ = quoted_time(t);
    return TimeVerdict::untimed;
  }
  if (!timed_seen_ && t.zone_cut)
    warnings.warn(WarningKind::zone_cut,
                  fmt::format("time {} at -t {} is a Common Log Format time cut off before its zone, and read as UTC: "
                              "the log writes the zone in the next field ([10/Oct/2000:13:55:36 -0700]); {}",
                              quoted_time(t), time_option_, zone_advice(time_option_)));
  timed_seen_ = true;
  if (t.date_only && counts_.date_only++ == 0)
    warnings.warn(WarningKind::date_only,
                  fmt::format("time {} at -t {} is a date without a time of day, read as its midnight (UTC): records "
                              "of one day share one time; if the time of day is in another field, add it to -t (e.g. "
                              "-t 1,2)",
                              quoted_time(t), time_option_));
  if (policy_.max_future && t.time > future_limit_) {
    if (counts_.future++ == 0)
      warnings.warn(WarningKind::future_time,
                    fmt::format("time {} is more than --max-future {} ahead of the wall clock; judged as untimed, it "
                                "does not move the clock (further ones are counted, see the summary at exit)",
                                quoted_time(t), format_duration(*policy_.max_future)));
    return TimeVerdict::future;
  }
  // A jump forward alone is a quiet spell, or a gap between logs given in order: counted. A
  // step back makes the records behind the clock late: warned about, with a way out that fits.
  if (previous_ && distance(t.time, *previous_) > static_cast<std::uint64_t>(jump_)) {
    if (t.time > *previous_)
      ++counts_.jumps_forward;
    else if (counts_.jumps_back++ == 0)
      warnings.warn(WarningKind::jump_back,
                    fmt::format("time {} steps back {} from the record before ({}): records are judged at the clock "
                                "({}) until they reach it, and are late when older than it by more than the window; "
                                "{} (further steps back are counted, see --stats)",
                                quoted_time(t), readable_duration(distance(t.time, *previous_)),
                                format_rfc3339(*previous_), format_rfc3339(clock_), warnings.step_back_advice(t)));
  }
  previous_ = t.time;
  if (t.time > clock_) {
    clock_ = t.time;
  } else if (policy_.window > 0 && distance(clock_, t.time) > static_cast<std::uint64_t>(policy_.window)) {
    ++counts_.late;
    return TimeVerdict::late;
  }
  return TimeVerdict::accepted;
}

UntimedInput DecisionClock::no_time_error(std::string_view input, std::uint64_t records) const {
  return UntimedInput(fmt::format(
      "{}: none of the {}{} records has a readable time at -t {} (the first: {}): {}; or give --allow-untimed to "
      "judge such records at the current clock. Nothing was written{}",
      input, probe_failed_ ? "first " : "", counts_.untimed, time_option_, first_untimed_, untimed_advice_,
      probe_failed_ ? fmt::format(" (the {} records read were held back; the rest of the input was not read)", records)
                    : fmt::format(" (the {} records read were held back)", records)));
}

void DecisionClock::warn_totals(Diagnostics& diagnostics) const {
  const RunStats& c = counts_;
  if (c.untimed)
    diagnostics.warning(Warning{WarningKind::untimed, "", 0, c.untimed,
                                fmt::format("{} record(s) had no readable time at -t {} (judged at the current clock)",
                                            c.untimed, time_option_)});
  if (c.future)
    diagnostics.warning(
        Warning{WarningKind::future_time, "", 0, c.future,
                fmt::format("{} record(s) were stamped more than --max-future {} ahead of the wall clock "
                            "(judged as untimed)",
                            c.future, format_duration(*policy_.max_future))});
  if (c.jumps_back)
    diagnostics.warning(Warning{
        WarningKind::jump_back, "", 0, c.jumps_back,
        fmt::format("the record time stepped back {} time(s) by more than {}{}; {} record(s) were late (judged at the "
                    "clock)",
                    c.jumps_back, readable_duration(static_cast<std::uint64_t>(jump_)),
                    c.jumps_forward ? fmt::format(" (and jumped forward {} time(s))", c.jumps_forward) : "", c.late)});
  if (c.date_only > 1)
    diagnostics.warning(Warning{WarningKind::date_only, "", 0, c.date_only,
                                fmt::format("{} record time(s) were dates without a time of day", c.date_only)});
}

void DecisionClock::count_into(RunStats& stats) const {
  stats.untimed = counts_.untimed;
  stats.future = counts_.future;
  stats.late = counts_.late;
  stats.jumps_forward = counts_.jumps_forward;
  stats.jumps_back = counts_.jumps_back;
  stats.date_only = counts_.date_only;
}

}  // namespace tlbf_dedup
