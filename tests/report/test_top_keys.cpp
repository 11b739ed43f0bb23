// The Space-Saving sketch behind --top (src/report/top_keys.hpp): its bound checked against exact
// counts on streams chosen to stress it (every counter taken over again and again) and on
// Zipf-distributed streams, plus the report's order, truncation and rendering.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "decide/key_hasher.hpp"
#include "extract/extract.hpp"
#include "report/top_keys.hpp"

namespace {
using namespace tlbf_dedup;

// One more duplicate of `key`, hashed as the pipeline hands keys to TopKeys (the decider's
// hasher, with the run's seed).
void add(TopKeys& top, std::string_view key, std::uint64_t seed = 1) { top.add(key, KeyHasher(seed)(key)); }

// Checks every guarantee of TopKeys::report against the exact counts of what was added.
void check_bound(const TopKeys& top, const std::map<std::string, std::uint64_t>& truth, std::size_t counters) {
  const TopReport r = top.report(counters, {});
  std::uint64_t added = 0;
  for (const auto& [key, n] : truth) added += n;
  REQUIRE(r.added == added);
  CHECK(r.counters == counters);
  CHECK(r.bound <= added / counters);
  std::map<std::string, const TopKey*> reported;
  for (const TopKey& k : r.keys) reported[k.key] = &k;
  for (const TopKey& k : r.keys) {
    CHECK(k.overestimate <= r.bound);
    // describe_key_parts(key) of a one-part key is ["key"]: strip it back to the key.
    const std::string key = k.key.substr(2, k.key.size() - 4);
    const auto it = truth.find(key);
    const std::uint64_t exact = it == truth.end() ? 0 : it->second;
    CHECK(k.count >= exact);
    CHECK(k.count - k.overestimate <= exact);
  }
  for (const auto& [key, n] : truth)
    if (n > added / counters)
      CHECK_MESSAGE(reported.count(describe_key_parts(key, {})) == 1, key << " with " << n << " is not tracked");
}
}  // namespace

TEST_SUITE("top_keys") {
  TEST_CASE("exact while the counters suffice, highest first, ties by key") {
    TopKeys top(10);
    for (int i = 0; i < 5; ++i) add(top, "b");
    for (int i = 0; i < 5; ++i) add(top, "a");
    add(top, "c");
    const TopReport r = top.report(2, {});
    REQUIRE(r.keys.size() == 2);
    CHECK(r.keys[0].key == R"(["a"])");
    CHECK(r.keys[0].count == 5);
    CHECK(r.keys[1].key == R"(["b"])");
    CHECK(r.bound == 0);
    CHECK(r.keys[0].overestimate == 0);
    CHECK(top.report(10, {}).keys.size() == 3);
  }

  TEST_CASE("keys are told apart by the hashes they come with, whatever the seed") {
    // The seed changes every hash, never what is counted or reported.
    TopKeys one(100), other(100);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "k" + std::to_string(rng() % 300);
      add(one, key, 7);
      add(other, key, 8);
    }
    const TopReport a = one.report(20, {}), b = other.report(20, {});
    REQUIRE(a.keys.size() == 20);
    REQUIRE(b.keys.size() == a.keys.size());
    CHECK(b.bound == a.bound);
    for (std::size_t i = 0; i < a.keys.size(); ++i) {
      CHECK(b.keys[i].key == a.keys[i].key);
      CHECK(b.keys[i].count == a.keys[i].count);
      CHECK(b.keys[i].overestimate == a.keys[i].overestimate);
    }
  }

  TEST_CASE("a key taken over inherits the smallest count as its overestimate") {
    TopKeys top(2);
    add(top, "a");
    add(top, "a");
    add(top, "b");
    add(top, "c");  // replaces b (count 1): c counts 2, overestimate 1
    const TopReport r = top.report(2, {});
    REQUIRE(r.keys.size() == 2);
    CHECK(r.keys[1].key == R"(["c"])");
    CHECK(r.keys[1].count == 2);
    CHECK(r.keys[1].overestimate == 1);
    CHECK(r.bound == 2);
  }

  TEST_CASE("adversarial: heavy keys among a flood of keys seen once") {
    // Each new key takes over the smallest counter, raising it: the worst case for the error.
    constexpr std::size_t kCounters = 50;
    TopKeys top(kCounters);
    std::map<std::string, std::uint64_t> truth;
    auto count = [&](const std::string& k) {
      add(top, k);
      ++truth[k];
    };
    for (int round = 0; round < 200; ++round) {
      for (int heavy = 0; heavy < 5; ++heavy) count("heavy" + std::to_string(heavy));
      for (int fresh = 0; fresh < 40; ++fresh) count("once" + std::to_string(round * 40 + fresh));
      if (round % 10 == 0) count("late-heavy");
    }
    check_bound(top, truth, kCounters);
    const TopReport r = top.report(5, {});
    for (const TopKey& k : r.keys) CHECK(k.key.rfind("[\"heavy", 0) == 0);
  }

  TEST_CASE("zipf streams: the bound holds and the true top keys lead") {
    for (double s : {0.8, 1.1, 1.5}) {
      constexpr std::size_t kKeys = 20000, kCounters = 100;
      std::vector<double> weights(kKeys);
      for (std::size_t i = 0; i < kKeys; ++i) weights[i] = 1.0 / std::pow(static_cast<double>(i + 1), s);
      std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
      std::mt19937_64 rng(42);
      TopKeys top(kCounters);
      std::map<std::string, std::uint64_t> truth;
      for (int i = 0; i < 200000; ++i) {
        const std::string k = "key" + std::to_string(pick(rng));
        add(top, k);
        ++truth[k];
      }
      CAPTURE(s);
      check_bound(top, truth, kCounters);
      CHECK(top.report(1, {}).keys.at(0).key == R"(["key0"])");
    }
  }

  TEST_CASE("long keys are counted as themselves and shown by their first bytes") {
    TopKeys top(10);
    const std::string a(300, 'x'), b = std::string(299, 'x') + "y";
    add(top, a);
    add(top, a);
    add(top, b);
    const TopReport r = top.report(2, {});
    REQUIRE(r.keys.size() == 2);
    CHECK(r.keys[0].count == 2);
    CHECK(r.keys[1].count == 1);
    CHECK(r.keys[0].truncated);
    CHECK(r.keys[0].key == "[\"" + std::string(TopKeys::kMaxKeyBytes, 'x') + "\"]");
  }

  TEST_CASE("composite keys are shown part by part") {
    TopKeys top(10);
    std::string key;
    append_key_part(key, "GET", false);
    append_key_part(key, "/a", false);
    add(top, key);
    CHECK(top.report(1, KeyShape{true, InputFormat::lines}).keys.at(0).key == R"(["GET","/a"])");
  }

  TEST_CASE("JSON keys are shown as the values they were, and a cut one stays valid JSON") {
    TopKeys top(10);
    add(top,
        "\xFB"
        "443");        // the number 443
    add(top, "\xF8");  // null
    const std::string long_string(300, 'e');
    add(top, "\xFC\xFF\x2C\x01\x00\x00" + long_string + "\xFE");  // [ "eee...e" ], 300 e's
    const TopReport r = top.report(3, KeyShape{false, InputFormat::json});
    std::vector<std::string> shown;
    for (const TopKey& k : r.keys) shown.push_back(k.key);
    CHECK(std::count(shown.begin(), shown.end(), "[443]") == 1);
    CHECK(std::count(shown.begin(), shown.end(), "[null]") == 1);
    CHECK(std::count(shown.begin(), shown.end(), "[[\"" + std::string(TopKeys::kMaxKeyBytes - 6, 'e') + "\"]]") == 1);
  }

  TEST_CASE("counters: ten per reported key, at least 100") {
    CHECK(TopKeys::counters_for(1) == 100);
    CHECK(TopKeys::counters_for(50) == 500);
  }
}
