// The count-window age-partitioned Bloom filter (include/tlbf/apbf.hpp): the jump-back
// query, the sizing that keeps the last window_count inserts, forgetting, full clearing of
// recycled slices, parameter checks, and saved state.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/apbf.hpp"
#include "tlbf/detail/age_partitioned.hpp"

namespace {

using filter_checks::key;
constexpr auto kTag = static_cast<std::uint8_t>(tlbf::Algorithm::apbf);

tlbf::FilterConfig count_config(std::uint64_t window, double error_rate) {
  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::apbf;
  cfg.window_count = window;
  cfg.error_rate = error_rate;
  return cfg;
}

tlbf::FilterConfig count_config(std::uint64_t window, std::uint32_t k, std::uint32_t l) {
  tlbf::FilterConfig cfg = count_config(window, 0.01);
  cfg.k = k;
  cfg.l = l;
  return cfg;
}

}  // namespace

TEST_SUITE("apbf") {
  TEST_CASE("the jump-back query finds k consecutive hits exactly when they exist") {
    for (std::size_t slices = 1; slices <= 12; ++slices) {
      for (std::uint32_t k = 1; k <= slices; ++k) {
        for (std::uint32_t pattern = 0; pattern < (1u << slices); ++pattern) {
          bool run = false;
          for (std::size_t start = 0; start + k <= slices && !run; ++start) {
            bool all = true;
            for (std::size_t i = start; i < start + k; ++i) all = all && ((pattern >> i) & 1u);
            run = all;
          }
          const bool found =
              tlbf::detail::jump_back_query(slices, k, [&](std::size_t pos) { return ((pattern >> pos) & 1u) != 0; });
          if (found != run) {
            INFO("slices=" << slices << " k=" << k << " pattern=" << pattern);
            CHECK(found == run);
          }
        }
      }
    }
  }

  TEST_CASE("sizing: l generations cover the window and a generation fills slices to one half") {
    for (std::uint64_t window : {1ull, 2ull, 7ull, 100ull, 1000ull, 12345ull, 1000000ull}) {
      for (auto [k, l] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{4, 3}, {6, 14}, {1, 1}, {17, 13}}) {
        tlbf::AgePartitionedFilter f(count_config(window, k, l));
        const tlbf::FilterStats s = f.stats(0);
        INFO("window=" << window << " k=" << k << " l=" << l);
        CHECK(s.slices == k + l);
        CHECK(s.slice0_bits % 64 == 0);
        const auto bits = static_cast<double>(s.slice0_bits);
        CHECK(f.generation() == static_cast<std::uint64_t>(std::floor(bits * tlbf::detail::kLn2 / k)));
        CHECK(f.generation() * l >= window);
        // Not oversized: one word less would not hold the window.
        CHECK((bits == 64 || std::floor((bits - 64) * tlbf::detail::kLn2 / k) * l < static_cast<double>(window)));
      }
    }
  }

  TEST_CASE("slice(position) refuses a position past the oldest slice instead of wrapping") {
    tlbf::AgePartitionedFilter f(count_config(100, 4, 3));
    CHECK_NOTHROW(f.slice(f.slices() - 1));
    CHECK_THROWS_AS(f.slice(f.slices()), std::out_of_range);
  }

  TEST_CASE("the last window_count inserts are always reported") {
    for (std::uint64_t window : {1ull, 10ull, 1000ull}) {
      tlbf::AgePartitionedFilter f(count_config(window, 0.01));
      std::uint64_t misses = 0;
      for (std::uint64_t i = 0; i < 30000; ++i) {
        f.insert(key(i), 0);
        for (std::uint64_t back : {std::uint64_t{0}, window / 2, window - 1})
          if (back <= i && !f.may_contain(key(i - back), 0)) ++misses;
      }
      INFO("window " << window);
      CHECK(misses == 0);
    }
  }

  TEST_CASE("keys older than k+l generations are gone, up to the false-positive rate") {
    // A key's newest slice is cleared at the (k+l)-th shift after its insert; before that
    // it fades (its older slices go first, each lost slice leaves a run that a neighbour
    // completes only by chance).
    tlbf::AgePartitionedFilter f(count_config(2000, 0.01));
    const std::uint64_t gone_after = (f.k() + f.l()) * f.generation() + 1;
    std::uint64_t reported = 0, checked = 0;
    for (std::uint64_t i = 0; i < 60000; ++i) {
      f.insert(key(i), 0);
      if (i >= gone_after) {
        ++checked;
        reported += f.may_contain(key(i - gone_after), 0);
      }
    }
    const double rate = static_cast<double>(reported) / static_cast<double>(checked);
    MESSAGE("apbf k=" << f.k() << " l=" << f.l() << ": old keys still reported " << rate);
    CHECK(rate <= 2 * tlbf::apbf_fpr(f.k(), f.l()));
  }

  TEST_CASE("regression e (apbf): the recycled slice is cleared in full") {
    tlbf::AgePartitionedFilter f(count_config(5000, 4, 3));
    std::uint64_t shifts = 0;
    for (std::uint64_t i = 0; i < 40000; ++i) {
      const tlbf::SliceView oldest = f.slice(f.slices() - 1);
      const bool about_to_shift = f.slice(0).inserts == f.generation();
      f.insert(key(i), 0);
      if (about_to_shift) {
        ++shifts;
        const tlbf::SliceView fresh = f.slice(0);
        CHECK(fresh.hash_index == oldest.hash_index);  // the oldest slice was reused
        CHECK(fresh.inserts == 1);
        CHECK(fresh.ones <= 1);  // only the bit of the insert just made
        if (shifts > 8) CHECK(oldest.ones > oldest.bits / 4);  // it held real data before
      }
    }
    CHECK(shifts > 20);
  }

  TEST_CASE("apbf refuses bad parameters, naming them") {
    auto refuses = [](const tlbf::FilterConfig& cfg, const std::string& name) {
      try {
        tlbf::AgePartitionedFilter f(cfg);
        FAIL("accepted a bad " << name);
      } catch (const tlbf::invalid_parameter& e) {
        INFO(e.what());
        CHECK(e.parameter() == name);
        CHECK(std::string(e.what()).find(e.value()) != std::string::npos);
      }
    };
    refuses(count_config(0, 0.01), "window_count");
    refuses(count_config(100, 0.0), "error_rate");
    refuses(count_config(100, 1.0), "error_rate");
    refuses(count_config(100, std::nan("")), "error_rate");
    refuses(count_config(100, 0, 3), "k");
    refuses(count_config(100, 3, 0), "l");
    refuses(count_config(100, 40, 30), "max_kl");
    tlbf::FilterConfig only_k = count_config(100, 0.01);
    only_k.k = 4;
    refuses(only_k, "l");
    tlbf::FilterConfig tiny = count_config(1000000, 0.01);
    tiny.max_memory_bytes = 1000;
    refuses(tiny, "max_memory_bytes");
  }

  TEST_CASE("insert_if_absent and statistics") {
    tlbf::AgePartitionedFilter f(count_config(100, 0.001));
    CHECK(f.insert_if_absent(key(1), 0));
    CHECK_FALSE(f.insert_if_absent(key(1), 0));
    for (std::uint64_t i = 2; i < 500; ++i) f.insert(key(i), 0);
    const tlbf::FilterStats s = f.stats(0);
    CHECK(s.algorithm == "apbf");
    CHECK(s.keys_inserted == 499);
    CHECK(s.live_keys == 100);
    CHECK(s.k == f.k());
    CHECK(s.l == f.l());
    CHECK(s.bits_allocated == s.slice0_bits * (f.k() + f.l()));
    CHECK(s.bits_per_live_key == doctest::Approx(static_cast<double>(s.bits_allocated) / 100));
    CHECK_FALSE(s.memory_capped);
  }

  TEST_CASE("save and load give a filter that answers and evolves identically") {
    tlbf::AgePartitionedFilter f(count_config(3000, 0.01));
    for (std::uint64_t i = 0; i < 10000; ++i) f.insert(key(i), 0);
    filter_checks::check_round_trip(f, kTag, 0, 0);
  }

  TEST_CASE("damaged saved state is refused or still loads into a working filter") {
    tlbf::AgePartitionedFilter f(count_config(200, 4, 3));
    for (std::uint64_t i = 0; i < 700; ++i) f.insert(key(i), 0);
    filter_checks::check_damaged_state(f, kTag, 0, 0);
  }
}
