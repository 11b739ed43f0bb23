// The level-by-level candidate search (include/tlbf/detail/level_scan.hpp) and the run query
// built on it (detail::any_run_hit): the same answers as probing each candidate in turn, for
// any number of candidates (across the 64-candidate mask words), candidates of different
// lengths (the GEBF's blocks), and runs cut off by acceptance; hit() and the prefetch hint
// are never asked for a probe past a candidate's length or a run that is not accepted.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/level_scan.hpp"

namespace {

// The run query as it was before the level-by-level search: each accepted run in turn,
// youngest slice first, stopping at its first miss.
template <class Accepted, class Hit>
bool one_run_at_a_time(std::size_t num_slices, std::uint32_t k, Accepted&& accepted, Hit&& hit) {
  for (std::size_t j = 0; j + k <= num_slices && accepted(j); ++j) {
    std::uint32_t p = 0;
    while (p < k && hit(j + p, p)) ++p;
    if (p == k) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("level_scan") {
  TEST_CASE("candidates of any length and count: found exactly when one hits all its probes") {
    std::mt19937_64 rng(11);
    std::size_t found_count = 0, trials = 0;
    for (std::size_t n : {0u, 1u, 2u, 63u, 64u, 65u, 127u, 128u, 129u, 300u}) {
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::uint32_t> len(n);
        for (auto& v : len) v = 1 + static_cast<std::uint32_t>(rng() % 12);
        // hit[c][p] true with probability 0.75: long candidates rarely complete, short ones often.
        std::vector<std::vector<bool>> hit(n);
        for (std::size_t c = 0; c < n; ++c) {
          hit[c].resize(len[c]);
          for (std::uint32_t p = 0; p < len[c]; ++p) hit[c][p] = rng() % 4 != 0;
        }
        // A third of the trials: every short candidate misses, so only a long one or none is found.
        if (trial % 3 == 0)
          for (std::size_t c = 0; c < n; ++c)
            if (len[c] < 8) hit[c][len[c] - 1] = false;
        bool expect = false;
        for (std::size_t c = 0; c < n; ++c) {
          bool all = true;
          for (std::uint32_t p = 0; p < len[c]; ++p) all = all && hit[c][p];
          expect = expect || all;
        }
        std::size_t calls_past_len = 0;
        const bool found = tlbf::detail::any_candidate_all_hit(
            n, [&](std::size_t c) { return len[c]; },
            [&](std::size_t c, std::uint32_t p) {
              if (p >= len[c]) {
                ++calls_past_len;
                return true;
              }
              return static_cast<bool>(hit[c][p]);
            },
            [&](std::size_t c, std::uint32_t p) { calls_past_len += p >= len[c]; });
        CHECK(calls_past_len == 0);
        if (found != expect) {
          INFO("n=" << n << " trial=" << trial);
          CHECK(found == expect);
        }
        found_count += found;
        ++trials;
      }
    }
    // Both answers occur, so the comparison above tested something.
    CHECK(found_count > trials / 10);
    CHECK(found_count < trials * 9 / 10);
  }

  TEST_CASE("runs of one length, with and without the hint: the same answer from the same probes, each read once") {
    std::mt19937_64 rng(17);
    std::size_t found_count = 0, trials = 0;
    for (std::size_t n : {0u, 1u, 2u, 40u, 63u, 64u, 65u, 129u, 200u}) {
      for (std::uint32_t len : {1u, 2u, 3u, 7u, 21u}) {
        for (int trial = 0; trial < 40; ++trial) {
          // Probes hit with a probability that completes about one run in n, so both answers are common.
          const double q = std::pow(0.7 / static_cast<double>(std::max<std::size_t>(n, 1)), 1.0 / len);
          std::uniform_real_distribution<double> u(0, 1);
          std::vector<char> hits(n * len);
          for (auto& v : hits) v = u(rng) < q;
          // How often each probe is tested by each search; which ones are tested or prefetched.
          std::vector<int> hinted(n * len, 0), plain(n * len, 0), made(n * len, 0);
          const bool expect = tlbf::detail::any_candidate_all_hit(
              n, [&](std::size_t) { return len; },
              [&](std::size_t c, std::uint32_t p) {
                ++hinted[c * len + p];
                made[c * len + p] = 1;
                return hits[c * len + p] != 0;
              },
              [&](std::size_t c, std::uint32_t p) { made[c * len + p] = 1; });
          std::size_t out_of_range = 0;
          const bool found = tlbf::detail::any_run_all_hit(n, len, [&](std::size_t c, std::uint32_t p) {
            if (c >= n || p >= len) {
              ++out_of_range;
              return false;
            }
            ++plain[c * len + p];
            return hits[c * len + p] != 0;
          });
          // The prefetching search reads probe (c, p) as bit (c * len + p) % 64 of its own
          // word, and locates each probe at most once: those hit() tests and those prefetched.
          std::vector<std::uint64_t> words(n * len);
          for (std::size_t i = 0; i < words.size(); ++i) {
            const std::uint64_t b = std::uint64_t{1} << (i % 64);
            words[i] = hits[i] ? rng() | b : rng() & ~b;
          }
          std::vector<int> located(n * len, 0);
          const bool found_prefetching =
              tlbf::detail::any_run_all_hit_prefetching(n, len, [&](std::size_t c, std::uint32_t p) {
                if (c >= n || p >= len) {
                  ++out_of_range;
                  return tlbf::detail::ProbeSite{words.data(), 0};
                }
                ++located[c * len + p];
                return tlbf::detail::ProbeSite{&words[c * len + p], (c * len + p) % 64};
              });
          CHECK(out_of_range == 0);
          if (found != expect || plain != hinted || found_prefetching != expect || located != made) {
            INFO("n=" << n << " len=" << len << " trial=" << trial);
            CHECK(found == expect);
            CHECK(plain == hinted);
            CHECK(found_prefetching == expect);
            CHECK(located == made);
          }
          found_count += found;
          ++trials;
        }
      }
    }
    CHECK(found_count > trials / 10);
    CHECK(found_count < trials * 9 / 10);
  }

  TEST_CASE("the run query answers as the one-run-at-a-time query, past 64 runs and cut by acceptance") {
    std::mt19937_64 rng(5);
    std::size_t found_count = 0, trials = 0;
    for (std::size_t slices : {1u, 5u, 30u, 64u, 66u, 85u, 150u, 260u}) {
      for (std::uint32_t k : {1u, 2u, 3u, 7u, 22u}) {
        if (k > slices) continue;
        for (int trial = 0; trial < 60; ++trial) {
          // Hits with probability q such that about one accepted run in `runs` is complete,
          // so that both answers are common whatever the number of runs and k.
          const std::size_t accepted = rng() % (slices + 2);
          const double runs = static_cast<double>(std::max<std::size_t>(1, std::min(accepted, slices - k + 1)));
          const double q = std::pow(0.7 / runs, 1.0 / k);
          std::uniform_real_distribution<double> u(0, 1);
          std::vector<std::vector<bool>> hit(slices, std::vector<bool>(k));
          for (auto& row : hit)
            for (std::uint32_t p = 0; p < k; ++p) row[p] = u(rng) < q;
          auto is_accepted = [&](std::size_t j) { return j < accepted; };
          auto hit_at = [&](std::size_t pos, std::uint32_t p) { return static_cast<bool>(hit[pos][p]); };
          const bool expect = one_run_at_a_time(slices, k, is_accepted, hit_at);
          std::size_t bad_prefetches = 0;
          const bool found =
              tlbf::detail::any_run_hit(slices, k, is_accepted, hit_at, [&](std::size_t pos, std::uint32_t p) {
                bad_prefetches += pos >= slices || p >= k || pos < p || pos - p >= accepted;
              });
          CHECK(bad_prefetches == 0);
          if (found != expect) {
            INFO("slices=" << slices << " k=" << k << " accepted=" << accepted << " trial=" << trial);
            CHECK(found == expect);
          }
          found_count += found;
          ++trials;
        }
      }
    }
    CHECK(found_count > trials / 10);
    CHECK(found_count < trials * 9 / 10);
  }
}
