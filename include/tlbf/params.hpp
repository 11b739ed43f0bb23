// Parameter maths for the age-partitioned filters (APBF and TLBF).
//
// apbf_fpr(k, l) is the false-positive rate of an age-partitioned Bloom filter of k + l
// slices queried with the jump-back algorithm, taken just before a shift, when slice i has
// fill r_i = (i+1)/(2k) for i < k and 1/2 beyond (Shtul, Baquero, Almeida 2020, §5;
// Rodrigues et al. 2023, eq. 2 in its linear form). It is F(0, 0) of the recursion
//   F(a, i) = 1                                        if a = k
//           = 0                                        if i > l + a
//           = r_i F(a+1, i+1) + (1 - r_i) F(0, i+1)    otherwise,
// where a is the length of the current run of hits and i the slice being probed.
//
// runs_fpr(k, l) is the same for the filters' generation-keyed probes (detail/
// age_partitioned.hpp), where the l + 1 runs of k slices probe disjoint bit positions and
// a never-inserted key is reported when any one of them is fully hit, independently:
//   1 - prod over j = 0..l of (1 - prod over i = j..j+k-1 of r_i),
// with the same fills r_i. It is above apbf_fpr(k, l) (about twice at fill 1/2, where the
// paper's overlapping runs share k - 1 probes), so a target needs about one more k.
//
// choose_kl(target) searches every layout with k + l <= max_kl and returns the one with the
// fewest bits per key, (k + l) k / (l ln 2), among those with runs_fpr(k, l) <= target.
// The bits-per-key formula follows from slices of m = g k / ln 2 bits (half full after the
// k generations of g keys each slice receives) and a window of l generations.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

// Fill of the slice at position i just before a shift: (i+1)/(2k) in the insert range, 1/2
// beyond.
inline double slice_fill_before_shift(std::uint32_t k, std::size_t i) {
  return i < k ? static_cast<double>(i + 1) / (2.0 * k) : 0.5;
}

inline double apbf_fpr(std::uint32_t k, std::uint32_t l) {
  if (k == 0) throw invalid_parameter("k", "0", "must be >= 1");
  const std::size_t n = std::size_t{k} + l;  // slices; i ranges over 0..n
  // F[a][i], filled from the last slice backwards so every F(., i+1) is known.
  std::vector<double> f((std::size_t{k} + 1) * (n + 1), 0.0);
  auto at = [&](std::size_t a, std::size_t i) -> double& { return f[a * (n + 1) + i]; };
  for (std::size_t i = 0; i <= n; ++i) at(k, i) = 1.0;
  for (std::size_t i = n; i-- > 0;) {
    const double r = slice_fill_before_shift(k, i);
    for (std::size_t a = 0; a < k; ++a) {
      if (i > l + a) continue;  // too few slices left to complete a run: stays 0
      at(a, i) = r * at(a + 1, i + 1) + (1.0 - r) * at(0, i + 1);
    }
  }
  return at(0, 0);
}

inline double runs_fpr(std::uint32_t k, std::uint32_t l) {
  if (k == 0) throw invalid_parameter("k", "0", "must be >= 1");
  // log P(no run is fully hit), summed with log1p: 1 - (1 - all) loses every run whose
  // probability is below double's epsilon, which made targets under ~1e-16 look reached.
  double log_none = 0.0;
  for (std::size_t j = 0; j <= l; ++j) {
    double all = 1.0;
    for (std::size_t i = j; i < j + k; ++i) all *= slice_fill_before_shift(k, i);
    log_none += std::log1p(-all);
  }
  return -std::expm1(log_none);
}

struct SliceLayout {
  std::uint32_t k, l;
  double fpr;           // runs_fpr(k, l)
  double bits_per_key;  // (k + l) k / (l ln 2)
};

inline double apbf_bits_per_key(std::uint32_t k, std::uint32_t l) {
  return static_cast<double>(k + l) * k / (static_cast<double>(l) * std::log(2.0));
}

// Ties in bits per key go to the smaller k + l (fewer slices to scan per query).
inline SliceLayout choose_kl(double target_fpr, std::uint32_t max_kl = 64) {
  check_error_rate(target_fpr);
  if (max_kl < 2) throw invalid_parameter("max_kl", parameter_value(max_kl), "must be >= 2 (k >= 1 and l >= 1)");
  if (max_kl > 4096) throw invalid_parameter("max_kl", parameter_value(max_kl), "must be <= 4096");
  SliceLayout best{0, 0, 1.0, 0.0};
  for (std::uint32_t k = 1; k < max_kl; ++k) {
    for (std::uint32_t l = 1; k + l <= max_kl; ++l) {
      const double bpk = apbf_bits_per_key(k, l);
      if (best.k != 0 && (bpk > best.bits_per_key || (bpk == best.bits_per_key && k + l >= best.k + best.l))) continue;
      const double fpr = runs_fpr(k, l);
      if (fpr <= target_fpr) best = SliceLayout{k, l, fpr, bpk};
    }
  }
  if (best.k == 0)
    throw invalid_parameter("error_rate", parameter_value(target_fpr),
                            "cannot be reached with k + l <= max_kl = " + std::to_string(max_kl));
  return best;
}

}  // namespace tlbf
