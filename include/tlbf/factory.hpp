// SPDX-License-Identifier: MIT
// Builds or loads any filter from its configuration or saved state.
//
// Serialized form of a filter: one byte, the Algorithm value, then the filter's own payload
// (written by its save(), read by its static load()). Every filter's save() writes that tag
// byte first; load_filter() reads it and dispatches.
#pragma once

#include <memory>
#include <string>

#include "tlbf/apbf.hpp"
#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf {

// Throws invalid_parameter when the configuration does not fit the algorithm
// (e.g. apbf with a time window).
inline std::unique_ptr<WindowFilter> make_filter(const FilterConfig& cfg) {
  check_window(cfg);
  check_algorithm(cfg);
  switch (cfg.algorithm) {
    case Algorithm::tlbf:
      return std::make_unique<TimeLimitedFilter>(cfg);
    case Algorithm::apbf:
      return std::make_unique<AgePartitionedFilter>(cfg);
    case Algorithm::gebf:
      if (cfg.is_time_window()) return std::make_unique<TimedEpochFilter>(cfg);
      return GuardedEpochFilter::make(cfg);
    case Algorithm::exact:
      return std::make_unique<ExactWindow>(cfg);
  }
  throw invalid_parameter("algorithm", "?", "unknown algorithm");  // check_algorithm() refused it already
}

// Bytes of filter data that cfg.capacity keys per window take under the library's own sizing,
// once a steady stream has filled the window, before any memory cap (compare with
// cfg.max_memory_bytes to see whether it would bind); nothing is allocated. For the filters
// that grow with the rate they measure: tlbf, and gebf with a time window. Throws
// invalid_parameter for the others, and as make_filter() does for a configuration it refuses.
inline std::uint64_t window_bytes_for(const FilterConfig& cfg) {
  check_window(cfg);
  check_algorithm(cfg);
  if (cfg.algorithm == Algorithm::tlbf) return TimeLimitedFilter::window_bits_for(cfg) / 8;
  if (cfg.algorithm == Algorithm::gebf && cfg.is_time_window()) return TimedEpochFilter::window_bits_for(cfg) / 8;
  throw invalid_parameter("algorithm", std::string(algorithm_name(cfg.algorithm)),
                          "window_bytes_for() sizes tlbf and the time-window gebf only");
}

// Throws state_error when the payload is not a filter this library wrote.
inline std::unique_ptr<WindowFilter> load_filter(ByteReader& in) {
  switch (in.u8()) {
    case static_cast<std::uint8_t>(Algorithm::tlbf):
      return TimeLimitedFilter::load(in);
    case static_cast<std::uint8_t>(Algorithm::apbf):
      return AgePartitionedFilter::load(in);
    case static_cast<std::uint8_t>(Algorithm::gebf):
      return load_gebf(in);
    case static_cast<std::uint8_t>(Algorithm::exact):
      return ExactWindow::load(in);
    default:
      throw state_error("state: unknown filter type");
  }
}

}  // namespace tlbf
