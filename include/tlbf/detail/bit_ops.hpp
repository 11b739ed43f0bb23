// SPDX-License-Identifier: MIT
// Population count, select and bit extraction on 64-bit words, in kernels of equal results: a
// portable one (broadword, for any x86-64 or other target), one by POPCNT and BMI2 (PDEP for
// select, PEXT for extraction), and one that adds AVX-512 (BW and VBMI2) for the tagged
// filter's 16-bit lanes (quotient_block.hpp). A kernel runs only inside a function compiled
// for its instructions (TLBF_BIT_OPS_TARGET, TLBF_AVX512_TARGET) and only on a processor where
// best_kernel() reaches it.
//
// How a caller uses them: a hot path written once as a template on `Kernel kK`, marked
// always_inline, instantiated once a kernel, from a plain function and from functions marked
// with the kernel's target; the processor decides once which one runs. Inlined into a marked
// function, __builtin_popcountll becomes POPCNT, and the marked helpers (select64_pdep(), the
// AVX-512 lane moves) are inlined there too.
#pragma once

#include <array>
#include <cstdint>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define TLBF_BIT_OPS_TARGET [[gnu::target("popcnt,bmi,bmi2")]]
#define TLBF_AVX512_TARGET [[gnu::target("popcnt,bmi,bmi2,avx512f,avx512bw,avx512vbmi2")]]
#define TLBF_HAS_AVX512_KERNEL 1
#else
#define TLBF_BIT_OPS_TARGET
#define TLBF_AVX512_TARGET
#define TLBF_HAS_AVX512_KERNEL 0
#endif

namespace tlbf::detail {

// The kernels, each with the instructions of the ones before it.
enum class Kernel : std::uint8_t { portable, bit_ops, avx512 };

// The best kernel this processor runs well. bit_ops: POPCNT and BMI1/2 with a fast PDEP, so not
// AMD before Zen 3 (family 0x19), where PDEP is microcoded at hundreds of cycles. avx512: also
// AVX-512 F, BW and VBMI2 with the registers enabled by the system. Always portable off x86-64.
inline Kernel best_kernel() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const Kernel best = [] {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("popcnt") || !__builtin_cpu_supports("bmi") || !__builtin_cpu_supports("bmi2"))
      return Kernel::portable;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return Kernel::portable;
    const bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;  // "AuthenticAMD"
    if (!__get_cpuid(1, &a, &b, &c, &d)) return Kernel::portable;
    const unsigned family = ((a >> 8) & 0xF) == 0xF ? 0xF + ((a >> 20) & 0xFF) : (a >> 8) & 0xF;
    if (amd && family < 0x19) return Kernel::portable;
    // (the runtime's checks include the system's XCR0 bits for the AVX-512 registers)
    const bool wide = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vbmi2");
    return wide ? Kernel::avx512 : Kernel::bit_ops;
  }();
  return best;
#else
  return Kernel::portable;
#endif
}

template <Kernel kK = Kernel::portable>
[[gnu::always_inline]] inline std::uint32_t popcount64(std::uint64_t x) {
#if !defined(__POPCNT__)
  if constexpr (kK == Kernel::portable) {
    x -= (x >> 1) & 0x5555555555555555;
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F;
    return static_cast<std::uint32_t>((x * 0x0101010101010101) >> 56);
  }
#endif
  return static_cast<std::uint32_t>(__builtin_popcountll(x));
}

// Where the k-th set bit of a byte is, for every byte and k < 8 (8 when it has fewer).
inline constexpr std::array<std::uint8_t, 2048> kSelectInByte = [] {
  std::array<std::uint8_t, 2048> t{};
  for (std::uint32_t k = 0; k < 8; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t seen = 0, at = 8;
      for (std::uint32_t i = 0; i < 8; ++i)
        if ((b >> i & 1) && seen++ == k) {
          at = i;
          break;
        }
      t[k * 256 + b] = static_cast<std::uint8_t>(at);
    }
  }
  return t;
}();

#if defined(__x86_64__) && defined(__GNUC__)
// select64() by PDEP: the k-th set bit of x is where bit k lands when deposited into x.
TLBF_BIT_OPS_TARGET inline std::uint32_t select64_pdep(std::uint64_t x, std::uint32_t k) {
  return static_cast<std::uint32_t>(__builtin_ctzll(__builtin_ia32_pdep_di(std::uint64_t{1} << k, x)));
}
// x without the bits at the set bits of `drop`, the bits above moving down over them.
TLBF_BIT_OPS_TARGET inline std::uint64_t drop_bits_pext(std::uint64_t x, std::uint64_t drop) {
  return __builtin_ia32_pext_di(x, ~drop);
}
// The positions of the set bits of x whose ranks (from 0) are the set bits of `ranks`.
TLBF_BIT_OPS_TARGET inline std::uint64_t select_bits_pdep(std::uint64_t x, std::uint64_t ranks) {
  return __builtin_ia32_pdep_di(ranks, x);
}
#endif

// The position of the k-th (from 0) set bit of x, which has more than k (broadword select:
// Vigna, "Broadword implementation of rank/select queries", 2008).
template <Kernel kK = Kernel::portable>
[[gnu::always_inline]] inline std::uint32_t select64(std::uint64_t x, std::uint32_t k) {
#if defined(__BMI2__)
  return select64_pdep(x, k);
#else
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (kK != Kernel::portable) return select64_pdep(x, k);
#endif
  constexpr std::uint64_t kOnes8 = 0x0101010101010101, kHigh8 = 0x8080808080808080;
  std::uint64_t s = x - ((x >> 1) & 0x5555555555555555);
  s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333);
  s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0F) * kOnes8;  // byte j: set bits in bytes 0..j
  // Byte j's top bit: its running count passed k (counts are below 128, so no borrow).
  const std::uint64_t past = ((s | kHigh8) - kOnes8 * (k + 1)) & kHigh8;
  const auto place = static_cast<std::uint32_t>(__builtin_ctzll(past)) - 7;
  const auto before = static_cast<std::uint32_t>(((s << 8) >> place) & 0xFF);
  return place + kSelectInByte[(k - before) * 256 + ((x >> place) & 0xFF)];
#endif
}

}  // namespace tlbf::detail
