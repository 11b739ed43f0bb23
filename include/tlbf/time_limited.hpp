// SPDX-License-Identifier: MIT
// Time-limited Bloom filter (Rodrigues, Shtul, Baquero, Almeida 2023, §6): an age-partitioned
// Bloom filter whose window is a time span instead of a count, and whose slices grow, shrink
// and multiply to follow the insertion rate. What it promises:
//  - No false negatives: a key inserted at t is reported while now - t < span, however the
//    rate changes, across idle gaps and save/load, unless a cap (max_memory_bytes,
//    max_slices) gave up the window's oldest part (stats().effective_span, cap_binds()).
//  - Tight: a key of age >= span + g, g = max(1 ns, span / l) (2.3% of the span at the
//    default k = 21, l = 43), is reported only at the false-positive rate; if nothing is
//    inserted after t, it is gone at exactly t + span.
//  - The false-positive rate stays near error_rate at any steady rate, and memory follows
//    the keys in the window rather than its size in time.
//
// TimeLimitedFilter (time_limited_base.hpp) is what both storage layouts share; make() builds
// the layout cfg.tlbf_layout names, as a final class of its own:
//  - BitSlicedTimeLimitedFilter (time_limited_sliced.hpp; era policy in
//    time_limited_eras.hpp), the default, for k + l <= 64;
//  - SliceMajorTimeLimitedFilter (time_limited_slice_major.hpp), the paper's layout, and any
//    k + l > 64.
// Both answer every query by the same window rule; the saved form and the older formats it
// still reads are in time_limited_state.hpp. docs/filters.md derives the rules, the shift's
// steps and the era policy.
#pragma once

#include <memory>

#include "tlbf/config.hpp"
#include "tlbf/time_limited_base.hpp"
#include "tlbf/time_limited_slice_major.hpp"
#include "tlbf/time_limited_sliced.hpp"
#include "tlbf/time_limited_state.hpp"

namespace tlbf {

inline std::unique_ptr<TimeLimitedFilter> TimeLimitedFilter::make(const FilterConfig& cfg) {
  if (sizing_for(cfg).sliced) return std::make_unique<BitSlicedTimeLimitedFilter>(cfg);
  return std::make_unique<SliceMajorTimeLimitedFilter>(cfg);
}

}  // namespace tlbf
