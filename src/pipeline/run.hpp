// One run of the record loop (pipeline.hpp) over its input: it starts the loop, hands it every
// record (one input read in order, or several merged by time, input_merge.hpp), and ends it,
// at the end of input, after a stop signal or after an error, then hands the summary to the
// diagnostics.
//
// Invariants:
//  - After an error every record decided before it is written; none after it is decided.
//  - The state is saved at the end only when every record decided as kept was written: not
//    after an input error, a closed output (BrokenPipe), an output stopped by a signal, or a
//    failed first check (no time, no key), in which case nothing was written either.
//  - The summary (--stats) goes out on every ending but an error that is thrown at once.
#pragma once

#include <cstdint>

#include "pipeline/pipeline.hpp"
#include "pipeline/record_source.hpp"

namespace tlbf_dedup {

class InputMerge;

class Run {
 public:
  // `decider`, `sink`, `clock` and `diagnostics` must outlive the run: every record goes to
  // `sink` (output/record_sink.hpp) in input order. Throws SpecError for a given format whose
  // extractor cannot be made.
  Run(PipelineConfig cfg, Decider& decider, RecordSink& sink, tlbf::Time start_clock, Clock& clock,
      Diagnostics& diagnostics, StateHooks hooks = {});

  // Processes every record until the input ends or *stop becomes non-zero, then hands the
  // warning totals and the summary to the diagnostics. Throws RecordError (--on-error fail),
  // CapError (--on-cap fail), UntimedInput, KeylessInput, InputError, SpecError, DecisionsLost,
  // and what the sink throws (OutputError, BrokenPipe, OutputStopped).
  RunStats run(RecordReader& in, const volatile int* stop);
  // The same over inputs merged by time and held for --lateness (input_merge.hpp).
  RunStats run(InputMerge& in, const volatile int* stop);

  tlbf::Time clock() const { return loop_.clock(); }
  // What a source of records for this run extracts (record_source.hpp).
  SourceConfig source_config() const { return loop_.source_config(); }

 private:
  template <class Input>
  RunStats run_input(Input& in, const volatile int* stop);
  // Every record read and judged; a second thread reads ahead when `ahead`.
  void read_all(RecordReader& in, const volatile int* stop, bool ahead);
  void read_all(InputMerge& in, const volatile int* stop, bool ahead);

  Pipeline loop_;
  RecordSource source_;
};

}  // namespace tlbf_dedup
