// What a run of the record loop (pipeline.hpp) is told: the settings of its stages, filled
// by the command line (app/options.hpp) and read once when the pipeline is made.
#pragma once

#include <cstdint>
#include <string>

#include "decide/decider.hpp"
#include "extract/extract.hpp"
#include "extract/timestamp.hpp"
#include "input/input_format.hpp"
#include "output/output_mode.hpp"
#include "pipeline/cap_watch.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/keyless_records.hpp"
#include "report/stats.hpp"

namespace tlbf_dedup {

struct PipelineConfig {
  InputFormat format = InputFormat::auto_detect;
  ExtractConfig extract;
  TimeParser time_parser{TimeFormat::auto_detect, std::nullopt, 1970};
  ClockPolicy clock;
  Refresh refresh = Refresh::no;  // for the decider the front end makes (decider.hpp)
  OutputMode output;
  bool line_buffered = false;
  OnError on_error = OnError::pass;
  // When none of the first ClockPolicy::kUntimedProbe records judged has a key and some lack a
  // key part, the run stops (KeylessInput): the output is held as for the untimed check, so
  // that nothing is written. The program turns it on unless --on-error is given.
  bool stop_when_keyless = false;
  OnCap on_cap = OnCap::warn;
  // --multiline's pattern (empty: none) and the line terminator, for the check that it
  // matches any of the first lines (multiline_check.hpp).
  std::string multiline;
  char terminator = '\n';
  FilterSizing sizing;  // what the filter was sized for, for --stats (the front end knows the filter)
  bool progress = false;
  // --explain: print what was made of the first `explain` records instead of them; 0: off.
  std::uint64_t explain = 0;
  // --top: report the `top` keys with the most duplicates (top_keys.hpp); 0: off.
  std::size_t top = 0;
  // --threads: 2 reads and extracts on a second thread, one batch ahead of the decisions,
  // when every input is a regular file, the filter is local and there is no --explain or
  // --line-buffered (else, and with 1, one thread does everything). The program's default
  // depends on the CPUs the process may use (options.cpp).
  int threads = 2;
  // Several inputs are merged by time (input_merge.hpp); false: read one after another.
  bool merged = false;
};

}  // namespace tlbf_dedup
