// Window properties of the APBF (count window) and TLBF (time window, both layouts where
// said) against an exact oracle, a hash map of key -> last insert (index or time), over streams of 10^6 records
// with a manual clock: a steady rate, a 10x burst, a ramp, idle gaps longer than the span,
// jumps of the rate by 10x to 10^6x up and down, and periodic keys repeating at 1.05 x the
// window. Checked: no false negatives inside the window (including the oldest key still in
// it, at every step); the tight window: records
// whose key was last inserted a window plus the stated slack ago (or never) are reported at
// most at 1.5 x the target false-positive rate, a periodic key's return included; the
// false-positive rate at steady state for targets 1e-1..1e-4; and the TLBF's return to
// k + l slices with a converged slice 0 once the rate settles (the behaviour of Figures 1-2
// of Rodrigues et al. 2023).
//
// Two ways of feeding the filter: the program's default, insert_if_absent (a duplicate does
// not renew its key), and insert-always (every record refreshes its key).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/apbf.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/time_limited.hpp"

namespace {

using tlbf::Duration;
using tlbf::Time;
constexpr Duration kUs = tlbf::kMicrosecond;
constexpr Duration kSec = tlbf::kSecond;

enum class Refresh { no, yes };

using filter_checks::count_config;
using filter_checks::key;
using filter_checks::time_config;

// Keys never inserted anywhere in these tests.
tlbf::KeyHash absent_key(std::uint64_t i) { return key((std::uint64_t{1} << 62) + i); }

// Record ids: a quarter repeat one of the last `recent` ids seen (ages spread over a few
// windows, so repeats fall inside, at the edge of and outside the window), the rest new.
class IdStream {
 public:
  IdStream(std::uint64_t seed, std::size_t recent) : rng_(seed), recent_(recent) {}
  std::uint64_t next() {
    std::uint64_t id;
    if (ring_.size() == recent_ && rng_() % 4 == 0) {
      id = ring_[rng_() % ring_.size()];
    } else {
      id = fresh_++;
    }
    if (ring_.size() < recent_) {
      ring_.push_back(id);
    } else {
      ring_[pos_] = id;
      pos_ = (pos_ + 1) % recent_;
    }
    return id;
  }

 private:
  std::mt19937_64 rng_;
  std::size_t recent_;
  std::vector<std::uint64_t> ring_;
  std::size_t pos_ = 0;
  std::uint64_t fresh_ = 0;
};

struct Outcome {
  std::uint64_t events = 0, inserts = 0, false_negatives = 0, edge_checks = 0;
  // Records whose key is beyond the window and its slack (or was never inserted), and of
  // those the ones reported: false positives, which must stay at the target rate.
  std::uint64_t beyond = 0, beyond_reported = 0;
  // Records of keys that were inserted before but are now beyond: the stale ones.
  std::uint64_t stale = 0, stale_reported = 0;

  // One record's answer against the oracle; `seen` says its key was inserted before.
  void record(bool in_window, bool is_beyond, bool seen, bool reported) {
    ++events;
    if (in_window && !reported) ++false_negatives;
    if (is_beyond) {
      ++beyond;
      beyond_reported += reported;
      if (seen) {
        ++stale;
        stale_reported += reported;
      }
    }
  }
};

struct Event {
  Time t;
  std::uint64_t id;
};

// `n` records of an IdStream, step(i) apart.
template <class Step>
std::vector<Event> id_stream_events(std::uint64_t seed, std::uint64_t n, Step step) {
  IdStream ids(seed, 60000);
  std::vector<Event> ev(n);
  Time now = kSec;
  for (std::uint64_t i = 0; i < n; ++i) {
    now += step(i);
    ev[i] = {now, ids.next()};
  }
  return ev;
}

// `keys` keys each repeating every `period` (random phases), among `unique_per_period` keys
// seen once per period, until `n` records; ids of the periodic keys are below `keys`.
std::vector<Event> periodic_events(Duration period, std::uint64_t keys, std::uint64_t unique_per_period,
                                   std::uint64_t n) {
  std::mt19937_64 rng(11);
  std::vector<Event> ev;
  ev.reserve(n + keys + unique_per_period);
  const std::uint64_t per_period = keys + unique_per_period;
  std::uint64_t fresh = keys;
  for (Time base = 0; ev.size() < n; base += period) {
    std::mt19937_64 phases(5);  // the same phase for a key in every period
    for (std::uint64_t k = 0; k < keys; ++k) ev.push_back({base + static_cast<Time>(phases() % period), k});
    for (std::uint64_t u = 0; u < unique_per_period; ++u)
      ev.push_back({base + static_cast<Time>(rng() % period), fresh++});
  }
  std::sort(ev.begin(), ev.end(),
            [](const Event& a, const Event& b) { return a.t < b.t || (a.t == b.t && a.id < b.id); });
  ev.resize(n - n % per_period);
  for (Event& e : ev) e.t += kSec;
  return ev;
}

// Drives a time-window filter through the events; observe(i, now), or observe(i, now, the
// outcome so far), runs after each record. A record is beyond when its key's last insert is
// at least span + slack old.
template <class Observe>
Outcome run_time_window(tlbf::TimeLimitedFilter& f, Duration span, Refresh refresh, const std::vector<Event>& events,
                        Observe observe) {
  Outcome out;
  const Duration slack = f.cell();
  std::unordered_map<std::uint64_t, Time> last;
  last.reserve(events.size());
  std::deque<std::pair<Time, std::uint64_t>> inserted;  // (time, id) in insert order
  for (std::uint64_t i = 0; i < events.size(); ++i) {
    const Time now = events[i].t;
    const std::uint64_t id = events[i].id;
    const tlbf::KeyHash h = key(id);
    auto it = last.find(id);
    const bool in_window = it != last.end() && now - it->second < span;
    const bool beyond = it == last.end() || now - it->second >= span + slack;
    const bool reported = f.may_contain(h, now);
    out.record(in_window, beyond, it != last.end(), reported);
    // The oldest insert still inside the window must be reported too.
    while (!inserted.empty() && now - inserted.front().first >= span) inserted.pop_front();
    if (!inserted.empty()) {
      ++out.edge_checks;
      if (!f.may_contain(key(inserted.front().second), now)) ++out.false_negatives;
    }
    if (refresh == Refresh::yes || !reported) {
      f.insert(h, now);
      last[id] = now;
      inserted.emplace_back(now, id);
      ++out.inserts;
    }
    if constexpr (std::is_invocable_v<Observe, std::uint64_t, Time, const Outcome&>)
      observe(i, now, out);
    else
      observe(i, now);
  }
  return out;
}

template <class Step, class Observe>
Outcome run_time_window(tlbf::TimeLimitedFilter& f, Duration span, Refresh refresh, std::uint64_t n, Step step,
                        Observe observe) {
  return run_time_window(f, span, refresh, id_stream_events(n + span, n, step), observe);
}

template <class Step>
Outcome run_time_window(tlbf::TimeLimitedFilter& f, Duration span, Refresh refresh, std::uint64_t n, Step step) {
  return run_time_window(f, span, refresh, n, step, [](std::uint64_t, Time) {});
}

// The count-window counterpart of run_time_window(): a key is inside the window while at
// most `window` inserts (its own included) have been made since its insert, and beyond it
// from window + g - 1 later inserts on (the tight window's slack is one generation).
Outcome run_count_window(tlbf::AgePartitionedFilter& f, std::uint64_t window, Refresh refresh,
                         const std::vector<std::uint64_t>& ids) {
  Outcome out;
  std::unordered_map<std::uint64_t, std::uint64_t> last;  // id -> index of its last insert
  std::vector<std::uint64_t> by_index(window);            // ring: id of insert number i
  for (const std::uint64_t id : ids) {
    auto it = last.find(id);
    const bool in_window = it != last.end() && it->second + window >= out.inserts;
    const bool beyond = it == last.end() || it->second + window + f.generation() <= out.inserts;
    const bool reported = f.may_contain(key(id), 0);
    out.record(in_window, beyond, it != last.end(), reported);
    if (out.inserts >= window) {
      ++out.edge_checks;
      if (!f.may_contain(key(by_index[out.inserts % window]), 0)) ++out.false_negatives;
    }
    if (refresh == Refresh::yes || !reported) {
      f.insert(key(id), 0);
      last[id] = out.inserts;
      by_index[out.inserts % window] = id;
      ++out.inserts;
    }
  }
  return out;
}

double rate(std::uint64_t hits, std::uint64_t of) {
  return of ? static_cast<double>(hits) / static_cast<double>(of) : 0.0;
}

std::string name(Refresh r) { return r == Refresh::yes ? "insert-always" : "insert_if_absent"; }

void report(const std::string& what, Refresh r, const Outcome& o) {
  MESSAGE(what << " (" << name(r) << "): " << o.events << " records, " << o.inserts << " inserts, " << o.edge_checks
               << " window-edge checks, " << o.false_negatives << " false negatives; " << o.beyond_reported << " of "
               << o.beyond << " records beyond window + slack reported (" << rate(o.beyond_reported, o.beyond)
               << "), of them stale keys " << o.stale_reported << " of " << o.stale);
}

// The tight window at the false-positive level: what lies beyond window + slack is reported
// no more often than a never-inserted key may be.
void check_tight(const Outcome& o, double target) {
  CHECK(o.false_negatives == 0);
  CHECK(o.beyond > 100000);
  CHECK(rate(o.beyond_reported, o.beyond) <= 1.5 * target);
  CHECK(rate(o.stale_reported, o.stale) <= 1.5 * target);
}

// Base load of the time-window tests: 20,000 records per 1 s span.
constexpr Duration kSpan = kSec;
constexpr Duration kBaseStep = 50 * kUs;
constexpr std::uint64_t kRecords = 1000000;

// A jump of the rate (issue 52, item 1), judged by the oracle of run_time_window() phase by
// phase: 10 records a second in a 60 s span for 1.5 spans (capacity 6,000: a first era 10x
// too large, as the program's default -c is for a slow stream), then `factor` times that for
// up to 200,000 records (1.5 spans at 10x; at 10^6x 100 ns apart, at 10^3x a backlog), then
// 10 a second again for 1.5 spans. In each phase the records beyond window + slack, together
// with 200 / target never-inserted keys (10^6 at most: 10 false positives at the target)
// asked at 8 points of it, are reported at most at 1.5 x the target; no record inside the
// window is missed, nor the oldest insert still in it at any step. The steady phase is the
// same for every factor: asked when `steady_too`.
void check_rate_jump(double target, double factor, bool steady_too) {
  constexpr Duration kJumpSpan = 60 * kSec;
  constexpr Duration kBaseGap = kSec / 10;
  const std::uint64_t slow = 3 * kJumpSpan / kBaseGap / 2;
  const auto fast = std::min<std::uint64_t>(200000, static_cast<std::uint64_t>(static_cast<double>(slow) * factor));
  const auto gap = static_cast<Duration>(static_cast<double>(kBaseGap) / factor);
  const std::uint64_t ends[3] = {slow, slow + fast, 2 * slow + fast};
  const auto probes = static_cast<std::uint64_t>(std::min(1e6, 200 / target)) / 8;
  auto f_made = tlbf::TimeLimitedFilter::make(time_config(kJumpSpan, target, 6000));
  tlbf::TimeLimitedFilter& f = *f_made;
  std::uint64_t asked[3] = {}, reported[3] = {}, probe = 0;
  Outcome at_end[3];
  auto step = [&](std::uint64_t i) { return i >= ends[0] && i < ends[1] ? gap : kBaseGap; };
  const Outcome o =
      run_time_window(f, kJumpSpan, Refresh::no, ends[2], step, [&](std::uint64_t i, Time now, const Outcome& so_far) {
        const std::size_t p = i < ends[0] ? 0 : i < ends[1] ? 1 : 2;
        const std::uint64_t begin = p == 0 ? 0 : ends[p - 1], every = (ends[p] - begin) / 8;
        if ((i - begin) % every == every / 2 && (p > 0 || steady_too))
          for (std::uint64_t q = 0; q < probes; ++q, ++asked[p]) reported[p] += f.may_contain(absent_key(probe++), now);
        if (i + 1 == ends[p]) at_end[p] = so_far;
      });
  const std::string names[3] = {"steady", "after the jump up", "after the jump down"};
  for (std::size_t p = 0; p < 3; ++p) {
    asked[p] += at_end[p].beyond - (p == 0 ? 0 : at_end[p - 1].beyond);
    reported[p] += at_end[p].beyond_reported - (p == 0 ? 0 : at_end[p - 1].beyond_reported);
  }
  MESSAGE("target " << target << ", jump " << factor << "x: " << o.false_negatives << " false negatives in " << o.events
                    << " records and " << o.edge_checks << " window-edge checks; false-positive rate "
                    << rate(reported[1], asked[1]) << " " << names[1] << ", " << rate(reported[2], asked[2]) << " "
                    << names[2] << " (" << reported[2] << " of " << asked[2] << "); " << f.slice_count() << " slices, "
                    << f.era_count() << " eras at the end");
  CHECK(o.false_negatives == 0);
  for (std::size_t p = steady_too ? 0 : 1; p < 3; ++p) {
    CAPTURE(names[p]);
    CHECK(rate(reported[p], asked[p]) <= 1.5 * target);
  }
}

}  // namespace

TEST_SUITE("window_properties") {
  TEST_CASE("tlbf: periodic keys repeating at 1.05 x the window are new every time") {
    // 2,000 keys every 1.05 s (span 1 s) among 18,000 keys seen once per period: each return
    // is 1.05 spans after the key's insert, beyond the slack (1/l of the span), so it must be
    // reported only at the false-positive rate.
    const double target = 1e-3;
    const std::vector<Event> ev = periodic_events(kSpan + kSpan / 20, 2000, 18000, kRecords);
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      auto f_made = tlbf::TimeLimitedFilter::make(time_config(kSpan, target, 20000));
      tlbf::TimeLimitedFilter& f = *f_made;
      REQUIRE(f.cell() < kSpan / 20);
      const Outcome o = run_time_window(f, kSpan, refresh, ev, [](std::uint64_t, Time) {});
      report("periodic at 1.05 spans", refresh, o);
      check_tight(o, target);
      CHECK(o.stale > 900000 / 10);  // the periodic keys' returns
    }
  }

  TEST_CASE("apbf: periodic keys returning after 1.05 x window_count inserts are new every time") {
    // 2,000 periodic keys among 19,000 unique ones per period of 21,000 records (1.05 x).
    std::vector<std::uint64_t> ids;
    for (const Event& e : periodic_events(kSpan, 2000, 19000, kRecords)) ids.push_back(e.id);
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      tlbf::AgePartitionedFilter f(count_config(20000, 1e-3));
      REQUIRE(f.generation() < 20000 / 20);
      const Outcome o = run_count_window(f, 20000, refresh, ids);
      report("apbf, periodic at 1.05 windows", refresh, o);
      check_tight(o, 1e-3);
      CHECK(o.stale > 80000);
    }
  }

  TEST_CASE("apbf: no false negatives among the last window_count inserts") {
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      IdStream stream(refresh == Refresh::yes ? 1 : 2, 3 * 20000);
      std::vector<std::uint64_t> ids(kRecords);
      for (auto& id : ids) id = stream.next();
      tlbf::AgePartitionedFilter f(count_config(20000, 0.01));
      const Outcome o = run_count_window(f, 20000, refresh, ids);
      report("apbf", refresh, o);
      CHECK(o.inserts > kRecords / 2);
      check_tight(o, 0.01);
    }
  }

  TEST_CASE("tlbf: no false negatives at a steady rate, in both layouts") {
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      tlbf::FilterConfig cfg = time_config(kSpan, 0.01, 20000);
      if (refresh == Refresh::yes) cfg.tlbf_layout = tlbf::TlbfLayout::slice_major;
      auto f_made = tlbf::TimeLimitedFilter::make(cfg);
      tlbf::TimeLimitedFilter& f = *f_made;
      const Outcome o = run_time_window(f, kSpan, refresh, kRecords, [](std::uint64_t) { return kBaseStep; });
      report("steady", refresh, o);
      CHECK(o.edge_checks > kRecords / 2);
      check_tight(o, 0.01);
      CHECK(f.slice_count() == f.k() + f.l());
    }
  }

  TEST_CASE("tlbf: a 10x burst grows the filter, which then returns to k + l slices, in both layouts") {
    for (const tlbf::TlbfLayout layout : {tlbf::TlbfLayout::bit_sliced, tlbf::TlbfLayout::slice_major})
      for (Refresh refresh : {Refresh::no, Refresh::yes}) {
        tlbf::FilterConfig cfg = time_config(kSpan, 0.01, 20000);
        cfg.tlbf_layout = layout;
        auto f_made = tlbf::TimeLimitedFilter::make(cfg);
        tlbf::TimeLimitedFilter& f = *f_made;
        // 10 s steady (200k records), 2 s at 10x (400k), then steady (400k records, 20 s).
        auto step = [](std::uint64_t i) { return i >= 200000 && i < 600000 ? kBaseStep / 10 : kBaseStep; };
        std::vector<std::size_t> slices_per_half_span;
        std::size_t peak = 0;
        std::vector<std::uint64_t> slice0_late;
        Time next_sample = kSec;
        const Outcome o = run_time_window(f, kSpan, refresh, kRecords, step, [&](std::uint64_t i, Time now) {
          peak = std::max(peak, f.slice_count());
          if (now >= next_sample) {
            slices_per_half_span.push_back(f.slice_count());
            next_sample += kSpan / 2;
          }
          if (i >= kRecords - 200000) slice0_late.push_back(f.slice(0).bits);  // the last 10 s
        });
        report("10x burst", refresh, o);
        std::ostringstream counts;
        for (std::size_t c : slices_per_half_span) counts << c << ' ';
        MESSAGE("slice count every 0.5 s (k+l = " << f.k() + f.l() << ", burst from 10 s to 12 s): " << counts.str());
        MESSAGE("peak " << peak << " slices; at the end " << f.slice_count() << " slices, slice 0 = " << f.slice(0).bits
                        << " bits");
        check_tight(o, 0.01);
        CHECK(peak > f.k() + f.l());
        CHECK(f.slice_count() == f.k() + f.l());
        if (layout == tlbf::TlbfLayout::bit_sliced) CHECK(f.era_count() == 1);
        const auto [lo, hi] = std::minmax_element(slice0_late.begin(), slice0_late.end());
        CHECK(static_cast<double>(*hi) <= 1.1 * static_cast<double>(*lo));
      }
  }

  TEST_CASE(
      "tlbf: the false-positive rate holds through jumps of the rate by 10x to 10^6x, up and down, 1e-2 and 1e-3") {
    // Before issue 52's fix: 1.1-2.2x the target after the jumps of 10^3x and more.
    for (const double target : {1e-2, 1e-3})
      for (const double factor : {1e1, 1e3, 1e5, 1e6}) {
        CAPTURE(target);
        CAPTURE(factor);
        check_rate_jump(target, factor, factor == 1e1);
      }
  }

  TEST_CASE("tlbf: the false-positive rate holds through jumps of the rate by 10x to 10^6x, up and down, 1e-5") {
    // Before issue 52's fix: 4.1-4.5x the target after the jumps of 10^3x and more, and 72,000
    // false negatives (the max_slices cap of 4,096 dropped live slices).
    for (const double factor : {1e1, 1e3, 1e5, 1e6}) {
      CAPTURE(factor);
      check_rate_jump(1e-5, factor, factor == 1e1);
    }
  }

  TEST_CASE("tlbf: no false negatives through a ramp up and down") {
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      auto f_made = tlbf::TimeLimitedFilter::make(time_config(kSpan, 0.001, 20000));
      tlbf::TimeLimitedFilter& f = *f_made;
      // The gap between records falls linearly from 50 us to 5 us and back, twice.
      auto step = [](std::uint64_t i) {
        const std::uint64_t phase = i % 500000;
        const std::uint64_t d = phase < 250000 ? phase : 500000 - phase;
        return kBaseStep - static_cast<Duration>(d * 45 / 250000) * kUs;
      };
      const Outcome o = run_time_window(f, kSpan, refresh, kRecords, step);
      report("ramp", refresh, o);
      check_tight(o, 0.001);
    }
  }

  TEST_CASE("tlbf: no false negatives across idle gaps longer than the span") {
    for (Refresh refresh : {Refresh::no, Refresh::yes}) {
      auto f_made = tlbf::TimeLimitedFilter::make(time_config(kSpan, 0.01, 20000));
      tlbf::TimeLimitedFilter& f = *f_made;
      // Every 100k records, a silence of 1.5 spans; every 100k + 50k, one of 0.9 span.
      auto step = [](std::uint64_t i) {
        if (i > 0 && i % 100000 == 0) return kSpan + kSpan / 2;
        if (i % 100000 == 50000) return kSpan * 9 / 10;
        return kBaseStep;
      };
      std::uint64_t stale_after_gap = 0;
      Time previous = 0;
      const Outcome o = run_time_window(f, kSpan, refresh, kRecords, step, [&](std::uint64_t, Time now) {
        // Right after a gap longer than the span nothing from before it can be reported.
        if (now - previous > kSpan) stale_after_gap += f.stats(now).live_keys > 1;
        previous = now;
      });
      report("idle gaps", refresh, o);
      check_tight(o, 0.01);
      CHECK(stale_after_gap == 0);
    }
  }

  TEST_CASE("false-positive rate at steady state is within 1.5x of the target (1e-1 .. 1e-4)") {
    for (double target : {1e-1, 1e-2, 1e-3, 1e-4}) {
      const std::uint64_t queries = static_cast<std::uint64_t>(200 / target);  // >= 100 / target
      const std::uint64_t points = 40;
      // APBF: window 10,000; measure over 4 cycles of k + l generations after warm-up.
      tlbf::AgePartitionedFilter a(count_config(10000, target));
      const std::uint64_t cycle = (a.k() + a.l()) * a.generation();
      std::uint64_t id = 0, hits = 0, asked = 0;
      for (std::uint64_t i = 0; i < 2 * cycle; ++i) a.insert(key(id++), 0);
      for (std::uint64_t p = 0; p < points; ++p) {
        for (std::uint64_t i = 0; i < cycle / 10 + 7; ++i) a.insert(key(id++), 0);  // lands all over a generation
        for (std::uint64_t q = 0; q < queries / points; ++q, ++asked) hits += a.may_contain(absent_key(asked), 0);
      }
      const double apbf_rate = static_cast<double>(hits) / static_cast<double>(asked);

      // TLBF: 10,000 records per 1 s span, capacity as configured; 5 s of warm-up, then
      // measurements spread over 4 s.
      auto t_made = tlbf::TimeLimitedFilter::make(time_config(kSec, target, 10000));
      tlbf::TimeLimitedFilter& t = *t_made;
      Time now = 0;
      hits = 0;
      asked = 0;
      for (std::uint64_t i = 0; i < 50000; ++i) t.insert(key(id++), now += 100 * kUs);
      for (std::uint64_t p = 0; p < points; ++p) {
        for (std::uint64_t i = 0; i < 997; ++i) t.insert(key(id++), now += 100 * kUs);
        for (std::uint64_t q = 0; q < queries / points; ++q, ++asked) hits += t.may_contain(absent_key(asked), now);
      }
      const double tlbf_rate = static_cast<double>(hits) / static_cast<double>(asked);
      MESSAGE("target " << target << ": apbf (k=" << a.k() << ", l=" << a.l() << ") " << apbf_rate
                        << ", tlbf (k=" << t.k() << ", l=" << t.l() << ", " << t.slice_count() << " slices, "
                        << t.stats(now).bits_per_live_key << " bits per live key) " << tlbf_rate << " over " << asked
                        << " absent keys");
      CHECK(apbf_rate <= 1.5 * target);
      CHECK(tlbf_rate <= 1.5 * target);
      CHECK(tlbf_rate > 0);  // the measurement can see false positives at all
    }
  }

  TEST_CASE("tlbf sizing follows the rate: under- and over-dimensioned filters converge (paper Figs 1-2)") {
    // The paper's setting, in its paper-faithful mode (slice-major): error 0.1, a 300 s span,
    // a record every 0.1 s (3000 per span), initial capacity 1000 (under) and 10000 (over).
    // 30000 records: 10 spans.
    for (std::uint64_t capacity : {1000ull, 10000ull}) {
      tlbf::FilterConfig cfg = time_config(300 * kSec, 0.1, capacity);
      cfg.tlbf_layout = tlbf::TlbfLayout::slice_major;
      auto f_made = tlbf::TimeLimitedFilter::make(cfg);
      tlbf::TimeLimitedFilter& f = *f_made;
      const std::size_t base = f.k() + f.l();
      std::size_t peak = 0;
      std::vector<std::uint64_t> slice0_last_span;
      std::ostringstream trace;
      Time now = 0;
      for (std::uint64_t i = 0; i < 30000; ++i) {
        f.insert(key(i), now += 100 * tlbf::kMillisecond);
        peak = std::max(peak, f.slice_count());
        if (i % 1500 == 0) trace << f.slice_count() << '/' << f.slice(0).bits << ' ';
        if (i >= 27000) slice0_last_span.push_back(f.slice(0).bits);
      }
      MESSAGE("capacity " << capacity << " (k=" << f.k() << ", l=" << f.l()
                          << "): slices/slice-0 bits every 150 s: " << trace.str());
      // Expected slice 0 at the settled rate: k generations of 3000/l records, the headroom.
      const double expected = f.k() * 3000.0 / f.l() * tlbf::TimeLimitedFilter::kHeadroom / 0.6931471805599453;
      const auto [lo, hi] = std::minmax_element(slice0_last_span.begin(), slice0_last_span.end());
      CHECK(f.slice_count() == base);
      CHECK(static_cast<double>(*hi) <= 1.1 * static_cast<double>(*lo));
      CHECK(static_cast<double>(f.slice(0).bits) == doctest::Approx(expected).epsilon(0.1));
      if (capacity == 1000) CHECK(peak > base);    // under-dimensioned: it had to grow
      if (capacity == 10000) CHECK(peak == base);  // over-dimensioned: never grows
    }
  }

  TEST_CASE("bit-sliced sizing follows the rate: under- and over-dimensioned filters settle in one era sized for it") {
    // The same stream and layouts: an initial size 3x too small or too large is replaced (an
    // upsampled or folded first era, or a new one) and the filter ends in one era of k + l
    // slices sized for k generations of 3000 / l records, with both headrooms.
    for (std::uint64_t capacity : {1000ull, 10000ull}) {
      auto f_made = tlbf::TimeLimitedFilter::make(time_config(300 * kSec, 0.1, capacity));
      tlbf::TimeLimitedFilter& f = *f_made;
      REQUIRE(f.layout() == tlbf::TlbfLayout::bit_sliced);
      Time now = 0;
      std::size_t most = 0;
      for (std::uint64_t i = 0; i < 30000; ++i) {
        f.insert(key(i), now += 100 * tlbf::kMillisecond);
        most = std::max(most, f.era_count());
      }
      const double h = tlbf::TimeLimitedFilter::kHeadroom;
      const double expected = f.k() * 3000.0 / f.l() * h * h / 0.6931471805599453;
      MESSAGE("capacity " << capacity << ": at most " << most << " eras, at the end " << f.era_count() << " of "
                          << f.slice_count() << " slices of " << f.slice(0).bits << " bits (expected " << expected
                          << ")");
      CHECK(f.era_count() == 1);
      CHECK(f.slice_count() == f.k() + f.l());
      CHECK(most <= 2);
      CHECK(static_cast<double>(f.slice(0).bits) == doctest::Approx(expected).epsilon(0.07));
    }
  }
}
