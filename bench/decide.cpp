// The filter's cost per decision on a real stream, alone: the keys and times of a text log
// (key = field --key-field, time = epoch seconds in field --time-field, as `tlbf-dedup -k 3
// -t 1` reads bench/run.sh's generated events) are read and hashed first, untimed, and then
// decided by the filter the program builds (make_filter(), the program's defaults), key by
// key (insert_if_absent) or through the batch entry point (insert_if_absent_batch()).
//
// What it prints: decisions, records kept, CPU seconds of the decision loop and decisions per
// CPU second, and the filter's statistics at the end. For instruction and load counts run it
// under valgrind with --toggle-collect='*decide_all*', so that only the decision loop is
// counted (`valgrind --tool=callgrind --cache-sim=yes --toggle-collect='*decide_all*'
// tlbf-bench-decide --input events.txt`), and divide Ir and Dr by the decisions printed.
//
// Invariants that keep the figures honest: the hash seed is 0 (the decisions are those of the
// program run with TLBF_DEDUP_HASH_SEED=0); the loop is in a function of its own, never
// inlined, so a profiler can count it alone; every answer is counted.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
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
#include "tlbf/visit.hpp"

#include "common.hpp"

namespace {

struct Options {
  std::string input;
  std::string algorithm = "tlbf";
  double window_s = 60;
  std::uint64_t count = 0;  // a count window instead (apbf, gebf, exact)
  double error_rate = 1e-5;
  std::uint64_t max_memory = 0;
  int key_field = 3, time_field = 1;
  bool batch = true;
};

struct Stream {
  std::vector<tlbf::KeyHash> keys;
  std::vector<tlbf::Time> times;
};

// Field `n` (1-based, blank-separated) of a line, or an empty view.
std::string_view field(std::string_view line, int n) {
  std::size_t at = 0;
  for (int i = 1;; ++i) {
    while (at < line.size() && line[at] == ' ') ++at;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ') ++end;
    if (i == n || at == line.size()) return line.substr(at, end - at);
    at = end;
  }
}

Stream read_stream(const Options& o) {
  Stream s;
  std::ifstream in(o.input);
  if (!in) throw std::runtime_error("cannot read " + o.input);
  std::string line;
  while (std::getline(in, line)) {
    s.keys.push_back(tlbf::hash_key(field(line, o.key_field)));
    const std::string t(field(line, o.time_field));
    s.times.push_back(static_cast<tlbf::Time>(std::strtod(t.c_str(), nullptr) * 1e9 + 0.5));
  }
  return s;
}

// The decision loop alone (what a profiler is told to count).
template <class F>
[[gnu::noinline]] std::uint64_t decide_all(F& f, const Stream& s, bool batch) {
  std::uint64_t kept = 0;
  if (batch) {
    constexpr std::size_t kBatch = 4096;
    bool fresh[kBatch];
    for (std::size_t at = 0; at < s.keys.size();) {
      const std::size_t n = std::min(kBatch, s.keys.size() - at);
      const std::size_t done = tlbf::insert_if_absent_batch(f, &s.keys[at], &s.times[at], n, fresh);
      for (std::size_t i = 0; i < done; ++i) kept += fresh[i];
      at += done;
    }
  } else {
    for (std::size_t i = 0; i < s.keys.size(); ++i) kept += f.insert_if_absent(s.keys[i], s.times[i]);
  }
  return kept;
}

int run(const Options& o) {
  const Stream s = read_stream(o);
  tlbf::FilterConfig cfg;
  cfg.algorithm = *tlbf::parse_algorithm(o.algorithm);
  if (o.count != 0)
    cfg.window_count = o.count;
  else
    cfg.span = static_cast<tlbf::Duration>(o.window_s * 1e9);
  cfg.error_rate = o.error_rate;
  if (o.max_memory != 0) cfg.max_memory_bytes = o.max_memory;
  auto filter = tlbf::make_filter(cfg);
  std::uint64_t kept = 0;
  const double t0 = tlbf_bench::cpu_seconds();
  tlbf::visit_filter(*filter, [&](auto& f) { kept = decide_all(f, s, o.batch); });
  const double cpu = tlbf_bench::cpu_seconds() - t0;
  const tlbf::FilterStats st = filter->stats(s.times.empty() ? 0 : s.times.back());
  fmt::print("{} decisions ({}), {} kept; {:.3f} CPU-s, {:.2f} M decisions per CPU-s\n", s.keys.size(),
             o.batch ? "batch" : "one by one", kept, cpu, static_cast<double>(s.keys.size()) / cpu / 1e6);
  fmt::print("{}: k = {}, l = {}, {} slices, {:.1f} bits per live key ({} live keys), peak {} bits, {} cap binds\n",
             st.algorithm, st.k, st.l, st.slices, st.bits_per_live_key, st.live_keys, st.peak_bits_allocated,
             filter->cap_binds());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--input") {
      o.input = value();
    } else if (a == "-a") {
      o.algorithm = value();
    } else if (a == "-w") {
      o.window_s = std::stod(value());
    } else if (a == "-n") {
      o.count = std::stoull(value());
    } else if (a == "-e") {
      o.error_rate = std::stod(value());
    } else if (a == "--max-memory") {
      o.max_memory = std::stoull(value());
    } else if (a == "-k") {
      o.key_field = std::stoi(value());
    } else if (a == "-t") {
      o.time_field = std::stoi(value());
    } else if (a == "--one-by-one") {
      o.batch = false;
    } else {
      std::fprintf(stderr,
                   "usage: tlbf-bench-decide --input FILE [-a ALGO] [-w SECONDS | -n COUNT] [-e RATE] "
                   "[--max-memory BYTES] [-k FIELD] [-t FIELD] [--one-by-one]\n");
      return 2;
    }
  }
  try {
    if (o.input.empty()) throw std::runtime_error("--input FILE is required");
    if (!tlbf::parse_algorithm(o.algorithm)) throw std::runtime_error("unknown algorithm " + o.algorithm);
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlbf-bench-decide: %s\n", e.what());
    return 1;
  }
}
