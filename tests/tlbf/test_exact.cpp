// Exact window filter (include/tlbf/exact.hpp) against a std::map oracle: time and count
// windows, with and without refresh, memory bounded by the window, save/load, bad state.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "tlbf/exact.hpp"
#include "tlbf/hash.hpp"

namespace {

tlbf::KeyHash key(std::uint64_t i) { return tlbf::hash_key(&i, sizeof i, 7); }

tlbf::FilterConfig time_cfg(tlbf::Duration span) {
  tlbf::FilterConfig c;
  c.algorithm = tlbf::Algorithm::exact;
  c.span = span;
  return c;
}

tlbf::FilterConfig count_cfg(std::uint64_t w) {
  tlbf::FilterConfig c;
  c.algorithm = tlbf::Algorithm::exact;
  c.window_count = w;
  return c;
}

// The obvious model: last stamp per fingerprint, nothing ever removed.
struct Oracle {
  bool count = false;
  std::int64_t window = 0;
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  std::int64_t seq = 0;
  std::map<std::uint64_t, std::int64_t> last;

  bool contains(tlbf::KeyHash h, std::int64_t now) const {
    auto it = last.find(h.lo);
    if (it == last.end()) return false;
    if (count) return seq - it->second < window;
    return std::max(now, latest) - it->second < window;
  }
  std::uint64_t live(std::int64_t now) const {
    std::uint64_t n = 0;
    for (const auto& [fp, stamp] : last) n += contains(tlbf::KeyHash{fp, 0}, now) ? 1 : 0;
    return n;
  }
  void insert(tlbf::KeyHash h, std::int64_t now) {
    if (count) {
      last[h.lo] = ++seq;
    } else {
      latest = std::max(latest, now);
      last[h.lo] = latest;
    }
  }
};

enum class Refresh { no, yes };

// Random stream over a small universe so keys recur inside and outside the window; times
// mostly advance, sometimes jump by more than the window, sometimes go backwards.
void run_against_oracle(const tlbf::FilterConfig& cfg, Refresh refresh, std::uint64_t seed) {
  tlbf::ExactWindow f(cfg);
  Oracle o;
  o.count = cfg.window_count > 0;
  o.window = o.count ? static_cast<std::int64_t>(cfg.window_count) : cfg.span;
  std::mt19937_64 rng(seed);
  std::int64_t now = 1000;
  const std::int64_t step = o.count ? 1 : std::max<std::int64_t>(1, cfg.span / 50);
  for (int i = 0; i < 30000; ++i) {
    std::uint64_t r = rng();
    if (r % 997 == 0)
      now += 3 * step * 50;  // idle gap beyond the window
    else if (r % 101 == 0)
      now -= step;  // clock going backwards
    else
      now += static_cast<std::int64_t>(rng() % (2 * static_cast<std::uint64_t>(step) + 1));
    tlbf::KeyHash h = key(rng() % 400);
    bool expect = o.contains(h, now);
    REQUIRE(f.may_contain(h, now) == expect);
    if (refresh == Refresh::yes) {
      f.insert(h, now);
      o.insert(h, now);
    } else {
      REQUIRE(f.insert_if_absent(h, now) == !expect);
      if (!expect) o.insert(h, now);
    }
    // A look ahead in time (const query) must agree too.
    tlbf::KeyHash q = key(rng() % 400);
    std::int64_t later =
        now + static_cast<std::int64_t>(rng() % (static_cast<std::uint64_t>(o.window) * (o.count ? 0 : 2) + 1));
    REQUIRE(f.may_contain(q, later) == o.contains(q, later));
    // The live count (read from the FIFO's expired front, not the table), now and later.
    if (i % 250 == 0) {
      REQUIRE(f.stats(now).live_keys == o.live(now));
      REQUIRE(f.stats(later).live_keys == o.live(later));
    }
  }
  CHECK(f.stats(now).live_keys == o.live(now));
}

}  // namespace

TEST_SUITE("exact") {
  TEST_CASE("time window agrees with a map oracle, insert_if_absent and refresh") {
    run_against_oracle(time_cfg(5 * tlbf::kSecond), Refresh::no, 1);
    run_against_oracle(time_cfg(5 * tlbf::kSecond), Refresh::yes, 2);
    run_against_oracle(time_cfg(1), Refresh::no, 3);  // one-nanosecond window
  }

  TEST_CASE("count window agrees with a map oracle, insert_if_absent and refresh") {
    run_against_oracle(count_cfg(100), Refresh::no, 4);
    run_against_oracle(count_cfg(100), Refresh::yes, 5);
    run_against_oracle(count_cfg(1), Refresh::yes, 6);
  }

  TEST_CASE("window boundaries are exact") {
    tlbf::ExactWindow t(time_cfg(10));
    t.insert(key(1), 100);
    CHECK(t.may_contain(key(1), 109));
    CHECK_FALSE(t.may_contain(key(1), 110));
    CHECK_FALSE(t.may_contain(key(2), 100));

    tlbf::ExactWindow c(count_cfg(3));
    c.insert(key(1), 0);
    c.insert(key(2), 0);
    c.insert(key(3), 0);
    CHECK(c.may_contain(key(1), 0));  // among the last 3 inserts
    c.insert(key(4), 0);
    CHECK_FALSE(c.may_contain(key(1), 0));
    CHECK(c.may_contain(key(2), 0));
  }

  TEST_CASE("fingerprint 0 is an ordinary key") {
    tlbf::ExactWindow f(count_cfg(2));
    tlbf::KeyHash zero{0, 123};
    CHECK(f.insert_if_absent(zero, 0));
    CHECK(f.may_contain(zero, 0));
    f.insert(key(1), 0);
    f.insert(key(2), 0);
    CHECK_FALSE(f.may_contain(zero, 0));
    CHECK(f.insert_if_absent(zero, 0));
  }

  TEST_CASE("memory stays bounded by the window, not by the keys that passed through") {
    tlbf::ExactWindow c(count_cfg(1000));
    for (std::uint64_t i = 0; i < 1000000; ++i) c.insert(tlbf::KeyHash{i * 0x9E3779B97F4A7C15ULL + 1, i}, 0);
    tlbf::FilterStats s = c.stats(0);
    CHECK(s.live_keys == 1000);
    CHECK(c.size() <= 1000);
    // 2048 table slots and 2048 FIFO records of 16 bytes each at most.
    CHECK(s.bits_allocated <= 2 * 2048 * 16 * 8);
    CHECK(s.bits_per_live_key > 0);

    tlbf::ExactWindow t(time_cfg(1000));
    for (std::int64_t i = 0; i < 1000000; ++i) t.insert(key(static_cast<std::uint64_t>(i)), i);
    CHECK(t.stats(999999).live_keys == 1000);
    CHECK(t.stats(999999).bits_allocated <= 2 * 2048 * 16 * 8);

    // Refreshing a few keys over and over must not grow the FIFO without bound.
    tlbf::ExactWindow r(time_cfg(1000000));
    for (std::int64_t i = 0; i < 1000000; ++i) r.insert(key(static_cast<std::uint64_t>(i % 10)), i);
    CHECK(r.stats(999999).live_keys == 10);
    CHECK(r.stats(999999).bits_allocated <= 16 * 64 * 8 * 3);

    // After a burst, an idle stretch lets the table shrink back.
    for (std::int64_t i = 0; i < 200000; ++i) t.insert(key(static_cast<std::uint64_t>(i) + 5000000), 2000000);
    std::uint64_t burst_bits = t.stats(2000000).bits_allocated;
    for (std::int64_t i = 0; i < 2000; ++i) t.insert(key(static_cast<std::uint64_t>(i)), 3000000 + i);
    CHECK(t.stats(3002000).bits_allocated * 16 < burst_bits);
  }

  TEST_CASE("save and load answer identically and keep going identically") {
    for (auto cfg : {time_cfg(500), count_cfg(300)}) {
      tlbf::ExactWindow a(cfg);
      std::mt19937_64 rng(11);
      std::int64_t now = 0;
      for (int i = 0; i < 5000; ++i) a.insert(key(rng() % 2000), now += static_cast<std::int64_t>(rng() % 3));
      tlbf::ByteWriter w;
      a.save(w);
      tlbf::ByteReader rd(w.data());
      REQUIRE(rd.u8() == static_cast<std::uint8_t>(tlbf::Algorithm::exact));
      auto b = tlbf::ExactWindow::load(rd);
      CHECK(rd.at_end());
      for (std::uint64_t i = 0; i < 2000; ++i)
        REQUIRE(a.may_contain(key(i), now + 100) == b->may_contain(key(i), now + 100));
      CHECK(a.stats(now).live_keys == b->stats(now).live_keys);
      CHECK(a.stats(now).keys_inserted == b->stats(now).keys_inserted);
      for (int i = 0; i < 3000; ++i) {
        tlbf::KeyHash h = key(rng() % 2000);
        now += static_cast<std::int64_t>(rng() % 3);
        REQUIRE(a.insert_if_absent(h, now) == b->insert_if_absent(h, now));
      }
    }
  }

  TEST_CASE("damaged state is refused with state_error") {
    tlbf::ExactWindow a(time_cfg(1000));
    for (std::int64_t i = 0; i < 50; ++i) a.insert(key(static_cast<std::uint64_t>(i)), i);
    tlbf::ByteWriter w;
    a.save(w);
    const std::string full = w.data().substr(1);  // without the algorithm tag
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
      tlbf::ByteReader r(std::string_view(full).substr(0, cut));
      CHECK_THROWS_AS(tlbf::ExactWindow::load(r), tlbf::state_error);
    }
    // Header layout: version(1) span(8) count(8) cap(8) peak(8) evictions(8) shortest window(8)
    // latest(8) inserted(8) n(8), then (fp, stamp).
    auto load = [](std::string s) {
      tlbf::ByteReader r(s);
      return tlbf::ExactWindow::load(r);
    };
    std::string bad = full;
    bad[0] = 9;  // unknown version
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
    bad = full;
    bad[9] = 1;  // both a span and a count
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
    bad = full;
    std::copy(full.begin() + 73, full.begin() + 81, bad.begin() + 89);  // duplicate fingerprint
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
    bad = full;
    std::copy(full.begin() + 113, full.begin() + 121, bad.begin() + 81);  // stamps out of order
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
    bad = full;
    bad[65] = static_cast<char>(0xFF);  // entry count beyond the payload
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
    bad = full;
    bad[17] = 0;  // a cap below the minimum
    bad[18] = 0;
    bad[19] = 0;
    bad[20] = 0;
    CHECK_THROWS_AS(load(bad), tlbf::state_error);
  }

  TEST_CASE("a format 1 state (no cap) still loads, with the default cap") {
    // Format 1: version(1) span(8) count(8) latest(8) inserted(8) n(8), then (fp, stamp).
    tlbf::ByteWriter w;
    w.u8(1);
    w.i64(1000);
    w.u64(0);
    w.i64(60);
    w.u64(3);
    w.u64(2);
    w.u64(key(1).lo);
    w.i64(10);
    w.u64(key(2).lo);
    w.i64(60);
    tlbf::ByteReader r(w.data());
    auto f = tlbf::ExactWindow::load(r);
    CHECK(r.at_end());
    CHECK(f->may_contain(key(1), 1009));
    CHECK_FALSE(f->may_contain(key(1), 1010));
    CHECK(f->may_contain(key(2), 1059));
    CHECK_FALSE(f->may_contain(key(3), 60));
    CHECK_FALSE(f->stats(60).memory_capped);
  }

  TEST_CASE("under the memory cap the oldest keys go first: the newest keys that fit are all kept") {
    for (bool count : {false, true}) {
      CAPTURE(count);
      tlbf::FilterConfig c = count ? count_cfg(1000000) : time_cfg(1000000);
      c.max_memory_bytes = 64 * 1024;
      tlbf::ExactWindow f(c);
      std::uint64_t first_bind = 0;
      for (std::uint64_t i = 1; i <= 100000; ++i) {
        f.insert(key(i), static_cast<tlbf::Time>(i));
        if (first_bind == 0 && f.cap_binds() > 0) first_bind = i;
        if (i % 1000 == 0) REQUIRE(f.stats(static_cast<tlbf::Time>(i)).peak_bits_allocated <= 64 * 1024 * 8);
      }
      const tlbf::FilterStats s = f.stats(100000);
      CHECK(first_bind > 0);
      CHECK(s.memory_capped);
      CHECK(s.cap_evictions == f.cap_binds());
      const std::uint64_t kept = count ? s.effective_count : static_cast<std::uint64_t>(s.effective_span);
      CAPTURE(kept);
      CHECK(kept > 1000);  // 64 KiB at most 48 bytes per key
      CHECK(kept < 4096);  // and at least 16
      for (std::uint64_t i = 100000 - kept + 1; i <= 100000; ++i) REQUIRE(f.may_contain(key(i), 100000));
      CHECK_FALSE(f.may_contain(key(1), 100000));  // evicted, though inside the configured window
    }
  }

  TEST_CASE("invalid parameters name the parameter") {
    tlbf::FilterConfig c;
    c.algorithm = tlbf::Algorithm::exact;
    CHECK_THROWS_AS(tlbf::ExactWindow{c}, tlbf::invalid_parameter);
    c.span = 10;
    c.window_count = 10;
    CHECK_THROWS_AS(tlbf::ExactWindow{c}, tlbf::invalid_parameter);
    c.window_count = 0;
    c.span = -1;
    CHECK_THROWS_WITH_AS(tlbf::ExactWindow{c}, doctest::Contains("span"), tlbf::invalid_parameter);
  }
}
