// SPDX-License-Identifier: MIT
// How an item's bytes become the filter's hash, and which shard of a sharded filter owns it.
//
// item_hash() is an item's hash with seed 0, which every producer of a sharded filter computes
// alike: it only chooses the item's shard (shard_of()). Each filter hashes its items with a
// secret seed of its own (redis-module/filter_value.cpp), so that no one can compute offline
// which items' probes cover another's.
//
// shard_of() is the rule every producer of a sharded filter follows (docs/redis.md): the
// item goes to shard reduce(XXH3-64(lo || hi), S), where lo and hi are the two halves of the
// item's hash written as 16 little-endian bytes and reduce(x, S) = (x * S) >> 64. Hashing
// the hash again decorrelates the shard from the filter's probe positions (which are
// linear in lo and hi), so each shard's filter still sees its bits uniformly used.
#pragma once

#include <cstdint>
#include <string_view>

#include "tlbf/hash.hpp"

namespace tlbf {

inline KeyHash item_hash(std::string_view item) { return hash_key(item); }

inline std::uint32_t shard_of(KeyHash h, std::uint32_t shards) {
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(h.lo >> (8 * i));
    bytes[8 + i] = static_cast<unsigned char>(h.hi >> (8 * i));
  }
  return static_cast<std::uint32_t>(reduce(XXH3_64bits(bytes, sizeof bytes), shards));
}

}  // namespace tlbf
