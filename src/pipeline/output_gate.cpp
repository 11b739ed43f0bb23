// Output held back during the run's first checks (output_gate.hpp).
#include "pipeline/output_gate.hpp"

namespace tlbf_dedup {

void OutputGate::check(std::uint64_t records) {
  // The untimed check cannot fail once a record had a time, nor once the records it judges
  // (the first kUntimedProbe) went by without failing it (records without a key are not
  // clocked); the key check cannot once a record had a key, nor once it is over.
  const bool times_settled =
      !time_probe_ || clock_->found_time() || (!clock_->probe_failed() && records >= ClockPolicy::kUntimedProbe);
  if (times_settled && keys_->settled()) {
    end(true);
  } else if (!holding_) {
    holding_ = true;
    sink_->hold_back();
  }
}

bool OutputGate::end(bool keep) {
  pending_ = false;
  if (!holding_) return false;
  drain_();  // records waiting for answers go into the hold first
  holding_ = false;
  sink_->let_go(keep);
  return !keep;
}

}  // namespace tlbf_dedup
