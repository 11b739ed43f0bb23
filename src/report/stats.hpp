// The run's counters and their --stats report (text or JSON) on stderr.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

enum class StatsFormat { none, text, json };

// One key of --top (top_keys.hpp).
struct TopKey {
  std::string key;                 // its parts as a JSON array, as --explain shows them
  std::uint64_t count = 0;         // duplicates counted for it: at least the true number,
  std::uint64_t overestimate = 0;  // and at most this many more
  bool truncated = false;          // shown by its first bytes only
};

// --top N: the keys with the most duplicates, and the sketch's error bound.
struct TopReport {
  std::vector<TopKey> keys;    // most duplicates first; empty without --top
  std::uint64_t counters = 0;  // the sketch's counters (0: no --top)
  std::uint64_t added = 0;     // duplicates counted
  std::uint64_t bound = 0;     // no overestimate exceeds it; at most added / counters
};

// The held records of --count and --keep last (output/holder.hpp).
struct HeldReport {
  bool active = false;           // records were held (else nothing of this is reported)
  std::uint64_t peak = 0;        // the most held at once
  std::uint64_t peak_bytes = 0;  // the most memory they took
  std::uint64_t early = 0;       // written before their window closed, for --max-memory
};

// What the filter was sized for, which --stats names beside its memory: -c keys per window for a
// time window, the -n keys of a count window.
struct FilterSizing {
  std::uint64_t keys = 0;  // 0: not known
  bool count_window = false;
};

struct RunStats {
  std::uint64_t records = 0;
  std::uint64_t emitted = 0;          // records written (with --mark: all written records)
  std::uint64_t duplicates = 0;       // records judged duplicates
  std::uint64_t unmatched = 0;        // not selected by --where: passed untouched, not judged
  std::uint64_t malformed = 0;        // JSON records that could not be read as objects
  std::uint64_t missing_key = 0;      // records without the key field/path/regex match
  std::uint64_t untimed = 0;          // -t given but the time was missing or unparseable
  std::uint64_t future = 0;           // stamped beyond --max-future ahead of the wall clock (judged as untimed)
  std::uint64_t late = 0;             // behind the clock by more than --lateness (judged at the clock)
  std::uint64_t max_lateness_ns = 0;  // how far behind the clock the latest of them was
  std::uint64_t jumps_forward = 0;    // consecutive record times further apart than the jump threshold
  std::uint64_t jumps_back = 0;
  std::uint64_t date_only = 0;  // times read as a date without a time of day (midnight)
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double seconds = 0;
  // The filter's, except that when the memory cap bound in this run (cap_binds) its
  // effective_span or effective_count is the shortest window kept at any bind, as warned.
  tlbf::FilterStats filter;
  FilterSizing sizing;
  std::uint64_t cap_binds = 0;
  TopReport top;
  HeldReport held;
  // --lateness: how long records were held for time order, and what holding took.
  tlbf::Duration lateness = 0;
  std::uint64_t held_most = 0;                 // records held at once, at most
  std::uint64_t held_most_bytes = 0;           // their bytes
  std::uint64_t released_early = 0;            // let go before the lateness passed, for memory
  bool selecting = false;                      // --where or --where-regex was given: `unmatched` is reported
  const char* errors_went = "passed through";  // what --on-error made of the errors

  std::uint64_t errors() const { return malformed + missing_key; }
};

std::string format_stats(const RunStats& s, StatsFormat format);
// The --top report as text (part of format_stats' text form; alone when --top is given
// without --stats); empty without --top.
std::string format_top(const TopReport& top);

// What a filter whose memory cap bound still keeps: "12.5s", "3000 keys", or "the whole
// window" when the cap never made it drop a key inside the window.
std::string cap_window(const tlbf::FilterStats& f);
// The window kept of `a` is shorter than that of `b` (both from a cap that bound).
bool narrower_window(const tlbf::FilterStats& a, const tlbf::FilterStats& b);

}  // namespace tlbf_dedup
