// How much memory a filter the module reserves takes, asked of the library's own sizing
// (tlbf::window_bytes_for()) before anything is allocated, and the capacity the library is
// built with so that a large CAPACITY does not allocate its whole window up front.
#pragma once

#include <cstdint>

#include "filter_params.hpp"

namespace tlbf_redis {

// A new filter allocates at most this much at once, or 1/kStartFraction of what its CAPACITY
// needs when that is more; the library's filters grow to the rate that actually arrives.
inline constexpr std::uint64_t kStartBytes = std::uint64_t{8} << 20;
inline constexpr std::uint64_t kStartFraction = 64;

// Bytes of filter data that `capacity` keys per window need under the library's sizing
// (tlbf::window_bytes_for(): the TLBF's k + l slices, the GEBF's r + 1 epochs).
std::uint64_t bytes_for_capacity(const FilterParams& p, std::uint64_t capacity);

// Throws CommandError when CAPACITY needs more than MAXMEMORY: the filter would be capped
// from the start, so the parameters contradict each other.
void check_capacity_fits(const FilterParams& p);

// The capacity the library's filter is built with: CAPACITY when that needs at most
// kStartBytes, else the largest capacity whose filter fits in max(kStartBytes, what CAPACITY
// needs / kStartFraction). It only sizes the first slices (or the first epoch's block).
std::uint64_t start_capacity(const FilterParams& p);

}  // namespace tlbf_redis
