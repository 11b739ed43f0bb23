// SPDX-License-Identifier: MIT
// The search behind the filters' multi-run queries: among n candidates (the accepted runs
// of an age-partitioned filter, the consulted blocks of a time-window GEBF), is there one
// whose probes 0..len-1 all hit?
//
// Why level by level. Probed one candidate at a time, each probe decides whether the next
// one is made: with bit arrays about half full that is a 50/50 branch per probe, and a new
// key pays a misprediction for nearly every candidate (~40 at the TLBF's default l = 42),
// each loaded word waiting for the branch before it. Here probe 0 of every candidate is
// evaluated into a bit mask of survivors without a branch, then probe 1 of each survivor
// (iterating the set bits), and so on until the mask is empty or a survivor has hit all its
// probes. The loads of one level are independent, so the CPU overlaps their cache misses,
// and the only data-dependent branches left are the ends of the levels, about log2(n) of
// them. The probes made are those of the one-at-a-time search, give or take the ones after
// the answer is known, and the answer is the same: whether a candidate hits all its probes
// does not depend on the order they are made in.
//
// Three forms, one answer: any_candidate_all_hit(), candidates of any length with a hint
// (the GEBF's blocks, the APBF's runs); any_run_all_hit(), runs of one length and no hint,
// for bit arrays in cache, where computing a hint's address costs as much as the test it
// fetches for; any_run_all_hit_prefetching(), runs of one length beyond the cache, each
// probe's address computed once, for the hint and the test.
//
// Invariant: candidates are taken 64 at a time (one mask word), so any n works.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tlbf/detail/prefetch.hpp"

namespace tlbf::detail {

// True iff some candidate c < n has hit(c, p) for every p < len(c). len(c) must be >= 1;
// hit() must have no side effects (it may be called in any order, and not at all for
// probes after a candidate has missed or after the answer is known).
//
// prefetch(c, p + 1) is called for every candidate whose probe p is evaluated (p + 1 <
// len(c)), before its outcome is known: a hint that fetches the next level's words during
// this level. Without it, a filter beyond the cache pays one full memory latency per level
// (the next level's addresses are known only once this level's loads are back); with it,
// about half of the prefetched words are used (those of the candidates that hit).
template <class Len, class Hit, class Prefetch>
inline bool any_candidate_all_hit(std::size_t n, Len&& len, Hit&& hit, Prefetch&& prefetch) {
  for (std::size_t base = 0; base < n; base += 64) {
    const std::size_t count = std::min<std::size_t>(64, n - base);
    std::uint64_t alive = 0;
    for (std::size_t c = 0; c < count; ++c) {
      if (1 < len(base + c)) prefetch(base + c, 1u);
      alive |= static_cast<std::uint64_t>(hit(base + c, 0u)) << c;
    }
    for (std::uint32_t p = 1; alive != 0; ++p) {
      std::uint64_t next = alive;
      for (std::uint64_t rest = alive; rest != 0; rest &= rest - 1) {
        const auto c = static_cast<std::size_t>(__builtin_ctzll(rest));
        if (p >= len(base + c)) return true;
        if (p + 1 < len(base + c)) prefetch(base + c, p + 1);
        next &= ~(static_cast<std::uint64_t>(!hit(base + c, p)) << c);
      }
      alive = next;
    }
  }
  return false;
}

// any_candidate_all_hit() for n candidates of `len` probes each (len >= 1: the runs of an
// age-partitioned filter), without the hint, for callers whose bit arrays sit in cache,
// where a hint's address costs as many instructions as the probe it fetches for. Fewer
// instructions per probe: the end of the search is checked once per level, not per
// survivor. Level 0 builds a mask of its survivors (one instruction per candidate); level 1
// walks the mask and lists its own survivors, and from level 2 on the list is rewritten in
// place, each entry kept by adding its hit to the count: a load, a store and an add beside
// the test, where walking a mask took the lowest set bit, its index and a masked clear.
// Same probes as any_candidate_all_hit() tests, in the same order, so the same answer.
template <class Hit>
inline bool any_run_all_hit(std::size_t n, std::uint32_t len, Hit&& hit) {
  std::uint8_t live[64];  // the survivors of this mask word, by index in it
  for (std::size_t base = 0; base < n; base += 64) {
    const std::size_t count = std::min<std::size_t>(64, n - base);
    std::uint64_t alive = 0;
    for (std::size_t c = count; c-- > 0;) alive = 2 * alive + static_cast<std::uint64_t>(hit(base + c, 0u));
    if (alive == 0) continue;
    if (len == 1) return true;  // a survivor of the last level has hit all its probes
    std::size_t m = 0;
    for (std::uint64_t rest = alive; rest != 0; rest &= rest - 1) {
      const auto c = static_cast<std::uint8_t>(__builtin_ctzll(rest));
      live[m] = c;
      m += static_cast<std::size_t>(hit(base + c, 1u));
    }
    for (std::uint32_t p = 2; m != 0; ++p) {
      if (p == len) return true;
      std::size_t kept = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const std::uint8_t c = live[i];
        live[kept] = c;
        kept += static_cast<std::size_t>(hit(base + c, p));
      }
      m = kept;
    }
  }
  return false;
}

// Where a probe reads: a word of a bit array and a bit of it (0..63).
struct ProbeSite {
  const std::uint64_t* word;
  std::uint64_t bit;
  bool hit() const { return (*word >> bit) & 1u; }
};

// any_run_all_hit() with the hint, for bit arrays beyond the cache: each probe's site is
// found once, by locate(c, p) -> ProbeSite. A candidate's next site is located and
// prefetched when its current probe is tested, kept in the candidate's slot of this mask
// word and read from there one level later. Same probes tested as any_run_all_hit(), so the
// same answer; the sites located beyond them are those any_candidate_all_hit() prefetches.
template <class Locate>
inline bool any_run_all_hit_prefetching(std::size_t n, std::uint32_t len, Locate&& locate) {
  if (len == 1) return any_run_all_hit(n, len, [&](std::size_t c, std::uint32_t p) { return locate(c, p).hit(); });
  ProbeSite next[64];
  for (std::size_t base = 0; base < n; base += 64) {
    const std::size_t count = std::min<std::size_t>(64, n - base);
    std::uint64_t alive = 0;
    for (std::size_t c = count; c-- > 0;) {
      const ProbeSite here = locate(base + c, 0u);
      next[c] = locate(base + c, 1u);
      detail::prefetch(next[c].word);
      alive = 2 * alive + static_cast<std::uint64_t>(here.hit());
    }
    for (std::uint32_t p = 1; alive != 0; ++p) {
      if (p == len) return true;
      std::uint64_t survivors = alive;
      for (std::uint64_t rest = alive; rest != 0; rest &= rest - 1) {
        const auto c = static_cast<std::size_t>(__builtin_ctzll(rest));
        const ProbeSite here = next[c];
        if (p + 1 < len) {
          next[c] = locate(base + c, p + 1);
          detail::prefetch(next[c].word);
        }
        const std::uint64_t miss = static_cast<std::uint64_t>(here.hit()) - 1;
        survivors ^= rest & (0 - rest) & miss;
      }
      alive = survivors;
    }
  }
  return false;
}

}  // namespace tlbf::detail
