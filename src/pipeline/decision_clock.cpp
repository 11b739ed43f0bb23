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

std::string format_distance(std::uint64_t d) {
  return d > static_cast<std::uint64_t>(std::numeric_limits<tlbf::Duration>::max())
             ? std::string("centuries")
             : format_duration(static_cast<tlbf::Duration>(d));
}

}  // namespace

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
    if (counts_.untimed++ == 0)
      warnings.warn(WarningKind::untimed,
                    fmt::format("no readable time at -t {}: {}; judged at the current clock (name the format with "
                                "--time-format; further ones are counted, see the summary at exit)",
                                time_option_, quoted_time(t)));
    // The probe: the run stops reading here, and reports it after the summary.
    if (!timed_seen_ && !policy_.allow_untimed && counts_.untimed == ClockPolicy::kUntimedProbe) probe_failed_ = true;
    if (counts_.untimed == 1) first_untimed_ = quoted_time(t);
    return TimeVerdict::untimed;
  }
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
  if (previous_ && distance(t.time, *previous_) > static_cast<std::uint64_t>(jump_)) {
    const bool forward = t.time > *previous_;
    if ((forward ? counts_.jumps_forward++ : counts_.jumps_back++) == 0)
      warnings.warn(forward ? WarningKind::jump_forward : WarningKind::jump_back,
                    fmt::format("time {} {} {} from the record before ({}){}; concatenated logs? merge them by time "
                                "(sort -m) or run once per file with --state (further jumps are counted, see --stats)",
                                quoted_time(t), forward ? "jumps forward" : "steps back",
                                format_distance(distance(t.time, *previous_)), format_rfc3339(*previous_),
                                forward ? ""
                                        : fmt::format("; until the records reach the clock {}, they are judged at it",
                                                      format_rfc3339(clock_))));
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
      "{}: none of the {}{} records has a readable time at -t {} (the first: {}); name its format with "
      "--time-format (e.g. --time-format '%y/%m/%d %H:%M:%S'), or give --allow-untimed to judge such records at "
      "the current clock; the {} records read were written as untimed records are{}",
      input, probe_failed_ ? "first " : "", counts_.untimed, time_option_, first_untimed_, records,
      probe_failed_ ? ", the rest of the input was not read" : ""));
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
  if (c.jumps_forward + c.jumps_back)
    diagnostics.warning(
        Warning{WarningKind::jump_forward, "", 0, c.jumps_forward + c.jumps_back,
                fmt::format("the record time jumped {} time(s) forward and {} time(s) back by more than "
                            "{}; {} record(s) were late (judged at the clock)",
                            c.jumps_forward, c.jumps_back, format_duration(jump_), c.late)});
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
