// The tagged filter against the TLBF and the exact filter as the window grows from 10^3 to
// 10^7 live keys (issue 55's targets): CPU ns per decision, the wall time of the whole run,
// bits per live key and peak RSS, one row per filter and window size.
//
// Each row runs in a child process of its own, so that its peak RSS (getrusage's ru_maxrss)
// is that filter's alone. The stream is the scaling benchmark's steady one (common.hpp: a new
// key every microsecond, 30 % of the decisions repeats of keys inside the window), so a window
// of N microseconds holds N live keys. The filter first decides --fill-spans windows of it
// (filling and recycling the window at the observed rate), then --decisions more are timed
// in thread CPU time; keys are hashed inside the timed loop, and decided in batches of 64
// through tlbf::insert_if_absent_batch() (the program's path: prefetch ahead, then decide in
// order). The wall column times the child from building the filter to its last decision.
// Bits per live key are bits allocated over N. The summary gives, at the largest window,
// tagged's wall time and peak RSS over the TLBF's and exact's at the program's default error
// rate (1e-5), and tagged's bits per live key at 1e-3 and 1e-5 against 22 and 30.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "common.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/tagged.hpp"
#include "tlbf/visit.hpp"

namespace {

using tlbf::Algorithm;
using tlbf_bench::kTick;
using tlbf_bench::SteadyStream;

struct Options {
  std::uint64_t max_live = 10'000'000;
  std::uint64_t decisions = 1'000'000;
  double fill_spans = 1.5;
  std::string only;  // run only the filter of this name (empty: all)
};

struct Subject {
  const char* name;
  bool tagged;
  Algorithm algorithm;
  double error_rate;
};
constexpr Subject kSubjects[] = {{"tagged", true, Algorithm::tlbf, 1e-3},
                                 {"tagged", true, Algorithm::tlbf, 1e-5},
                                 {"tlbf", false, Algorithm::tlbf, 1e-3},
                                 {"tlbf", false, Algorithm::tlbf, 1e-5},
                                 {"exact", false, Algorithm::exact, 1e-5}};
constexpr std::uint64_t kLiveSizes[] = {1'000, 10'000, 100'000, 1'000'000, 10'000'000};
constexpr std::size_t kBatch = 64;

struct Row {
  double ns_per_decision = 0;
  double wall_seconds = 0;
  double bits_per_live_key = 0;
  double peak_rss_mib = 0;
  std::uint32_t tables = 0;  // tagged: tables live at the end
};

[[noreturn]] void usage() {
  fmt::print(stderr, "usage: tlbf-bench-tagged [--max-live N] [--decisions N] [--fill-spans X] [--only NAME]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--max-live")
      o.max_live = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--decisions")
      o.decisions = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--fill-spans")
      o.fill_spans = std::strtod(argv[i + 1], nullptr);
    else if (a == "--only")
      o.only = argv[i + 1];
    else
      usage();
  }
  if (argc % 2 == 0 || o.max_live == 0 || o.decisions == 0 || !(o.fill_spans > 0)) usage();
  return o;
}

// Decides n decisions of the stream in batches; returns how many were new.
template <class F>
std::uint64_t decide(F& f, SteadyStream& stream, std::uint64_t n) {
  tlbf::KeyHash keys[kBatch];
  tlbf::Time times[kBatch];
  bool fresh[kBatch];
  std::uint64_t news = 0;
  for (std::uint64_t done = 0; done < n;) {
    const std::size_t b = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, n - done));
    for (std::size_t i = 0; i < b; ++i) {
      keys[i] = tlbf_bench::key_hash(stream.next_key());
      times[i] = stream.now();
    }
    for (std::size_t at = 0; at < b;) at += tlbf::insert_if_absent_batch(f, keys + at, times + at, b - at, fresh + at);
    for (std::size_t i = 0; i < b; ++i) news += fresh[i];
    done += b;
  }
  return news;
}

template <class F>
Row measure(F& f, std::uint64_t live, const Options& opt, std::chrono::steady_clock::time_point start) {
  SteadyStream stream(live);
  const auto fill_keys = static_cast<std::uint64_t>(opt.fill_spans * static_cast<double>(live));
  while (stream.new_keys() < fill_keys) decide(f, stream, 4096);
  const double cpu0 = tlbf_bench::cpu_seconds();
  const std::uint64_t news = decide(f, stream, opt.decisions);
  const double cpu = tlbf_bench::cpu_seconds() - cpu0;
  Row r;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.ns_per_decision = cpu * 1e9 / static_cast<double>(opt.decisions);
  r.bits_per_live_key = static_cast<double>(f.stats(stream.now()).bits_allocated) / static_cast<double>(live);
  if (news == 0) r.ns_per_decision = -1;  // a stream with no new key measured nothing
  if constexpr (std::is_same_v<F, tlbf::TaggedFilter>) r.tables = f.shape(stream.now()).tables;
  return r;
}

Row run(const Subject& s, std::uint64_t live, const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  tlbf::FilterConfig cfg;
  cfg.algorithm = s.algorithm;
  cfg.span = static_cast<tlbf::Duration>(live) * kTick;
  cfg.error_rate = s.error_rate;
  Row r;
  if (s.tagged) {
    tlbf::TaggedFilter f(cfg);
    r = measure(f, live, opt, start);
  } else {
    const std::unique_ptr<tlbf::WindowFilter> f = tlbf::make_filter(cfg);
    tlbf::visit_filter(*f, [&](auto& g) { r = measure(g, live, opt, start); });
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  r.peak_rss_mib = static_cast<double>(u.ru_maxrss) / 1024.0;
  return r;
}

// run() in a child process, its Row back through a pipe.
Row run_alone(const Subject& s, std::uint64_t live, const Options& opt) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const Row r = run(s, live, opt);
    const ssize_t w = write(fds[1], &r, sizeof r);
    _exit(w == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(fds[1]);
  Row r;
  const ssize_t got = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != static_cast<ssize_t>(sizeof r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "tlbf-bench-tagged: the run of {} at {} live keys failed\n", s.name, live);
    std::exit(1);
  }
  return r;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown processor";
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  fmt::print("tlbf-bench-tagged on {} ({} cores), {}; {} fill spans, {} timed decisions, batches of {}\n", cpu_model(),
             sysconf(_SC_NPROCESSORS_ONLN), date, opt.fill_spans, opt.decisions, kBatch);
  fmt::print("{:>10}  {:<7} {:>6}  {:>12} {:>9} {:>14} {:>13}\n", "live keys", "filter", "-e", "ns/decision", "wall s",
             "bits/live key", "peak RSS MiB");
  std::uint64_t largest = 0;
  Row at_largest[std::size(kSubjects)];
  for (const std::uint64_t live : kLiveSizes) {
    if (live > opt.max_live) break;
    largest = live;
    for (std::size_t i = 0; i < std::size(kSubjects); ++i) {
      const Subject& s = kSubjects[i];
      if (!opt.only.empty() && opt.only != s.name) continue;
      const Row r = run_alone(s, live, opt);
      at_largest[i] = r;
      fmt::print("{:>10}  {:<7} {:>6.0e}  {:>12.1f} {:>9.2f} {:>14.1f} {:>13.1f}{}\n", live, s.name, s.error_rate,
                 r.ns_per_decision, r.wall_seconds, r.bits_per_live_key, r.peak_rss_mib,
                 s.tagged ? fmt::format("  ({} table{})", r.tables, r.tables == 1 ? "" : "s") : "");
    }
  }
  if (!opt.only.empty()) return 0;  // the ratios need every filter
  const Row& tagged3 = at_largest[0];
  const Row& tagged5 = at_largest[1];
  const Row& tlbf5 = at_largest[3];
  const Row& exact = at_largest[4];
  fmt::print(
      "\nat {} live keys, -e 1e-5: tagged wall {:.2f}x the TLBF's (target <= 0.5), {:.2f}x exact's (<= 1.0); "
      "peak RSS {:.3f}x exact's (<= 0.1)\n",
      largest, tagged5.wall_seconds / tlbf5.wall_seconds, tagged5.wall_seconds / exact.wall_seconds,
      tagged5.peak_rss_mib / exact.peak_rss_mib);
  fmt::print("tagged bits per live key: {:.1f} at 1e-3 (target <= 22), {:.1f} at 1e-5 (target <= 30)\n",
             tagged3.bits_per_live_key, tagged5.bits_per_live_key);
  return 0;
}
