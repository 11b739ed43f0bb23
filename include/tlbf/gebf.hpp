// SPDX-License-Identifier: MIT
// Guarded epoch Bloom filters (Alpay & Sarioglu, "Guarded Epoch Bloom Filters for
// Sliding-Window Membership", arXiv 2606.19210, 2026): over a count window as in the paper
// (GuardedEpochFilter, guarded_epoch.hpp) and over a time window, our extension
// (TimedEpochFilter, timed_epoch.hpp). gebf_blocked selects the one-cache-line layout (§5)
// for either window.
//
// Both save after the Algorithm::gebf tag a variant byte (1 count, 2 time), which
// load_gebf() reads to choose the loader.
#pragma once

#include <memory>

#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/guarded_epoch.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/timed_epoch.hpp"

namespace tlbf {

// Reads the sub-tag written after the Algorithm::gebf byte and loads that variant.
inline std::unique_ptr<WindowFilter> load_gebf(ByteReader& in) {
  switch (in.u8()) {
    case detail::kGebfCount:
      return GuardedEpochFilter::load(in);
    case detail::kGebfTimed:
      return TimedEpochFilter::load(in);
    default:
      throw state_error("state: gebf: unknown variant");
  }
}

}  // namespace tlbf
