// The error rate holds at every size (issue 10, item 3): for every filter, windows of 10 to
// 10^6 live keys and targets 1e-2 .. 1e-9, fed by insert_if_absent (duplicates do not renew)
// and by insert-always (--refresh), the false-positive rate stays within 1.5x the target.
//
// The age-partitioned filters (TLBF, APBF). The rate is taken from the filter's state, not
// sampled: a never-inserted key probes each slice at a uniform position, so it is reported
// with probability
//   1 - prod over accepted runs j of (1 - prod over p < k of ones(j + p) / bits(j + p)),
// exactly what infinitely many queries would measure at that moment (the runs probe
// different hashes, so they are independent). That reaches targets like 1e-9 that no
// test could sample; for 1e-2 and 1e-3 the sampled rate is checked against it as well.
// Both are averaged over 16 moments spread across the last window of a stream three
// windows long (two at 10^6 keys), where a quarter of the records repeat a recent key.
//
// The guarded epoch filters (plain and blocked count windows, the time window) and the exact
// filter, built through make_filter() from error_rate alone. The filter is filled with a
// stream in which a quarter of the records repeat a recent key, for two windows (so the time
// window's epochs are sized from measured rates, not from capacity alone), then asked about
// keys never inserted. Queries scale with the target and the size: 200/target where that is
// affordable (targets 1e-2 and 1e-3), so a rate 1.5x the target would show as 300 false
// positives against 200 expected. At 1e-5 the test asks 10^6 (10 expected); below that 10^5,
// and at 10^6 live keys and for the exact filter 10^5 too: there it can only show that no
// false positive occurs, which a rate of 1.5x the target would also give. The check is at
// most 1.5 x target x queries + 2 false positives. The 10^6 size runs for the target 1e-3
// only, to keep the test fast under the sanitizers. TLBF_FPR_FULL=1 runs the whole grid (all
// targets at 10^6, 200/target queries up to 2·10^7), for the table in docs/filters.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/apbf.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

namespace {
namespace age_partitioned {

using filter_checks::key;
using tlbf::Time;

enum class Refresh { no, yes };

// The probability above, for a filter with slice(pos) and k(); `accepted(view)` says whether
// the run whose youngest slice is that view is accepted (the filter's window rule).
template <class F, class Accepted>
double state_fpr(const F& f, std::size_t slices, Accepted&& accepted) {
  std::vector<tlbf::SliceView> v(slices);
  for (std::size_t pos = 0; pos < slices; ++pos) v[pos] = f.slice(pos);
  double none = 1.0;
  for (std::size_t j = 0; j + f.k() <= slices && accepted(v[j]); ++j) {
    double all = 1.0;
    for (std::uint32_t p = 0; p < f.k(); ++p)
      all *= static_cast<double>(v[j + p].ones) / static_cast<double>(v[j + p].bits);
    none *= 1.0 - all;
  }
  return 1.0 - none;
}

struct Measured {
  double mean = 0, max = 0, sampled = -1;  // sampled: -1 when not sampled
};

// Records: a quarter repeat one of the last 3 x size ids, the rest are new.
class Records {
 public:
  explicit Records(std::uint64_t size) : recent_(3 * size), rng_(size) {}
  std::uint64_t next() {
    std::uint64_t id = (ring_.size() == recent_ && rng_() % 4 == 0) ? ring_[rng_() % recent_] : fresh_++;
    if (ring_.size() < recent_)
      ring_.push_back(id);
    else
      ring_[pos_++ % recent_] = id;
    return id;
  }

 private:
  std::uint64_t recent_;
  std::mt19937_64 rng_;
  std::vector<std::uint64_t> ring_;
  std::uint64_t pos_ = 0, fresh_ = 0;
};

// Feeds 3 windows of records (`per_window` of them), then measures at 16 moments of the
// last one. step(f, id) feeds one record; fpr(f) is the state rate; query(f, i) asks for
// the i-th never-inserted key.
template <class F, class Feed, class Fpr, class Query>
Measured measure(F& f, std::uint64_t per_window, double target, Refresh refresh, Feed&& feed, Fpr&& fpr,
                 Query&& query) {
  Records records(per_window);
  // A 10^6-key window is measured over its second window, to keep the test quick.
  const std::uint64_t windows = per_window >= 1000000 ? 2 : 3;
  const std::uint64_t total = windows * per_window, from = (windows - 1) * per_window;
  const std::uint64_t every = std::max<std::uint64_t>(1, per_window / 16);
  Measured m;
  std::uint64_t samples = 0, asked = 0, hits = 0;
  const std::uint64_t queries = target >= 1e-3 ? static_cast<std::uint64_t>(100 / target) / 16 : 0;
  for (std::uint64_t i = 0; i < total; ++i) {
    const std::uint64_t id = records.next();
    feed(f, id, refresh);
    if (i >= from && (i - from) % every == every - 1) {
      const double r = fpr(f);
      m.mean += r;
      m.max = std::max(m.max, r);
      ++samples;
      for (std::uint64_t q = 0; q < queries; ++q, ++asked) hits += query(f, asked);
    }
  }
  m.mean /= static_cast<double>(samples);
  if (asked) m.sampled = static_cast<double>(hits) / static_cast<double>(asked);
  return m;
}

tlbf::KeyHash absent(std::uint64_t i) { return key((std::uint64_t{1} << 62) + i); }

// One filter kind over sizes and targets, both insert modes; `run` builds and measures.
template <class Run>
void table(const char* name, const std::vector<std::uint64_t>& sizes, const std::vector<double>& targets, Run&& run) {
  std::ostringstream out;
  out << name << ": size target mode -> state fpr mean/max (ratio to target), sampled\n";
  for (std::uint64_t size : sizes) {
    for (double target : targets) {
      for (Refresh refresh : {Refresh::no, Refresh::yes}) {
        const Measured m = run(size, target, refresh);
        out << "  " << size << ' ' << target << ' ' << (refresh == Refresh::yes ? "always" : "if_absent") << " -> "
            << m.mean << '/' << m.max << " (" << m.mean / target << "x)";
        if (m.sampled >= 0) out << ", sampled " << m.sampled;
        out << '\n';
        INFO(name << " size " << size << " target " << target);
        CHECK(m.mean <= 1.5 * target);
        CHECK(m.max <= 2.0 * target);  // no moment far above it either
        if (m.sampled >= 0) CHECK(m.sampled <= 1.5 * target);
      }
    }
  }
  MESSAGE(out.str());
}

Measured run_apbf(std::uint64_t size, double target, Refresh refresh) {
  tlbf::AgePartitionedFilter f(filter_checks::count_config(size, target));
  auto feed = [](tlbf::AgePartitionedFilter& g, std::uint64_t id, Refresh r) {
    if (r == Refresh::yes)
      g.insert(key(id), 0);
    else
      g.insert_if_absent(key(id), 0);
  };
  auto fpr = [size](const tlbf::AgePartitionedFilter& g) {
    const std::uint64_t inserted = g.stats(0).keys_inserted;
    return state_fpr(g, g.slices(), [&](const tlbf::SliceView& v) {
      const auto last = static_cast<std::uint64_t>(v.run_last);
      return last != 0 && last + size > inserted;
    });
  };
  auto query = [](const tlbf::AgePartitionedFilter& g, std::uint64_t i) { return g.may_contain(absent(i), 0); };
  return measure(f, size, target, refresh, feed, fpr, query);
}

Measured run_tlbf(std::uint64_t size, double target, Refresh refresh) {
  const tlbf::Duration span = tlbf::kSecond, step = span / static_cast<tlbf::Duration>(size);
  auto f_made = tlbf::TimeLimitedFilter::make(filter_checks::time_config(span, target, size));
  tlbf::TimeLimitedFilter& f = *f_made;
  Time now = 0;
  auto feed = [&now, step](tlbf::TimeLimitedFilter& g, std::uint64_t id, Refresh r) {
    now += step;
    if (r == Refresh::yes)
      g.insert(key(id), now);
    else
      g.insert_if_absent(key(id), now);
  };
  auto fpr = [&now, span](const tlbf::TimeLimitedFilter& g) {
    return state_fpr(g, g.slice_count(), [&](const tlbf::SliceView& v) { return v.run_last > now - span; });
  };
  auto query = [&now](const tlbf::TimeLimitedFilter& g, std::uint64_t i) { return g.may_contain(absent(i), now); };
  return measure(f, size, target, refresh, feed, fpr, query);
}

const std::vector<double> kTargets{1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};

}  // namespace age_partitioned

namespace epoch_and_exact {

using tlbf::Duration;
using tlbf::Time;

tlbf::KeyHash key(std::uint64_t i) { return tlbf::hash_key(&i, sizeof i, 21); }
tlbf::KeyHash never_inserted(std::uint64_t i) { return tlbf::hash_key(&i, sizeof i, 22); }

enum class Kind { gebf_count, gebf_blocked_count, gebf_time, gebf_blocked_time, exact_count, exact_time };

std::string name(Kind k) {
  switch (k) {
    case Kind::gebf_count:
      return "gebf count";
    case Kind::gebf_blocked_count:
      return "gebf-blocked count";
    case Kind::gebf_time:
      return "gebf time";
    case Kind::gebf_blocked_time:
      return "gebf-blocked time";
    case Kind::exact_count:
      return "exact count";
    case Kind::exact_time:
      return "exact time";
  }
  return "?";
}

bool full_grid() {
  const char* v = std::getenv("TLBF_FPR_FULL");
  return v != nullptr && std::string(v) == "1";
}

struct Measured {
  std::uint64_t queries = 0, positives = 0;
};

// Fills a filter of `kind` holding `live` keys at `target` and asks never-inserted keys.
Measured measure(Kind kind, std::uint64_t live, double target, bool insert_always, std::uint64_t queries) {
  const bool time = kind == Kind::gebf_time || kind == Kind::gebf_blocked_time || kind == Kind::exact_time;
  const Duration span = 100 * tlbf::kSecond;
  tlbf::FilterConfig c;
  c.algorithm =
      (kind == Kind::exact_count || kind == Kind::exact_time) ? tlbf::Algorithm::exact : tlbf::Algorithm::gebf;
  c.gebf_blocked = kind == Kind::gebf_blocked_count || kind == Kind::gebf_blocked_time;
  c.error_rate = target;
  c.capacity = live;
  if (time)
    c.span = span;
  else
    c.window_count = live;
  std::unique_ptr<tlbf::WindowFilter> f = tlbf::make_filter(c);
  // Two windows of inserts; a time window gets `live` inserts per span.
  std::mt19937_64 rng(live * 31 + static_cast<std::uint64_t>(kind));
  const Duration step = std::max<Duration>(1, span / static_cast<Duration>(live));
  Time now = 0;
  std::uint64_t next = 0, inserts = 0;
  while (inserts < 2 * live) {
    now += step;
    const std::uint64_t id =
        (next > 8 && rng() % 4 == 0) ? next - 1 - rng() % std::min<std::uint64_t>(next, live / 2 + 1) : next++;
    if (insert_always) {
      f->insert(key(id), now);
      ++inserts;
    } else if (f->insert_if_absent(key(id), now)) {
      ++inserts;
    }
  }
  Measured m;
  m.queries = queries;
  for (std::uint64_t i = 0; i < queries; ++i) m.positives += f->may_contain(never_inserted(i), now) ? 1 : 0;
  return m;
}

// Every size and target for one filter kind (see the top of the file).
void check_every_size(Kind kind) {
  const bool full = full_grid();
  const bool exact = kind == Kind::exact_count || kind == Kind::exact_time;
  for (std::uint64_t live : {std::uint64_t{10}, std::uint64_t{1000}, std::uint64_t{100000}, std::uint64_t{1000000}}) {
    for (double target : {1e-2, 1e-3, 1e-5, 1e-7, 1e-9}) {
      if (live == 1000000 && target != 1e-3 && !full) continue;
      const double affordable = full ? 2e7 : (live >= 1000000 || exact || target < 1e-5) ? 1e5 : 1e6;
      const auto queries = static_cast<std::uint64_t>(std::min(200.0 / target, affordable));
      for (bool always : {false, true}) {
        CAPTURE(name(kind));
        CAPTURE(live);
        CAPTURE(target);
        CAPTURE(always);
        const Measured m = measure(kind, live, target, always, queries);
        const double rate = static_cast<double>(m.positives) / static_cast<double>(m.queries);
        MESSAGE(name(kind) << " live=" << live << " target=" << target
                           << std::string(always ? " insert-always" : " insert_if_absent") << ": " << m.positives
                           << " of " << m.queries << " (rate " << rate << ", " << rate / target << "x)");
        if (exact) {
          CHECK(m.positives == 0);  // only 64-bit fingerprint collisions could answer yes
        } else {
          CHECK(static_cast<double>(m.positives) <= 1.5 * target * static_cast<double>(m.queries) + 2.0);
        }
      }
    }
  }
}

}  // namespace epoch_and_exact

using age_partitioned::kTargets;
using age_partitioned::run_apbf;
using age_partitioned::run_tlbf;
using age_partitioned::table;
using epoch_and_exact::check_every_size;
using epoch_and_exact::Kind;

}  // namespace

TEST_SUITE("fpr_sizes") {
  TEST_CASE("apbf: the error rate holds for windows of 10 to 10^5 keys, targets 1e-2 to 1e-9") {
    table("apbf", {10, 100, 1000, 10000, 100000}, kTargets, run_apbf);
  }
  TEST_CASE("tlbf: the error rate holds for 10 to 10^5 keys per span, targets 1e-2 to 1e-9") {
    table("tlbf", {10, 100, 1000, 10000, 100000}, kTargets, run_tlbf);
  }
  TEST_CASE("apbf and tlbf: the error rate holds at 10^6 live keys") {
    table("apbf", {1000000}, {1e-2, 1e-9}, run_apbf);
    table("tlbf", {1000000}, {1e-2, 1e-9}, run_tlbf);
  }
  TEST_CASE("gebf count: false-positive rate <= 1.5x the target at every size") { check_every_size(Kind::gebf_count); }
  TEST_CASE("gebf-blocked count: false-positive rate <= 1.5x the target at every size") {
    check_every_size(Kind::gebf_blocked_count);
  }
  TEST_CASE("gebf time: false-positive rate <= 1.5x the target at every size") { check_every_size(Kind::gebf_time); }
  TEST_CASE("gebf-blocked time: false-positive rate <= 1.5x the target at every size") {
    check_every_size(Kind::gebf_blocked_time);
  }
  TEST_CASE("exact count: no false positives at any size") { check_every_size(Kind::exact_count); }
  TEST_CASE("exact time: no false positives at any size") { check_every_size(Kind::exact_time); }
}
