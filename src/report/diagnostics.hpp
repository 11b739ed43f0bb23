// Where the pipeline's warnings and its end-of-run summary go (ninja's Builder reports
// through a Status the same way). Nothing below the front end prints: the pipeline hands
// every warning here, as data a test can read, and the front end's implementation
// (cli.cpp) prints it on stderr, or not with --quiet.
#pragma once

#include <cstdint>
#include <string>

#include "report/stats.hpp"

namespace tlbf_dedup {

enum class WarningKind {
  malformed_record,  // not a readable JSON object
  missing_key,       // no key at the key spec
  untimed,           // -t given, but no readable time
  memory_cap,        // the filter dropped keys inside the window to stay under --max-memory
  future_time,       // a record time beyond --max-future ahead of the wall clock
  jump_forward,      // consecutive record times further apart than the jump threshold
  late,              // a record behind the decision clock (out of time order beyond --lateness)
  date_only,         // a time read as a date without a time of day
  zone_cut,          // a Common Log Format time without its zone, read as UTC
  redis_fallback,    // the Redis server was lost and a local filter decides from then on
  multiline,         // --multiline's pattern matched none of the first lines
  state_options,     // key and time options the run did not give, taken from --state
};

struct Warning {
  WarningKind kind;
  std::string file;          // the input the record came from; empty for a total of the run
  std::uint64_t record = 0;  // the record's number in `file` (from 1); 0 for a total
  std::uint64_t count = 1;   // records the warning covers
  std::string message;       // what a person reads, without the program's name
};

class Diagnostics {
 public:
  virtual ~Diagnostics() = default;
  virtual void warning(const Warning& w) = 0;
  // Once, when a run ends normally (input done or stopped by a signal), after its warnings.
  virtual void summary(const RunStats& stats) = 0;
};

}  // namespace tlbf_dedup
