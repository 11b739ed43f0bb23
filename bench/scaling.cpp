// Cost as the work grows: how fast a window filter decides, and how many bits it holds per
// live key, when the window holds 10^3, 10^5, 10^6 and 10^7 distinct keys. One table row per
// filter and window size: tlbf and gebf at the program's default error rate (1e-5) and at
// 1e-3, and exact; then, for tlbf and gebf, the throughput at 10^7 live keys over the one at
// 10^5 (the filter leaves the caches between the two) against the target of at least 50 %.
//
// Two ways of deciding the same stream, alternating rep by rep on one filter: one key at a
// time, as the program does, and in batches (hash B keys, WindowFilter::prefetch() each,
// then decide them in order: the same decisions, with the first cache misses of B keys in
// flight together).
//
// The floor of the layout. For tlbf and gebf the table gives the words a decision reads
// (loads): the expected count under the filter's own fill, from what it exposes (the TLBF's
// slice view, the GEBF's consulted blocks) after the timed reps, nothing counted in the
// library's hot path. The query reads probe 0 of every candidate (accepted run, consulted
// block) and probe p of each candidate whose probes 0..p-1 all hit, each with the chance
// the fill of its slice or block gives; a new key adds the k words of its insert; a repeat
// finds its own candidate, whose k probes all hit, instead of its share of the misses. Then
// the floor column times that many independent random 8-byte loads per decision in an array
// of the filter's size (all of them can be in flight at once: the best the memory system
// does for that many lines), and the summary sets its 10^7 / 10^5 ratio beside the filter's.
//
// The stream is the program's decide step on a steady log: insert_if_absent() on keys of
// which 30 % repeat one of the keys still inside the window (like gen_events.py's steady
// profile) and the rest are new. The clock is a manual one that advances one tick per new
// key, so a window of N ticks holds exactly N live keys whatever the repeats. Filters are
// built by make_filter() with the program's defaults (initial capacity, memory cap) and only
// the algorithm, the span and the error rate set, and driven through the WindowFilter
// interface.
//
// Invariants that keep the figures honest: the window is filled first (the new keys of two
// spans by default, so the first span's slices have expired and been recycled at the observed
// rate) and only a fixed number of decisions after that is timed, each rep continuing the same stream; keys
// are hashed inside the timed loop as the program hashes its key bytes; every answer feeds a
// sink; throughput is decisions per second of thread CPU time, the median of --reps.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "tlbf/config.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"
#include "tlbf/timed_epoch.hpp"
#include "tlbf/types.hpp"

#include "common.hpp"

namespace {

using tlbf::Algorithm;
using tlbf::FilterConfig;
using tlbf::Time;
using tlbf_bench::cpu_seconds;
using tlbf_bench::key_hash;
using tlbf_bench::median;

struct Options {
  int reps = 5;
  std::uint64_t decisions = 1'000'000;  // timed decisions per rep
  std::uint64_t max_live = 10'000'000;  // largest window size run
  double fill_spans = 2;                // untimed spans of the stream before timing
  std::size_t batch = 8;                // keys hashed and prefetched ahead in the batched mode
  std::string only;                     // run only the subjects of this name (empty: all)
};

constexpr std::uint64_t kLiveSizes[] = {1'000, 100'000, 1'000'000, 10'000'000};
constexpr std::uint64_t kRatioFrom = 100'000, kRatioTo = 10'000'000;
constexpr double kRatioTarget = 0.5;
using tlbf_bench::kRepeatShare;
using tlbf_bench::kTick;
using tlbf_bench::SteadyStream;

struct Subject {
  const char* name;
  Algorithm algorithm;
  double error_rate;
};
constexpr Subject kSubjects[] = {{"tlbf", Algorithm::tlbf, 1e-5},
                                 {"tlbf", Algorithm::tlbf, 1e-3},
                                 {"gebf", Algorithm::gebf, 1e-5},
                                 {"gebf", Algorithm::gebf, 1e-3},
                                 {"exact", Algorithm::exact, 1e-5}};

struct Row {
  double mdps = 0;          // million decisions per CPU second, median
  double batched_mdps = 0;  // the same, deciding in batches of Options::batch
  double loads = 0;         // expected words a decision reads (0: not estimated)
  double floor_mdps = 0;    // decisions per CPU second at `loads` independent loads each
  double bits_per_key = 0;  // bits allocated / true live keys, after the last rep
  double own_estimate = 0;  // the filter's own stats().bits_per_live_key
  double new_share = 0;     // decisions answered "new", over all reps
  double fill_seconds = 0;  // CPU seconds of the untimed fill
};

// A query's candidates (accepted runs, consulted blocks), each as the chances that its
// probes 0, 1, ... hit; and the k words an insert sets, and the k of a present key's own
// candidate.
struct QueryShape {
  std::vector<std::vector<double>> candidates;
  double insert_words = 0;
  double own_probes = 0;
};

// What the filter exposes about its query at `now`; empty for a filter that exposes nothing.
QueryShape query_shape(const tlbf::WindowFilter& f, Time now, tlbf::Duration span) {
  QueryShape q;
  if (const auto* t = dynamic_cast<const tlbf::TimeLimitedFilter*>(&f)) {
    std::vector<tlbf::SliceView> v;
    for (std::size_t pos = 0; pos < t->slice_count(); ++pos) v.push_back(t->slice(pos));
    const std::uint32_t k = t->k();
    for (std::size_t j = 0; j + k <= v.size() && v[j].run_last > now - span; ++j) {
      q.candidates.emplace_back();
      for (std::uint32_t p = 0; p < k; ++p)
        q.candidates.back().push_back(static_cast<double>(v[j + p].ones) / static_cast<double>(v[j + p].bits));
    }
    q.insert_words = q.own_probes = k;
  } else if (const auto* g = dynamic_cast<const tlbf::TimedEpochFilter*>(&f)) {
    for (const auto& b : g->consulted_blocks(now)) {
      q.candidates.emplace_back(b.k, static_cast<double>(b.ones) / static_cast<double>(b.bits));
      if (b.takes_inserts) q.insert_words = q.own_probes = b.k;
    }
  }
  return q;
}

// Expected words one decision reads (see the top of the file), `new_share` of them new keys.
double expected_loads(const QueryShape& q, double new_share) {
  if (q.candidates.empty()) return 0;
  double absent = 0;  // a key found in no candidate: probe p of a candidate whose 0..p-1 hit
  for (const auto& c : q.candidates) {
    double reached = 1;
    for (double hit : c) {
      absent += reached;
      reached *= hit;
    }
  }
  const double own_share = absent / static_cast<double>(q.candidates.size());
  return new_share * (absent + q.insert_words) + (1 - new_share) * (absent - own_share + q.own_probes);
}

// Decisions per CPU second (M) if each made `loads` independent random 8-byte loads in
// `bytes` of memory and nothing else: addresses from a counter's hash, never from loaded
// data, so the CPU keeps as many in flight as it can. Median of `reps`.
double floor_mdps(std::uint64_t bytes, double loads, std::uint64_t decisions, int reps) {
  std::vector<std::uint64_t> words(std::max<std::uint64_t>(1, bytes / 8), 1);  // every page touched
  const auto total = static_cast<std::uint64_t>(loads * static_cast<double>(decisions));
  std::vector<double> rates;
  std::uint64_t sum = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const double t0 = cpu_seconds();
    for (std::uint64_t i = 0; i < total; ++i) sum += words[tlbf::reduce((i + 1) * 0x9e3779b97f4a7c15ULL, words.size())];
    rates.push_back(static_cast<double>(decisions) / (cpu_seconds() - t0) / 1e6);
  }
  tlbf_bench::sink = tlbf_bench::sink + sum;
  return median(rates);
}

Row run_row(const Subject& s, std::uint64_t live, const Options& opt) {
  FilterConfig cfg;
  cfg.algorithm = s.algorithm;
  cfg.error_rate = s.error_rate;
  cfg.span = static_cast<tlbf::Duration>(live) * kTick;
  std::unique_ptr<tlbf::WindowFilter> f = tlbf::make_filter(cfg);
  SteadyStream stream(live);
  Row row;

  // The fill inserts the stream's new keys alone: a repeat changes nothing in a filter
  // (insert_if_absent() finds it and inserts nothing), so this is the state the whole stream
  // leaves, but for the few new keys a false positive would have kept out; and it skips the
  // queries, which are most of a decision's cost at 10^7 live keys.
  double t0 = cpu_seconds();
  const auto fill_keys = static_cast<std::uint64_t>(opt.fill_spans * static_cast<double>(live));
  while (stream.new_keys() < fill_keys) {
    const std::uint64_t key = stream.next_new_key();
    f->insert(key_hash(key), stream.now());
  }
  row.fill_seconds = cpu_seconds() - t0;

  std::vector<std::uint64_t> keys(opt.decisions);
  std::vector<Time> times(opt.decisions);
  auto next_decisions = [&] {
    for (std::uint64_t i = 0; i < opt.decisions; ++i) {
      keys[i] = stream.next_key();
      times[i] = stream.now();
    }
  };
  std::vector<double> rates, batched_rates;
  std::vector<tlbf::KeyHash> batch(opt.batch);
  std::uint64_t fresh = 0, batched_fresh = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    next_decisions();
    std::uint64_t answered_new = 0;
    t0 = cpu_seconds();
    for (std::uint64_t i = 0; i < opt.decisions; ++i) answered_new += f->insert_if_absent(key_hash(keys[i]), times[i]);
    rates.push_back(static_cast<double>(opt.decisions) / (cpu_seconds() - t0) / 1e6);
    fresh += answered_new;

    next_decisions();
    answered_new = 0;
    t0 = cpu_seconds();
    for (std::uint64_t i = 0; i < opt.decisions; i += opt.batch) {
      const std::size_t n = std::min<std::uint64_t>(opt.batch, opt.decisions - i);
      for (std::size_t b = 0; b < n; ++b) {
        batch[b] = key_hash(keys[i + b]);
        f->prefetch(batch[b]);
      }
      for (std::size_t b = 0; b < n; ++b) answered_new += f->insert_if_absent(batch[b], times[i + b]);
    }
    batched_rates.push_back(static_cast<double>(opt.decisions) / (cpu_seconds() - t0) / 1e6);
    batched_fresh += answered_new;
  }
  tlbf_bench::sink = tlbf_bench::sink + fresh + batched_fresh;
  const tlbf::FilterStats st = f->stats(stream.now());
  row.mdps = median(rates);
  row.batched_mdps = median(batched_rates);
  row.bits_per_key = static_cast<double>(st.bits_allocated) / static_cast<double>(live);
  row.own_estimate = st.bits_per_live_key;
  row.new_share =
      static_cast<double>(fresh) / static_cast<double>(opt.decisions * static_cast<std::uint64_t>(opt.reps));
  row.loads = expected_loads(query_shape(*f, stream.now(), cfg.span), row.new_share);
  if (row.loads > 0) row.floor_mdps = floor_mdps(st.bits_allocated / 8, row.loads, opt.decisions / 4, opt.reps);
  return row;
}

std::string label(const Subject& s) {
  if (s.algorithm == Algorithm::exact) return s.name;  // no error rate to speak of
  return fmt::format("{} -e {:.0e}", s.name, s.error_rate);
}

void usage() {
  fmt::print(
      "usage: tlbf-bench-scaling [--reps N] [--decisions N] [--max-live N] [--fill-spans X] [--batch N]\n"
      "                          [--only NAME]\n"
      "  --reps N         timed reps per row, the median is printed (default 5)\n"
      "  --decisions N    decisions timed per rep, after the fill (default 1000000)\n"
      "  --max-live N     skip window sizes above N live keys (default 10000000)\n"
      "  --fill-spans X   spans of the stream run untimed before timing (default 2)\n"
      "  --batch N        keys hashed and prefetched ahead in the batched mode (default 8)\n"
      "  --only NAME      run only the rows of one filter: tlbf, gebf or exact (default all)\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    }
    if (i + 1 >= argc) {
      usage();
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--reps") {
      opt.reps = std::max(1, std::atoi(v));
    } else if (a == "--decisions") {
      opt.decisions = std::max<std::uint64_t>(1000, std::strtoull(v, nullptr, 10));
    } else if (a == "--max-live") {
      opt.max_live = std::strtoull(v, nullptr, 10);
    } else if (a == "--fill-spans") {
      opt.fill_spans = std::max(1.0, std::strtod(v, nullptr));
    } else if (a == "--only") {
      opt.only = v;
    } else if (a == "--batch") {
      opt.batch = std::max<std::size_t>(1, std::strtoull(v, nullptr, 10));
    } else {
      usage();
      return 2;
    }
  }

  fmt::print(
      "\n== Cost as the window grows: steady stream, {:.0f} % repeats inside the window; "
      "{} decisions per rep after {:g} spans of fill, median of {}; batches of {} ==\n",
      kRepeatShare * 100, opt.decisions, opt.fill_spans, opt.reps, opt.batch);
  fmt::print("{:<14} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>9}\n", "filter", "live keys", "Mdec/s",
             "batched", "bits/key", "own est.", "new", "fill s", "loads", "floor");
  constexpr std::size_t kSubjectCount = std::size(kSubjects);
  // Per subject at the two window sizes of the ratio; zeros when not run or failed.
  Row at_from[kSubjectCount] = {}, at_to[kSubjectCount] = {};
  for (const std::uint64_t live : kLiveSizes) {
    if (live > opt.max_live) continue;
    for (std::size_t s = 0; s < kSubjectCount; ++s) {
      if (!opt.only.empty() && opt.only != kSubjects[s].name) continue;
      try {
        const Row r = run_row(kSubjects[s], live, opt);
        fmt::print("{:<14} {:>10} {:>10.2f} {:>9.2f} {:>9.1f} {:>9.1f} {:>9.3f} {:>8.1f} {:>7.1f} {:>9.2f}\n",
                   label(kSubjects[s]), live, r.mdps, r.batched_mdps, r.bits_per_key, r.own_estimate, r.new_share,
                   r.fill_seconds, r.loads, r.floor_mdps);
        if (live == kRatioFrom) at_from[s] = r;
        if (live == kRatioTo) at_to[s] = r;
      } catch (const std::exception& e) {
        fmt::print("{:<14} {:>10} error: {}\n", label(kSubjects[s]), live, e.what());
      }
    }
  }
  fmt::print(
      "Mdec/s: insert_if_absent() calls per CPU second (hashing included); batched: the same in\n"
      "batches (hash, prefetch() each, decide in order); bits/key: bits allocated (exact: its table\n"
      "and fingerprints) over the live keys; own est.: the filter's stats(); new: share of decisions\n"
      "answered new (0.700 with no false positive); fill s: CPU seconds of the untimed fill (inserts\n"
      "of the new keys alone); loads: expected words a decision reads; floor: M decisions per CPU\n"
      "second at that many independent random loads in an array of the filter's size.\n");
  for (std::size_t s = 0; s < kSubjectCount; ++s) {
    if (kSubjects[s].algorithm == Algorithm::exact) continue;
    if (!opt.only.empty() && opt.only != kSubjects[s].name) continue;
    if (at_from[s].mdps == 0 || at_to[s].mdps == 0) {
      fmt::print("{}: 10^7/10^5 throughput not measured (--max-live below 10^7 or a row failed)\n",
                 label(kSubjects[s]));
      continue;
    }
    const double ratio = at_to[s].mdps / at_from[s].mdps;
    fmt::print(
        "{}: throughput at 10^7 live keys = {:.0f} % of 10^5 (target >= {:.0f} %): {}; batched {:.0f} %; "
        "floor at {:.0f} -> {:.0f} loads {:.0f} %\n",
        label(kSubjects[s]), ratio * 100, kRatioTarget * 100, ratio >= kRatioTarget ? "met" : "NOT met",
        at_to[s].batched_mdps / at_from[s].batched_mdps * 100, at_from[s].loads, at_to[s].loads,
        at_from[s].floor_mdps > 0 ? at_to[s].floor_mdps / at_from[s].floor_mdps * 100 : 0.0);
  }
  return 0;
}
