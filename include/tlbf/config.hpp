// SPDX-License-Identifier: MIT
// Parameters for building any window filter. Every filter class has a constructor taking a
// FilterConfig; it validates the fields it uses and throws tlbf::invalid_parameter naming
// the first bad one. Fields a filter does not use are ignored.
#pragma once

#include <cstdint>
#include <optional>

#include "tlbf/types.hpp"

namespace tlbf {

// The tag an algorithm's saved form starts with, and how a configuration names its algorithm.
// The library's are named here; the registry (registry.hpp) maps names and tags to the
// classes, and an algorithm defined elsewhere takes a value of its own (Algorithm{200}).
enum class Algorithm : std::uint8_t {
  tlbf = 1,    // time-limited Bloom filter (time window)
  apbf = 2,    // age-partitioned Bloom filter (count window)
  gebf = 3,    // guarded epoch Bloom filter (count window, or time window: epochs of span/r)
  exact = 4,   // exact fingerprint table (either window)
  tagged = 5,  // fingerprints tagged with their epoch (time window)
};

// TLBF: how the slices are stored and sized (time_limited.hpp). bit_sliced, the default:
// slices of one size per era, cell x holding bit x of every slice of its era, so a query
// reads k cells per live era; taken when k + l <= 64. slice_major: the paper's (Rodrigues et
// al. 2023, §6.3), each slice sized at its own shift and kept on its own, queried run by run:
// the experiments' paper-faithful mode, and the layout of any k + l > 64.
enum class TlbfLayout : std::uint8_t { bit_sliced = 0, slice_major = 1 };

struct FilterConfig {
  Algorithm algorithm = Algorithm::tlbf;

  // Exactly one window: a time span (> 0) or a count of inserts (> 0).
  Duration span = 0;
  std::uint64_t window_count = 0;

  double error_rate = 1e-5;         // target false-positive rate, in (0, 1)
  std::uint64_t capacity = 100000;  // expected distinct keys per window (initial sizing)

  // APBF/TLBF: slice layout. When unset, choose_kl(error_rate, max_slices) picks it.
  std::optional<std::uint32_t> k;
  std::optional<std::uint32_t> l;
  std::uint32_t max_kl = 64;  // bound on k + l when choosing (queries scan the slices)
  TlbfLayout tlbf_layout = TlbfLayout::bit_sliced;

  // GEBF: segments beyond the guard (r), and the one-cache-line-per-segment variant. 0 picks
  // the window's default (gebf_r_for()): the paper's r = 8 for a count window, r = 20 for a
  // time window, whose keys are reported at most span/r beyond the span.
  std::uint32_t gebf_r = 0;
  bool gebf_blocked = false;
  double gebf_bits_per_key = 0;  // count window: memory budget per live key; 0 = from error_rate

  // Bound on the filter's data. When adaptive growth would pass it, the filter keeps working
  // within the bound and reports memory_capped in its stats (each filter documents what is
  // lost then).
  std::uint64_t max_memory_bytes = std::uint64_t{1} << 30;
  std::uint32_t max_slices = 4096;

  bool is_time_window() const { return span > 0; }
};

inline constexpr std::uint32_t kGebfCountDefaultR = 8;
inline constexpr std::uint32_t kGebfTimeDefaultR = 20;

// The r a GEBF is built with: cfg.gebf_r, or the window's default when it is 0.
inline std::uint32_t gebf_r_for(const FilterConfig& cfg) {
  if (cfg.gebf_r != 0) return cfg.gebf_r;
  return cfg.is_time_window() ? kGebfTimeDefaultR : kGebfCountDefaultR;
}

}  // namespace tlbf
