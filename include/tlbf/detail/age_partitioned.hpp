// SPDX-License-Identifier: MIT
// Pieces shared by the two age-partitioned filters (APBF in apbf.hpp, TLBF in
// time_limited.hpp): bit access in a word array, the run query of generation-keyed probes,
// slice sizing for a half-full slice (Rodrigues et al. eq. 8), clock arithmetic that cannot
// overflow, and the slices of a state saved before generation-keyed probes (format 1),
// which are still queried the old way, with the jump-back scan of Shtul, Baquero and
// Almeida (APBF paper §4; Rodrigues et al. 2023, §5.3 and Algorithm 1), until they expire.
//
// Generation-keyed probes. The generation that opened slice G (while G was position 0)
// sets, in the slice at position p (p = 0..k-1), the bit of probe hash p. Its k bits form
// "run G": the slices at positions j..j+k-1 when G is at position j, probed with hashes
// 0..k-1 in that order. A key is reported iff some accepted run holds all its bits. Two
// different runs probe every slice they share with different hashes, so a key is found in
// its own run and in any other only by chance (k chance bits, the false-positive level):
// once its own run is no longer accepted, the key is gone. (With the paper's hash per
// slice, the runs of the next generations hold k-1, k-2, ... of its bits, and a stale key
// fades out over ~k generations instead.) Each filter accepts a run by the time (TLBF) or
// the insert number (APBF) of its generation's last insert, which bounds how long after
// its window a key can be reported to one generation.
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
#include "tlbf/detail/level_scan.hpp"
#include "tlbf/hash.hpp"
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

inline void set_bit(std::uint64_t* words, std::uint64_t bit) { words[bit >> 6] |= std::uint64_t{1} << (bit & 63); }
inline bool test_bit(const std::uint64_t* words, std::uint64_t bit) { return (words[bit >> 6] >> (bit & 63)) & 1u; }
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

// End of the grid cell ((i-1) c, i c] that holds t: the least multiple of c that is >= t,
// saturated at the largest Time.
inline std::int64_t cell_end(std::int64_t t, std::int64_t c) {
  std::int64_t q = t / c;  // rounds toward zero: already up for a negative t
  if (t % c > 0) ++q;
  std::int64_t end;
  if (__builtin_mul_overflow(q, c, &end)) return std::numeric_limits<std::int64_t>::max();
  return end;
}

// The (k, l) layout a configuration asks for: given explicitly (both or neither), or chosen
// for the error rate by `choose` (choose_kl() for the APBF; the TLBF passes its own model).
// Throws invalid_parameter naming the bad field.
inline SliceLayout resolve_layout(const FilterConfig& cfg, SliceLayout (*choose)(double, std::uint32_t) = choose_kl) {
  check_error_rate(cfg.error_rate);
  if (cfg.k.has_value() != cfg.l.has_value())
    throw invalid_parameter(cfg.k ? "l" : "k", "unset", "k and l must be given together");
  if (!cfg.k) return choose(cfg.error_rate, cfg.max_kl);
  if (*cfg.k == 0 || *cfg.k > kMaxK)
    throw invalid_parameter("k", parameter_value(*cfg.k), "must be in [1, " + std::to_string(kMaxK) + "]");
  if (*cfg.l == 0) throw invalid_parameter("l", "0", "must be >= 1");
  if (std::uint64_t{*cfg.k} + *cfg.l > cfg.max_kl)
    throw invalid_parameter("max_kl", parameter_value(cfg.max_kl),
                            "is less than k + l = " + std::to_string(std::uint64_t{*cfg.k} + *cfg.l));
  return SliceLayout{*cfg.k, *cfg.l, runs_fpr(*cfg.k, *cfg.l), apbf_bits_per_key(*cfg.k, *cfg.l)};
}

// Bits the max_memory_bytes setting allows, saturated at kMaxTotalBits.
inline std::uint64_t memory_cap_bits(const FilterConfig& cfg) {
  return cfg.max_memory_bytes > kMaxTotalBits / 8 ? kMaxTotalBits : cfg.max_memory_bytes * 8;
}

// The k probe values of a key for generation-keyed runs: probe_hashes() (enhanced double
// hashing), each put through a non-linear mix before reduce() takes its top bits. Without
// the mix the top bits of h1 + p h2 + (p^3 - p)/6 follow h1 + p h2 (the cubic term is below
// 2^28), so a key whose (h1, h2) lie within 1/m and 1/(m k) of a stored key's, in the same
// run or in a run d generations away (h1 + d h2), hits all k probes: a floor of about
// l^2 / (2 n k^3) under the false-positive rate, which passes 1e-9 at 10^6 keys and much
// larger targets with small slices. Mixed, the probes of two keys coincide independently.
inline std::uint64_t mix_probe(std::uint64_t x) {
  x ^= x >> 32;
  return x * 0xd6e8feb86659fd93ULL;
}
inline void run_probes(KeyHash h, std::uint32_t k, std::uint64_t* out) {
  probe_hashes(h, k, out);
  for (std::uint32_t p = 0; p < k; ++p) out[p] = mix_probe(out[p]);
}
// Probe 0 of run_probes() alone: what every run's query reads first.
inline std::uint64_t run_probe0(KeyHash h) { return mix_probe(probe_hash(h, 0)); }
// Probe p of run_probes() alone (p < kProbeTable), for a caller that needs the values one
// level at a time: a query of a new key stops after a few of its k levels, and an insert
// uses each value once, so neither needs the array (hash.hpp: the cubic term from the same
// table, the same value modulo 2^64).
inline std::uint64_t run_probe(KeyHash h, std::uint32_t p) { return mix_probe(h.lo + p * h.hi + kCubic.v[p]); }

// The run query over slices 0..num_slices-1 (position 0 is the newest): true iff some run
// j (positions j..j+k-1) is accepted and `hit(pos, p)` holds for the slice at pos = j + p,
// p = 0..k-1. `accepted(j)` must be monotone (once false, false for every older run), which
// holds when it compares the run's last insert with a threshold: the accepted runs are
// 0..J-1, found first. They are then searched level by level (detail/level_scan.hpp):
// probe 0 of every run, probe 1 of the runs that hit it, and so on; same answer as probing
// each run in turn, without a data-dependent branch per probe. `prefetch(pos, p)` fetches
// the word hit(pos, p) will read (a hint; see any_candidate_all_hit()).
template <class Accepted, class Hit, class Prefetch>
inline bool any_run_hit(std::size_t num_slices, std::uint32_t k, Accepted&& accepted, Hit&& hit, Prefetch&& prefetch) {
  std::size_t runs = 0;
  while (runs + k <= num_slices && accepted(runs)) ++runs;
  return any_candidate_all_hit(
      runs, [k](std::size_t) { return k; }, [&](std::size_t j, std::uint32_t p) { return hit(j + p, p); },
      [&](std::size_t j, std::uint32_t p) { prefetch(j + p, p); });
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

// Slices loaded from a format-1 state, where slice s used one probe hash for every
// generation (its `hash_index`). They are never inserted into again: they answer for the
// keys they hold, the old way, until the owning filter retires them (by time for the TLBF,
// by count for the APBF); new inserts go to generation-keyed slices. `age` is what the owner
// retires them by: the last update time (TLBF) or the position of the slice in the old
// filter (APBF).
struct LegacySlices {
  struct Slice {
    std::vector<std::uint64_t> words;
    std::uint64_t hash_index = 0;
    std::int64_t age = 0;
  };
  std::vector<Slice> slices;  // oldest first

  std::uint64_t bits() const {
    std::uint64_t b = 0;
    for (const Slice& s : slices) b += s.words.size() * 64;
    return b;
  }
  // The format-1 query over the slices `live(slice)` accepts (the dead ones count as misses).
  template <class Live>
  bool may_contain(KeyHash h, std::uint32_t k, Live&& live) const {
    if (slices.empty()) return false;
    const Slice* top = slices.data() + (slices.size() - 1);
    return jump_back_query(slices.size(), k, [&](std::size_t pos) {
      const Slice& s = *(top - pos);
      return live(s) && test_bit(s.words.data(), reduce(probe_hash(h, s.hash_index), s.words.size() * 64));
    });
  }
  // Drops the oldest slices while `dead(slice)`.
  template <class Dead>
  void retire(Dead&& dead) {
    std::size_t n = 0;
    while (n < slices.size() && dead(slices[n])) ++n;
    slices.erase(slices.begin(), slices.begin() + static_cast<std::ptrdiff_t>(n));
    if (slices.empty()) slices.shrink_to_fit();
  }
  // The saved form: u64 count, then per slice (oldest first) i64 age, u64 hash index, words.
  template <class Self, class Archive>
  static void visit_fields(Self& l, Archive& ar, std::uint64_t max_words, std::uint64_t max_hash) {
    std::uint64_t n = l.slices.size();
    ar.u64(n);
    if constexpr (Archive::loading) {
      if (n > kMaxSlicesHard) throw state_error("state: too many legacy slices");
      l.slices.resize(n);
    }
    for (auto& s : l.slices) {
      ar.i64(s.age);
      ar.u64(s.hash_index);
      ar.words(s.words, max_words);
      if constexpr (Archive::loading) {
        if (s.words.empty() || s.hash_index >= max_hash) throw state_error("state: legacy slice out of range");
      }
    }
  }
};

}  // namespace detail
}  // namespace tlbf
