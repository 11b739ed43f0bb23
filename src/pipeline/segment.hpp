// A segment: the records of one batch that the record loop (pipeline.cpp) clocks together and
// submits together, with the times their keys are judged at and the clock's warnings about
// them, each held until its record is judged; and how long a segment may be.
//
// Invariants: a warning is given at its record, after those of the records before it. A
// segment ends at a checkpoint (every 4096 records), where the checks of the first
// ClockPolicy::kUntimedProbe records end (so that they judge exactly those), after a record
// that ends the run (--on-error fail, the untimed check failed), and where the sink must flush.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "output/record_sink.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/record_source.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"

namespace tlbf_dedup {

// What clocking a segment reads and moves.
struct Clocking {
  DecisionClock& clock;
  RecordWarnings& warnings;  // where the clock's warnings about a record go
  RunStats& stats;           // its records and bytes read
  bool timed;                // -t
  bool fatal;                // --on-error fail: a record without a key ends the run
};

struct Segment {
  std::vector<tlbf::Time> times;  // of its keyed records, in order
  std::size_t first_key = 0;      // the batch's key of the segment's first keyed record
  std::size_t keyed = 0;          // records with a key
  std::size_t submitted = 0;      // keys the decider took
  TimeVerdict verdict{};          // the last keyed record's (--explain judges one at a time)
  bool checkpoint = false;        // a checkpoint is due after the segment
  std::size_t warnings_for = 0;   // the index of the record being clocked

  // Empty, from the batch's key `first` on, with room for `n` keyed records.
  void reset(std::size_t first, std::size_t n) {
    if (times.size() < n) times.resize(n);
    first_key = first;
    keyed = submitted = warned_ = 0;
    checkpoint = false;
    warnings_.clear();
  }
  // Clocks the records of `b` from `from` on, at most to `end`, as a new segment after this one;
  // returns where it ends.
  std::size_t clock(const RecordBatch& b, std::size_t from, std::size_t end, Clocking c);
  // A warning about the record being clocked.
  void warn(WarningKind kind, std::string what) { warnings_.push_back({warnings_for, kind, std::move(what)}); }
  // The index of the next record with a warning waiting (SIZE_MAX: none).
  std::size_t next_warning() const { return warned_ < warnings_.size() ? warnings_[warned_].record : SIZE_MAX; }
  // The warnings about record `i`, each to `give(kind, what)`; returns next_warning().
  template <class Give>
  std::size_t give(std::size_t i, Give&& give) {
    for (; warned_ < warnings_.size() && warnings_[warned_].record == i; ++warned_)
      give(warnings_[warned_].kind, warnings_[warned_].what);
    return next_warning();
  }

 private:
  struct Pending {
    std::size_t record;  // its index in the batch
    WarningKind kind;
    std::string what;
  };
  std::vector<Pending> warnings_;
  std::size_t warned_ = 0;  // warnings already given
};

// The end of the longest run of records of `b` from `from` on (one at least) whose output
// goes into a sink with `room` without a flush.
inline std::size_t room_end(const RecordBatch& b, std::size_t from, const SinkRoom& room) {
  auto fits = [&](std::size_t end) {
    const std::size_t n = end - from;
    return n <= room.records && b.bytes_between(from, end) + n * room.per_record <= room.bytes;
  };
  std::size_t lo = from + 1, hi = b.size();  // the first record goes whether it fits or not
  if (fits(hi)) return hi;
  while (hi - lo > 1) {  // fits(lo) or lo == from + 1; !fits(hi)
    const std::size_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace tlbf_dedup
