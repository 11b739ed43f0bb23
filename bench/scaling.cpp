// Cost as the work grows: how fast a window filter decides, and how many bits it holds per
// live key, when the window holds 10^3, 10^5, 10^6 and 10^7 distinct keys. One table row per
// filter and window size: tlbf and gebf at the program's default error rate (1e-5) and at
// 1e-3, and exact; then, for tlbf and gebf, the throughput at 10^7 live keys over the one at
// 10^5 (the filter leaves the caches between the two) against the target of at least 50 %.
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
};

constexpr std::uint64_t kLiveSizes[] = {1'000, 100'000, 1'000'000, 10'000'000};
constexpr std::uint64_t kRatioFrom = 100'000, kRatioTo = 10'000'000;
constexpr double kRatioTarget = 0.5;
constexpr double kRepeatShare = 0.3;
constexpr tlbf::Duration kTick = tlbf::kMicrosecond;
constexpr Time kOrigin = tlbf::kSecond;

struct Subject {
  const char* name;
  Algorithm algorithm;
  double error_rate;
};
constexpr Subject kSubjects[] = {{"tlbf", Algorithm::tlbf, 1e-5}, {"tlbf", Algorithm::tlbf, 1e-3},
                                 {"gebf", Algorithm::gebf, 1e-5}, {"gebf", Algorithm::gebf, 1e-3},
                                 {"exact", Algorithm::exact, 1e-5}};

// The steady stream: decision i is key keys[i] at time of its tick. New keys are consecutive
// integers; a repeat names one of the `live` newest keys, all younger than the span. The
// generator is a SplitMix64: cheap enough that filling 2 x 10^7 keys is the filter's time.
class SteadyStream {
 public:
  explicit SteadyStream(std::uint64_t live) : live_(live) {}

  // The next decision's key; the clock moves only with new keys.
  std::uint64_t next_key() {
    if (new_keys_ > 0 && static_cast<double>(draw() >> 11) * 0x1p-53 < kRepeatShare)
      return new_keys_ - 1 - draw() % std::min(new_keys_, live_);
    return new_keys_++;
  }
  // A new key, as next_key() would return it after its repeats.
  std::uint64_t next_new_key() { return new_keys_++; }
  // The time of the key just returned (a repeat shares the tick of the newest key).
  Time now() const { return kOrigin + static_cast<Time>(new_keys_) * kTick; }
  std::uint64_t new_keys() const { return new_keys_; }

 private:
  std::uint64_t draw() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t live_;
  std::uint64_t new_keys_ = 0;
  std::uint64_t state_ = 42;
};

struct Row {
  double mdps = 0;           // million decisions per CPU second, median
  double bits_per_key = 0;   // bits allocated / true live keys, after the last rep
  double own_estimate = 0;   // the filter's own stats().bits_per_live_key
  double new_share = 0;      // decisions answered "new", over all reps
  double fill_seconds = 0;   // CPU seconds of the untimed fill
};

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
  std::vector<double> rates;
  std::uint64_t fresh = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    for (std::uint64_t i = 0; i < opt.decisions; ++i) {
      keys[i] = stream.next_key();
      times[i] = stream.now();
    }
    std::uint64_t answered_new = 0;
    t0 = cpu_seconds();
    for (std::uint64_t i = 0; i < opt.decisions; ++i) answered_new += f->insert_if_absent(key_hash(keys[i]), times[i]);
    rates.push_back(static_cast<double>(opt.decisions) / (cpu_seconds() - t0) / 1e6);
    fresh += answered_new;
  }
  tlbf_bench::sink = tlbf_bench::sink + fresh;
  const tlbf::FilterStats st = f->stats(stream.now());
  row.mdps = median(rates);
  row.bits_per_key = static_cast<double>(st.bits_allocated) / static_cast<double>(live);
  row.own_estimate = st.bits_per_live_key;
  row.new_share = static_cast<double>(fresh) / static_cast<double>(opt.decisions * static_cast<std::uint64_t>(opt.reps));
  return row;
}

std::string label(const Subject& s) {
  if (s.algorithm == Algorithm::exact) return s.name;  // no error rate to speak of
  return fmt::format("{} -e {:.0e}", s.name, s.error_rate);
}

void usage() {
  fmt::print(
      "usage: tlbf-bench-scaling [--reps N] [--decisions N] [--max-live N] [--fill-spans X]\n"
      "  --reps N         timed reps per row, the median is printed (default 5)\n"
      "  --decisions N    decisions timed per rep, after the fill (default 1000000)\n"
      "  --max-live N     skip window sizes above N live keys (default 10000000)\n"
      "  --fill-spans X   spans of the stream run untimed before timing (default 2)\n");
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
    } else {
      usage();
      return 2;
    }
  }

  fmt::print("\n== Cost as the window grows: steady stream, {:.0f} % repeats inside the window; "
             "{} decisions per rep after {:g} spans of fill, median of {} ==\n",
             kRepeatShare * 100, opt.decisions, opt.fill_spans, opt.reps);
  fmt::print("{:<14} {:>10} {:>10} {:>9} {:>9} {:>9} {:>8}\n", "filter", "live keys", "Mdec/s", "bits/key",
             "own est.", "new", "fill s");
  constexpr std::size_t kSubjectCount = std::size(kSubjects);
  // Throughput per subject at the two window sizes of the ratio; 0 when not run or failed.
  double at_from[kSubjectCount] = {}, at_to[kSubjectCount] = {};
  for (const std::uint64_t live : kLiveSizes) {
    if (live > opt.max_live) continue;
    for (std::size_t s = 0; s < kSubjectCount; ++s) {
      try {
        const Row r = run_row(kSubjects[s], live, opt);
        fmt::print("{:<14} {:>10} {:>10.2f} {:>9.1f} {:>9.1f} {:>9.3f} {:>8.1f}\n", label(kSubjects[s]), live, r.mdps,
                   r.bits_per_key, r.own_estimate, r.new_share, r.fill_seconds);
        if (live == kRatioFrom) at_from[s] = r.mdps;
        if (live == kRatioTo) at_to[s] = r.mdps;
      } catch (const std::exception& e) {
        fmt::print("{:<14} {:>10} error: {}\n", label(kSubjects[s]), live, e.what());
      }
    }
  }
  fmt::print("Mdec/s: insert_if_absent() calls per CPU second (hashing included); bits/key: bits allocated\n"
             "(exact: its table and fingerprints) over the live keys; own est.: the filter's stats();\n"
             "new: share of decisions answered new (0.700 with no false positive); fill s: CPU seconds of\n"
             "the untimed fill (inserts of the new keys alone).\n");
  for (std::size_t s = 0; s < kSubjectCount; ++s) {
    if (kSubjects[s].algorithm == Algorithm::exact) continue;
    if (at_from[s] == 0 || at_to[s] == 0) {
      fmt::print("{}: 10^7/10^5 throughput not measured (--max-live below 10^7 or a row failed)\n", label(kSubjects[s]));
      continue;
    }
    const double ratio = at_to[s] / at_from[s];
    fmt::print("{}: throughput at 10^7 live keys = {:.0f} % of 10^5 (target >= {:.0f} %): {}\n", label(kSubjects[s]),
               ratio * 100, kRatioTarget * 100, ratio >= kRatioTarget ? "met" : "NOT met");
  }
  return 0;
}
