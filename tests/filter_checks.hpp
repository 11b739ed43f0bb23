// Checks shared by the filters' unit tests: keys from integers, time- and count-window
// configurations, save/load round trips and damaged-state loading, prefetch() as a hint only. A filter type F here has
// save(), static load(ByteReader&), may_contain(), insert() and stats().
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tlbf/config.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/types.hpp"

namespace filter_checks {

inline tlbf::KeyHash key(std::uint64_t i) { return tlbf::hash_key(&i, sizeof i); }

inline tlbf::FilterConfig time_config(tlbf::Duration span, double error_rate, std::uint64_t capacity) {
  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::tlbf;
  cfg.span = span;
  cfg.error_rate = error_rate;
  cfg.capacity = capacity;
  return cfg;
}

inline tlbf::FilterConfig count_config(std::uint64_t window, double error_rate) {
  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::apbf;
  cfg.window_count = window;
  cfg.error_rate = error_rate;
  return cfg;
}

template <class F>
std::string saved(const F& f) {
  tlbf::ByteWriter w;
  f.save(w);
  return w.take();
}

// prefetch() is a hint: a filter told of each key a few decisions ahead decides every key as
// a twin that was not told, and ends in the same state. `make()` returns a new filter (any
// pointer-like owner); one decision every `step` ns, 30 % of them repeats.
template <class Make>
void check_prefetch_is_a_hint(Make&& make, tlbf::Duration step) {
  auto told = make();
  auto twin = make();
  std::mt19937_64 rng(9);
  std::vector<tlbf::KeyHash> keys(20000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = key(i > 0 && rng() % 10 < 3 ? rng() % i : i);
  tlbf::Time now = 0;
  std::size_t news = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t a = i; a < std::min(keys.size(), i + 4); ++a) told->prefetch(keys[a]);
    now += step;
    const bool fresh = twin->insert_if_absent(keys[i], now);
    REQUIRE(told->insert_if_absent(keys[i], now) == fresh);
    news += fresh;
  }
  CHECK(news > keys.size() / 2);  // mostly new, some repeats found: both answers occur
  CHECK(news < keys.size());
  CHECK(saved(*told) == saved(*twin));
}

// Loads a payload written by save(): reads the tag byte, then the filter's own load().
template <class F>
auto load(const std::string& payload, std::uint8_t tag) {
  tlbf::ByteReader r(payload);
  REQUIRE(r.u8() == tag);
  auto f = F::load(r);
  CHECK(r.at_end());
  return f;
}

// After a round trip the copy answers every query as the original, and the same further
// inserts leave both in the same state.
template <class F>
void check_round_trip(F& original, std::uint8_t tag, tlbf::Time now, tlbf::Duration step) {
  const std::string bytes = saved(original);
  auto copy = load<F>(bytes, tag);
  CHECK(saved(*copy) == bytes);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const tlbf::KeyHash h = key(i);
    const tlbf::Time t = now + static_cast<tlbf::Duration>(i % 7) * step;
    CHECK(copy->may_contain(h, t) == original.may_contain(h, t));
  }
  for (std::uint64_t i = 0; i < 5000; ++i) {
    now += step / 64 + 1;
    original.insert(key(1000000 + i), now);
    copy->insert(key(1000000 + i), now);
  }
  CHECK(saved(*copy) == saved(original));
  CHECK(copy->stats(now).slices == original.stats(now).slices);
}

// Every truncation is refused with state_error; random byte flips either are refused with
// state_error or give a filter that still works. Never a crash or a read out of bounds
// (run under -DTLBF_SANITIZE=ON to make that visible).
template <class F>
void check_damaged_state(const F& f, std::uint8_t tag, tlbf::Time now, tlbf::Duration step) {
  const std::string bytes = saved(f);
  REQUIRE(static_cast<std::uint8_t>(bytes[0]) == tag);
  for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
    tlbf::ByteReader r(std::string_view(bytes).substr(0, cut));
    r.u8();
    CHECK_THROWS_AS(F::load(r), tlbf::state_error);
  }
  std::mt19937_64 rng(12345);
  int refused = 0, loaded = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < flips; ++j) {
      // Half the flips go to the first 200 bytes, where the parameters and counters are.
      const std::size_t limit = (rng() & 1) ? std::min<std::size_t>(bytes.size(), 200) : bytes.size();
      damaged[1 + rng() % (limit - 1)] ^= static_cast<char>(1 + rng() % 255);
    }
    tlbf::ByteReader r(damaged);
    r.u8();
    try {
      auto g = F::load(r);
      ++loaded;
      tlbf::Time t = now;
      for (std::uint64_t i = 0; i < 300; ++i) {
        t += step;
        (void)g->may_contain(key(i), t);
        g->insert(key(i), t);
      }
      (void)g->stats(t);
      (void)saved(*g);
    } catch (const tlbf::state_error&) {
      ++refused;
    }
  }
  MESSAGE("damaged payloads: " << refused << " refused, " << loaded << " loaded and still working");
  CHECK(refused > 0);
}

}  // namespace filter_checks
