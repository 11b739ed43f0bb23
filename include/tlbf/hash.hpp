// Key hashing and probe positions.
//
// A key is hashed once, with XXH3-128, into two 64-bit halves (h1, h2). The i-th probe uses
// enhanced double hashing, x_i = h1 + i*h2 + (i^3 - i)/6 (Dillinger & Manolios 2004), which
// avoids the short cycles of plain double hashing. A probe is mapped into [0, m) by
// multiply-shift (Lemire's "fastrange"): the high 64 bits of x*m, which needs no division
// and no power-of-two size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "tlbf/types.hpp"

namespace tlbf {

inline KeyHash hash_key(const void* data, std::size_t size, std::uint64_t seed = 0) {
  XXH128_hash_t h = XXH3_128bits_withSeed(data, size, seed);
  return KeyHash{h.low64, h.high64};
}

inline KeyHash hash_key(std::string_view key, std::uint64_t seed = 0) {
  return hash_key(key.data(), key.size(), seed);
}

// The i-th hash of a key by enhanced double hashing. Unsigned wrap-around is intended.
inline std::uint64_t probe_hash(KeyHash h, std::uint64_t i) {
  return h.lo + i * h.hi + (i * i * i - i) / 6;
}

// probe_hash(h, i) for i = 0..k-1 into out[0..k-1], by forward differences: x_{i+1} - x_i
// = h2 + i(i+1)/2, and that difference grows by i + 1, so each hash costs three additions
// (the same values modulo 2^64 as the closed form).
inline void probe_hashes(KeyHash h, std::uint32_t k, std::uint64_t* out) {
  std::uint64_t x = h.lo, d = h.hi;
  for (std::uint32_t i = 0; i < k; ++i) {
    out[i] = x;
    x += d;
    d += i + 1;
  }
}

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ using uint128_t = unsigned __int128;

// Maps x uniformly into [0, n) without division.
inline std::uint64_t reduce(std::uint64_t x, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<uint128_t>(x) * n) >> 64);
}

}  // namespace tlbf
