// A filter's secret hash seed: drawn at TLBF.RESERVE, kept in the value's byte form (format
// version 2), never shown by TLBF.INFO; values written before seeds (format version 1) load
// with seed 0 and answer as before. The attack it defends against: under seed 0 anyone can
// compute an item whose probes cover another's (collisions.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collisions.hpp"
#include "filter_params.hpp"
#include "filter_value.hpp"
#include "tlbf/shard.hpp"

using tlbf_redis::FilterParams;
using tlbf_redis::FilterValue;

namespace {

constexpr std::uint64_t kSecret = 0x0123456789abcdefULL;
constexpr std::size_t kHeader = 16;
constexpr std::size_t kSeedAt = kHeader + 1 + 8 + 8 + 8 + 8 + 4 + 8;  // after the clock

FilterParams params(double error, std::uint64_t capacity) {
  FilterParams p;
  p.window_ms = 60'000;
  p.error_rate = error;
  p.capacity = capacity;
  return p;
}

std::uint64_t u64_at(const std::string& s, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}

// The same value as the previous module wrote it: format version 1, no seed field.
std::string as_version_1(const FilterValue& v) {
  REQUIRE(v.seed() == 0);
  std::string bytes = v.encode();
  bytes.erase(kSeedAt, 8);
  bytes[8] = 1;
  bytes.resize(bytes.size() - 8);
  const std::uint64_t sum = XXH3_64bits(bytes.data() + kHeader, bytes.size() - kHeader);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(sum >> (8 * i)));
  return bytes;
}

}  // namespace

TEST_SUITE("redis.seed") {
  TEST_CASE("RESERVE's SEED option (the primary's and the AOF's) parses as a 64-bit number") {
    CHECK_FALSE(tlbf_redis::parse_reserve_options({"WINDOW", "1", "ERROR", "0.5", "CAPACITY", "1"}).seed);
    CHECK(*tlbf_redis::parse_reserve_options(
               {"WINDOW", "1", "ERROR", "0.5", "CAPACITY", "1", "seed", "18446744073709551615"})
               .seed == 18446744073709551615ull);
    for (const char* bad : {"-1", "18446744073709551616", "0x10", ""}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(tlbf_redis::parse_reserve_options({"WINDOW", "1", "ERROR", "0.5", "CAPACITY", "1", "SEED", bad}),
                      tlbf_redis::CommandError);
    }
  }

  TEST_CASE("a pair that collides under seed 0 does not under a secret seed") {
    // ERROR 0.5 gives k = 2 probes, CAPACITY 100 slices of 192 bits: a cover in ~37,000 tries.
    const FilterParams p = params(0.5, 100);
    int covered_at_seed_0 = 0, covered_at_secret = 0;
    for (int i = 0; i < 8; ++i) {
      const std::string victim = "event-" + std::to_string(i);
      const auto attacker = tlbf_redis::testing::find_cover(p, 0, victim, "x", 10'000'000);
      REQUIRE(attacker);
      FilterValue seed0(p, 0), secret(p, kSecret);
      CHECK(seed0.insert_if_absent(*attacker, 1000));
      CHECK(secret.insert_if_absent(*attacker, 1000));
      covered_at_seed_0 += seed0.insert_if_absent(victim, 1000) ? 0 : 1;
      covered_at_secret += secret.insert_if_absent(victim, 1000) ? 0 : 1;
    }
    CHECK(covered_at_seed_0 == 8);  // every victim judged a duplicate
    CHECK(covered_at_secret == 0);
  }

  TEST_CASE("the seed is kept in the byte form, after the clock, and survives a round trip") {
    FilterValue v(params(1e-3, 1000), kSecret);
    v.insert_if_absent("a", 5);
    const std::string bytes = v.encode();
    CHECK(bytes[8] == 2);
    CHECK(u64_at(bytes, kSeedAt) == kSecret);
    const auto w = FilterValue::decode(bytes);
    CHECK(w->seed() == kSecret);
    CHECK(w->encode() == bytes);
  }

  TEST_CASE("a value of format version 1 loads with seed 0 and answers as before") {
    FilterValue old(params(1e-2, 1000), 0);
    for (int i = 0; i < 500; ++i) old.insert_if_absent("item-" + std::to_string(i), 10 * i);
    const std::string v1 = as_version_1(old);
    const auto loaded = FilterValue::decode(v1);
    CHECK(loaded->seed() == 0);
    CHECK(loaded->params() == old.params());
    CHECK(loaded->clock_ms() == old.clock_ms());
    for (int i = 0; i < 2000; ++i) {
      const std::string item = "item-" + std::to_string(i);
      REQUIRE(loaded->may_contain(item, old.clock_ms()) == old.may_contain(item, old.clock_ms()));
      // ... and as the previous module's hash did: the item's bytes at seed 0.
      REQUIRE(loaded->may_contain(item, old.clock_ms()) ==
              loaded->filter().may_contain(tlbf::item_hash(item), old.clock_ms() * 1'000'000));
    }
    CHECK(loaded->encode() == old.encode());  // saved again in version 2, with seed 0
  }

  TEST_CASE("INFO never shows the seed") {
    FilterValue v(params(1e-3, 1000), kSecret);
    v.insert_if_absent("a", 5);
    for (const auto& f : v.info()) {
      CAPTURE(f.name);
      CHECK(f.name.find("seed") == std::string::npos);
      if (const auto* i = std::get_if<long long>(&f.value)) CHECK(static_cast<std::uint64_t>(*i) != kSecret);
      if (const auto* s = std::get_if<std::string>(&f.value))
        CHECK(s->find(std::to_string(kSecret)) == std::string::npos);
    }
  }

  TEST_CASE("the shard of an item is the seed-0 rule, the same whatever a filter's seed") {
    for (int i = 0; i < 100; ++i) {
      const std::string item = "item-" + std::to_string(i);
      CHECK(tlbf::item_hash(item) == tlbf::hash_key(item, 0));
      CHECK(tlbf::shard_of(tlbf::item_hash(item), 7) == tlbf::shard_of(tlbf::hash_key(item, 0), 7));
    }
  }
}
