// The --redis backend: decisions by a filter kept in Redis (the tlbf_redis.so module,
// docs/redis.md), shared by every producer that names the same server and key. On one node
// the filter is the key NAME; on a Redis Cluster it is S shard filters NAME{0} .. NAME{S-1}
// spread over the masters, each key going to the shard the module's rule names.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.hpp"
#include "decide/decider.hpp"
#include "decide/redis/redis_url.hpp"
#include "report/diagnostics.hpp"
#include "tlbf/config.hpp"

namespace tlbf_dedup {

// What happens when the server goes away in the middle of a run.
enum class RedisFallback { stop, local };

struct RedisConfig {
  RedisUrl url;
  std::string key;
  RedisFallback fallback = RedisFallback::stop;
  // Cluster: shard filters to reserve when the filter does not exist yet; 0: four per master.
  std::uint32_t shards = 0;
};

class RedisBackend final : public Decider {
 public:
  static constexpr std::size_t kBatchItems = 1000;        // a batch is sent when this full,
  static constexpr std::int64_t kBatchAgeNs = 2'000'000;  // or when its first key is this old
  static constexpr std::size_t kBatchesInFlight = 16;     // sent batches whose answers are awaited

  // Connects, reads the slot map (cluster), and reserves the filter with `filter`'s window,
  // error rate, capacity, algorithm and memory bound unless it exists; an existing filter
  // keeps its own parameters (filter_config() tells them). Throws RedisUnreachable when the
  // server cannot be reached, std::runtime_error when the module is not loaded or the key
  // holds something else. `hash_seed` is the run's (the keys' hashes it is given are made
  // with it); with --redis-fallback local a local filter of the same parameters sees every
  // key from the start (twice the filter memory on this host), so that after a loss it
  // still knows this run's own keys.
  RedisBackend(RedisConfig cfg, const tlbf::FilterConfig& filter, std::uint64_t hash_seed, Clock& clock,
               Diagnostics& diagnostics);
  ~RedisBackend() override;

  // The parameters of the shared filter as Redis holds them (whole-filter capacity and
  // memory bound on a cluster).
  const tlbf::FilterConfig& filter_config() const;
  std::uint32_t shards() const;

  // Answers come later: each submit() may append the answers of keys submitted before.
  std::size_t submit(const KeyBatch& keys, Answers& answers) override;
  void flush(Answers& answers) override;
  // The filter in Redis reports its own cap (TLBF.INFO); after a loss with --redis-fallback
  // local, the local filter's.
  std::uint64_t cap_binds() const override;
  tlbf::FilterStats stats(tlbf::Time now) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlbf_dedup
