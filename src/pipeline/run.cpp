// One run of the record loop: its start, its endings, its summary (run.hpp).
#include "pipeline/run.hpp"

#include <optional>

#include "pipeline/input_merge.hpp"

namespace tlbf_dedup {

Run::Run(PipelineConfig cfg, Decider& decider, RecordSink& sink, tlbf::Time start_clock, Clock& clock,
         Diagnostics& diagnostics, StateHooks hooks)
    : loop_(std::move(cfg), decider, sink, start_clock, clock, diagnostics, std::move(hooks)),
      source_(loop_.source_config(), decider.hasher(), clock) {}

RunStats Run::run(RecordReader& in, const volatile int* stop) { return run_input(in, stop); }

RunStats Run::run(InputMerge& in, const volatile int* stop) { return run_input(in, stop); }

void Run::read_all(RecordReader& in, const volatile int* stop, bool ahead) {
  in.set_stop_flag(stop);
  if (ahead)
    source_.run_ahead(in, loop_);
  else
    source_.run(in, loop_, stop);
}

void Run::read_all(InputMerge& in, const volatile int* stop, bool ahead) {
  in.run(loop_, stop, ahead);
  loop_.count_merge(in.stats());
}

template <class Input>
RunStats Run::run_input(Input& in, const volatile int* stop) {
  // A second thread reads ahead only where it can always be stopped and joined (regular
  // files: reads never block for long) and where output timing does not matter.
  const bool ahead = loop_.may_read_ahead() && in.inputs_are_regular_files();
  loop_.start(stop, ahead, in.total_size());
  bool checks_failed = false, downstream_closed = false;
  std::optional<OutputStopped> output_stopped;
  try {
    try {
      read_all(in, stop, ahead);
      loop_.end_input();
    } catch (const DecisionsLost&) {
      // What was decided before the loss is written; the records after it are not.
      loop_.write_decided(Pipeline::After::lost_decisions);
      throw;
    }
    // A run that found no time, or no key, at all is an error: it writes nothing, and its
    // state is not saved; its summary still comes first, so that --stats shows what was read.
    checks_failed = !loop_.end_checks();
  } catch (const InputError&) {
    // A damaged or unreadable input: what was decided before it goes out; the state is not
    // saved, as for any error.
    loop_.write_decided(Pipeline::After::input_error);
    throw;
  } catch (const BrokenPipe&) {
    // Downstream stopped reading: the program ends quietly. The state is not saved: records
    // decided as kept may not have reached the reader (they were in the output buffer), and
    // a state holding their keys would make the next run drop them unseen. The state file
    // keeps its last checkpoint, whose keys' records were all written.
    downstream_closed = true;  // the summary still goes out (--stats), then the quiet end
  } catch (const OutputStopped& e) {
    // Stopped by a signal with the output blocked: records decided as kept were not written,
    // so the state is not saved (a run resumed from it would take them for duplicates); the
    // state file keeps its last save, and a rerun from there writes them again.
    output_stopped = e;
  } catch (...) {
    // Any other error (--on-error fail, --on-cap fail): the records before it go out, as they
    // would have without the hold; the error is the one reported.
    try {
      loop_.write_decided(Pipeline::After::other_error);
    } catch (...) {
    }
    throw;
  }
  // The summary, after the warnings' totals; then how the run ended.
  loop_.summarise();
  if (downstream_closed) throw BrokenPipe{};
  if (output_stopped) throw *output_stopped;
  if (checks_failed) loop_.throw_failed_check();
  return loop_.stats();
}

}  // namespace tlbf_dedup
