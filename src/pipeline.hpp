// The record loop: reader → extractor → clock → decider → writer, with the bookkeeping
// (counters, warnings, progress, checkpoints) around it. The world comes in through two
// interfaces: a Clock (clock.hpp) for wall and steady time, and Diagnostics
// (diagnostics.hpp) for every warning and the end-of-run summary.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>

#include "clock.hpp"
#include "decider.hpp"
#include "diagnostics.hpp"
#include "extract.hpp"
#include "record_reader.hpp"
#include "stats.hpp"
#include "timestamp.hpp"
#include "tlbf/filter.hpp"
#include "writer.hpp"

namespace tlbf_dedup {

class Progress;

enum class InputFormat { auto_detect, lines, json };
// What happens to a record whose key cannot be extracted.
enum class OnError { pass, drop, fail };

// --on-error fail met a record whose key could not be extracted; the message says which.
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How the pipeline persists its filter: `save` is called with the output flushed, every
// `every` of wall time (checked between records and whenever input pauses) and once at the
// end of the run, with the filter and the clock it has reached. Empty `save` = no state.
struct StateHooks {
  std::function<void(const tlbf::WindowFilter&, tlbf::Time clock)> save;
  tlbf::Duration every = 0;
};

struct PipelineConfig {
  InputFormat format = InputFormat::auto_detect;
  ExtractConfig extract;
  TimeParser time_parser{TimeFormat::auto_detect, std::nullopt, 1970};
  Refresh refresh = Refresh::no;
  OutputMode output;
  bool line_buffered = false;
  OnError on_error = OnError::pass;
  bool progress = false;
};

class Pipeline {
 public:
  // `clock` and `diagnostics` must outlive the pipeline.
  Pipeline(PipelineConfig cfg, tlbf::WindowFilter& filter, tlbf::Time start_clock, Clock& clock,
           Diagnostics& diagnostics, StateHooks hooks = {});

  // Processes every record until the input ends or *stop becomes non-zero, then hands the
  // warning totals and the summary to the diagnostics. Throws RecordError (--on-error fail),
  // InputError, OutputError, SpecError, BrokenPipe.
  RunStats run(RecordReader& in, Writer& out, const volatile int* stop);

  tlbf::Time clock() const { return clock_; }

 private:
  // The record loop, compiled for each decider type (see decider.hpp).
  template <class D>
  void decide_all(D& decider, RecordReader& in, Writer& out, const volatile int* stop, Progress* progress);
  void choose_extractor(std::string_view first_record);
  void warn_first(WarningKind kind, const char* what, const RecordReader& in);
  void warn_totals();
  void save_state(Writer& out);
  void maybe_checkpoint(Writer& out);

  PipelineConfig cfg_;
  tlbf::WindowFilter* filter_;
  tlbf::Time clock_;  // the decision clock: the largest record time seen (or wall time)
  Clock* time_source_;
  Diagnostics* diagnostics_;
  StateHooks hooks_;
  std::unique_ptr<Extractor> extractor_;
  bool json_ = false;
  std::string mark_name_;
  RunStats stats_;
  std::int64_t last_checkpoint_ns_ = 0;
};

}  // namespace tlbf_dedup
