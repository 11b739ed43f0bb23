// Where the decision clock's warnings about a record go (RecordWarnings, decision_clock.hpp):
// into the segment, which holds each until its record is judged (segment.hpp), with the advice
// they give, read from the record and those before it: for a time that could not be read, the
// fields the record has or a --time-format that reads it (extract/advice.hpp); for a late
// record, what to do by its cause (late_advice.hpp).
//
// Invariant: every warning and advice is about the record the segment is clocking
// (Segment::warnings_for) in the batch given last to batch().
#pragma once

#include <cstdint>
#include <string>

#include "extract/extract.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/late_advice.hpp"
#include "pipeline/record_source.hpp"
#include "pipeline/segment.hpp"

namespace tlbf_dedup {

class ClockWarnings final : public RecordWarnings {
 public:
  // `extract`, `segment`, `clock` and `last_input` (the input of the last record judged before
  // the batch) must outlive the warnings; `lateness` and `merged` are LateAdvice's.
  ClockWarnings(const ExtractConfig& extract, tlbf::Duration lateness, bool merged, Segment& segment,
                const DecisionClock& clock, const std::string& last_input)
      : extract_(&extract), segment_(&segment), clock_(&clock), last_input_(&last_input), late_(lateness, merged) {}

  // The records clocked from now on are the batch `b`'s.
  void batch(const RecordBatch& b) { batch_ = &b; }
  // What to do about the late records of the run, up to the latest lateness, said again at exit.
  std::string late_fix() const { return late_.fix(clock_->max_lateness()); }

  void warn(WarningKind kind, std::string what) override { segment_->warn(kind, std::move(what)); }
  std::string untimed_advice(const TimeReading& t) override;
  std::string late_advice(const TimeReading& t, std::uint64_t behind) override;

 private:
  const ExtractConfig* extract_;
  Segment* segment_;
  const DecisionClock* clock_;
  const std::string* last_input_;
  const RecordBatch* batch_ = nullptr;
  LateAdvice late_;
};

}  // namespace tlbf_dedup
