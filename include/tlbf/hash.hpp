// SPDX-License-Identifier: MIT
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

// xxHash inline, so the library needs no link flags; the macro is withdrawn afterwards so
// that a user's own later #include <xxhash.h> gets the ordinary declarations (xxhash.h
// supports both in one unit).
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#define TLBF_DEFINED_XXH_INLINE_ALL
#endif
#include <xxhash.h>
#ifdef TLBF_DEFINED_XXH_INLINE_ALL
#undef XXH_INLINE_ALL
#undef TLBF_DEFINED_XXH_INLINE_ALL
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tlbf/types.hpp"

namespace tlbf {

inline KeyHash hash_key(const void* data, std::size_t size, std::uint64_t seed = 0) {
  XXH128_hash_t h = XXH3_128bits_withSeed(data, size, seed);
  return KeyHash{h.low64, h.high64};
}

inline KeyHash hash_key(std::string_view key, std::uint64_t seed = 0) { return hash_key(key.data(), key.size(), seed); }

// The i-th hash of a key by enhanced double hashing. Unsigned wrap-around is intended.
inline std::uint64_t probe_hash(KeyHash h, std::uint64_t i) { return h.lo + i * h.hi + (i * i * i - i) / 6; }

namespace detail {

// (i^3 - i) / 6 for every probe index a filter may use (k <= 1024; the largest value,
// 1023^3 / 6 < 2^28, is exact in 64 bits), so x_i = h1 + i h2 + kCubic[i].
inline constexpr std::size_t kProbeTable = 1024;
struct CubicTable {
  alignas(16) std::uint64_t v[kProbeTable];
};
inline constexpr CubicTable make_cubic_table() {
  CubicTable t{};
  for (std::uint64_t i = 0; i < kProbeTable; ++i) t.v[i] = (i * i * i - i) / 6;
  return t;
}
inline constexpr CubicTable kCubic = make_cubic_table();

}  // namespace detail

// probe_hash(h, i) for i = 0..k-1 (k <= 1024) into out[0..k-1]: h1 + i h2 runs as a sum
// and the cubic term comes from a table (the same values modulo 2^64 as the closed form).
// Both versions are built where SSE2 exists, so tests compare them; probe_hashes() is the
// fastest one the target has.
inline void probe_hashes_scalar(KeyHash h, std::uint32_t k, std::uint64_t* out) {
  for (std::uint32_t i = 0; i < k; ++i) out[i] = h.lo + i * h.hi + detail::kCubic.v[i];
}

#if defined(__SSE2__)
inline constexpr bool kHaveSse2 = true;
// Two hashes per SSE2 addition.
inline void probe_hashes_sse2(KeyHash h, std::uint32_t k, std::uint64_t* out) {
  std::uint32_t i = 0;
  __m128i x = _mm_set_epi64x(static_cast<long long>(h.lo + h.hi), static_cast<long long>(h.lo));
  const __m128i step = _mm_set1_epi64x(static_cast<long long>(2 * h.hi));
  for (; i + 2 <= k; i += 2) {
    const __m128i c = _mm_load_si128(reinterpret_cast<const __m128i*>(detail::kCubic.v + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_add_epi64(x, c));
    x = _mm_add_epi64(x, step);
  }
  if (i < k) out[i] = h.lo + i * h.hi + detail::kCubic.v[i];
}
inline void probe_hashes(KeyHash h, std::uint32_t k, std::uint64_t* out) { probe_hashes_sse2(h, k, out); }
#else
inline constexpr bool kHaveSse2 = false;
inline void probe_hashes(KeyHash h, std::uint32_t k, std::uint64_t* out) { probe_hashes_scalar(h, k, out); }
#endif

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ using uint128_t = unsigned __int128;

// Maps x uniformly into [0, n) without division.
inline std::uint64_t reduce(std::uint64_t x, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<uint128_t>(x) * n) >> 64);
}

}  // namespace tlbf
