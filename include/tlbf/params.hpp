// SPDX-License-Identifier: MIT
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
// k generations of g keys each slice receives) and a window of l generations. The APBF uses
// it as it stands.
//
// tlbf_fpr(k, l, headroom) and choose_tlbf_kl() are the TLBF's: its generations end by time
// and its slices are sized with headroom, so its rate is the phase average over a
// generation at exponential fills a little under one half (without headroom it agrees with
// runs_fpr() within 6%), and its bits per key carry the headroom. With 3% of headroom it
// picks layouts with more runs than choose_kl (1e-3: (15,49) instead of (15,42), 29.1
// instead of 30.3 bits per key with the headroom).
#pragma once

#include <algorithm>
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

namespace detail {
inline void check_layout_search(double target_fpr, std::uint32_t max_kl) {
  check_error_rate(target_fpr);
  if (max_kl < 2) throw invalid_parameter("max_kl", parameter_value(max_kl), "must be >= 2 (k >= 1 and l >= 1)");
  if (max_kl > 4096) throw invalid_parameter("max_kl", parameter_value(max_kl), "must be <= 4096");
}
[[noreturn]] inline void throw_unreachable(double target_fpr, std::uint32_t max_kl) {
  throw invalid_parameter("error_rate", parameter_value(target_fpr),
                          "cannot be reached with k + l <= max_kl = " + std::to_string(max_kl));
}
}  // namespace detail

// Ties in bits per key go to the smaller k + l (fewer slices to scan per query).
inline SliceLayout choose_kl(double target_fpr, std::uint32_t max_kl = 64) {
  detail::check_layout_search(target_fpr, max_kl);
  SliceLayout best{0, 0, 1.0, 0.0};
  for (std::uint32_t k = 1; k < max_kl; ++k) {
    for (std::uint32_t l = 1; k + l <= max_kl; ++l) {
      const double bpk = apbf_bits_per_key(k, l);
      if (best.k != 0 && (bpk > best.bits_per_key || (bpk == best.bits_per_key && k + l >= best.k + best.l))) continue;
      const double fpr = runs_fpr(k, l);
      if (fpr <= target_fpr) best = SliceLayout{k, l, fpr, bpk};
    }
  }
  if (best.k == 0) detail::throw_unreachable(target_fpr, max_kl);
  return best;
}

// tlbf_fpr(k, l, headroom): the TLBF's rate averaged over a generation, the moment of a
// query taken uniformly. Its generations end by time, one per cell, so every slice is sized
// for k generations times the headroom and ends its k-th about 1 - 2^(-1/headroom) full
// (0.49 at 3%), and at phase t of the current generation the slice at position i holds
// min(i + t, k) generations: fill 1 - 2^(-min(i + t, k) / (k headroom)) (exponential,
// not linear: a Bloom filter's fill). Runs 0..l are accepted (run l until the end of the
// cell its generation ended in). Averaged over 8 phases; within 5% of the rates measured on a
// Poisson stream at 1e-1 .. 1e-4 (docs/filters.md).
inline constexpr int kTlbfPhases = 8;
namespace detail {
// The run products of runs 0..runs-1 at one phase, for k and the headroom.
inline void tlbf_run_products(std::uint32_t k, double headroom, double phase, std::size_t runs,
                              std::vector<double>& out) {
  std::vector<double> fill(std::size_t{k} + runs);
  for (std::size_t i = 0; i < fill.size(); ++i)
    fill[i] =
        -std::expm1(-std::log(2.0) * std::min(static_cast<double>(i) + phase, static_cast<double>(k)) / (k * headroom));
  out.assign(runs, 1.0);
  for (std::size_t j = 0; j < runs; ++j)
    for (std::size_t i = j; i < j + k; ++i) out[j] *= fill[i];
}
}  // namespace detail

inline double tlbf_fpr(std::uint32_t k, std::uint32_t l, double headroom) {
  if (k == 0) throw invalid_parameter("k", "0", "must be >= 1");
  std::vector<double> runs;
  double sum = 0;
  for (int t = 0; t < kTlbfPhases; ++t) {
    detail::tlbf_run_products(k, headroom, (t + 0.5) / kTlbfPhases, std::size_t{l} + 1, runs);
    double log_none = 0.0;
    for (double all : runs) log_none += std::log1p(-all);
    sum += -std::expm1(log_none);
  }
  return sum / kTlbfPhases;
}

// The TLBF's layout: the fewest bits per key, headroom (k + l) k / (l ln 2), among layouts
// with k + l <= max_kl and tlbf_fpr(k, l, headroom) <= target; ties to the smaller k + l.
//
// Every filter the program builds runs this search, so it is kept cheap (it was ~6 M
// instructions, a third of a one-record run's), with the same arithmetic as the plain search
// over every (k, l) (tests/test_params.cpp keeps that search and requires the same layout,
// bit for bit): each value below is computed once where the plain search computed it many
// times, never differently.
//  - A k whose fewest bits per key (at its largest l) is above the best found cannot win: it
//    is skipped. Bits per key fall with l by far more than rounding, so the skip is exact.
//  - Beyond the k-th slice every fill is the same, 1 - 2^(-1/headroom), in every phase: its
//    value, the product of k of them and that product's log1p are computed once per k.
//  - The rate of l is summed over the phases in phase order, as the plain search summed it,
//    but l by l, so that the search of a k stops at the first l over the target (more runs
//    only add to the rate) without the rates of the l after it.
inline SliceLayout choose_tlbf_kl(double target_fpr, std::uint32_t max_kl, double headroom) {
  detail::check_layout_search(target_fpr, max_kl);
  SliceLayout best{0, 0, 1.0, 0.0};
  std::vector<double> fills;                  // fills[t * k + i], slice i < k at phase t
  std::vector<double> log_none(kTlbfPhases);  // per phase: log P(none of runs 0..l is hit)
  for (std::uint32_t k = 1; k < max_kl; ++k) {
    const std::uint32_t max_l = max_kl - k;
    if (best.k != 0 && headroom * apbf_bits_per_key(k, max_l) > best.bits_per_key) continue;
    // The same expression as tlbf_run_products() for a slice at or beyond k.
    const double full = -std::expm1(-std::log(2.0) * static_cast<double>(k) / (k * headroom));
    double full_run = 1.0;  // a run of k such slices, multiplied in the same order
    for (std::uint32_t i = 0; i < k; ++i) full_run *= full;
    const double full_log = std::log1p(-full_run);
    fills.resize(std::size_t{k} * kTlbfPhases);
    for (int t = 0; t < kTlbfPhases; ++t) {
      const double phase = (t + 0.5) / kTlbfPhases;
      for (std::uint32_t i = 0; i < k; ++i)
        fills[t * std::size_t{k} + i] = -std::expm1(
            -std::log(2.0) * std::min(static_cast<double>(i) + phase, static_cast<double>(k)) / (k * headroom));
    }
    std::fill(log_none.begin(), log_none.end(), 0.0);
    for (std::uint32_t l = 0; l <= max_l; ++l) {
      double fpr_sum = 0.0;
      for (int t = 0; t < kTlbfPhases; ++t) {
        double run_log = full_log;
        if (l < k) {  // run l starts inside the first k slices: its product depends on the phase
          double run = 1.0;
          const double* f = fills.data() + t * std::size_t{k};
          for (std::uint32_t i = l; i < l + k; ++i) run *= i < k ? f[i] : full;
          run_log = std::log1p(-run);
        }
        log_none[t] += run_log;
        if (l > 0) fpr_sum += -std::expm1(log_none[t]);
      }
      if (l == 0) continue;
      const double bpk = headroom * apbf_bits_per_key(k, l), fpr = fpr_sum / kTlbfPhases;
      if (fpr > target_fpr) break;  // more runs only add to it
      if (best.k == 0 || bpk < best.bits_per_key || (bpk == best.bits_per_key && k + l < best.k + best.l))
        best = SliceLayout{k, l, fpr, bpk};
    }
  }
  if (best.k == 0) detail::throw_unreachable(target_fpr, max_kl);
  return best;
}

}  // namespace tlbf
