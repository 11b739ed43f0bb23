// SPDX-License-Identifier: MIT
// A read prefetch the optimizer keeps: prefetch(p) asks the processor to bring the cache line
// of p close to the core and does nothing else (p need not be dereferenceable).
//
// Why not __builtin_prefetch alone: GCC does not count it as a side effect when it infers a
// function's attributes, so a function whose only effect is prefetching is found "const" or
// "pure" and every call to it whose result is unused is deleted. The filters' prefetch()
// verbs and the TLBF's batch prefetch were compiled away that way (GCC 12, -O2). A volatile
// asm statement is a side effect, so the hint stays where it is written; other targets keep
// the builtin.
#pragma once

#include <cstdint>

namespace tlbf::detail {

// Bit arrays of more bits than this are taken to be beyond the L2 cache: the filters prefetch
// a key's words ahead of its decision only past it. In cache a hint costs about as many
// instructions as the read it fetches for (the APBF at 52,000 keys: +15 % CPU with hints).
inline constexpr std::uint64_t kPrefetchFromBits = std::uint64_t{1} << 23;  // 1 MiB

[[gnu::always_inline]] inline void prefetch(const void* p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#elif defined(__GNUC__) && defined(__aarch64__)
  asm volatile("prfm pldl1keep, %0" : : "Q"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace tlbf::detail
