// The memory caps as the user hears of them: the filter's (--max-memory bound: the window it
// keeps shrank) and a holding sink's (held records written before their window closed).
//
// Invariant: the first bind of each is told at its record, once (a warning, or with --on-cap
// fail the run's error, thrown after the records before it are written); the filter's binds
// are counted, and the window reported at the end is the shortest any bind left.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "decide/decider.hpp"
#include "output/record_sink.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"

namespace tlbf_dedup {

// What happens when the memory cap makes the filter give up window length.
enum class OnCap { warn, fail };

// --on-cap fail: the memory cap bound; the message says at which record and what was lost.
class CapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CapWatch {
 public:
  // `sink`: where the records before a fatal bind are written.
  CapWatch(OnCap on_cap, Decider& decider, RecordSink& sink, Diagnostics& diagnostics)
      : on_cap_(on_cap), decider_(&decider), sink_(&sink), diagnostics_(&diagnostics) {}

  // The decider's cap bound since `stats` last counted it.
  bool bound_again(const RunStats& stats) const { return decider_->cap_binds() != stats.cap_binds; }
  // The filter's cap bound at record `number` of `input`, decided at `now`: counted, and the
  // first bind warned about; with --on-cap fail, the sink flushed and CapError thrown instead.
  [[gnu::cold]] void filter_bound(const std::string& input, std::uint64_t number, tlbf::Time now, RunStats& stats);
  // A holding sink wrote `early` records before their time for its cap, at that record
  // (with --on-cap fail, the sink ended at `now`, flushed, and CapError thrown).
  [[gnu::cold]] void sink_bound(const std::string& input, std::uint64_t number, std::uint64_t early, tlbf::Time now);
  // At the end: the window the filter kept, as warned (the shortest at any bind), into the
  // statistics, and the total warning.
  void complete(RunStats& stats) const;
  void warn_total(const RunStats& stats) const;

 private:
  void warn_at(const std::string& input, std::uint64_t number, const std::string& what) const;

  OnCap on_cap_;
  Decider* decider_;
  RecordSink* sink_;
  Diagnostics* diagnostics_;
  tlbf::FilterStats shortest_;  // at the bind that left the shortest window kept
  bool held_reported_ = false;  // held records were first written early
};

}  // namespace tlbf_dedup
