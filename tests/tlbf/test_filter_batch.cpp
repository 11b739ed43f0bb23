// The batch entry points of filter.hpp: insert_if_absent_batch() and
// contains_then_insert_batch() decide as the one-key verbs do, key by key, for every filter
// kind, and stop right after the key whose insert made a memory cap bind.
#include <doctest/doctest.h>

#include <memory>
#include <random>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/visit.hpp"

namespace {

using filter_checks::key;

std::vector<tlbf::FilterConfig> every_kind() {
  std::vector<tlbf::FilterConfig> out;
  out.push_back(filter_checks::time_config(2 * tlbf::kSecond, 1e-3, 2000));
  tlbf::FilterConfig c = filter_checks::time_config(2 * tlbf::kSecond, 1e-3, 2000);
  c.tlbf_layout = tlbf::TlbfLayout::slice_major;
  out.push_back(c);
  out.push_back(filter_checks::count_config(3000, 1e-3));
  c = filter_checks::count_config(3000, 1e-3);
  c.algorithm = tlbf::Algorithm::gebf;
  out.push_back(c);
  c = filter_checks::time_config(2 * tlbf::kSecond, 1e-3, 2000);
  c.algorithm = tlbf::Algorithm::gebf;
  out.push_back(c);
  c.algorithm = tlbf::Algorithm::exact;
  out.push_back(c);
  // A small first table, so that the tagged filter grows inside the batches.
  c = filter_checks::time_config(2 * tlbf::kSecond, 1e-3, 100);
  c.algorithm = tlbf::Algorithm::tagged;
  out.push_back(c);
  return out;
}

// 30 % repeats, some of them inside the same batch; one key every 100 us.
struct Stream {
  std::vector<tlbf::KeyHash> keys;
  std::vector<tlbf::Time> times;
  explicit Stream(std::size_t n) {
    std::mt19937_64 rng(5);
    for (std::size_t i = 0; i < n; ++i) {
      keys.push_back(key(i > 0 && rng() % 10 < 3 ? i - 1 - rng() % std::min<std::size_t>(i, 40) : i));
      times.push_back(static_cast<tlbf::Time>(i) * 100 * tlbf::kMicrosecond);
    }
  }
};

}  // namespace

TEST_SUITE("filter_batch") {
  TEST_CASE("a batch decides as the keys one by one, for every filter kind and both verbs") {
    const Stream s(60000);
    for (const tlbf::FilterConfig& cfg : every_kind()) {
      for (bool renew : {false, true}) {
        CAPTURE(static_cast<int>(cfg.algorithm));
        CAPTURE(renew);
        auto one = tlbf::make_filter(cfg);
        auto batched = tlbf::make_filter(cfg);
        std::vector<bool> expected;
        for (std::size_t i = 0; i < s.keys.size(); ++i) {
          if (renew) {
            expected.push_back(one->may_contain(s.keys[i], s.times[i]));
            one->insert(s.keys[i], s.times[i]);
          } else {
            expected.push_back(one->insert_if_absent(s.keys[i], s.times[i]));
          }
        }
        std::vector<char> got(s.keys.size());
        tlbf::visit_filter(*batched, [&](auto& f) {
          for (std::size_t at = 0; at < s.keys.size();) {
            const std::size_t n = std::min<std::size_t>(777, s.keys.size() - at);
            bool answers[777];
            const std::size_t done = renew ? tlbf::contains_then_insert_batch(f, &s.keys[at], &s.times[at], n, answers)
                                           : tlbf::insert_if_absent_batch(f, &s.keys[at], &s.times[at], n, answers);
            REQUIRE(done == n);  // no cap here
            for (std::size_t i = 0; i < done; ++i) got[at + i] = answers[i];
            at += done;
          }
        });
        std::size_t differ = 0, news = 0;
        for (std::size_t i = 0; i < s.keys.size(); ++i) {
          differ += static_cast<bool>(got[i]) != expected[i];
          news += expected[i] != renew;  // renew: the answer is 'present'
        }
        CHECK(differ == 0);
        CHECK(news > s.keys.size() / 2);  // the stream has new keys and repeats alike
        CHECK(news < s.keys.size() * 9 / 10);
        CHECK(filter_checks::saved(*one) == filter_checks::saved(*batched));
      }
    }
  }

  TEST_CASE("a batch stops right after the key whose insert made the cap bind") {
    tlbf::FilterConfig cfg = filter_checks::count_config(200000, 1e-3);
    cfg.max_memory_bytes = 16384;
    auto probe = tlbf::make_filter(cfg);
    std::size_t first_bind = 0;
    for (std::size_t i = 0; i < 200000 && first_bind == 0; ++i) {
      probe->insert_if_absent(key(i), 0);
      if (probe->cap_binds() > 0) first_bind = i + 1;
    }
    REQUIRE(first_bind > 0);
    auto f = tlbf::make_filter(cfg);
    std::vector<tlbf::KeyHash> keys;
    for (std::size_t i = 0; i < first_bind + 100; ++i) keys.push_back(key(i));
    std::vector<tlbf::Time> times(keys.size(), 0);
    std::unique_ptr<bool[]> fresh(new bool[keys.size()]);
    const std::size_t done = tlbf::insert_if_absent_batch(*f, keys.data(), times.data(), keys.size(), fresh.get());
    CHECK(done == first_bind);
    CHECK(f->cap_binds() == 1);
  }

  TEST_CASE("a tagged filter's batch stops right after the key whose insert made the cap bind") {
    tlbf::FilterConfig cfg = filter_checks::time_config(tlbf::kSecond, 1e-3, 100);
    cfg.algorithm = tlbf::Algorithm::tagged;
    cfg.max_memory_bytes = 16384;
    const auto time_of = [](std::size_t i) { return static_cast<tlbf::Time>(i) * 10 * tlbf::kMicrosecond; };
    auto probe = tlbf::make_filter(cfg);
    std::size_t first_bind = 0;
    for (std::size_t i = 0; i < 200000 && first_bind == 0; ++i) {
      probe->insert_if_absent(key(i), time_of(i));
      if (probe->cap_binds() > 0) first_bind = i + 1;
    }
    REQUIRE(first_bind > 0);
    auto f = tlbf::make_filter(cfg);
    std::vector<tlbf::KeyHash> keys;
    std::vector<tlbf::Time> times;
    for (std::size_t i = 0; i < first_bind + 100; ++i) {
      keys.push_back(key(i));
      times.push_back(time_of(i));
    }
    std::unique_ptr<bool[]> fresh(new bool[keys.size()]);
    tlbf::visit_filter(*f, [&](auto& g) {
      CHECK(tlbf::insert_if_absent_batch(g, keys.data(), times.data(), keys.size(), fresh.get()) == first_bind);
    });
    CHECK(f->cap_binds() == 1);
  }
}
