// The check of the first records' keys: the first ClockPolicy::kUntimedProbe records judged
// (or all, when fewer). When most of them had no key, nothing was deduplicated among them and
// the run says so, naming the first such record and, for JSON, the --where that would pick
// the kind of record the key is for (KindTally). With stop_when_keyless, a run where none of
// them had a key and some lacked a key part fails (KeylessInput), having written nothing.
//
// Invariant: each verdict is given once, over exactly the records the check judges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "extract/advice.hpp"
#include "pipeline/record_source.hpp"
#include "report/diagnostics.hpp"

namespace tlbf_dedup {

// None of the first ClockPolicy::kUntimedProbe records judged (or of all, when fewer) had a
// key, and some lacked a part of it (PipelineConfig::stop_when_keyless): the message says
// which part, what the first such record has instead, and what was written.
class KeylessInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KeyCheck {
 public:
  // `stop`: a run without a key stops (stop_when_keyless, and no --explain).
  explicit KeyCheck(bool stop) : probing_(stop) {}

  bool pending() const { return pending_; }  // the warning is still to come
  bool probing() const { return probing_; }  // the stop is still to be decided
  bool failed() const { return failed_; }    // no record had a key: the run stops
  // The stop cannot come any more.
  bool settled() const { return keyed_seen_ || !probing_; }
  void saw_keys(bool any) { keyed_seen_ |= any; }

  // A record that lacks a key part, during the check: true for the first, whose description
  // goes to first_absent() (`json`: records are JSON, whose kinds are then tallied).
  bool absent() { return pending_ && absent_++ == 0; }
  void first_absent(std::string what, InputFormat format);
  // The first record without a key, of any kind, for the warning: wanted until given.
  bool wants_first_keyless() const { return first_keyless_.empty(); }
  void first_keyless(std::string what) { first_keyless_ = std::move(what); }
  // While the first records are judged: the records [from, end) of `b` into the kinds' tally.
  void tally(const RecordBatch& b, std::size_t from, std::size_t end);

  // The check's records are judged: the stop is decided, then the warning given (`action`:
  // what became of records without a key).
  void end_probe() {
    if (probing_) failed_ = !keyed_seen_ && absent_ > 0;
    probing_ = false;
  }
  void check(const RunStats& stats, const char* action, Diagnostics& diagnostics);
  KeylessInput error(const RunStats& stats, bool written_while_checking) const;

 private:
  bool pending_ = true;
  bool probing_;
  bool keyed_seen_ = false;
  bool failed_ = false;
  std::uint64_t absent_ = 0;          // records that lacked a key part, in the check
  std::string first_absent_;          // the first of them: where, why, and the advice
  std::string first_keyless_;         // the first record without a key: where, why, its fields
  std::unique_ptr<KindTally> kinds_;  // from the first record that lacks a key part, with JSON
};

}  // namespace tlbf_dedup
