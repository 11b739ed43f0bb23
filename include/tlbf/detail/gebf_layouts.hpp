// SPDX-License-Identifier: MIT
// The storage layouts of the count-window GEBF's r+1 segments (guarded_epoch.hpp), each a type
// the filter is compiled for. They hold the same bits at the same positions, hence give the
// same answers; they differ in how a query walks memory:
//  - SlicedSegments: plain probes over bit-sliced cells (SlicedCells, gebf_segment.hpp), for
//    r+1 <= kMaxCellBits. Position p of every segment is one cell, so a query is at most k
//    cell loads ANDed, with k fixed at compile time up to kGebfMaxStaticK; a rotation clears
//    one bit per cell.
//  - SeparateSegments<false>: plain probes, r+1 segments one after the other (larger r).
//  - SeparateSegments<true>: the blocked variant (§5): all k probes of a segment in one
//    512-bit block.
// Every layout offers the same operations:
//   Layout(segments, segment_bits, k, scheme)   all bits zero; scheme: plain probe positions
//   Positions; positions(h, p)          a key's probes, computed once per call
//   holds(p)                            some segment has every probe set
//   may_contain(h)                      holds(positions(h)), as fast as the layout allows
//   prefetch(h)                         fetches the words holds() reads first (a hint)
//   set(p, segment), clear(segment)
//   words(), word_count()               the bits in the layout's order, as saved
// Invariant: word_count() is segments * segment_bits / 64 in every layout, so a saved filter
// names its bits by count alone.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/detail/level_scan.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/hash.hpp"

namespace tlbf::detail {

inline constexpr std::uint32_t kGebfMaxStaticK = 16;  // larger k runs the loop with a runtime bound

class SlicedSegments {
 public:
  struct Positions {
    std::uint64_t at[kGebfMaxK];
  };

  static bool fits(std::uint32_t segments) { return segments <= kMaxCellBits; }

  SlicedSegments(std::uint32_t segments, std::uint64_t segment_bits, std::uint32_t k, ProbeScheme scheme)
      : cells_(segments, segment_bits),
        cell_mask_((std::uint64_t{1} << segments) - 1),
        bits_(segment_bits),
        k_(k),
        scheme_(scheme),
        query_(query_for(k, scheme)) {}

  // k-specific loop through a member pointer (a switch with the loops inlined into this
  // function measured 147 instructions per query against 136).
  bool may_contain(KeyHash h) const { return (this->*query_)(h); }

  // The probe hashes for i < k (double hashing by forward differences), reduced to cell indices.
  void positions(KeyHash h, Positions& p) const {
    if (scheme_ == ProbeScheme::multiply) {
      for (std::uint32_t i = 0; i < k_; ++i) p.at[i] = reduce(multiply_probe_hash(h, i), bits_);
      return;
    }
    std::uint64_t x = h.lo, d = h.hi;
    for (std::uint32_t i = 0; i < k_; ++i) {
      p.at[i] = reduce(x, bits_);
      x += d;
      d += i + 1;
    }
  }
  bool holds(const Positions& p) const {
    std::uint64_t alive = cell_mask_;
    for (std::uint32_t i = 0; i < k_ && alive != 0; ++i) alive &= cells_.cell(p.at[i]);
    return alive != 0;
  }
  // All k cells: the query's loads are independent of each other.
  void prefetch(KeyHash h) const {
    Positions p;
    positions(h, p);
    for (std::uint32_t i = 0; i < k_; ++i) cells_.prefetch(p.at[i]);
  }
  void set(const Positions& p, std::uint32_t segment) {
    for (std::uint32_t i = 0; i < k_; ++i) cells_.set(p.at[i], segment);
  }
  void clear(std::uint32_t segment) { cells_.clear(segment); }

  std::uint64_t* words() { return cells_.data(); }
  const std::uint64_t* words() const { return cells_.data(); }
  std::uint64_t word_count() const { return cells_.size(); }

 private:
  // K > 0: k fixed at compile time, so the loop unrolls into k independent loads and no
  // branch (in the paper's set-up 65.7 Mq/s; stopping when no segment is left, 43.7 with an
  // exit test per probe and 49-52 with one after the fourth: which queries stop early is a
  // coin toss, and a mispredicted exit costs more than the loads it saves). K = 0: k > 16
  // at run time, where stopping early saves many loads.
  // The multiply scheme's probes are independent of each other (no running sum), so their
  // multiplies overlap.
  template <std::uint32_t K, ProbeScheme Scheme>
  bool query(KeyHash h) const {
    const std::uint32_t k = K > 0 ? K : k_;
    std::uint64_t alive = cell_mask_, x = h.lo, d = h.hi;
    for (std::uint32_t i = 0; i < k; ++i) {
      alive &= cells_.cell(reduce(Scheme == ProbeScheme::multiply ? multiply_probe_hash(h, i) : x, bits_));
      if (K == 0 && alive == 0) return false;
      if constexpr (Scheme == ProbeScheme::double_hashing) {
        x += d;
        d += i + 1;
      }
    }
    return alive != 0;
  }
  using Query = bool (SlicedSegments::*)(KeyHash) const;
  template <ProbeScheme Scheme, std::size_t... K>
  static constexpr std::array<Query, sizeof...(K)> queries(std::index_sequence<K...>) {
    return {&SlicedSegments::query<static_cast<std::uint32_t>(K), Scheme>...};
  }
  static Query query_for(std::uint32_t k, ProbeScheme scheme) {
    using Seq = std::make_index_sequence<kGebfMaxStaticK + 1>;
    static constexpr std::array<Query, kGebfMaxStaticK + 1> multiply = queries<ProbeScheme::multiply>(Seq{});
    static constexpr std::array<Query, kGebfMaxStaticK + 1> double_hashing =
        queries<ProbeScheme::double_hashing>(Seq{});
    return (scheme == ProbeScheme::multiply ? multiply : double_hashing)[k <= kGebfMaxStaticK ? k : 0];
  }

  SlicedCells cells_;
  std::uint64_t cell_mask_;  // the low r+1 bits: one per segment
  std::uint64_t bits_;       // positions per segment
  std::uint32_t k_;
  ProbeScheme scheme_;
  Query query_;
};

template <bool Blocked>
class SeparateSegments {
 public:
  struct Positions {
    Probe at[kGebfMaxK];
  };

  SeparateSegments(std::uint32_t segments, std::uint64_t segment_bits, std::uint32_t k, ProbeScheme scheme)
      : segments_(segments),
        segment_words_(segment_bits / 64),
        bits_(segment_bits),
        k_(k),
        scheme_(scheme),
        words_(segments * segment_words_, 0) {}

  bool may_contain(KeyHash h) const {
    Positions p;
    positions(h, p);
    return holds(p);
  }
  void positions(KeyHash h, Positions& p) const { gebf_probes(h, k_, bits_, Blocked, scheme_, p.at); }
  // Level by level (detail/level_scan.hpp): probe 0 of every segment, then probe 1 of those
  // that hit it, and so on, with no data-dependent branch per probe.
  bool holds(const Positions& p) const {
    return any_candidate_all_hit(
        segments_, [this](std::size_t) { return k_; },
        [&](std::size_t s, std::uint32_t i) { return (words_[s * segment_words_ + p.at[i].word] & p.at[i].mask) != 0; },
        [&](std::size_t s, std::uint32_t i) { detail::prefetch(&words_[s * segment_words_ + p.at[i].word]); });
  }
  // Probe 0 of every segment.
  void prefetch(KeyHash h) const {
    Probe first;
    gebf_probes(h, 1, bits_, Blocked, scheme_, &first);
    for (std::uint32_t s = 0; s < segments_; ++s) detail::prefetch(&words_[s * segment_words_ + first.word]);
  }
  void set(const Positions& p, std::uint32_t segment) { set_all(words_.data() + segment * segment_words_, p.at, k_); }
  void clear(std::uint32_t segment) {
    auto first = words_.begin() + static_cast<std::ptrdiff_t>(segment * segment_words_);
    std::fill(first, first + static_cast<std::ptrdiff_t>(segment_words_), 0);
  }

  std::uint64_t* words() { return words_.data(); }
  const std::uint64_t* words() const { return words_.data(); }
  std::uint64_t word_count() const { return words_.size(); }

 private:
  std::uint32_t segments_;
  std::uint64_t segment_words_;
  std::uint64_t bits_;
  std::uint32_t k_;
  ProbeScheme scheme_;
  std::vector<std::uint64_t> words_;  // segment i is words [i·s/64, (i+1)·s/64)
};

}  // namespace tlbf::detail
