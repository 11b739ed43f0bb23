// SPDX-License-Identifier: MIT
// The one check of each filter parameter. The filters, the parameter functions and a program
// that reads parameters from its own input (an option, a saved state) all call these, so a
// value is accepted or refused the same way everywhere and named the same way: every check
// throws invalid_parameter whose parameter() is the FilterConfig field. The check of the
// algorithm against the window is its registry entry's (check_algorithm(), registry.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "tlbf/config.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

// How a value appears in invalid_parameter::value(): integers exactly, reals in the short
// form a person would type (1e-05, 1.5).
inline std::string parameter_value(std::uint64_t v) { return std::to_string(v); }
inline std::string parameter_value(std::int64_t v) { return std::to_string(v); }
inline std::string parameter_value(std::uint32_t v) { return std::to_string(v); }
inline std::string parameter_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

inline void check_error_rate(double p) {
  if (!(p > 0.0 && p < 1.0))
    throw invalid_parameter("error_rate", parameter_value(p), "must be between 0 and 1 (exclusive)");
}

inline void check_capacity(std::uint64_t n) {
  if (n == 0) throw invalid_parameter("capacity", "0", "must be > 0");
}

inline void check_max_memory(std::uint64_t bytes) {
  if (bytes == 0) throw invalid_parameter("max_memory_bytes", "0", "must be > 0");
}

// Exactly one window kind: a time span or a count.
inline void check_window(const FilterConfig& cfg) {
  if (cfg.span < 0) throw invalid_parameter("span", parameter_value(cfg.span), "must not be negative");
  if ((cfg.span > 0) == (cfg.window_count > 0))
    throw invalid_parameter("span", parameter_value(cfg.span),
                            "exactly one of a time window (span > 0) or a count window (window_count > 0) is needed");
}

}  // namespace tlbf
