// How much memory a filter the module reserves takes, asked of the library before anything is
// allocated (tlbf::window_bytes_for()), and the smaller capacity a large filter starts with.
//
// Starting smaller is safe because both filters size each new slice or epoch from the rate
// they measure: a TLBF started at 1/64 of the rate that then arrived (10^6 keys per window)
// measured 0.42-0.58 of its error rate over the first window and 0.85-0.88 after, at 1e-2 and
// 1e-3, with the same peak memory as one built for the rate (docs/redis.md).
#include "filter_sizing.hpp"

#include <algorithm>
#include <string>

#include "tlbf/factory.hpp"

namespace tlbf_redis {
namespace {

// The configuration the library sizes, its TLBF layout chosen once (the search is the costly
// part of the sizing, and start_capacity() asks for many capacities).
tlbf::FilterConfig sizing_config(const FilterParams& p) {
  tlbf::FilterConfig c = to_config(p);
  if (c.algorithm == tlbf::Algorithm::tlbf && !(c.k && c.l)) {
    const tlbf::SliceLayout layout = tlbf::TimeLimitedFilter::choose_layout(c.error_rate, c.max_kl);
    c.k = layout.k;
    c.l = layout.l;
  }
  return c;
}

std::uint64_t bytes_for(tlbf::FilterConfig c, std::uint64_t capacity) {
  c.capacity = capacity;
  return tlbf::window_bytes_for(c);
}

}  // namespace

std::uint64_t bytes_for_capacity(const FilterParams& p, std::uint64_t capacity) {
  return bytes_for(sizing_config(p), capacity);
}

void check_capacity_fits(const FilterParams& p) {
  const std::uint64_t needed = bytes_for_capacity(p, p.capacity);
  if (needed > p.max_memory)
    throw CommandError("CAPACITY " + std::to_string(p.capacity) + " needs more than MAXMEMORY " +
                       std::to_string(p.max_memory) + " bytes (" + std::to_string(needed) +
                       " bytes); raise MAXMEMORY or lower CAPACITY");
}

std::uint64_t start_capacity(const FilterParams& p) {
  const tlbf::FilterConfig c = sizing_config(p);
  const std::uint64_t whole = bytes_for(c, p.capacity);
  if (whole <= kStartBytes) return p.capacity;
  const std::uint64_t budget = std::max(kStartBytes, whole / kStartFraction);
  // The bytes never fall as the capacity rises, so the largest capacity within the budget is
  // found by bisection; capacity 1 always fits (a few slices of 4k inserts).
  std::uint64_t fits = 1, over = p.capacity;
  while (over - fits > 1) {
    const std::uint64_t mid = fits + (over - fits) / 2;
    (bytes_for(c, mid) <= budget ? fits : over) = mid;
  }
  return fits;
}

}  // namespace tlbf_redis
