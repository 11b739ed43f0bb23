// The run's saves of its state (checkpoints.hpp).
#include "pipeline/checkpoints.hpp"

#include <algorithm>

namespace tlbf_dedup {

void Checkpoints::save(RecordSink& out, tlbf::Time clock) {
  if (!hooks_.save) return;
  out.flush();
  hooks_.save(clock);
  last_ns_ = steady_->steady_ns();
}

void Checkpoints::maybe(RecordSink& out, tlbf::Time clock, bool holding) {
  // (Not while output is held: a saved state would hold keys of records not yet written.)
  if (holding || !hooks_.save || hooks_.every <= 0 || steady_->steady_ns() - last_ns_ < hooks_.every) return;
  // Nor before the output's reader has read what was written; the checkpoint waits for a live
  // reader a moment, else comes again later.
  out.flush();
  deferred_ = !out.wait_until_read(kDrainMs);
  if (!deferred_) save(out, clock);
}

int Checkpoints::wait_ms() const {
  if (!hooks_.save || hooks_.every <= 0) return -1;
  const std::int64_t due_ns = last_ns_ + hooks_.every - steady_->steady_ns();
  return due_ns <= 0 ? (deferred_ ? kDrainMs : 0)
                     : static_cast<int>(std::min<std::int64_t>(due_ns / 1000000 + 1, 60000));
}

}  // namespace tlbf_dedup
