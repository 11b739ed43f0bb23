// Pieces shared by the two age-partitioned filters (APBF in apbf.hpp, TLBF in
// time_limited.hpp): bit access in a word array, the jump-back query of Shtul, Baquero and
// Almeida (APBF paper §4; Rodrigues et al. 2023, §5.3 and Algorithm 1), slice sizing for a
// half-full slice (Rodrigues et al. eq. 8), and clock arithmetic that cannot overflow.
//
// Invariant kept by the callers: a slice is a std::vector<std::uint64_t> whose size in bits
// is 64 * words.size(), and every bit index passed here is below that size (it comes from
// reduce(x, bits)), so no access is ever out of range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <string>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/params.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

namespace detail {

inline constexpr double kLn2 = 0.693147180559945309417;

// Largest sizes a loaded or configured filter may have; guards arithmetic and allocations
// against corrupted state (2^43 bits = 1 TiB of bit arrays).
inline constexpr std::uint64_t kMaxTotalBits = std::uint64_t{1} << 43;
inline constexpr std::uint32_t kMaxK = 1024;
inline constexpr std::uint32_t kMaxSlicesHard = std::uint32_t{1} << 20;

inline void set_bit(std::uint64_t* words, std::uint64_t bit) {
  words[bit >> 6] |= std::uint64_t{1} << (bit & 63);
}
inline bool test_bit(const std::uint64_t* words, std::uint64_t bit) {
  return (words[bit >> 6] >> (bit & 63)) & 1u;
}
inline std::uint64_t count_ones(const std::uint64_t* words, std::size_t n) {
  std::uint64_t c = 0;
  for (std::size_t i = 0; i < n; ++i) c += static_cast<std::uint64_t>(__builtin_popcountll(words[i]));
  return c;
}

// Bits for a slice that reaches fill 1/2 after `capacity` inserts (m = ceil(c / ln2),
// eq. 8), rounded up to whole words and clamped to [lo, hi] (both multiples of 64).
inline std::uint64_t slice_bits_for(double capacity, std::uint64_t lo, std::uint64_t hi) {
  double m = std::ceil(capacity / kLn2);
  if (!(m < static_cast<double>(hi))) return hi;  // also catches NaN and infinity
  auto bits = static_cast<std::uint64_t>(std::max(m, 0.0));
  bits = (bits + 63) / 64 * 64;
  return std::clamp(bits, lo, hi);
}

// Inserts a slice of `bits` bits can take before its fill passes 1/2: floor(m ln2).
inline std::uint64_t half_fill_capacity(std::uint64_t bits) {
  return static_cast<std::uint64_t>(std::floor(static_cast<double>(bits) * kLn2));
}

// a - b for clock values, saturated to the int64 range (a corrupted or far-apart pair of
// times must not overflow).
inline std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return r;
}

// The (k, l) layout a configuration asks for: given explicitly (both or neither), or chosen
// by choose_kl() for the error rate. Throws invalid_parameter naming the bad field.
inline SliceLayout resolve_layout(const FilterConfig& cfg) {
  check_error_rate(cfg.error_rate);
  if (cfg.k.has_value() != cfg.l.has_value())
    throw invalid_parameter(cfg.k ? "l" : "k", "unset", "k and l must be given together");
  if (!cfg.k) return choose_kl(cfg.error_rate, cfg.max_kl);
  if (*cfg.k == 0 || *cfg.k > kMaxK)
    throw invalid_parameter("k", parameter_value(*cfg.k), "must be in [1, " + std::to_string(kMaxK) + "]");
  if (*cfg.l == 0) throw invalid_parameter("l", "0", "must be >= 1");
  if (std::uint64_t{*cfg.k} + *cfg.l > cfg.max_kl)
    throw invalid_parameter("max_kl", parameter_value(cfg.max_kl),
                            "is less than k + l = " + std::to_string(std::uint64_t{*cfg.k} + *cfg.l));
  return SliceLayout{*cfg.k, *cfg.l, apbf_fpr(*cfg.k, *cfg.l), apbf_bits_per_key(*cfg.k, *cfg.l)};
}

// Bits the max_memory_bytes setting allows, saturated at kMaxTotalBits.
inline std::uint64_t memory_cap_bits(const FilterConfig& cfg) {
  return cfg.max_memory_bytes > kMaxTotalBits / 8 ? kMaxTotalBits : cfg.max_memory_bytes * 8;
}

// The jump-back query over slices 0..num_slices-1 (position 0 is the newest). `hit(pos)`
// says whether slice `pos` holds the key's bit (and, for the TLBF, is live). Returns true
// iff some k consecutive slices all hit. Starts at the oldest window of k slices; on a
// miss at position i no run through i exists, so it jumps to i - k, carrying the hits just
// seen above the miss, which may be the top of a run ending right below it.
template <class Hit>
inline bool jump_back_query(std::size_t num_slices, std::uint32_t k, Hit&& hit) {
  if (num_slices < k) return false;
  auto i = static_cast<std::ptrdiff_t>(num_slices - k);
  std::uint32_t p = 0, c = 0;
  while (i >= 0) {
    if (hit(static_cast<std::size_t>(i))) {
      ++c;
      ++i;
      if (p + c == k) return true;
    } else {
      i -= static_cast<std::ptrdiff_t>(k);
      p = c;
      c = 0;
    }
  }
  return false;
}

}  // namespace detail
}  // namespace tlbf
