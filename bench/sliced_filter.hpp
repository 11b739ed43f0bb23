// A bit-sliced age-partitioned filter over a count window: a prototype that measures the
// layout of option b for issue 15 (docs/performance.md) against the library's
// AgePartitionedFilter (include/tlbf/apbf.hpp). It is not a filter of the library, keeps no
// state format, and has no memory cap; it exists so that the benchmarks can time it.
//
// Layout. All slices have the same m bits. Cell x (one 64-bit word) holds bit x of every
// slice: slot s of the ring of 64 slice slots is bit s of each cell. The slice at position
// pos (0 = the newest) is slot (head + pos) mod 64, so k + l <= 64 slices fit; with fewer,
// the slots past position k + l - 1 stay empty.
//
// Query. The probes are the library's (detail::run_probes(), position reduce(x_p, m)), and a
// generation-keyed run j is the slices at positions j..j+k-1 probed with hashes 0..k-1
// (detail/age_partitioned.hpp). Probe p lands on the same cell c_p in every slice, so a key
// costs k independent loads: bit s of AND_p rotr(c_p, p) is 1 iff the run that starts at
// slot s holds all the key's bits, and ANDed with the accepted runs (as slots) it answers.
// No branch depends on a probe.
//
// Insert. The same k cells get bit (head + p) mod 64. A shift retires the slice at position
// k + l - 1: its bit is cleared in every cell, a pass over the whole table per generation
// (m / g = k / ln 2 word updates per insert, sequential).
//
// Invariant: with the library's k, l, slice bits m and inserts per generation g, and the same
// window rule (run j accepted iff its last insert number L satisfies L != 0 and L +
// window_count > inserts so far), every answer equals the library APBF's; the accepted runs
// are kept as a mask, updated on insert, which is when the rule's inputs change.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "tlbf/apbf.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

namespace tlbf_bench {

// The library's APBF with layout (k, l) and a count window: the peer a prototype is built
// like(), so that only the layout differs.
inline std::unique_ptr<tlbf::AgePartitionedFilter> make_apbf(std::uint32_t k, std::uint32_t l, std::uint64_t window) {
  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::apbf;
  cfg.window_count = window;
  cfg.k = k;
  cfg.l = l;
  return std::make_unique<tlbf::AgePartitionedFilter>(cfg);
}

class BitSlicedFilter {
 public:
  static constexpr std::uint32_t kRing = 64;  // slice slots in one cell

  struct Params {
    std::uint32_t k = 0, l = 0;
    std::uint64_t window_count = 0;
    std::uint64_t cells = 0;       // m: bits per slice
    std::uint64_t generation = 0;  // g: inserts per generation
  };
  // The parameters of a library APBF built with `window_count`, so the two decide alike.
  static Params like(const tlbf::AgePartitionedFilter& f, std::uint64_t window_count) {
    return Params{f.k(), f.l(), window_count, f.slice(0).bits, f.generation()};
  }

  // Where a key's k probes land: computed once, then used by prefetch() and the verbs, so a
  // caller can locate a batch of keys, prefetch their cells, and decide them in order.
  struct Probes {
    std::uint64_t cell[kRing];
  };

  explicit BitSlicedFilter(const Params& p) : p_(p) {
    if (p.k == 0 || p.l == 0 || p.k + p.l > kRing) throw std::invalid_argument("bit-sliced filter: needs 1 <= k, 1 <= l, k + l <= 64");
    if (p.window_count == 0 || p.cells == 0 || p.generation == 0)
      throw std::invalid_argument("bit-sliced filter: window, slice size and generation must be > 0");
    cells_.assign(p.cells, 0);
  }

  void locate(tlbf::KeyHash h, Probes& out) const {
    std::uint64_t x[kRing];
    tlbf::detail::run_probes(h, p_.k, x);
    for (std::uint32_t i = 0; i < p_.k; ++i) out.cell[i] = tlbf::reduce(x[i], p_.cells);
  }
  void prefetch(const Probes& at) const {
    for (std::uint32_t i = 0; i < p_.k; ++i) __builtin_prefetch(&cells_[at.cell[i]], 1);
  }

  bool may_contain(const Probes& at) const {
    std::uint64_t all = ~std::uint64_t{0};
    for (std::uint32_t i = 0; i < p_.k; ++i) all &= rotr(cells_[at.cell[i]], i);
    return (all & accepted_) != 0;
  }
  void insert(const Probes& at) {
    const bool shifted = gen_count_ >= p_.generation;
    if (shifted) shift();
    for (std::uint32_t i = 0; i < p_.k; ++i) cells_[at.cell[i]] |= std::uint64_t{1} << ((head_ + i) % kRing);
    ++gen_count_;
    ++inserted_;
    last_[head_] = inserted_;
    // The runs that were accepted moved up one position with a shift; run 0 is accepted now.
    runs_ = shifted ? std::min(runs_ + 1, p_.l + 1) : std::max(runs_, 1u);
    while (runs_ > 0 && !accepted(last_[slot(runs_ - 1)])) --runs_;
    accepted_ = rotl(runs_ == kRing ? ~std::uint64_t{0} : (std::uint64_t{1} << runs_) - 1, head_);
  }
  bool insert_if_absent(const Probes& at) {
    if (may_contain(at)) return false;
    insert(at);
    return true;
  }
  bool insert_if_absent(tlbf::KeyHash h) {
    Probes at;
    locate(h, at);
    return insert_if_absent(at);
  }

  std::uint64_t bits() const { return cells_.size() * 64; }

 private:
  static std::uint64_t rotr(std::uint64_t x, std::uint32_t r) { return (x >> r) | (x << ((kRing - r) % kRing)); }
  static std::uint64_t rotl(std::uint64_t x, std::uint32_t r) { return (x << r) | (x >> ((kRing - r) % kRing)); }
  std::uint32_t slot(std::uint32_t pos) const { return (head_ + pos) % kRing; }
  bool accepted(std::uint64_t last) const { return last != 0 && last + p_.window_count > inserted_; }

  // The slice at position k + l - 1 leaves; its slot becomes the newest (k + l = 64) or an
  // empty one (fewer slices), and the slot before the head, empty either way, becomes it.
  void shift() {
    const std::uint32_t leaving = slot(p_.k + p_.l - 1);
    const std::uint64_t keep = ~(std::uint64_t{1} << leaving);
    for (std::uint64_t& c : cells_) c &= keep;
    last_[leaving] = 0;
    head_ = (head_ + kRing - 1) % kRing;
    gen_count_ = 0;
  }

  Params p_;
  std::vector<std::uint64_t> cells_;
  std::uint64_t last_[kRing] = {};  // per slot: last insert number of its generation, 0 = none
  std::uint32_t head_ = 0;
  std::uint32_t runs_ = 0;          // accepted runs, positions 0..runs_-1
  std::uint64_t accepted_ = 0;      // the same runs as slots
  std::uint64_t gen_count_ = 0;
  std::uint64_t inserted_ = 0;
};

}  // namespace tlbf_bench
