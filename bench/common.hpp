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
#include <random>
#include <vector>

#include "tlbf/filter.hpp"
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

// The GEBF paper's queries after keys 0 .. inserts-1 went in with a window of w: the last w
// keys (live), w never-inserted keys (fresh) and the first w keys (expired long ago),
// shuffled so that the branch predictor cannot learn the answer pattern.
inline std::vector<std::uint64_t> paper_queries(std::uint64_t inserts, std::uint64_t w, std::mt19937_64& rng) {
  std::vector<std::uint64_t> q;
  for (std::uint64_t i = inserts - w; i < inserts; ++i) q.push_back(i);
  for (std::uint64_t i = 0; i < w; ++i) q.push_back(kFreshBase + i);
  for (std::uint64_t i = 0; i < w; ++i) q.push_back(i);
  std::shuffle(q.begin(), q.end(), rng);
  return q;
}

// Wrong answers on those three groups: fresh keys reported present (false positives),
// expired keys reported present (stale), live keys reported absent (must be 0).
struct PaperErrors {
  std::uint64_t fp = 0, stale = 0, fn = 0;
};
inline PaperErrors paper_errors(const tlbf::WindowFilter& f, std::uint64_t inserts, std::uint64_t w, tlbf::Time now) {
  PaperErrors e;
  for (std::uint64_t i = 0; i < w; ++i) {
    e.fn += !f.may_contain(key_hash(inserts - w + i), now);
    e.fp += f.may_contain(key_hash(kFreshBase + i), now);
    e.stale += f.may_contain(key_hash(i), now);
  }
  return e;
}

// Results flow into this so that no query or insert loop can be optimised away.
inline volatile std::uint64_t sink = 0;

// One round of the paper's set-up on a fresh filter: keys 0 .. inserts-1 go in (key i at
// time_of(i)), then `passes` passes over the queries at the last insert's time.
struct PaperRound {
  double insert_mops = 0, query_mops = 0;
  PaperErrors errors;
  std::uint64_t bits = 0;
};
template <class TimeOf>
PaperRound paper_round(tlbf::WindowFilter& f, std::uint64_t inserts, std::uint64_t w,
                       const std::vector<std::uint64_t>& queries, int passes, TimeOf&& time_of) {
  PaperRound r;
  double t0 = cpu_seconds();
  for (std::uint64_t i = 0; i < inserts; ++i) f.insert(key_hash(i), time_of(i));
  r.insert_mops = static_cast<double>(inserts) / (cpu_seconds() - t0) / 1e6;
  const tlbf::Time now = time_of(inserts - 1);
  std::uint64_t positives = 0;
  t0 = cpu_seconds();
  for (int pass = 0; pass < passes; ++pass)
    for (std::uint64_t q : queries) positives += f.may_contain(key_hash(q), now);
  r.query_mops = static_cast<double>(queries.size() * static_cast<std::uint64_t>(passes)) / (cpu_seconds() - t0) / 1e6;
  sink = sink + positives;
  r.errors = paper_errors(f, inserts, w, now);
  r.bits = f.stats(now).bits_allocated;
  return r;
}

// The steady stream of the scaling benchmarks: a new key every kTick from kOrigin, and among
// the decisions kRepeatShare repeats of keys still inside a window of `live` new keys.
inline constexpr double kRepeatShare = 0.3;
inline constexpr tlbf::Duration kTick = tlbf::kMicrosecond;
inline constexpr tlbf::Time kOrigin = tlbf::kSecond;

// The steady stream: decision i is key keys[i] at time of its tick. New keys are consecutive
// integers; a repeat names one of the `live` newest keys, all younger than the span. The
// generator is a SplitMix64: cheap enough that filling 2 x 10^7 keys is the filter's time.
class SteadyStream {
 public:
  explicit SteadyStream(std::uint64_t live) : live_(live) {}

  // The next decision's key; the clock moves only with new keys.
  std::uint64_t next_key() {
    if (new_keys_ > 0 && static_cast<double>(draw() >> 11) * 0x1p-53 < kRepeatShare)
      return new_keys_ - 1 - draw() % std::min(new_keys_, live_);
    return new_keys_++;
  }
  // A new key, as next_key() would return it after its repeats.
  std::uint64_t next_new_key() { return new_keys_++; }
  // The time of the key just returned (a repeat shares the tick of the newest key).
  tlbf::Time now() const { return kOrigin + static_cast<tlbf::Time>(new_keys_) * kTick; }
  std::uint64_t new_keys() const { return new_keys_; }

 private:
  std::uint64_t draw() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t live_;
  std::uint64_t new_keys_ = 0;
  std::uint64_t state_ = 42;
};

}  // namespace tlbf_bench
