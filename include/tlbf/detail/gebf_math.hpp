// SPDX-License-Identifier: MIT
// Parameter maths for the guarded epoch Bloom filter (Alpay & Sarioglu 2026, arXiv 2606.19210).
//
// A GEBF is r+1 Bloom-filter segments of s bits, each holding at most ℓ = ⌈W/r⌉ keys. The
// paper's false-positive approximation (§4, "FPR approximation") treats the segments as
// independent filters: p ≈ 1 − (1 − (1 − e^{−kℓ/s})^k)^{r+1}. The blocked variant (§5) confines a
// key's k probes to one 512-bit block; its per-segment rate is the classic blocked-Bloom
// formula (Putze, Sanders, Singler 2007): the number of keys in the probed block is
// Poisson(ℓ·512/s) and a block holding j keys answers yes with probability
// (1 − (1 − 1/512)^{kj})^k.
//
// Sizing inverts these: for a target rate, each segment gets the per-segment rate
// f = 1 − (1 − p)^{1/(r+1)} and the smallest (s, k) meeting f for ℓ keys. Every function is
// pure and total on the documented domain, so the filters and the experiments share them.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace tlbf {

inline constexpr std::uint64_t kGebfBlockBits = 512;  // one 64-byte cache line
inline constexpr std::uint32_t kGebfMaxK = 64;

// False-positive rate of one Bloom filter of m bits, k hashes, n keys (uniform hashing).
inline double bloom_fpr(std::uint32_t k, double n, double m) {
  if (m <= 0) return 1.0;
  return std::pow(-std::expm1(-static_cast<double>(k) * n / m), static_cast<double>(k));
}

// Same for a filter of m bits cut into 512-bit blocks, all k probes in one block.
inline double blocked_bloom_fpr(std::uint32_t k, double n, double m) {
  double blocks = std::floor(m / static_cast<double>(kGebfBlockBits));
  if (blocks < 1) return 1.0;
  double lambda = n / blocks;
  if (lambda <= 0) return 0.0;
  double spread = 10.0 * std::sqrt(lambda) + 30.0;
  auto lo = static_cast<std::int64_t>(std::max(0.0, std::floor(lambda - spread)));
  auto hi = static_cast<std::int64_t>(std::ceil(lambda + spread));
  const double miss = std::log1p(-1.0 / static_cast<double>(kGebfBlockBits));
  double sum = 0;
  for (std::int64_t j = lo; j <= hi; ++j) {
    double jd = static_cast<double>(j);
    double pmf = std::exp(-lambda + jd * std::log(lambda) - std::lgamma(jd + 1.0));
    double set = -std::expm1(static_cast<double>(k) * jd * miss);  // P(a given bit is set)
    sum += pmf * std::pow(set, static_cast<double>(k));
  }
  return std::min(1.0, sum);
}

inline double segment_fpr(bool blocked, std::uint32_t k, double n, double m) {
  return blocked ? blocked_bloom_fpr(k, n, m) : bloom_fpr(k, n, m);
}

// The paper's approximation p_GE(m, W, r, k) with s = m/(r+1) bits per segment, ℓ keys in
// each (the state right before a rotation, when every segment is full).
inline double gebf_fpr(std::uint32_t k, std::uint64_t ell, std::uint64_t segment_bits, std::uint32_t r,
                       bool blocked = false) {
  double f = segment_fpr(blocked, k, static_cast<double>(ell), static_cast<double>(segment_bits));
  return -std::expm1(static_cast<double>(r + 1) * std::log1p(-std::min(f, 1.0 - 1e-300)));
}

// Per-segment rate such that r+1 independent segments give `target` overall.
inline double gebf_segment_target(double target, std::uint32_t r) {
  return -std::expm1(std::log1p(-target) / static_cast<double>(r + 1));
}

// The k that minimises one segment's rate for n keys in m bits.
inline std::uint32_t best_k(bool blocked, double n, double m) {
  std::uint32_t best = 1;
  double best_f = 2.0;
  std::uint32_t limit = blocked ? 32 : kGebfMaxK;
  for (std::uint32_t k = 1; k <= limit; ++k) {
    double f = segment_fpr(blocked, k, n, m);
    if (f < best_f) {
      best_f = f;
      best = k;
    }
  }
  return best;
}

// The most keys a segment of `bits` holds at rate <= f, at the best k (1 when even one does
// not): what a segment cut down to a memory cap can take without raising the rate.
inline std::uint64_t keys_fitting(bool blocked, std::uint64_t bits, double f) {
  const double m = static_cast<double>(bits);
  auto fits = [&](std::uint64_t n) {
    const double nd = static_cast<double>(n);
    return segment_fpr(blocked, best_k(blocked, nd, m), nd, m) <= f;
  };
  std::uint64_t lo = 1, hi = bits;
  if (!fits(lo)) return 1;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

struct SegmentShape {
  std::uint64_t bits;  // multiple of 64 (of 512 when blocked)
  std::uint32_t k;
};

// Smallest segment (bits, k) holding n keys at rate <= f. Unblocked: for each k the exact
// inverse m = −kn / ln(1 − f^{1/k}); blocked: binary search on the block count.
inline SegmentShape segment_shape_for(bool blocked, double n, double f) {
  n = std::max(n, 1.0);
  f = std::clamp(f, 1e-15, 0.5);
  const double unit = blocked ? static_cast<double>(kGebfBlockBits) : 64.0;
  SegmentShape best{0, 1};
  double best_bits = INFINITY;
  if (!blocked) {
    for (std::uint32_t k = 1; k <= kGebfMaxK; ++k) {
      double m = -static_cast<double>(k) * n / std::log(-std::expm1(std::log(f) / static_cast<double>(k)));
      if (m < best_bits) {
        best_bits = m;
        best.k = k;
      }
    }
  } else {
    for (std::uint32_t k = 1; k <= 32; ++k) {
      double lo = 1, hi = 1;
      while (blocked_bloom_fpr(k, n, hi * unit) > f && hi < 1e12) hi *= 2;
      if (blocked_bloom_fpr(k, n, hi * unit) > f) continue;
      while (hi - lo > 1) {
        double mid = std::floor((lo + hi) / 2);
        if (blocked_bloom_fpr(k, n, mid * unit) > f)
          lo = mid;
        else
          hi = mid;
      }
      if (blocked_bloom_fpr(k, n, lo * unit) <= f) hi = lo;
      if (hi * unit < best_bits) {
        best_bits = hi * unit;
        best.k = k;
      }
    }
  }
  best.bits = static_cast<std::uint64_t>(std::ceil(best_bits / unit) * unit);
  return best;
}

// segment_shape_for() for a stream of calls with few distinct rates f (the time-window
// filter sizes a block at every epoch boundary, always at 0.9·f or at 0.1·f·2^−j). For the
// blocked layout the rate depends only on k and the load λ = n / blocks, and rises with λ,
// so the search over blocks is done once per (f, k) as the largest admissible λ_k; a call is
// then blocks = ⌈n/λ_k⌉ for each k, plus one check of the chosen shape (and one more block in
// the rare case rounding at the boundary left it just above f). The plain layout's inverse
// is closed-form and passes through.
class SegmentShapeCache {
 public:
  SegmentShape shape_for(bool blocked, double n, double f) {
    if (!blocked) return segment_shape_for(false, n, f);
    n = std::max(n, 1.0);
    f = std::clamp(f, 1e-15, 0.5);
    const std::array<double, 33>& load = max_loads(f);
    SegmentShape best{0, 1};
    double best_blocks = INFINITY;
    for (std::uint32_t k = 1; k <= 32; ++k) {
      if (!(load[k] > 0)) continue;
      double blocks = std::max(1.0, std::ceil(n / load[k]));
      if (blocks < best_blocks) {
        best_blocks = blocks;
        best.k = k;
      }
    }
    if (!std::isfinite(best_blocks)) return segment_shape_for(true, n, f);
    const double unit = static_cast<double>(kGebfBlockBits);
    while (blocked_bloom_fpr(best.k, n, best_blocks * unit) > f) best_blocks += 1;
    best.bits = static_cast<std::uint64_t>(best_blocks) * kGebfBlockBits;
    return best;
  }

 private:
  // λ_k for k = 1..32 (index 0 unused; 0 where even a tiny load misses f).
  const std::array<double, 33>& max_loads(double f) {
    for (const auto& e : cache_)
      if (e.first == f) return e.second;
    if (cache_.size() >= kMaxEntries) cache_.erase(cache_.begin());
    std::array<double, 33> load{};
    const double unit = static_cast<double>(kGebfBlockBits);
    for (std::uint32_t k = 1; k <= 32; ++k) {
      // One block holding λ keys: blocked_bloom_fpr(k, λ, 512) is the rate at load λ.
      double lo = 0, hi = 1;
      if (blocked_bloom_fpr(k, 1e-9, unit) > f) continue;
      while (blocked_bloom_fpr(k, hi, unit) <= f && hi < 1e6) hi *= 2;
      for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; ++it) {
        double mid = (lo + hi) / 2;
        if (blocked_bloom_fpr(k, mid, unit) <= f)
          lo = mid;
        else
          hi = mid;
      }
      load[k] = lo;
    }
    cache_.emplace_back(f, load);
    return cache_.back().second;
  }

  static constexpr std::size_t kMaxEntries = 128;
  std::vector<std::pair<double, std::array<double, 33>>> cache_;
};

}  // namespace tlbf
