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

// Fills probes[0..k) for a key. probes must hold k entries (k <= kGebfMaxK).
inline void gebf_probes(KeyHash h, std::uint32_t k, std::uint64_t bits, bool blocked, Probe* probes) {
  if (blocked) {
    std::uint64_t base = reduce(h.lo, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    for (std::uint32_t i = 0; i < k; ++i) {
      std::uint64_t pos = probe_hash(h, i + 1) >> 55;  // top 9 bits: a bit of the block
      probes[i] = Probe{base + (pos >> 6), std::uint64_t{1} << (pos & 63)};
    }
  } else {
    for (std::uint32_t i = 0; i < k; ++i) {
      std::uint64_t pos = reduce(probe_hash(h, i), bits);
      probes[i] = Probe{pos >> 6, std::uint64_t{1} << (pos & 63)};
    }
  }
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
