// Key hashing and probe positions (include/tlbf/hash.hpp): the hash is the published XXH3-128
// (saved filter state depends on it never changing), multiply-shift reduction stays in range,
// and the enhanced-double-hashing probes spread keys evenly and independently.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/hash.hpp"

namespace {

// Pearson chi-square statistic of observed bucket counts against a uniform expectation.
double chi_square(const std::vector<std::uint64_t>& counts, double total) {
  const double expected = total / static_cast<double>(counts.size());
  double chi = 0;
  for (std::uint64_t c : counts) {
    const double d = static_cast<double>(c) - expected;
    chi += d * d / expected;
  }
  return chi;
}

// Upper bound for a chi-square with `dof` degrees of freedom: mean + 5 standard deviations.
double chi_square_limit(double dof) { return dof + 5.0 * std::sqrt(2.0 * dof); }

tlbf::KeyHash key_hash(std::uint64_t i) { return tlbf::hash_key(&i, sizeof i); }

}  // namespace

TEST_SUITE("hash") {
  TEST_CASE("hash_key is XXH3-128 with the published test vector, stable across calls") {
    // XXH3_128bits("") from the xxHash reference: 0x99aa06d3014798d8'6001c324468d497f.
    const tlbf::KeyHash empty = tlbf::hash_key("");
    CHECK(empty.lo == 0x6001c324468d497fULL);
    CHECK(empty.hi == 0x99aa06d3014798d8ULL);
    const std::string key = "GET /index.html 200";
    CHECK(tlbf::hash_key(key) == tlbf::hash_key(key.data(), key.size()));
    CHECK(tlbf::hash_key(key) == tlbf::hash_key(std::string(key)));
    CHECK_FALSE(tlbf::hash_key(key) == tlbf::hash_key(key, 1));  // the seed matters
    CHECK_FALSE(tlbf::hash_key("a") == tlbf::hash_key("b"));
  }

  TEST_CASE("probe_hash follows enhanced double hashing") {
    const tlbf::KeyHash h{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
    CHECK(tlbf::probe_hash(h, 0) == h.lo);
    CHECK(tlbf::probe_hash(h, 1) == h.lo + h.hi);
    CHECK(tlbf::probe_hash(h, 2) == h.lo + 2 * h.hi + 1);
    CHECK(tlbf::probe_hash(h, 5) == h.lo + 5 * h.hi + 20);
  }

  TEST_CASE("probe_hashes gives probe_hash for every index up to the largest k, in every build of it") {
    // The scalar version is what a target without SSE2 runs: it is built and checked here
    // too, beside the SSE2 one, on the same inputs.
    using Fill = void (*)(tlbf::KeyHash, std::uint32_t, std::uint64_t*);
    std::vector<std::pair<const char*, Fill>> versions{{"default", tlbf::probe_hashes},
                                                       {"scalar", tlbf::probe_hashes_scalar}};
#if defined(__SSE2__)
    versions.emplace_back("sse2", tlbf::probe_hashes_sse2);
#endif
    CHECK(versions.size() == (tlbf::kHaveSse2 ? 3u : 2u));
    std::vector<tlbf::KeyHash> hashes{tlbf::KeyHash{0x0123456789abcdefULL, 0xfedcba9876543210ULL},
                                      tlbf::hash_key("key"), tlbf::KeyHash{~0ULL, ~0ULL}, tlbf::KeyHash{0, 0}};
    for (std::uint64_t i = 0; i < 200; ++i) hashes.push_back(key_hash(i));
    std::vector<std::uint64_t> x(tlbf::detail::kMaxK + 1);
    for (const auto& [name, fill] : versions) {
      INFO(name);
      for (std::size_t n = 0; n < hashes.size(); ++n) {
        const tlbf::KeyHash h = hashes[n];
        // Every k for a few hashes (odd k: the tail after the pairs), a spread for the rest.
        for (std::uint32_t k = 1; k <= tlbf::detail::kMaxK; k += (n < 4 ? 1 : 37)) {
          std::fill(x.begin(), x.end(), 0);
          fill(h, k, x.data());
          for (std::uint32_t i = 0; i < k; ++i) REQUIRE(x[i] == tlbf::probe_hash(h, i));
          REQUIRE(x[k] == 0);  // nothing written past k
        }
      }
    }
  }

  TEST_CASE("the inline xxHash mode does not leak out of the public header") {
#ifdef XXH_INLINE_ALL
    FAIL("hash.hpp left XXH_INLINE_ALL defined");
#endif
    CHECK(tlbf::hash_key("key") == tlbf::hash_key(std::string("key")));
  }

  TEST_CASE("reduce maps below n at the extremes and for random inputs") {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{63}, std::uint64_t{64},
                            std::uint64_t{1000}, (std::uint64_t{1} << 32) + 7, std::uint64_t{1} << 63, max}) {
      CHECK(tlbf::reduce(0, n) == 0);
      CHECK(tlbf::reduce(max, n) == n - 1);
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i) {
      const std::uint64_t n = rng() >> (rng() % 64);
      if (n == 0) continue;
      CHECK(tlbf::reduce(rng(), n) < n);
    }
  }

  TEST_CASE("each probe spreads keys uniformly (chi-square over 1000 buckets)") {
    const std::uint64_t buckets = 1000, keys = 200000;
    for (std::uint64_t probe : {0u, 1u, 2u, 7u, 23u, 63u}) {
      std::vector<std::uint64_t> counts(buckets, 0);
      for (std::uint64_t i = 0; i < keys; ++i) ++counts[tlbf::reduce(tlbf::probe_hash(key_hash(i), probe), buckets)];
      const double chi = chi_square(counts, static_cast<double>(keys));
      INFO("probe " << probe << " chi-square " << chi);
      CHECK(chi < chi_square_limit(buckets - 1));
    }
  }

  TEST_CASE("two probes of one key are independent (chi-square of the joint 32x32 grid)") {
    const std::uint64_t side = 32, keys = 200000;
    for (std::uint64_t probe : {1u, 5u, 16u}) {
      std::vector<std::uint64_t> counts(side * side, 0);
      for (std::uint64_t i = 0; i < keys; ++i) {
        const tlbf::KeyHash h = key_hash(i);
        ++counts[tlbf::reduce(tlbf::probe_hash(h, 0), side) * side + tlbf::reduce(tlbf::probe_hash(h, probe), side)];
      }
      const double chi = chi_square(counts, static_cast<double>(keys));
      INFO("probes 0 and " << probe << " chi-square " << chi);
      CHECK(chi < chi_square_limit(side * side - 1));
    }
  }

  TEST_CASE("a slice size that is not a power of two is still filled evenly") {
    // Slices of the adaptive filter have arbitrary multiples of 64 bits.
    const std::uint64_t m = 64 * 777, keys = 400000;
    std::vector<std::uint64_t> counts(100, 0);
    for (std::uint64_t i = 0; i < keys; ++i) ++counts[tlbf::reduce(tlbf::probe_hash(key_hash(i), 3), m) * 100 / m];
    CHECK(chi_square(counts, static_cast<double>(keys)) < chi_square_limit(99));
  }
}
