// Deciding (src/decide/decider.hpp), seen from an attacker: keys are hashed with the filter's seed.
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

#include "decide/decider.hpp"
#include "tlbf/hash.hpp"

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

// Whether the second key is judged a duplicate of the first by a Decider with `seed`.
bool second_is_duplicate(const std::pair<std::string, std::string>& keys, std::uint64_t seed) {
  TruncatedExact filter;
  bool dup = false;
  tlbf_dedup::with_decider(filter, tlbf_dedup::Refresh::no, seed, [&](auto& decider) {
    REQUIRE_FALSE(decider.is_duplicate(keys.first, 1));
    dup = decider.is_duplicate(keys.second, 2);
  });
  return dup;
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
