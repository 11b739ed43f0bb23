// Every hash of a key in the program, in one place: the decider hands this object out, so
// the record source (on whichever thread reads), the filter and --top all see a key as the
// same 128 bits.
//
// Keys are hashed with the run's secret seed (docs/filters.md): without it, whoever writes
// input lines could search offline for keys that collide or that set chosen bits. The seed
// is kept with the filter (the state file records it). The one hash without the seed is the
// Redis module's shard rule, which every producer of a shared filter must compute alike.
// The object is immutable, so any thread may use it.
#pragma once

#include <cstdint>
#include <string_view>

#include "tlbf/hash.hpp"
#include "tlbf/shard.hpp"

namespace tlbf_dedup {

class KeyHasher {
 public:
  explicit KeyHasher(std::uint64_t seed) : seed_(seed) {}

  // The key's hash, as the filter and --top know it.
  tlbf::KeyHash operator()(std::string_view key) const { return tlbf::hash_key(key, seed_); }

  // Which of `shards` shard filters in Redis owns `key`: the module's rule (tlbf/shard.hpp),
  // from the item hash the module computes itself.
  std::uint32_t shard(std::string_view key, std::uint32_t shards) const {
    return tlbf::shard_of(tlbf::item_hash(key), shards);
  }

  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
};

}  // namespace tlbf_dedup
