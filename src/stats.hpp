// The run's counters and their --stats report (text or JSON) on stderr.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

enum class StatsFormat { none, text, json };

struct RunStats {
  std::uint64_t records = 0;
  std::uint64_t emitted = 0;     // records written (with --mark: all written records)
  std::uint64_t duplicates = 0;  // records judged duplicates
  std::uint64_t malformed = 0;   // JSON records that could not be read as objects
  std::uint64_t missing_key = 0; // records without the key field/path/regex match
  std::uint64_t untimed = 0;     // -t given but the time was missing or unparseable
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double seconds = 0;
  tlbf::FilterStats filter;

  std::uint64_t errors() const { return malformed + missing_key; }
};

std::string format_stats(const RunStats& s, StatsFormat format);

}  // namespace tlbf_dedup
