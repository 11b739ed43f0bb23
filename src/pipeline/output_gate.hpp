// Output held back while the run may still fail its first checks, so that a run that fails
// writes nothing: with -t (the untimed check), until a record has a readable time or the
// first ClockPolicy::kUntimedProbe records went by without failing it; with the key check
// (key_check.hpp), until a record has a key or the check is over. A live stream stays
// prompt: when the input pauses during the checks, what was held goes out and nothing more
// is held (a run that then fails says that its records were written).
//
// Invariant: the sink holds output back (RecordSink::hold_back) only between the segment at
// which check() first finds a check unsettled and end(); what it held goes out once, in
// order, or never (end(false): the run failed a check).
#pragma once

#include <cstdint>
#include <functional>

#include "output/record_sink.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/key_check.hpp"

namespace tlbf_dedup {

class OutputGate {
 public:
  // `sink`, `clock` and `keys` must outlive the gate; `drain` hands the sink every record
  // still waiting for its answer (a decider that answers later), so that they go into the
  // hold before it ends.
  OutputGate(RecordSink& sink, const DecisionClock& clock, const KeyCheck& keys, std::function<void()> drain)
      : sink_(&sink), clock_(&clock), keys_(&keys), drain_(std::move(drain)) {}

  // The run starts; `time_probe`: -t given and the untimed check on.
  void start(bool time_probe) {
    time_probe_ = time_probe;
    pending_ = time_probe || keys_->probing();
  }
  // A check may still fail: check() is due after each segment is clocked.
  bool pending() const { return pending_; }
  bool holding() const { return holding_; }
  // The input paused during the checks: what they held, and what came after, was written.
  bool written_while_checking() const { return written_while_checking_; }

  // After a segment is clocked, `records` read in all, and before it is judged (so that its
  // records go where the checks say): output is held while a check may fail, else let go.
  [[gnu::cold]] void check(std::uint64_t records);
  // The hold ends: what it held goes out (`keep`), or is dropped (the run failed a check);
  // true when output was held and is now dropped.
  bool end(bool keep);
  // The input pauses: what was held goes out, and nothing more is held.
  void paused() {
    if (!pending_) return;
    written_while_checking_ = true;
    end(true);
  }

 private:
  RecordSink* sink_;
  const DecisionClock* clock_;
  const KeyCheck* keys_;
  std::function<void()> drain_;
  bool time_probe_ = false;              // -t given, the untimed check on
  bool pending_ = false;                 // a check may still fail: output may be held
  bool holding_ = false;                 // the sink holds output back
  bool written_while_checking_ = false;  // the input paused during the checks
};

}  // namespace tlbf_dedup
