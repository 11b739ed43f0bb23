// What a bit-sliced layout of the age-partitioned filters would give (issue 15, option b):
// the prototype of bench/sliced_filter.hpp against the library's AgePartitionedFilter with
// the same k, l, slice bits, generation and hash, so the two make the same decisions and
// only the layout differs. The library's slices are separate word arrays and a new key's
// generation-keyed query loads ~2(l + 1) words in different slices; the prototype loads k
// cells, each holding that position of every slice.
//
// --check: both filters decide every key of a long stream, for several layouts (k + l from
// 2 to 64, small windows so that many generations pass): repeats inside the window, keys
// around its edge (from g inserts before it to 2g after, where the window rule and the
// refused runs decide), new keys; beside each decision, a never-inserted key is queried on
// both (false positives must agree too). Prints the disagreements and exits 1 on any, or
// when the stream did not reach both sides of the window's edge.
//
// Default: the cost per decision at 10^3 .. 10^7 live keys on a steady stream with 30 %
// repeats inside the window (as bench/scaling.cpp, with a count window of `live` inserts),
// for the layouts of the TLBF at 1e-5 (k = 21, l = 43) and 1e-3 (15, 49): library APBF,
// prototype, and prototype with the decide step batched (a batch of keys located and its
// cells prefetched, then decided in order, as DESIGN.md's Decider may do). The three filters
// take the same keys in the same order; each rep times them one after the other, in an order
// that alternates between reps, on thread CPU time; the median of the reps is printed, and
// every answer is compared (a disagreement is printed and makes the exit status 1).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "tlbf/apbf.hpp"
#include "tlbf/types.hpp"

#include "common.hpp"
#include "sliced_filter.hpp"

namespace {

using tlbf::AgePartitionedFilter;
using tlbf_bench::BitSlicedFilter;
using tlbf_bench::cpu_seconds;
using tlbf_bench::key_hash;
using tlbf_bench::median;

struct Options {
  bool check = false;
  int reps = 5;
  std::uint64_t decisions = 1'000'000;  // timed decisions per rep
  std::uint64_t max_live = 10'000'000;
  double fill_spans = 2;
  std::uint32_t batch = 16;
};

// The library filter of a layout and count window, and the prototype that decides alike.
struct Pair {
  std::unique_ptr<AgePartitionedFilter> lib;
  std::unique_ptr<BitSlicedFilter> sliced;
};
Pair make_pair(std::uint32_t k, std::uint32_t l, std::uint64_t window) {
  Pair p{tlbf_bench::make_apbf(k, l, window), nullptr};
  p.sliced = std::make_unique<BitSlicedFilter>(BitSlicedFilter::like(*p.lib, window));
  return p;
}

// Keys as integers (hashed with key_hash()). A decision names a new key, or one of the keys
// inserted between `lo` and `hi` - 1 inserts ago (0 = the last insert), in one of two ranges
// with its share of the decisions. The caller reports each insert back (record_insert), so
// distances count inserts, which is what a count window counts.
class DecisionStream {
 public:
  struct Range {
    double share = 0;
    std::uint64_t lo = 0, hi = 0;
  };
  enum class From { fresh, first_range, second_range };
  struct Decision {
    std::uint64_t key;
    From from;
  };
  DecisionStream(Range first, Range second)
      : first_(first), second_(second), ring_(std::max<std::uint64_t>({first.hi, second.hi, 1})) {}

  Decision next() {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (u < first_.share && pick(first_)) return {picked_, From::first_range};
    if (u >= first_.share && u < first_.share + second_.share && pick(second_)) return {picked_, From::second_range};
    return {next_new(), From::fresh};
  }
  std::uint64_t next_new() { return new_keys_++; }
  void record_insert(std::uint64_t key) { ring_[inserted_++ % ring_.size()] = key; }

 private:
  bool pick(const Range& r) {
    const std::uint64_t hi = std::min(r.hi, inserted_);
    if (hi <= r.lo) return false;
    const std::uint64_t d = r.lo + rng_() % (hi - r.lo);
    picked_ = ring_[(inserted_ - 1 - d) % ring_.size()];
    return true;
  }
  Range first_, second_;
  std::vector<std::uint64_t> ring_;
  std::uint64_t inserted_ = 0, new_keys_ = 0, picked_ = 0;
  std::mt19937_64 rng_{42};
};

// ---- --check ----

struct CheckCase {
  std::uint32_t k, l;
  std::uint64_t window;
};
// The TLBF's layouts at 1e-5 and 1e-3, one slot short of a full cell, a large k, small
// layouts with many false positives, k = 1 and k + l = 2, windows not a multiple of l.
// (With k = 1 every run probes one position, so inserts fill the union of the slices there
// and, with more than one or two runs, soon every key is reported: no edge to test.)
constexpr CheckCase kCheckCases[] = {{21, 43, 5000}, {15, 49, 3000}, {22, 41, 4321}, {40, 24, 2000}, {3, 5, 400},
                                     {7, 20, 1000},  {2, 6, 600},    {1, 1, 50},     {4, 60, 777}};
constexpr std::uint64_t kCheckDecisions = 150'000;

int run_check() {
  bool ok = true;
  fmt::print("{:>3} {:>3} {:>7} {:>5} {:>6} {:>9} {:>8} {:>8} {:>8} {:>8}\n", "k", "l", "window", "g", "cells",
             "decisions", "edge dup", "edge new", "fresh fp", "disagree");
  for (const CheckCase& c : kCheckCases) {
    Pair f = make_pair(c.k, c.l, c.window);
    const std::uint64_t g = f.lib->generation();
    // Repeats inside the window, and keys from g inserts before its edge to 2g after: the
    // window rule accepts the first, refuses the last, and decides by run in between.
    DecisionStream stream({0.25, 0, c.window}, {0.25, c.window > g ? c.window - g : 0, c.window + 2 * g});
    std::uint64_t disagree = 0, edge_dup = 0, edge_new = 0, fresh_fp = 0;
    for (std::uint64_t i = 0; i < kCheckDecisions; ++i) {
      const DecisionStream::Decision d = stream.next();
      const tlbf::KeyHash h = key_hash(d.key);
      const bool lib_new = f.lib->insert_if_absent(h, 0);
      disagree += lib_new != f.sliced->insert_if_absent(h);
      if (lib_new) stream.record_insert(d.key);
      if (d.from == DecisionStream::From::second_range) (lib_new ? edge_new : edge_dup) += 1;
      // A key never inserted: the two must agree on false positives too.
      const tlbf::KeyHash never = key_hash(tlbf_bench::kFreshBase + i);
      BitSlicedFilter::Probes at;
      f.sliced->locate(never, at);
      const bool lib_fp = f.lib->may_contain(never, 0);
      disagree += lib_fp != f.sliced->may_contain(at);
      fresh_fp += lib_fp;
    }
    fmt::print("{:>3} {:>3} {:>7} {:>5} {:>6} {:>9} {:>8} {:>8} {:>8} {:>8}\n", c.k, c.l, c.window, g,
               f.sliced->bits() / 64, kCheckDecisions, edge_dup, edge_new, fresh_fp, disagree);
    if (edge_dup == 0 || edge_new == 0) {
      fmt::print("the stream did not reach both sides of the window's edge: the check proves nothing here\n");
      ok = false;
    }
    ok = ok && disagree == 0;
  }
  fmt::print("{}\n", ok ? "all decisions agree" : "FAILED: the prototype does not decide as the library does");
  return ok ? 0 : 1;
}

// ---- measurement ----

constexpr std::uint64_t kLiveSizes[] = {1'000, 100'000, 1'000'000, 10'000'000};
constexpr std::uint64_t kRatioFrom = 100'000, kRatioTo = 10'000'000;
constexpr double kRepeatShare = 0.3;

struct Layout {
  const char* name;
  std::uint32_t k, l;
};
constexpr Layout kLayouts[] = {{"1e-5", 21, 43}, {"1e-3", 15, 49}};

enum Subject { kLibrary, kSliced, kBatched, kSubjects };
constexpr const char* kSubjectNames[kSubjects] = {"apbf", "sliced", "batched"};

struct Row {
  double ns[kSubjects] = {};  // CPU ns per decision, median of reps
  double bits_per_key[2] = {};  // library, prototype
  std::uint64_t disagree = 0;
};

// One timed pass of a subject over the rep's keys; answers[i] = 1 when key i was new.
double time_subject(Subject s, Pair& f, BitSlicedFilter& batched_filter, const std::vector<std::uint64_t>& keys,
                    std::uint32_t batch, std::vector<std::uint8_t>& answers) {
  const std::size_t n = keys.size();
  const double t0 = cpu_seconds();
  if (s == kLibrary) {
    for (std::size_t i = 0; i < n; ++i) answers[i] = f.lib->insert_if_absent(key_hash(keys[i]), 0);
  } else if (s == kSliced) {
    for (std::size_t i = 0; i < n; ++i) answers[i] = f.sliced->insert_if_absent(key_hash(keys[i]));
  } else {
    std::vector<BitSlicedFilter::Probes> at(batch);
    for (std::size_t i = 0; i < n; i += batch) {
      const std::size_t count = std::min<std::size_t>(batch, n - i);
      for (std::size_t j = 0; j < count; ++j) {
        batched_filter.locate(key_hash(keys[i + j]), at[j]);
        batched_filter.prefetch(at[j]);
      }
      for (std::size_t j = 0; j < count; ++j) answers[i + j] = batched_filter.insert_if_absent(at[j]);
    }
  }
  return (cpu_seconds() - t0) * 1e9 / static_cast<double>(n);
}

Row run_row(const Layout& layout, std::uint64_t live, const Options& opt) {
  Pair f = make_pair(layout.k, layout.l, live);
  BitSlicedFilter batched(BitSlicedFilter::like(*f.lib, live));
  DecisionStream stream({kRepeatShare, 0, live}, {});
  // Untimed fill with new keys alone (a repeat changes no filter), the same in all three.
  const auto fill = static_cast<std::uint64_t>(opt.fill_spans * static_cast<double>(live));
  for (std::uint64_t i = 0; i < fill; ++i) {
    const std::uint64_t key = stream.next_new();
    const tlbf::KeyHash h = key_hash(key);
    f.lib->insert(h, 0);
    BitSlicedFilter::Probes at;
    f.sliced->locate(h, at);
    f.sliced->insert(at);
    batched.insert(at);
    stream.record_insert(key);
  }
  Row row;
  std::vector<std::uint64_t> keys(opt.decisions);
  std::vector<std::uint8_t> answers[kSubjects];
  for (auto& a : answers) a.assign(opt.decisions, 0);
  std::vector<double> ns[kSubjects];
  for (int rep = 0; rep < opt.reps; ++rep) {
    // New keys are taken as inserted when drawn: a false positive (1e-3 at most) would keep
    // one out, and later repeats of it still fall inside the window.
    for (std::uint64_t& key : keys) {
      const DecisionStream::Decision d = stream.next();
      key = d.key;
      if (d.from == DecisionStream::From::fresh) stream.record_insert(d.key);
    }
    for (int i = 0; i < kSubjects; ++i) {
      const auto s = static_cast<Subject>(rep % 2 == 0 ? i : kSubjects - 1 - i);
      ns[s].push_back(time_subject(s, f, batched, keys, opt.batch, answers[s]));
    }
    for (std::uint64_t i = 0; i < opt.decisions; ++i)
      row.disagree += (answers[kSliced][i] != answers[kLibrary][i]) + (answers[kBatched][i] != answers[kLibrary][i]);
  }
  for (int s = 0; s < kSubjects; ++s) row.ns[s] = median(ns[s]);
  row.bits_per_key[0] = static_cast<double>(f.lib->stats(0).bits_allocated) / static_cast<double>(live);
  row.bits_per_key[1] = static_cast<double>(f.sliced->bits()) / static_cast<double>(live);
  return row;
}

int run_measure(const Options& opt) {
  fmt::print("\n== Bit-sliced age-partitioned filter against the library's APBF: count window of `live` inserts, "
             "{:.0f} % repeats inside it; {} decisions per rep after {:g} windows of fill, median of {} ==\n",
             kRepeatShare * 100, opt.decisions, opt.fill_spans, opt.reps);
  fmt::print("{:<14} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8}\n", "layout", "live keys", "apbf ns",
             "sliced", "batched", "sl/apbf", "bat/apbf", "apbf b/k", "sl b/k", "disagree");
  bool ok = true;
  for (const Layout& layout : kLayouts) {
    double from[kSubjects] = {}, to[kSubjects] = {};
    const std::string label = fmt::format("{} k{} l{}", layout.name, layout.k, layout.l);
    for (const std::uint64_t live : kLiveSizes) {
      if (live > opt.max_live) continue;
      const Row r = run_row(layout, live, opt);
      fmt::print("{:<14} {:>10} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.2f} {:>8.2f} {:>9.1f} {:>9.1f} {:>8}\n", label, live,
                 r.ns[kLibrary], r.ns[kSliced], r.ns[kBatched], r.ns[kSliced] / r.ns[kLibrary],
                 r.ns[kBatched] / r.ns[kLibrary], r.bits_per_key[0], r.bits_per_key[1], r.disagree);
      ok = ok && r.disagree == 0;
      for (int s = 0; s < kSubjects; ++s) {
        if (live == kRatioFrom) from[s] = r.ns[s];
        if (live == kRatioTo) to[s] = r.ns[s];
      }
    }
    if (from[kLibrary] > 0 && to[kLibrary] > 0) {
      fmt::print("{}: throughput at 10^7 live keys over 10^5:", label);
      for (int s = 0; s < kSubjects; ++s) fmt::print(" {} {:.0f} %", kSubjectNames[s], from[s] / to[s] * 100);
      fmt::print("\n");
    }
  }
  fmt::print("ns: CPU nanoseconds per insert_if_absent() (XXH3 hashing included); sliced: the prototype, one key\n"
             "at a time; batched: the prototype, {} keys located and their cells prefetched, then decided in order;\n"
             "b/k: bits allocated per live key; disagree: decisions of either prototype that differ from apbf's.\n",
             opt.batch);
  if (!ok) fmt::print("FAILED: the prototype does not decide as the library does\n");
  return ok ? 0 : 1;
}

// The options that take a number: name, lowest and highest value, where it goes.
struct NumberOption {
  std::string_view name;
  double lo, hi;
  void (*store)(Options&, double);
};
constexpr NumberOption kNumberOptions[] = {
    {"--reps", 1, 1000, [](Options& o, double v) { o.reps = static_cast<int>(v); }},
    {"--decisions", 1000, 1e10, [](Options& o, double v) { o.decisions = static_cast<std::uint64_t>(v); }},
    {"--max-live", 0, 1e10, [](Options& o, double v) { o.max_live = static_cast<std::uint64_t>(v); }},
    {"--fill-spans", 1, 100, [](Options& o, double v) { o.fill_spans = v; }},
    {"--batch", 1, 1024, [](Options& o, double v) { o.batch = static_cast<std::uint32_t>(v); }},
};

constexpr const char* kUsage =
    "usage: tlbf-bench-sliced [--check] [--reps N] [--decisions N] [--max-live N] [--fill-spans X] [--batch N]\n"
    "  --check          compare every decision with the library's APBF on a long stream; exit 1 on any difference\n"
    "  --reps N         timed reps per row, the median is printed (default 5)\n"
    "  --decisions N    decisions timed per rep, after the fill (default 1000000)\n"
    "  --max-live N     skip window sizes above N live keys (default 10000000)\n"
    "  --fill-spans X   windows of new keys inserted untimed before timing (default 2)\n"
    "  --batch N        keys per batch of the batched prototype (default 16)\n";

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--check") {
      opt.check = true;
      continue;
    }
    if (a == "-h" || a == "--help") return fmt::print("{}", kUsage), 0;
    const NumberOption* o = std::find_if(std::begin(kNumberOptions), std::end(kNumberOptions),
                                         [&](const NumberOption& n) { return n.name == a; });
    if (o == std::end(kNumberOptions) || i + 1 >= argc) return fmt::print(stderr, "{}", kUsage), 2;
    o->store(opt, std::clamp(std::strtod(argv[++i], nullptr), o->lo, o->hi));
  }
  return opt.check ? run_check() : run_measure(opt);
}
