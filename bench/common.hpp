// Pieces both benchmark programs use: the timer, the median, and the key hashing they time.
//
// The timer reads the calling thread's CPU time, not the wall clock: the benchmark machine
// is shared, and a filter's cost per operation should not depend on how many other jobs
// ran meanwhile (wall time there was up to four times the CPU time). Caches are still
// shared, so a busy machine can still slow the large, memory-bound cases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <vector>

#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

namespace tlbf_bench {

inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Keys are 64-bit integers hashed like the program hashes key bytes (XXH3-128), inside the
// timed loops, so every figure includes the hashing a real caller pays.
inline tlbf::KeyHash key_hash(std::uint64_t key) { return tlbf::hash_key(&key, sizeof key); }

// Keys of the fresh (never inserted) space are disjoint from inserted ones by the top bit.
inline constexpr std::uint64_t kFreshBase = std::uint64_t{1} << 63;

// Results flow into this so that no query or insert loop can be optimised away.
inline volatile std::uint64_t sink = 0;

}  // namespace tlbf_bench
