// When the run's state is saved: once at the end, and with --checkpoint every so much steady
// time, looked at between segments and whenever the input pauses. A checkpoint waits until the
// output's reader has taken what was written (records left in a pipe are lost with a reader
// that dies, and a state holding their keys would drop them next run), a moment at most, else
// it comes again later; none is taken while output is held back.
//
// Invariant: every save comes with the output flushed, and no save holds the key of a record
// that has not been written.
#pragma once

#include <cstdint>
#include <functional>

#include "base/clock.hpp"
#include "output/record_sink.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// How the pipeline persists its filter: `save` is called with the output flushed, every
// `every` of wall time (checked between records and whenever input pauses) and once at the
// end of the run, with the clock it has reached; the caller knows the filter. Empty `save` =
// no state.
struct StateHooks {
  std::function<void(tlbf::Time clock)> save;
  tlbf::Duration every = 0;
};

class Checkpoints {
 public:
  // `steady` must outlive the checkpoints.
  Checkpoints(StateHooks hooks, Clock& steady) : hooks_(std::move(hooks)), steady_(&steady) {}

  bool saves() const { return static_cast<bool>(hooks_.save); }
  // The run starts at `now_ns` (steady time): the first checkpoint is due `every` after it.
  void start(std::int64_t now_ns) { last_ns_ = now_ns; }
  // Saves the state at `clock`, the output flushed first.
  void save(RecordSink& out, tlbf::Time clock);
  // Saves when a checkpoint is due and the output is not held back (`holding`).
  void maybe(RecordSink& out, tlbf::Time clock, bool holding);
  // While the input pauses: in how many milliseconds a checkpoint is due (-1: none).
  int wait_ms() const;

 private:
  // How long a checkpoint waits for the output's reader to take what was written.
  static constexpr int kDrainMs = 200;

  StateHooks hooks_;
  Clock* steady_;
  std::int64_t last_ns_ = 0;
  bool deferred_ = false;  // a due checkpoint waits for the output's reader
};

}  // namespace tlbf_dedup
