// --top: the keys with the most suppressed duplicates, counted in bounded memory with the
// Space-Saving sketch (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and
// top-k elements in data streams", ICDT 2005).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/stats.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

class TopKeys {
 public:
  // Bytes of a key kept for the report; a longer key is still counted as itself (by its
  // hash), and shown by its first kMaxKeyBytes bytes.
  static constexpr std::size_t kMaxKeyBytes = 200;
  // Counters per reported key, and the fewest counters: more counters, a smaller bound.
  static constexpr std::size_t kCountersPerKey = 10;
  static constexpr std::size_t kMinCounters = 100;
  // The largest N of --top, so that memory stays bounded whatever is asked.
  static constexpr std::size_t kMaxTop = 10000;

  static std::size_t counters_for(std::size_t top) { return std::max(kMinCounters, kCountersPerKey * top); }

  // Counts keys in `counters` counters. Keys are told apart by their 128-bit hash, made by the
  // decider's hasher (KeyHasher, with the run's secret seed, so that input cannot choose
  // keys that collide).
  explicit TopKeys(std::size_t counters);

  // One more duplicate of `key`, whose hash is `id`.
  void add(std::string_view key, tlbf::KeyHash id);

  // The `n` counters with the highest counts, highest first (ties: the key's bytes), each key
  // shown by describe_key_parts(key, composite). The bound: with D keys added and m
  // counters, every count is at most its overestimate above the true count, every
  // overestimate is at most the smallest count, which is at most D / m, and every key added
  // more than D / m times holds a counter.
  TopReport report(std::size_t n, bool composite) const;

  std::uint64_t added() const { return added_; }

 private:
  struct Counter {
    tlbf::KeyHash id;
    std::uint64_t count = 0;
    std::uint64_t overestimate = 0;
    std::string text;  // the key's first kMaxKeyBytes bytes
    bool truncated = false;
  };
  struct IdHash {
    std::size_t operator()(tlbf::KeyHash h) const { return static_cast<std::size_t>(h.lo); }
  };

  void set_text(Counter& c, std::string_view key);
  void sift_down(std::size_t i);
  void sift_up(std::size_t i);
  void swap_counters(std::size_t a, std::size_t b);

  std::size_t capacity_;
  std::uint64_t added_ = 0;
  std::vector<Counter> heap_;  // a min-heap by count: the counter to replace is heap_[0]
  std::unordered_map<tlbf::KeyHash, std::uint32_t, IdHash> where_;  // a key's position in heap_
};

}  // namespace tlbf_dedup
