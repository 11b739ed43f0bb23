// Parameter maths of the age-partitioned filters (include/tlbf/params.hpp): the exact F(0,0)
// recursion against the published values, runs_fpr() (generation-keyed runs) against a
// simulation, choose_kl() and choose_tlbf_kl() (the TLBF's model, tlbf_fpr()) against a
// brute-force search.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/params.hpp"
#include "tlbf/registry.hpp"

namespace {

struct Known {
  std::uint32_t k, l;
  double fpr;
};

// choose_tlbf_kl() as it was first written: every phase's rates for every l of every k,
// from tlbf_run_products(). The search now skips work (params.hpp); it must still give the
// same layout and the same rate to the last bit, since filters built from it save k, l and
// their slice sizes, and decide by them.
tlbf::SliceLayout plain_tlbf_search(double target_fpr, std::uint32_t max_kl, double headroom) {
  tlbf::SliceLayout best{0, 0, 1.0, 0.0};
  std::vector<double> runs, fpr_sum;
  for (std::uint32_t k = 1; k < max_kl; ++k) {
    const std::uint32_t max_l = max_kl - k;
    fpr_sum.assign(max_l + 1, 0.0);
    for (int t = 0; t < tlbf::kTlbfPhases; ++t) {
      tlbf::detail::tlbf_run_products(k, headroom, (t + 0.5) / tlbf::kTlbfPhases, std::size_t{max_l} + 1, runs);
      double log_none = 0.0;
      for (std::uint32_t l = 0; l <= max_l; ++l) {
        log_none += std::log1p(-runs[l]);
        fpr_sum[l] += -std::expm1(log_none);
      }
    }
    for (std::uint32_t l = 1; l <= max_l; ++l) {
      const double bpk = headroom * tlbf::apbf_bits_per_key(k, l), fpr = fpr_sum[l] / tlbf::kTlbfPhases;
      if (fpr > target_fpr) break;
      if (best.k == 0 || bpk < best.bits_per_key || (bpk == best.bits_per_key && k + l < best.k + best.l))
        best = tlbf::SliceLayout{k, l, fpr, bpk};
    }
  }
  return best;
}

// Brute force without choose_kl's pruning: the fewest bits per key meeting the target.
double best_bits_per_key(double target, std::uint32_t max_kl) {
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t k = 1; k < max_kl; ++k)
    for (std::uint32_t l = 1; k + l <= max_kl; ++l)
      if (tlbf::runs_fpr(k, l) <= target) best = std::min(best, tlbf::apbf_bits_per_key(k, l));
  return best;
}

}  // namespace

TEST_SUITE("params") {
  TEST_CASE("apbf_fpr reproduces the published F(0,0) values") {
    // From issue 2 (APBF paper, Table 1).
    const Known known[] = {{4, 3, 0.100586},  {5, 7, 0.101603},   {7, 5, 0.011232},
                           {10, 7, 0.001211}, {14, 11, 0.000099}, {17, 13, 0.000011}};
    for (const Known& c : known) {
      const double f = tlbf::apbf_fpr(c.k, c.l);
      INFO("k=" << c.k << " l=" << c.l << " F=" << f);
      CHECK((std::fabs(f - c.fpr) <= 1e-6 || std::fabs(f - c.fpr) <= 1e-3 * c.fpr));
    }
  }

  TEST_CASE("apbf_fpr falls with k and rises with l") {
    for (std::uint32_t k = 2; k < 20; ++k) {
      for (std::uint32_t l = 1; l < 20; ++l) {
        const double f = tlbf::apbf_fpr(k, l);
        CHECK(f > 0.0);
        CHECK(f < 1.0);
        CHECK(tlbf::apbf_fpr(k, l + 1) > f);
        CHECK(tlbf::apbf_fpr(k + 1, l) < f);
      }
    }
    // With no extra slice it is a plain partitioned Bloom filter at the fills of eq. 2.
    double plain = 1.0;
    for (std::uint32_t i = 0; i < 4; ++i) plain *= (i + 1) / 8.0;
    CHECK(tlbf::apbf_fpr(4, 0) == doctest::Approx(plain));
    CHECK_THROWS_AS(tlbf::apbf_fpr(0, 3), tlbf::invalid_parameter);
  }

  TEST_CASE("runs_fpr: independent runs at the fills before a shift, checked by simulation") {
    // Each slice bit a run probes is set with the slice's fill, independently (runs probe
    // different hashes); a key is reported when some run of k is all set.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto [k, l] : {std::pair<std::uint32_t, std::uint32_t>{4, 3}, {3, 8}, {6, 14}, {2, 1}}) {
      const int trials = 400000;
      int hits = 0;
      for (int t = 0; t < trials; ++t) {
        bool any = false;
        for (std::uint32_t j = 0; j <= l && !any; ++j) {
          bool all = true;
          for (std::uint32_t p = 0; p < k && all; ++p) all = u(rng) < tlbf::slice_fill_before_shift(k, j + p);
          any = all;
        }
        hits += any;
      }
      const double sim = static_cast<double>(hits) / trials, f = tlbf::runs_fpr(k, l);
      INFO("k=" << k << " l=" << l << " runs_fpr=" << f << " simulated=" << sim);
      CHECK(std::fabs(sim - f) <= 4 * std::sqrt(f * (1 - f) / trials));
      CHECK(f > tlbf::apbf_fpr(k, l));  // the paper's overlapping runs share probes
    }
    CHECK(tlbf::runs_fpr(4, 0) == doctest::Approx(tlbf::apbf_fpr(4, 0)));  // one run: the same
    CHECK_THROWS_AS(tlbf::runs_fpr(0, 3), tlbf::invalid_parameter);
  }

  TEST_CASE("choose_kl meets each target with the fewest bits per key (brute force, k+l <= 64)") {
    // Paper Table 2: measured TLBF bits per element for each error rate (min, max).
    struct Row {
      double target;
      int paper_min, paper_max;
    };
    const Row rows[] = {{1e-1, 10, 13}, {1e-2, 19, 24}, {1e-3, 26, 35}, {1e-4, 32, 45},
                        {1e-5, 41, 56}, {1e-6, 0, 0},   {1e-9, 0, 0}};
    for (const Row& r : rows) {
      const tlbf::SliceLayout s = tlbf::choose_kl(r.target);
      MESSAGE("target " << r.target << ": k=" << s.k << " l=" << s.l << " F(0,0)=" << s.fpr
                        << " bits/key=" << s.bits_per_key << " (paper Table 2: "
                        << (r.paper_max > 0 ? std::to_string(r.paper_min) + "-" + std::to_string(r.paper_max) : "n/a")
                        << ")");
      CHECK(s.k + s.l <= 64);
      CHECK(s.fpr <= r.target);
      CHECK(s.fpr == tlbf::runs_fpr(s.k, s.l));
      CHECK(s.bits_per_key == doctest::Approx(tlbf::apbf_bits_per_key(s.k, s.l)));
      CHECK(s.bits_per_key == doctest::Approx(best_bits_per_key(r.target, 64)));
      // Independent runs cost a little memory over the paper's layouts (about one more k):
      // at most 20% at 1e-1, less at smaller targets.
      if (r.paper_max > 0) {
        CHECK(s.bits_per_key >= r.paper_min);
        CHECK(s.bits_per_key <= 1.2 * r.paper_max);
      }
    }
  }

  TEST_CASE("tlbf_fpr: runs of time-ended generations, averaged over the current generation") {
    const double h = 1.03;
    for (std::uint32_t k : {4u, 7u, 15u, 22u}) {
      for (std::uint32_t l : {3u, 16u, 42u}) {
        const double f = tlbf::tlbf_fpr(k, l, h);
        INFO("k=" << k << " l=" << l << " tlbf_fpr=" << f << " runs_fpr=" << tlbf::runs_fpr(k, l));
        CHECK(f > 0.0);
        CHECK(tlbf::tlbf_fpr(k, l + 1, h) > f);  // one more accepted run
        CHECK(tlbf::tlbf_fpr(k, l, 1.1) < f);    // emptier slices
        // Without headroom the slices end their k-th generation half full, as runs_fpr
        // assumes; the phase average and the exponential fill move it by a few percent.
        CHECK(tlbf::tlbf_fpr(k, l, 1.0) == doctest::Approx(tlbf::runs_fpr(k, l)).epsilon(0.06));
      }
    }
    CHECK_THROWS_AS(tlbf::tlbf_fpr(0, 3, h), tlbf::invalid_parameter);
  }

  TEST_CASE("choose_tlbf_kl meets each target with the fewest bits per key (brute force)") {
    for (double target : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-7, 1e-9}) {
      for (std::uint32_t max_kl : {16u, 64u}) {
        for (double h : {1.0, 1.03, 1.1}) {
          double best = std::numeric_limits<double>::infinity();
          for (std::uint32_t k = 1; k < max_kl; ++k)
            for (std::uint32_t l = 1; k + l <= max_kl; ++l)
              if (tlbf::tlbf_fpr(k, l, h) <= target) best = std::min(best, h * tlbf::apbf_bits_per_key(k, l));
          if (best == std::numeric_limits<double>::infinity()) {
            CHECK_THROWS_AS(tlbf::choose_tlbf_kl(target, max_kl, h), tlbf::invalid_parameter);
            continue;
          }
          const tlbf::SliceLayout s = tlbf::choose_tlbf_kl(target, max_kl, h);
          INFO("target " << target << " max_kl " << max_kl << " headroom " << h << ": k=" << s.k << " l=" << s.l);
          CHECK(s.k + s.l <= max_kl);
          CHECK(s.fpr == doctest::Approx(tlbf::tlbf_fpr(s.k, s.l, h)));
          CHECK(s.fpr <= target);
          CHECK(s.bits_per_key == doctest::Approx(best));
        }
      }
    }
  }

  TEST_CASE("choose_tlbf_kl: the same layout and rate, bit for bit, as the plain search") {
    std::vector<double> targets;
    for (double decade = 1e-1; decade > 1e-13; decade /= 10)
      for (double m : {1.0, 2.0, 5.0}) targets.push_back(m * decade);
    targets.push_back(0.5);
    targets.push_back(1e-30);  // out of reach below k + l = 64: both throw
    int compared = 0;
    for (std::uint32_t max_kl : {2u, 3u, 9u, 16u, 64u, 100u}) {
      for (double h : {1.0, 1.03, 1.1, 1.5}) {
        for (double target : targets) {
          if (max_kl == 100 && h != 1.03) continue;  // the plain search of 100 slices is slow
          const tlbf::SliceLayout want = plain_tlbf_search(target, max_kl, h);
          INFO("target " << target << " max_kl " << max_kl << " headroom " << h);
          if (want.k == 0) {
            CHECK_THROWS_AS(tlbf::choose_tlbf_kl(target, max_kl, h), tlbf::invalid_parameter);
            continue;
          }
          const tlbf::SliceLayout got = tlbf::choose_tlbf_kl(target, max_kl, h);
          CHECK(got.k == want.k);
          CHECK(got.l == want.l);
          CHECK(got.fpr == want.fpr);  // exactly: the same operations in the same order
          CHECK(got.bits_per_key == want.bits_per_key);
          ++compared;
        }
      }
    }
    CHECK(compared > 300);
  }

  TEST_CASE("choose_kl respects a smaller bound on k + l") {
    for (std::uint32_t max_kl : {8u, 16u, 30u}) {
      const tlbf::SliceLayout s = tlbf::choose_kl(1e-3, max_kl);
      CHECK(s.k + s.l <= max_kl);
      CHECK(s.fpr <= 1e-3);
      CHECK(s.bits_per_key == doctest::Approx(best_bits_per_key(1e-3, max_kl)));
    }
  }

  TEST_CASE("choose_kl refuses targets and bounds it cannot work with") {
    for (double bad : {0.0, 1.0, -0.1, 1.5, std::nan("")}) {
      CHECK_THROWS_AS(tlbf::choose_kl(bad), tlbf::invalid_parameter);
    }
    CHECK_THROWS_AS(tlbf::choose_kl(0.1, 1), tlbf::invalid_parameter);
    CHECK_THROWS_AS(tlbf::choose_kl(1e-12, 8), tlbf::invalid_parameter);  // unreachable with 8 slices
    try {
      tlbf::choose_kl(2.0);
      FAIL("no exception");
    } catch (const tlbf::invalid_parameter& e) {
      CHECK(e.parameter() == "error_rate");
      CHECK(e.value() == "2");
    }
  }
}

TEST_SUITE("checks") {
  // The one check per parameter (include/tlbf/checks.hpp): what every filter and the
  // program's options rely on to refuse a value the same way.
  auto parameter_of = [](auto check) -> std::string {
    try {
      check();
    } catch (const tlbf::invalid_parameter& e) {
      return e.parameter();
    }
    return "";
  };

  TEST_CASE("check_error_rate accepts (0, 1) only") {
    CHECK_NOTHROW(tlbf::check_error_rate(1e-5));
    CHECK_NOTHROW(tlbf::check_error_rate(0.999));
    for (double bad : {0.0, 1.0, -0.5, 1.5, std::nan("")})
      CHECK(parameter_of([bad] { tlbf::check_error_rate(bad); }) == "error_rate");
  }

  TEST_CASE("check_window wants exactly one window, check_algorithm one that fits it") {
    tlbf::FilterConfig c;
    c.span = 0;
    CHECK(parameter_of([&] { tlbf::check_window(c); }) == "span");
    c.span = tlbf::kSecond;
    c.window_count = 10;
    CHECK(parameter_of([&] { tlbf::check_window(c); }) == "span");
    c.window_count = 0;
    CHECK_NOTHROW(tlbf::check_window(c));
    c.algorithm = tlbf::Algorithm::apbf;
    CHECK(parameter_of([&] { tlbf::check_algorithm(c); }) == "algorithm");
    c.algorithm = tlbf::Algorithm::gebf;
    CHECK_NOTHROW(tlbf::check_algorithm(c));
    c.span = 0;
    c.window_count = 10;
    c.algorithm = tlbf::Algorithm::tlbf;
    CHECK(parameter_of([&] { tlbf::check_algorithm(c); }) == "algorithm");
    c.algorithm = tlbf::Algorithm::exact;
    CHECK_NOTHROW(tlbf::check_algorithm(c));
  }

  TEST_CASE("the message names the field, the value and the problem") {
    try {
      tlbf::check_error_rate(1.5);
      FAIL("accepted 1.5");
    } catch (const tlbf::invalid_parameter& e) {
      CHECK(e.value() == "1.5");
      CHECK(std::string(e.what()) == "error_rate 1.5: " + e.problem());
    }
  }
}
