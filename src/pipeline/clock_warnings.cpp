// The clock's warnings about a record and their advice (clock_warnings.hpp).
#include "pipeline/clock_warnings.hpp"

#include "extract/advice.hpp"

namespace tlbf_dedup {

std::string ClockWarnings::untimed_advice(const TimeReading& t) {
  const SourceRecord& r = (*batch_)[segment_->warnings_for];
  return tlbf_dedup::untimed_advice(*extract_, r.bytes.substr(0, r.text_size()), batch_->format, t);
}

std::string ClockWarnings::late_advice(const TimeReading& t, std::uint64_t behind) {
  const RecordBatch& b = *batch_;
  const SourceRecord& r = b[segment_->warnings_for];
  const std::string& input = b.names[r.input];
  // The input of the timed record before it: in this batch, else the last record judged.
  std::string before = *last_input_;
  for (std::size_t i = segment_->warnings_for; i-- > 0;)
    if (b[i].time.parsed) {
      before = b.names[b[i].input];
      break;
    }
  return late_.advise(input, before, clock_->at_saved_clock(), behind, [&] {
    return sort_advice(*extract_, b.format, r.bytes.substr(0, r.text_size()), t.text, input);
  });
}

}  // namespace tlbf_dedup
