// Probe positions of one GEBF segment: a plain Bloom filter over `bits` bits, or the blocked
// layout where the key's first hash picks one 512-bit block and all k probes stay inside it
// (Alpay & Sarioglu 2026, §5: one cache line per segment per query).
//
// Positions depend only on the key, k and the segment size, never on the contents, so the
// count-window filter computes them once per query and tests every segment with them. A
// probe is (word index, bit mask); the word index is relative to the segment's first word.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/hash.hpp"

namespace tlbf::detail {

struct Probe {
  std::uint64_t word;
  std::uint64_t mask;
};

// SplitMix64's finaliser: a bijection whose output bits all depend on every input bit.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Fills probes[0..k) for a key. probes must hold k entries (k <= kGebfMaxK).
// Blocked: the block comes from the high bits of h.hi and the in-block positions from 9-bit
// chunks of mix64(h.lo + c), so they are independent. (Deriving both from the same double
// hash made keys that share a block share most of their in-block positions too, and the
// measured rate came out 1.5-6x the formula's.)
inline void gebf_probes(KeyHash h, std::uint32_t k, std::uint64_t bits, bool blocked, Probe* probes) {
  if (blocked) {
    std::uint64_t base = reduce(h.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    std::uint64_t z = 0;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (i % 7 == 0) z = mix64(h.lo + (i / 7 + 1) * 0x9E3779B97F4A7C15ULL);
      std::uint64_t pos = z & (kGebfBlockBits - 1);
      z >>= 9;
      probes[i] = Probe{base + (pos >> 6), std::uint64_t{1} << (pos & 63)};
    }
  } else {
    for (std::uint32_t i = 0; i < k; ++i) {
      std::uint64_t pos = reduce(probe_hash(h, i), bits);
      probes[i] = Probe{pos >> 6, std::uint64_t{1} << (pos & 63)};
    }
  }
}

// Tests a key against one segment, computing each probe only when the previous one hit, so
// a miss (most segments, for most queries) costs one or two probes instead of k. Same
// positions as gebf_probes().
inline bool contains_key(const std::uint64_t* words, KeyHash h, std::uint32_t k, std::uint64_t bits, bool blocked) {
  if (blocked) {
    const std::uint64_t* block = words + reduce(h.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    std::uint64_t z = 0;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (i % 7 == 0) z = mix64(h.lo + (i / 7 + 1) * 0x9E3779B97F4A7C15ULL);
      std::uint64_t pos = z & (kGebfBlockBits - 1);
      z >>= 9;
      if ((block[pos >> 6] & (std::uint64_t{1} << (pos & 63))) == 0) return false;
    }
    return true;
  }
  for (std::uint32_t i = 0; i < k; ++i) {
    std::uint64_t pos = reduce(probe_hash(h, i), bits);
    if ((words[pos >> 6] & (std::uint64_t{1} << (pos & 63))) == 0) return false;
  }
  return true;
}

inline bool all_set(const std::uint64_t* words, const Probe* probes, std::uint32_t k) {
  for (std::uint32_t i = 0; i < k; ++i)
    if ((words[probes[i].word] & probes[i].mask) == 0) return false;
  return true;
}

inline void set_all(std::uint64_t* words, const Probe* probes, std::uint32_t k) {
  for (std::uint32_t i = 0; i < k; ++i) words[probes[i].word] |= probes[i].mask;
}

}  // namespace tlbf::detail
