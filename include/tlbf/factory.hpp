// SPDX-License-Identifier: MIT
// Builds or loads any registered filter (registry.hpp) from its configuration or saved state.
//
// Serialized form of a filter: one byte, its registry entry's tag, then the filter's own
// payload (written by its save(), read by its entry's load()). Every filter's save() writes
// that tag byte first; load_filter() reads it and finds the entry.
#pragma once

#include <memory>
#include <string>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/registry.hpp"

namespace tlbf {

// Throws invalid_parameter when the configuration does not fit the algorithm
// (e.g. apbf with a time window).
inline std::unique_ptr<WindowFilter> make_filter(const FilterConfig& cfg) {
  check_window(cfg);
  return check_parameters(cfg).make(cfg);
}

// Bytes of filter data that cfg.capacity keys per window take under the library's own sizing,
// once a steady stream has filled the window, before any memory cap (compare with
// cfg.max_memory_bytes to see whether it would bind); nothing is allocated. For the filters
// that grow with the rate they measure: tlbf, and gebf with a time window. Throws
// invalid_parameter for the others, and as make_filter() does for a configuration it refuses.
inline std::uint64_t window_bytes_for(const FilterConfig& cfg) {
  check_window(cfg);
  const FilterEntry& e = check_algorithm(cfg);
  if (e.window_bits)
    if (const std::optional<std::uint64_t> bits = e.window_bits(cfg)) return *bits / 8;
  throw invalid_parameter("algorithm", std::string(e.name),
                          "window_bytes_for() sizes tlbf and the time-window gebf only");
}

// Throws state_error when the payload is not a filter of a registered algorithm.
inline std::unique_ptr<WindowFilter> load_filter(ByteReader& in) {
  const FilterEntry* e = find_filter(static_cast<Algorithm>(in.u8()));
  if (!e) throw state_error("state: unknown filter type");
  return e->load(in);
}

}  // namespace tlbf
