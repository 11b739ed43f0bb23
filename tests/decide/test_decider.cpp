// Deciding (src/decide/decider.hpp). Seen from an attacker: keys are hashed with the filter's seed.
// A small birthday search finds two keys whose fingerprints collide under a known seed; a
// filter that compares those fingerprints then drops the second key as a duplicate, and the
// same two keys are distinct under a fresh seed. A full 64-bit search (2^32 keys, minutes and
// gigabytes) is too slow for the suite, so the search and the filter here use the fingerprint's
// low 32 bits: the attack and the defence are the same at any width.
#include <doctest/doctest.h>

#include <sys/random.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "decide/decider.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/shard.hpp"

namespace {

constexpr std::uint64_t kFingerprintMask = 0xFFFFFFFFu;

std::uint64_t fingerprint(const std::string& key, std::uint64_t seed) {
  return tlbf::hash_key(key, seed).lo & kFingerprintMask;
}

// What an attacker who knows the seed does offline: hash "user-0", "user-1", ... until two
// fingerprints meet (about 2^16 keys for 32 bits).
std::pair<std::string, std::string> find_colliding_keys(std::uint64_t seed) {
  std::unordered_map<std::uint64_t, std::string> seen;
  for (std::uint64_t i = 0;; ++i) {
    std::string key = "user-" + std::to_string(i);
    auto [it, fresh] = seen.emplace(fingerprint(key, seed), key);
    if (!fresh) return {it->second, key};
  }
}

// An exact filter over truncated fingerprints, without expiry: what the attack targets.
class TruncatedExact final : public tlbf::WindowFilter {
 public:
  bool may_contain(tlbf::KeyHash h, tlbf::Time) const override { return seen_.count(h.lo & kFingerprintMask) > 0; }
  void insert(tlbf::KeyHash h, tlbf::Time) override { seen_.insert(h.lo & kFingerprintMask); }
  tlbf::FilterStats stats(tlbf::Time) const override { return {}; }
  void save(tlbf::ByteWriter&) const override {}

 private:
  std::unordered_set<std::uint64_t> seen_;
};

// Whether the second key is judged a duplicate of the first by a decider with `seed`.
bool second_is_duplicate(const std::pair<std::string, std::string>& keys, std::uint64_t seed) {
  TruncatedExact filter;
  auto decider = tlbf_dedup::make_local_decider(filter, tlbf_dedup::Refresh::no, seed);
  const tlbf::KeyHash hashes[2] = {decider->hasher()(keys.first), decider->hasher()(keys.second)};
  const tlbf::Time times[2] = {1, 2};
  tlbf_dedup::Answers answers;
  REQUIRE(decider->submit(tlbf_dedup::KeyBatch{hashes, times, nullptr, 2}, answers) == 2);
  REQUIRE(answers.size() == 2);
  REQUIRE_FALSE(answers.take());
  return answers.take();
}

}  // namespace

TEST_SUITE("decider") {
  TEST_CASE("keys that collide under a known seed are distinct under a fresh one") {
    const std::uint64_t known_seed = 0;  // every filter's seed before state format 2
    const auto keys = find_colliding_keys(known_seed);
    REQUIRE(keys.first != keys.second);
    REQUIRE(fingerprint(keys.first, known_seed) == fingerprint(keys.second, known_seed));
    CHECK_MESSAGE(second_is_duplicate(keys, known_seed), "the attack works when the seed is known");

    std::uint64_t fresh_seed = 0;
    REQUIRE(::getrandom(&fresh_seed, sizeof fresh_seed, 0) == static_cast<ssize_t>(sizeof fresh_seed));
    CAPTURE(fresh_seed);
    // Fails with probability 2^-32 (the two fingerprints meet again by chance).
    CHECK_FALSE(second_is_duplicate(keys, fresh_seed));
  }
}

namespace {
using namespace tlbf_dedup;

// An exact filter without expiry that binds its "cap" at every `cap_every`-th insert.
class CappedLog final : public tlbf::WindowFilter {
 public:
  explicit CappedLog(int cap_every) : cap_every_(cap_every) {}
  bool may_contain(tlbf::KeyHash h, tlbf::Time) const override { return seen_.count(h.lo) > 0; }
  void insert(tlbf::KeyHash h, tlbf::Time) override {
    seen_.insert(h.lo);
    if (++inserts_ % cap_every_ == 0) note_cap_bound();
  }
  tlbf::FilterStats stats(tlbf::Time) const override { return {}; }
  void save(tlbf::ByteWriter&) const override {}

 private:
  std::unordered_set<std::uint64_t> seen_;
  int cap_every_, inserts_ = 0;
};

}  // namespace

TEST_SUITE("decider") {
  TEST_CASE("a batch is answered in submit order, a key repeated inside it a duplicate of its first copy") {
    CappedLog filter(1000);
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      auto decider = make_local_decider(filter, refresh, 7);
      CHECK_FALSE(decider->answers_later());
      const KeyHasher& hash = decider->hasher();
      const std::string keys[] = {"a" + std::to_string(int(refresh)), "b" + std::to_string(int(refresh))};
      const tlbf::KeyHash hashes[4] = {hash(keys[0]), hash(keys[1]), hash(keys[0]), hash(keys[0])};
      const tlbf::Time times[4] = {1, 2, 3, 4};
      Answers answers;
      REQUIRE(decider->submit(KeyBatch{hashes, times, nullptr, 4}, answers) == 4);
      REQUIRE(answers.size() == 4);
      CHECK_FALSE(answers.take());
      CHECK_FALSE(answers.take());
      CHECK(answers.take());
      CHECK(answers.take());
    }
  }

  TEST_CASE("a batch stops right after the key whose insert made the memory cap bind") {
    CappedLog filter(3);
    auto decider = make_local_decider(filter, Refresh::no, 1);
    std::vector<tlbf::KeyHash> hashes;
    for (int i = 0; i < 8; ++i) hashes.push_back(decider->hasher()("k" + std::to_string(i)));
    const std::vector<tlbf::Time> times(8, 1);
    Answers answers;
    CHECK(decider->submit(KeyBatch{hashes.data(), times.data(), nullptr, 8}, answers) == 3);
    CHECK(decider->cap_binds() == 1);
    CHECK(answers.size() == 3);
    CHECK(decider->submit(KeyBatch{hashes.data() + 3, times.data() + 3, nullptr, 5}, answers) == 3);
    CHECK(decider->cap_binds() == 2);
    CHECK(answers.size() == 6);
  }

  TEST_CASE("the hasher is the seed's, and the shard rule is the Redis module's, without the seed") {
    const KeyHasher a(1), b(2);
    CHECK(a("key") == tlbf::hash_key(std::string_view("key"), 1));
    CHECK_FALSE(a("key") == b("key"));
    for (const char* key : {"", "a", "user-17", "a somewhat longer key"})
      for (std::uint32_t shards : {2u, 3u, 16u}) {
        CHECK(a.shard(key, shards) == tlbf::shard_of(tlbf::item_hash(key), shards));
        CHECK(a.shard(key, shards) == b.shard(key, shards));
      }
  }

  TEST_CASE("answers keep their order across growth and taking") {
    Answers answers;
    std::vector<bool> expected;
    std::size_t taken = 0;
    for (int round = 0; round < 50; ++round) {
      for (int i = 0; i < round * 7 % 23; ++i) {
        const bool dup = (round * 31 + i) % 3 == 0;
        answers.push(dup);
        expected.push_back(dup);
      }
      for (int i = 0; i < round % 11 && !answers.empty(); ++i) CHECK(answers.take() == expected[taken++]);
    }
    while (!answers.empty()) CHECK(answers.take() == expected[taken++]);
    CHECK(taken == expected.size());
  }
}
