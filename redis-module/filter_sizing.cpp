// The library's sizing of a new filter, restated so the module can judge a RESERVE before it
// allocates anything, and the smaller capacity a large filter starts with.
//
// A TLBF built for capacity C with layout (k, l) allocates k + l slices of
// slice_bits_for(ceil(C / l) k) bits each (time_limited.hpp, eqs. 7-8), never under the
// slice floor of 4k inserts; all of them at construction, although only the k newest take
// inserts before the first shifts. A time-window GEBF allocates nothing at construction and,
// at its first insert, one block for ceil(C / r) keys plus two standard deviations and 4, at
// 0.9 of the per-epoch rate (timed_epoch.hpp, advance()). Invariant: bytes_for_capacity()
// equals what the library allocates for the same configuration (TLBF: bits_allocated once
// built; GEBF: (r + 1) times bits_allocated after the first insert), which
// tests/redis-module/ checks against the library itself.
//
// Starting smaller is safe because both filters size each new slice or epoch from the rate
// they measure: a TLBF started at 1/64 of the rate that then arrived (10^6 keys per window)
// measured 0.42-0.58 of its error rate over the first window and 0.85-0.88 after, at 1e-2 and
// 1e-3, with the same peak memory as one built for the rate (docs/redis.md).
#include "filter_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "tlbf/config.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf_redis {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// bytes_for_capacity() with the TLBF's layout chosen once (the search is the costly part).
class Sizing {
 public:
  explicit Sizing(const FilterParams& p) : p_(p) {
    if (p.algorithm == tlbf::Algorithm::tlbf)
      layout_ = tlbf::TimeLimitedFilter::choose_layout(p.error_rate, tlbf::FilterConfig{}.max_kl);
  }

  std::uint64_t bytes(std::uint64_t capacity) const {
    if (p_.algorithm == tlbf::Algorithm::tlbf) {
      // As TimeLimitedFilter's constructor computes them, in the same arithmetic.
      const std::uint32_t k = layout_.k, l = layout_.l;
      const double generation = std::ceil(static_cast<double>(capacity) / l);
      const std::uint64_t initial = tlbf::detail::slice_bits_for(generation * k, 64, tlbf::detail::kMaxTotalBits);
      const std::uint64_t floor_bits = tlbf::detail::slice_bits_for(4.0 * k, 64, tlbf::detail::kMaxTotalBits);
      return std::max(initial, floor_bits) * (std::uint64_t{k} + l) / 8;
    }
    const std::uint64_t r = tlbf::kGebfTimeDefaultR;
    const auto forecast = static_cast<double>(std::max<std::uint64_t>(1, ceil_div(capacity, r)));
    const auto keys = static_cast<std::uint64_t>(forecast + 2.0 * std::sqrt(forecast) + 4.0);
    const double rate = 0.9 * tlbf::gebf_segment_target(p_.error_rate, static_cast<std::uint32_t>(r));
    const tlbf::SegmentShape block = tlbf::segment_shape_for(false, static_cast<double>(keys), rate);
    return block.bits * (r + 1) / 8;
  }

 private:
  const FilterParams& p_;
  tlbf::SliceLayout layout_{};
};

}  // namespace

std::uint64_t bytes_for_capacity(const FilterParams& p, std::uint64_t capacity) { return Sizing(p).bytes(capacity); }

void check_capacity_fits(const FilterParams& p) {
  const std::uint64_t needed = bytes_for_capacity(p, p.capacity);
  if (needed > p.max_memory)
    throw CommandError("CAPACITY " + std::to_string(p.capacity) + " needs more than MAXMEMORY " +
                       std::to_string(p.max_memory) + " bytes (" + std::to_string(needed) +
                       " bytes); raise MAXMEMORY or lower CAPACITY");
}

std::uint64_t start_capacity(const FilterParams& p) {
  const Sizing sizing(p);
  const std::uint64_t whole = sizing.bytes(p.capacity);
  if (whole <= kStartBytes) return p.capacity;
  const std::uint64_t budget = std::max(kStartBytes, whole / kStartFraction);
  // The bytes never fall as the capacity rises, so the largest capacity within the budget is
  // found by bisection; capacity 1 always fits (a few slices of 4k inserts).
  std::uint64_t fits = 1, over = p.capacity;
  while (over - fits > 1) {
    const std::uint64_t mid = fits + (over - fits) / 2;
    (sizing.bytes(mid) <= budget ? fits : over) = mid;
  }
  return fits;
}

}  // namespace tlbf_redis
