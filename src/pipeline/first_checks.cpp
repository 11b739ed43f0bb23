// The checks of a run's first records (first_checks.hpp).
#include "pipeline/first_checks.hpp"

namespace tlbf_dedup {

FirstChecks::FirstChecks(const PipelineConfig& cfg, RecordSink& sink, const DecisionClock& clock,
                         Diagnostics& diagnostics, std::function<void()> drain)
    : clock_(&clock),
      diagnostics_(&diagnostics),
      action_(keyless_action(cfg.on_error)),
      keys_(cfg.stop_when_keyless && cfg.explain == 0),
      gate_(sink, clock, keys_, std::move(drain)) {
  if (!cfg.multiline.empty()) multiline_ = std::make_unique<MultilineCheck>(cfg.multiline, cfg.terminator);
  // With -t, output is held back until the untimed check cannot fail, and so it is until the
  // key check cannot (--explain shows what it read whatever the checks say).
  gate_.start(!cfg.extract.time.empty() && !cfg.clock.allow_untimed && cfg.explain == 0);
}

void FirstChecks::judged(const RecordBatch& b, std::size_t from, std::size_t end, const RunStats& stats) {
  keys_.tally(b, from, end);
  if (keys_.pending() && stats.records >= ClockPolicy::kUntimedProbe) {
    keys_.end_probe();
    check_keys(stats);
  }
}

bool FirstChecks::end(bool stopped, RunStats& stats) {
  if (!stopped) keys_.end_probe();
  const bool passed = !untimed(stopped) && !keys_.failed();
  if (gate_.end(passed)) stats.emitted = 0;  // nothing was written
  return passed;
}

void FirstChecks::fail(const RunStats& stats, const std::string& last_input) const {
  if (keys_.failed()) throw keys_.error(stats, gate_.written_while_checking());
  throw clock_->no_time_error(last_input, stats.records, gate_.written_while_checking());
}

void FirstChecks::summarise(const RunStats& stats, const std::string& last_input) {
  if (multiline_) multiline_->check(nullptr, last_input, *diagnostics_);
  if (keys_.pending()) check_keys(stats);
}

}  // namespace tlbf_dedup
