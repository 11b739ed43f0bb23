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

DecisionClock::DecisionClock(const ClockPolicy& policy, std::string time_option, tlbf::Time start, Clock& wall)
    : policy_(policy),
      time_option_(std::move(time_option)),
      wall_(&wall),
      clock_(start),
      saved_(start),
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
    const bool first = counts_.untimed++ == 0;
    // Until a time is seen, the advice of every untimed record is tallied: if none has one,
    // the run's error speaks for most of them, not for a preamble.
    const bool probing = !timed_seen_ && !policy_.allow_untimed;
    if (first || probing) {
      std::string advice = warnings.untimed_advice(t);
      if (first)
        warnings.warn(WarningKind::untimed,
                      fmt::format("no readable time at -t {}: {}; judged at the current clock ({}; further ones are "
                                  "counted, see the summary at exit)",
                                  time_option_, quoted_time(t), advice));
      if (probing) untimed_advice_.add(t, std::move(advice), quoted_time(t));
    }
    // The probe: the run stops reading here, and reports it after the summary.
    if (probing && counts_.untimed == ClockPolicy::kUntimedProbe) probe_failed_ = true;
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
  // A jump forward alone is a quiet spell, or a gap between logs: counted. A record behind
  // the clock is late: judged at the clock, counted, warned about at once past jitter, and
  // again when late records pass 1 % of the records.
  if (previous_ && distance(t.time, *previous_) > static_cast<std::uint64_t>(jump_))
    ++(t.time > *previous_ ? counts_.jumps_forward : counts_.jumps_back);
  previous_ = t.time;
  if (t.time >= clock_) {
    clock_ = t.time;
    return TimeVerdict::accepted;
  }
  const std::uint64_t behind = distance(clock_, t.time);
  ++counts_.late;
  counts_.max_lateness_ns = std::max(counts_.max_lateness_ns, behind);
  if (behind <= static_cast<std::uint64_t>(policy_.quiet_late())) return TimeVerdict::late;
  if (loud_late_++ == 0) {
    warnings.warn(WarningKind::late,
                  fmt::format("time {} is {} behind the clock ({}): judged at the clock, so its decision may differ "
                              "from that of the records in time order; {} (further late records are counted, see "
                              "--stats)",
                              quoted_time(t), readable_duration(behind), format_rfc3339(clock_),
                              warnings.late_advice(t, behind)));
  } else if (!share_warned_ && timed_ >= kShareAfter && loud_late_ * 100 > timed_) {
    share_warned_ = true;
    warnings.warn(
        WarningKind::late,
        fmt::format("{} of the first {} records ({:.1f}%) were late, behind the clock by up to {}: {}", loud_late_,
                    timed_, 100.0 * static_cast<double>(loud_late_) / static_cast<double>(timed_),
                    readable_duration(counts_.max_lateness_ns), warnings.late_advice(t, counts_.max_lateness_ns)));
  }
  return TimeVerdict::late;
}

UntimedInput DecisionClock::no_time_error(std::string_view input, std::uint64_t records, bool written) const {
  static const AdviceTally::Group kNone{"name its format with --time-format", "(none)", 0};
  const AdviceTally::Group& first = untimed_advice_.first() ? *untimed_advice_.first() : kNone;
  const AdviceTally::Group& most = untimed_advice_.most_common() ? *untimed_advice_.most_common() : kNone;
  const std::string examples =
      &first == &most ? first.example : fmt::format("{}; {} of them like {}", first.example, most.count, most.example);
  return UntimedInput(fmt::format(
      "{}: none of the {}{} records has a readable time at -t {} (the first: {}): {}; or give --allow-untimed to "
      "judge such records at the current clock. {}{}",
      input, probe_failed_ ? "first " : "", counts_.untimed, time_option_, examples, most.advice,
      written ? fmt::format("The {} records read were written as they came (the input paused before a time was found)",
                            records)
              : fmt::format("Nothing was written (the {} records read were held back)", records),
      probe_failed_ ? "; the rest of the input was not read" : ""));
}

void DecisionClock::warn_totals(Diagnostics& diagnostics, const std::string& late_fix) const {
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
  if (loud_late_)
    diagnostics.warning(Warning{
        WarningKind::late, "", 0, c.late,
        fmt::format("{} record(s) were late, behind the clock by up to {} (judged at the clock; {} by more than {}): "
                    "{}",
                    c.late, readable_duration(c.max_lateness_ns), loud_late_,
                    readable_duration(static_cast<std::uint64_t>(policy_.quiet_late())), late_fix)});
  if (c.date_only > 1)
    diagnostics.warning(Warning{WarningKind::date_only, "", 0, c.date_only,
                                fmt::format("{} record time(s) were dates without a time of day", c.date_only)});
}

void DecisionClock::count_into(RunStats& stats) const {
  stats.untimed = counts_.untimed;
  stats.future = counts_.future;
  stats.late = counts_.late;
  stats.max_lateness_ns = counts_.max_lateness_ns;
  stats.lateness = policy_.lateness;
  stats.jumps_forward = counts_.jumps_forward;
  stats.jumps_back = counts_.jumps_back;
  stats.date_only = counts_.date_only;
}

}  // namespace tlbf_dedup
