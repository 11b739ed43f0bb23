// What bounds the TLBF at 10^7 live keys (docs/performance.md, the 10^7-key paragraphs), in
// two parts that need no filter.
//
// 1. The line floor. A new key sets k bits in k random cells of the newest era, one cache
//    line each once the era is far larger than the caches. The loop does only that: per key,
//    k read-modify-writes of random 64-bit words in one array of --mib MiB (large pages
//    asked for, as the eras' cells are), after prefetching the words of the key D keys ahead.
//    It prints lines a second and the CPU seconds --keys keys take, per D (median of --reps).
// 2. What blocking would cost. With a key's k probes confined to a block of B cells of an
//    era, the k slices of a run meet the key in the same block, and they share k - 1 of their
//    k generations of keys, so their loads there go together. Taking them as one Poisson
//    count X (mean B ln2 / s at s times the bits), a run's false-positive rate is
//    E[f(X)^k] with f(X) = 1 - (1 - 1/B)^X, where unblocked it is E[f(X)]^k. Per B: the
//    distinct lines a key then touches on average (8 one-word cells a line), the rise at the
//    same bits, and the s that brings the blocked rate back to the unblocked one at s = 1.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "common.hpp"
#include "tlbf/detail/large_pages.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/hash.hpp"

namespace {

struct Options {
  std::uint64_t mib = 64;
  std::uint64_t keys = 10'000'000;
  std::uint32_t k = 21;
  int reps = 3;
};

[[noreturn]] void usage() {
  fmt::print(stderr, "usage: tlbf-bench-large-window [--mib N] [--keys N] [--k N] [--reps N]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (a == "--mib")
      o.mib = std::strtoull(v, nullptr, 10);
    else if (a == "--keys")
      o.keys = std::strtoull(v, nullptr, 10);
    else if (a == "--k")
      o.k = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10));
    else if (a == "--reps")
      o.reps = std::atoi(v);
    else
      usage();
  }
  if (o.mib == 0 || o.keys == 0 || o.k == 0 || o.reps <= 0) usage();
  return o;
}

using Words = std::vector<std::uint64_t, tlbf::detail::LargePageAllocator<std::uint64_t>>;

// The word of probe j (= key * k + q): from the counter's hash, as tlbf-bench-scaling's floor
// takes its addresses, never from a loaded word, so the misses may all overlap.
std::size_t word_of(std::uint64_t j, std::size_t words) { return tlbf::reduce((j + 1) * 0x9e3779b97f4a7c15ULL, words); }

// CPU seconds for `keys` keys of k read-modify-writes each, prefetching `ahead` keys ahead.
double line_loop(Words& a, std::uint64_t keys, std::uint32_t k, std::uint64_t ahead) {
  const double t0 = tlbf_bench::cpu_seconds();
  std::uint64_t acc = 0;
  for (std::uint64_t i = 0; i < keys; ++i) {
    if (ahead != 0)
      for (std::uint32_t q = 0; q < k; ++q) tlbf::detail::prefetch(&a[word_of((i + ahead) * k + q, a.size())]);
    for (std::uint32_t q = 0; q < k; ++q) {
      std::uint64_t& w = a[word_of(i * k + q, a.size())];
      acc += w;
      w |= std::uint64_t{1} << q;
    }
  }
  const double t = tlbf_bench::cpu_seconds() - t0;
  tlbf_bench::sink = tlbf_bench::sink + acc;
  return t;
}

double poisson(double mean, int x) {
  return std::exp(-mean + x * std::log(mean) - std::lgamma(static_cast<double>(x) + 1));
}

// A run's false-positive rate, blocked E[f(X)^k] and unblocked E[f(X)]^k, for X ~ Poisson(B ln2 / s).
struct Rates {
  double blocked, unblocked;
};
Rates run_rates(double b, std::uint32_t k, double s) {
  const double mean = b * std::log(2.0) / s;
  const int top = static_cast<int>(mean + 20 * std::sqrt(mean) + 50);
  double ek = 0, e1 = 0;
  for (int x = 0; x <= top; ++x) {
    const double p = poisson(mean, x);
    const double f = 1 - std::pow(1 - 1 / b, x);
    ek += p * std::pow(f, k);
    e1 += p * f;
  }
  return {ek, std::pow(e1, k)};
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::uint64_t words = o.mib << 17;
  Words a(words, 1);  // every page touched before the timing

  fmt::print("== The line floor: {} keys, {} random 64-bit read-modify-writes each, in {} MiB; median of {} ==\n",
             o.keys, o.k, o.mib, o.reps);
  fmt::print("{:>14} {:>12} {:>14}\n", "keys ahead", "CPU s", "M lines/s");
  for (std::uint64_t ahead : {0, 1, 2, 4, 8}) {
    std::vector<double> t;
    for (int r = 0; r < o.reps; ++r) t.push_back(line_loop(a, o.keys, o.k, ahead));
    const double m = tlbf_bench::median(t);
    fmt::print("{:>14} {:>12.2f} {:>14.1f}\n", ahead, m, static_cast<double>(o.keys) * o.k / m / 1e6);
  }

  fmt::print("\n== Blocking a key's k = {} probes into B one-word cells of an era ==\n", o.k);
  fmt::print("{:>6} {:>14} {:>24} {:>22}\n", "B", "lines a key", "rate at the same bits", "bits for the rate");
  for (double b : {32.0, 64.0, 128.0, 256.0, 512.0}) {
    const Rates same_bits = run_rates(b, o.k, 1.0);
    double lo = 1.0, hi = 4.0;  // the bits factor s, by bisection
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      (run_rates(b, o.k, mid).blocked > same_bits.unblocked ? lo : hi) = mid;
    }
    // Distinct lines among the block's B / 8 that k random probes touch, on average.
    const double block_lines = b / 8, lines = block_lines * (1 - std::pow(1 - 1 / block_lines, o.k));
    fmt::print("{:>6.0f} {:>14.1f} {:>23.1f}x {:>21.2f}x\n", b, lines, same_bits.blocked / same_bits.unblocked, hi);
  }
  return 0;
}
