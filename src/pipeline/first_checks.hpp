// The checks of a run's first records: that some record has a readable time (-t: the untimed
// check, decision_clock.hpp), that some has a key (key_check.hpp), and that --multiline's
// pattern starts a record (multiline_check.hpp); the output is held while one of the first two
// may still fail (output_gate.hpp).
//
// Invariant: a run that fails the time or the key check writes nothing, unless the input
// paused during the checks (its error then says what was written), and saves no state; each
// check's verdict is given once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "pipeline/config.hpp"
#include "pipeline/key_check.hpp"
#include "pipeline/multiline_check.hpp"
#include "pipeline/output_gate.hpp"

namespace tlbf_dedup {

class FirstChecks {
 public:
  // What is passed in must outlive the checks; `drain` hands the sink every record still
  // waiting for its answer (output_gate.hpp).
  FirstChecks(const PipelineConfig& cfg, RecordSink& sink, const DecisionClock& clock, Diagnostics& diagnostics,
              std::function<void()> drain);

  KeyCheck& keys() { return keys_; }
  OutputGate& gate() { return gate_; }
  bool holding() const { return gate_.holding(); }
  // The key check failed: the run reads no further.
  bool failed() const { return keys_.failed(); }

  // A batch of records is about to be clocked; the input it was read from last.
  void batch(const RecordBatch& b, const std::string& last_input) {
    if (multiline_ && multiline_->check(&b, last_input, *diagnostics_)) multiline_.reset();
  }
  // A segment was clocked, `records` read in all: output held or let go (output_gate.hpp).
  void clocked(std::uint64_t records) {
    if (gate_.pending()) gate_.check(records);
  }
  // The records [from, end) of `b` were judged.
  void judged(const RecordBatch& b, std::size_t from, std::size_t end, const RunStats& stats);
  // The run ends (`stopped`: by a signal): the checks settle, the hold ends; false when the
  // run failed one (no time, no key) and wrote nothing.
  bool end(bool stopped, RunStats& stats);
  // No record had a readable time: the run fails the untimed check, unless a signal stopped
  // it first.
  bool untimed(bool stopped) const { return clock_->found_no_time() && !stopped; }
  // The error of a run whose end() failed, the last record read from `last_input`.
  [[noreturn]] void fail(const RunStats& stats, const std::string& last_input) const;
  // At the end: the verdicts still due.
  void summarise(const RunStats& stats, const std::string& last_input);

 private:
  [[gnu::cold]] void check_keys(const RunStats& stats) { keys_.check(stats, action_, *diagnostics_); }

  const DecisionClock* clock_;
  Diagnostics* diagnostics_;
  const char* action_;  // what becomes of records without a key (keyless_records.hpp)
  KeyCheck keys_;
  OutputGate gate_;
  std::unique_ptr<MultilineCheck> multiline_;  // with --multiline, until the check is decided
};

}  // namespace tlbf_dedup
