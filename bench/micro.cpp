// Micro-benchmarks of the window filters, through the same WindowFilter interface and
// make_filter() the program uses. Three parts, each printed as one table:
//
//  1. "w20k": the GEBF paper's synthetic set-up (Alpay & Sarioglu 2026, §Experiments):
//     120,000 inserts of distinct keys, a live window of W = 20,000, GEBF with r = 8 and
//     14 bits per live item, then queries split into 20,000 live, 20,000 fresh and 20,000
//     expired keys. Every filter runs the same stream; the time-window filters see one
//     insert per microsecond with a span of 20 ms, so they also hold 20,000 live keys.
//     Reported: insert Mops/s, query Mq/s (the paper's 5.24 Mq/s for GEBF r = 8 is the
//     reference), insert_if_absent Mops/s on a stream with 30 % recent repeats (what the
//     program's decide step does), and the error rates seen on the same queries.
//  2. "bits": memory per live key at steady state for the time-window filters at target
//     error rates 1e-1 ... 1e-6, beside the TLBF paper's Table 2 ranges (§6; its numbers
//     come from the APBF (k,l) choices), with the false-positive rate measured on keys
//     never inserted.
//  3. "large": 10 million keys alive in the window (--large-keys), so the filter is far
//     larger than the per-core caches and every probe is a likely cache miss; run it at
//     --large-keys 100000 as well for the in-cache figures the issue compares against.
//     Beside insert and query, "dedup": insert_if_absent over a stream where 30 % of the
//     records repeat a key from the window, the program's decide step.
//
// Invariants that keep the figures honest: the clock is a manual one advanced per insert
// (nothing sleeps and no clock is read inside a filter); every key is hashed inside the
// timed loop (8-byte integer keys, XXH3-128, as the program hashes its key bytes); every
// answer feeds a sink the optimiser cannot drop; each figure is the median of --reps runs,
// timed in thread CPU time (common.hpp says why).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "tlbf/config.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

#include "common.hpp"

namespace {

using tlbf::Algorithm;
using tlbf::FilterConfig;
using tlbf::Time;
using tlbf::WindowFilter;
using tlbf_bench::cpu_seconds;
using tlbf_bench::key_hash;
using tlbf_bench::kFreshBase;
using tlbf_bench::median;

struct Options {
  int reps = 5;
  std::uint64_t large_keys = 10'000'000;
  double large_error = 1e-3;
  std::string sections = "w20k,bits,large";
};

// Set once from the command line; guarded_row() consults it.
std::string g_only;

// A filter under test: a label and the configuration make_filter() builds it from.
struct Subject {
  std::string label;
  FilterConfig cfg;
};

FilterConfig time_window(Algorithm a, tlbf::Duration span, double error_rate, std::uint64_t capacity) {
  FilterConfig c;
  c.algorithm = a;
  c.span = span;
  c.error_rate = error_rate;
  c.capacity = capacity;
  return c;
}

FilterConfig count_window(Algorithm a, std::uint64_t w, double error_rate) {
  FilterConfig c;
  c.algorithm = a;
  c.window_count = w;
  c.error_rate = error_rate;
  c.capacity = w;
  return c;
}

// The time-window filters compared in parts 2 and 3.
struct TimeWindowFilter {
  const char* name;
  Algorithm a;
  bool blocked;
};
constexpr TimeWindowFilter kTimeWindowFilters[] = {{"tlbf", Algorithm::tlbf, false},
                                                   {"gebf (time)", Algorithm::gebf, false},
                                                   {"gebf-blocked (time)", Algorithm::gebf, true},
                                                   {"exact (time)", Algorithm::exact, false}};

// Runs one row; a filter that throws (not built yet, bad parameters) prints its error in
// the row instead of ending the whole benchmark.
void guarded_row(const std::string& label, const std::function<void()>& row) {
  if (!g_only.empty() && label.find(g_only) == std::string::npos) return;
  try {
    row();
  } catch (const std::exception& e) {
    fmt::print("{:<26} error: {}\n", label, e.what());
  }
}

// ---------------------------------------------------------------------------------------
// Part 1: W = 20,000, the GEBF paper's set-up.

constexpr std::uint64_t kW = 20'000;
constexpr std::uint64_t kInserts = 120'000;
// One insert per microsecond: a 20 ms span holds exactly the last W inserts.
constexpr tlbf::Duration kTick = tlbf::kMicrosecond;
constexpr Time kOrigin = tlbf::kSecond;

Time tick_time(std::uint64_t i) { return kOrigin + static_cast<Time>(i) * kTick; }

void part_w20k(const Options& opt) {
  const double e = 0.02;  // close to GEBF's measured 0.0222 at 14 bits per item
  std::vector<Subject> subjects;
  {
    FilterConfig g = count_window(Algorithm::gebf, kW, e);
    g.gebf_r = 8;
    g.gebf_bits_per_key = 14;
    subjects.push_back({"gebf r=8 14b (count)", g});
    g.gebf_blocked = true;
    subjects.push_back({"gebf-blocked r=8 14b", g});
  }
  subjects.push_back({"apbf e=0.02 (count)", count_window(Algorithm::apbf, kW, e)});
  subjects.push_back({"exact (count)", count_window(Algorithm::exact, kW, e)});
  const tlbf::Duration span = static_cast<tlbf::Duration>(kW) * kTick;
  subjects.push_back({"tlbf e=0.02 (time)", time_window(Algorithm::tlbf, span, e, kW)});
  {
    FilterConfig g = time_window(Algorithm::gebf, span, e, kW);
    g.gebf_r = 8;
    subjects.push_back({"gebf r=8 e=0.02 (time)", g});
    g.gebf_blocked = true;
    subjects.push_back({"gebf-blocked r=8 (time)", g});
  }
  subjects.push_back({"exact (time)", time_window(Algorithm::exact, span, e, kW)});

  // The expired keys went in 100,000 inserts ago, well past any staleness bound.
  std::mt19937_64 rng(42);
  const std::vector<std::uint64_t> queries = tlbf_bench::paper_queries(kInserts, kW, rng);
  constexpr int kQueryPasses = 10;

  // The dedup stream: 30 % of records repeat one of the last W distinct keys.
  std::vector<std::uint64_t> stream;
  {
    std::uint64_t next = 0;
    std::uniform_real_distribution<double> u(0, 1);
    for (std::uint64_t i = 0; i < kInserts; ++i) {
      if (next > 0 && u(rng) < 0.3) {
        std::uint64_t back = std::min<std::uint64_t>(next, kW);
        stream.push_back(next - 1 - rng() % back);
      } else {
        stream.push_back(next++);
      }
    }
  }

  fmt::print("\n== Part 1: W = 20,000 live keys, 120,000 inserts (GEBF paper set-up); median of {} ==\n", opt.reps);
  fmt::print("{:<26} {:>8} {:>10} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "filter", "bits/key", "insert M/s", "query M/s",
             "dedup M/s", "FPR", "stale", "live FN");
  for (const Subject& s : subjects) {
    guarded_row(s.label, [&] {
      std::vector<double> ins, qry, ded;
      tlbf_bench::PaperRound round;
      for (int rep = 0; rep < opt.reps; ++rep) {
        std::unique_ptr<WindowFilter> f = tlbf::make_filter(s.cfg);
        round = tlbf_bench::paper_round(*f, kInserts, kW, queries, kQueryPasses, tick_time);
        ins.push_back(round.insert_mops);
        qry.push_back(round.query_mops);

        std::unique_ptr<WindowFilter> d = tlbf::make_filter(s.cfg);
        std::uint64_t kept = 0;
        const double t0 = cpu_seconds();
        for (std::uint64_t i = 0; i < stream.size(); ++i)
          kept += d->insert_if_absent(key_hash(stream[i]), tick_time(i));
        ded.push_back(static_cast<double>(stream.size()) / (cpu_seconds() - t0) / 1e6);
        tlbf_bench::sink = tlbf_bench::sink + kept;
      }
      fmt::print("{:<26} {:>8.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>9.4f} {:>9.4f} {:>7}\n", s.label,
                 static_cast<double>(round.bits) / kW, median(ins), median(qry), median(ded),
                 static_cast<double>(round.errors.fp) / kW, static_cast<double>(round.errors.stale) / kW,
                 round.errors.fn);
    });
  }
  fmt::print(
      "FPR: fresh keys reported present; stale: keys expired 100,000 inserts ago reported present;\n"
      "live FN: live keys reported absent (must be 0). Paper (r=8, 14 bits): FPR 0.0222, blocked 0.0708,\n"
      "5.24 Mq/s. bits/key = bits allocated / 20,000 live keys.\n");
}

// ---------------------------------------------------------------------------------------
// Part 2: bits per live key at steady state, time window.

void part_bits(const Options& opt) {
  constexpr std::uint64_t kLive = 100'000;
  constexpr tlbf::Duration kGap = 10 * tlbf::kMicrosecond;  // 100,000 inserts per 1 s span
  constexpr tlbf::Duration kSpan = static_cast<tlbf::Duration>(kLive) * kGap;
  constexpr std::uint64_t kSpans = 4;
  const double rates[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  // TLBF paper, Table 2 (bits per element of the APBF (k,l) choices); none given for 1e-6.
  const char* paper[] = {"10-13", "19-24", "26-35", "32-45", "41-56", "-"};

  fmt::print("\n== Part 2: bits per live key at steady state, time window, {} live keys, {} spans of inserts ==\n",
             kLive, kSpans);
  fmt::print("{:<20} {:>7} {:>9} {:>9} {:>9} {:>9} {:>11} {:>10} {:>8} {:>7}\n", "filter", "target", "mean b/k",
             "max b/k", "own est.", "paper", "FPR meas.", "queries", "slices", "k,l");
  (void)opt;
  for (const TimeWindowFilter& al : kTimeWindowFilters) {
    for (std::size_t r = 0; r < std::size(rates); ++r) {
      const double e = rates[r];
      const std::string label = fmt::format("{} {:.0e}", al.name, e);
      guarded_row(label, [&] {
        FilterConfig cfg = time_window(al.a, kSpan, e, kLive);
        cfg.gebf_blocked = al.blocked;
        std::unique_ptr<WindowFilter> f = tlbf::make_filter(cfg);
        const std::uint64_t total = kLive * kSpans;
        double sum = 0, max = 0;
        int samples = 0;
        Time now = 0;
        for (std::uint64_t i = 0; i < total; ++i) {
          now = kOrigin + static_cast<Time>(i) * kGap;
          f->insert(key_hash(i), now);
          // Sample over the last two spans, when every slice in the filter has been sized
          // from the observed rate; the true live count is exactly kLive then.
          if (i >= kLive * (kSpans - 2) && i % 1000 == 999) {
            double b = static_cast<double>(f->stats(now).bits_allocated) / static_cast<double>(kLive);
            sum += b;
            max = std::max(max, b);
            ++samples;
          }
        }
        const tlbf::FilterStats st = f->stats(now);
        // Enough never-inserted queries to see about 30 false positives at the target.
        const auto q = static_cast<std::uint64_t>(std::llround(std::clamp(30.0 / e, 1e5, 1e7)));
        std::uint64_t fp = 0;
        for (std::uint64_t i = 0; i < q; ++i) fp += f->may_contain(key_hash(kFreshBase + i), now);
        fmt::print("{:<20} {:>7.0e} {:>9.2f} {:>9.2f} {:>9.2f} {:>9} {:>11.3e} {:>10} {:>8} {:>7}\n", al.name, e,
                   sum / samples, max, st.bits_per_live_key, al.a == Algorithm::tlbf ? paper[r] : "",
                   static_cast<double>(fp) / static_cast<double>(q), q, st.slices,
                   st.k ? fmt::format("{},{}", st.k, st.l) : std::string("-"));
      });
    }
  }
  fmt::print(
      "mean/max b/k: bits allocated / true live keys, sampled every 1,000 inserts over the last 2 spans;\n"
      "own est.: the filter's stats().bits_per_live_key at the end; paper: TLBF paper Table 2 range.\n");
}

// ---------------------------------------------------------------------------------------
// Part 3: a large window, filter far larger than cache.

void part_large(const Options& opt) {
  const std::uint64_t live = opt.large_keys;
  // One insert per microsecond: the span holds `live` inserts.
  const tlbf::Duration span = static_cast<tlbf::Duration>(live) * tlbf::kMicrosecond;
  const std::uint64_t batch = std::max<std::uint64_t>(live / 4, 1);

  // Each filling takes seconds; three timed rounds after it are enough for a median.
  const int reps = std::min(opt.reps, 3);
  fmt::print(
      "\n== Part 3: large window, {} live keys, target {:.0e}; {} inserts, {} queries, {} decisions per rep, median of "
      "{} ==\n",
      live, opt.large_error, batch, batch, batch, reps);
  fmt::print("{:<20} {:>10} {:>9} {:>10} {:>10} {:>10} {:>10} {:>9} {:>7}\n", "filter", "MiB", "bits/key", "fill M/s",
             "insert M/s", "query M/s", "dedup M/s", "FPR", "live FN");
  for (const TimeWindowFilter& al : kTimeWindowFilters) {
    guarded_row(al.name, [&] {
      FilterConfig cfg = time_window(al.a, span, opt.large_error, live);
      cfg.gebf_blocked = al.blocked;
      cfg.max_memory_bytes = std::uint64_t{8} << 30;
      std::unique_ptr<WindowFilter> f = tlbf::make_filter(cfg);
      std::uint64_t next = 0;
      auto at = [](std::uint64_t i) { return kOrigin + static_cast<Time>(i) * tlbf::kMicrosecond; };

      // Two spans of inserts bring the filter to steady state (the first span's slices
      // have expired and been recycled at the observed rate).
      double t0 = cpu_seconds();
      for (; next < 2 * live; ++next) f->insert(key_hash(next), at(next));
      const double fill = static_cast<double>(2 * live) / (cpu_seconds() - t0) / 1e6;

      std::vector<double> ins, qry, ded;
      std::mt19937_64 rng(7);
      std::uint64_t fp = 0, fn = 0, fresh = 0;
      for (int rep = 0; rep < reps; ++rep) {
        t0 = cpu_seconds();
        const std::uint64_t end = next + batch;
        for (; next < end; ++next) f->insert(key_hash(next), at(next));
        ins.push_back(static_cast<double>(batch) / (cpu_seconds() - t0) / 1e6);

        // Half live keys drawn uniformly from the window, half fresh: random addresses all
        // over the filter, as a high-cardinality log gives.
        std::vector<std::uint64_t> qs(batch);
        for (std::uint64_t i = 0; i < batch; ++i) qs[i] = (i & 1) ? kFreshBase + rng() : next - 1 - rng() % live;
        const Time now = at(next - 1);
        // Positives counted apart for the live (even) and fresh (odd) queries.
        std::uint64_t positives[2] = {0, 0};
        t0 = cpu_seconds();
        for (std::uint64_t i = 0; i < batch; ++i) positives[i & 1] += f->may_contain(key_hash(qs[i]), now);
        qry.push_back(static_cast<double>(batch) / (cpu_seconds() - t0) / 1e6);
        fn += (batch - batch / 2) - positives[0];
        fp += positives[1];
        fresh += batch / 2;
      }
      const tlbf::FilterStats st = f->stats(at(next - 1));
      // The decide step, after the query rounds (its repeats leave key numbers that were
      // never inserted, which the live queries above must not draw): record i at time
      // `next + i` carries key `next + i`, or with probability 0.3 a key number from the half
      // window before the round (all inserted but for the previous round's repeats).
      for (int rep = 0; rep < reps; ++rep) {
        std::vector<std::uint64_t> ds(batch);
        for (std::uint64_t i = 0; i < batch; ++i) ds[i] = rng() % 10 < 3 ? next - 1 - rng() % (live / 2) : next + i;
        std::uint64_t kept = 0;
        t0 = cpu_seconds();
        for (std::uint64_t i = 0; i < batch; ++i) kept += f->insert_if_absent(key_hash(ds[i]), at(next + i));
        ded.push_back(static_cast<double>(batch) / (cpu_seconds() - t0) / 1e6);
        tlbf_bench::sink = tlbf_bench::sink + kept;
        next += batch;
      }
      fmt::print("{:<20} {:>10.1f} {:>9.1f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>9.2e} {:>7}\n", al.name,
                 static_cast<double>(st.bits_allocated) / 8 / (1 << 20),
                 static_cast<double>(st.bits_allocated) / static_cast<double>(live), fill, median(ins), median(qry),
                 median(ded), static_cast<double>(fp) / static_cast<double>(fresh), fn);
    });
  }
  fmt::print("fill: the first two spans of inserts (filter growing); insert/query/dedup: at steady state.\n");
}

void usage() {
  fmt::print(
      "usage: tlbf-bench-micro [--reps N] [--large-keys N] [--large-error P] [--sections LIST]\n"
      "  --reps N          repetitions per figure, the median is printed (default 5)\n"
      "  --large-keys N    live keys in the large-window case (default 10000000)\n"
      "  --large-error P   target error rate of the large-window case (default 1e-3)\n"
      "  --sections LIST   comma-separated subset of w20k,bits,large (default all)\n"
      "  --only TEXT       only the rows whose filter label contains TEXT\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--reps") {
      opt.reps = std::max(1, std::atoi(value()));
    } else if (a == "--large-keys") {
      opt.large_keys = std::max<std::uint64_t>(1000, std::strtoull(value(), nullptr, 10));
    } else if (a == "--large-error") {
      opt.large_error = std::strtod(value(), nullptr);
    } else if (a == "--sections") {
      opt.sections = value();
    } else if (a == "--only") {
      g_only = value();
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else {
      usage();
      return 2;
    }
  }
  auto wanted = [&](std::string_view s) { return opt.sections.find(s) != std::string::npos; };

  // Run the three parts in the order of their cost, cheapest first.
  if (wanted("w20k")) part_w20k(opt);
  if (wanted("bits")) part_bits(opt);
  if (wanted("large")) part_large(opt);
  return 0;
}
