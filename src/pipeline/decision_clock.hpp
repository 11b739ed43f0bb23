// The decision clock: the time each record is judged at (the clock model of tlbf-dedup(1),
// "EVENT TIME"). With -t it is the largest record time accepted so far; without, the wall
// clock at the record's arrival. It never goes backwards: a late or untimed record is judged
// at it, and a stamp too far ahead of the wall clock does not move it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/clock.hpp"
#include "base/duration.hpp"
#include "extract/advice.hpp"
#include "extract/timestamp.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// A run that asks for record times (-t) found none: none of the first kUntimedProbe records
// (or of all, if fewer) had a readable time, and untimed input was not allowed.
class UntimedInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How record times move the decision clock.
struct ClockPolicy {
  static constexpr std::uint64_t kUntimedProbe = 1000;
  static constexpr tlbf::Duration kHour = 3600 * tlbf::kSecond;

  // The filter's time window (0: a count window): a record older than clock - window is late.
  tlbf::Duration window = 0;
  // A stamp further than this ahead of the wall clock is judged as untimed, so that one bad
  // stamp cannot carry the clock away; nullopt: no limit.
  std::optional<tlbf::Duration> max_future = 24 * kHour;
  // Two consecutive record times further apart than this are a jump, warned about; 0: the
  // default, max(1 h, 100 x window).
  tlbf::Duration jump = 0;
  // The year of the first year-less stamp of each input: this one (--year), else the year of
  // the input's modification time, else of the wall clock (YearStart::not_after).
  std::optional<int> year;
  // Without, a run whose first kUntimedProbe records have no readable time stops.
  bool allow_untimed = false;
  // --lateness: how long records were held for time order before they reached the clock
  // (input_merge.hpp); the advice for late records names a longer one.
  tlbf::Duration lateness = 0;

  // A record behind the clock by no more than this is jitter: counted as late, not warned
  // about at once: max(1 ms, window / 100); 1 s for a count window.
  tlbf::Duration quiet_late() const {
    return window > 0 ? std::max<tlbf::Duration>(tlbf::kMillisecond, window / 100) : tlbf::kSecond;
  }

  tlbf::Duration jump_threshold() const {
    if (jump > 0) return jump;
    constexpr tlbf::Duration kLongest = std::numeric_limits<tlbf::Duration>::max();
    return std::max(kHour, window > kLongest / 100 ? kLongest : 100 * window);  // saturates
  }
};

// What the clock made of a record's time (for --explain; in this order there).
enum class TimeVerdict { accepted, late, untimed, future };

// Where the clock's warnings about one record go: the caller knows which record it is.
class RecordWarnings {
 public:
  virtual void warn(WarningKind kind, std::string what) = 0;
  // What to do about the record's time `t`, which could not be read (the caller knows the
  // record: the fields it has, a --time-format that reads the text).
  virtual std::string untimed_advice(const TimeReading& t) = 0;
  // What to do about the record's time `t`, `behind` ns behind the clock (the caller knows the
  // inputs: several read one after another, or one not in time order).
  virtual std::string late_advice(const TimeReading& t, std::uint64_t behind) = 0;

 protected:
  ~RecordWarnings() = default;
};

class DecisionClock {
 public:
  // `time_option` is -t as given (for messages); `start`, a saved clock or 0; `wall` must
  // outlive the clock.
  DecisionClock(const ClockPolicy& policy, std::string time_option, tlbf::Time start, Clock& wall);

  tlbf::Time now() const { return clock_; }

  // A record without -t: it arrives now, by the wall clock.
  void arrive() {
    const tlbf::Time t = wall_->wall_ns();
    if (t > clock_) clock_ = t;
  }

  // A record's time: moves the clock, counts and warns as the policy says.
  TimeVerdict accept(const TimeReading& t, RecordWarnings& warnings) {
    // The usual record, decided here without a call: a full time, not before the clock, not
    // too far ahead of the wall clock, and a step from the record before that is not a jump.
    // (previous_ <= clock_ <= t.time, so the step is t.time - previous_; the first timed
    // record takes the slow path, which looks at what the first time says of the format.)
    ++timed_;
    if (t.parsed && !t.date_only && timed_seen_ && t.time >= clock_ &&
        (!policy_.max_future || t.time <= future_limit_) &&
        static_cast<std::uint64_t>(t.time) - static_cast<std::uint64_t>(*previous_) <=
            static_cast<std::uint64_t>(jump_)) {
      timed_seen_ = true;
      previous_ = t.time;
      clock_ = t.time;
      return TimeVerdict::accepted;
    }
    return accept_slow(t, warnings);
  }

  // With -t: record times beyond the wall clock plus --max-future from now on are judged as
  // untimed.
  void refresh_future_limit();

  // The untimed probe failed: the first kUntimedProbe records had no readable time; the run
  // reads no further.
  bool probe_failed() const { return probe_failed_; }
  // Records were asked for times and none had one (untimed input not allowed).
  bool found_no_time() const { return counts_.untimed && !timed_seen_ && !policy_.allow_untimed; }
  // A record had a readable time: the untimed check has passed.
  bool found_time() const { return timed_seen_; }
  // The error for a run that found no time, `records` read, the last of them from `input`;
  // `written`: they were written as read (the input paused while they were held back).
  UntimedInput no_time_error(std::string_view input, std::uint64_t records, bool written = false) const;

  // The totals of the warnings above, at the end of the run (`late_fix`: what to do about the
  // late records, said once more), and the counters for --stats.
  void warn_totals(Diagnostics& diagnostics, const std::string& late_fix) const;
  // No record time has moved the clock past the one a saved state started it at: a record
  // behind it is late for the earlier run's records, not for its own input's order.
  bool at_saved_clock() const { return saved_ != 0 && clock_ == saved_; }
  // How far behind the clock the latest late record was, in ns.
  std::uint64_t max_lateness() const { return counts_.max_lateness_ns; }
  void count_into(RunStats& stats) const;

 private:
  TimeVerdict accept_slow(const TimeReading& t, RecordWarnings& warnings);

  // Late records past jitter are warned about again once they pass 1 % of this many records or more.
  static constexpr std::uint64_t kShareAfter = 1000;

  ClockPolicy policy_;
  std::string time_option_;
  Clock* wall_;
  tlbf::Time clock_;
  tlbf::Time saved_;  // the clock a saved state started at, 0: none
  tlbf::Time future_limit_ = 0;
  tlbf::Duration jump_;
  std::optional<tlbf::Time> previous_;  // the last accepted record time
  bool timed_seen_ = false;             // a record had a readable time
  bool probe_failed_ = false;
  AdviceTally untimed_advice_;   // what to do about the untimed records read before any time
  RunStats counts_;              // its untimed, future, late, jumps and date_only only
  std::uint64_t timed_ = 0;      // records that came with a time (readable or not)
  std::uint64_t loud_late_ = 0;  // late by more than quiet_late()
  bool share_warned_ = false;
};

}  // namespace tlbf_dedup
