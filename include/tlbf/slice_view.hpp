// SPDX-License-Identifier: MIT
// What the age-partitioned filters (TLBF, APBF) expose about one slice, for statistics and
// for tests that check the invariants (fill, recycling, timestamps) from outside. A copy:
// it stays valid whatever the filter does next.
#pragma once

#include <cstdint>

#include "tlbf/types.hpp"

namespace tlbf {

struct SliceView {
  std::uint64_t bits = 0;     // size m_i
  std::uint64_t inserts = 0;  // n_i (TLBF; the generation count for APBF slice 0)
  Time stamp = 0;             // t_i, time of the last update (TLBF only)
  // The last insert of the generation that opened this slice, by which its run is accepted:
  // a time (TLBF), or an insert number counted from 1 (APBF); the least Time / 0 when none.
  std::int64_t run_last = 0;
  std::uint64_t ones = 0;  // set bits
};

}  // namespace tlbf
