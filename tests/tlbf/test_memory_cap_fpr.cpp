// A memory cap shortens the window and keeps the error rate, for every filter: over streams of
// distinct keys (each decision a key never seen, so every "present" is a false positive),
// under caps of 1/4, 1/16 and 1/64 of the most the filter held uncapped, the measured
// false-positive rate stays within sampling error of the target: at most the target plus
// three standard deviations of a binomial count at the target. Two streams: every key inside
// the window (time: one grid cell of a 1 h window, as untimed input read in a second gets;
// count: a window of all the keys), and keys spread over three windows (1 s; a third of the
// keys).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/visit.hpp"

namespace {

using filter_checks::key;
using tlbf::Duration;
using tlbf::Time;

struct Kind {
  std::string name;
  tlbf::Algorithm algorithm;
  bool time_window;
  tlbf::TlbfLayout layout = tlbf::TlbfLayout::bit_sliced;
};

struct Stream {
  std::string name;
  Duration span;        // the time window
  Duration step;        // between two keys
  std::uint64_t count;  // the count window
};

constexpr std::uint64_t kKeys = 200000;

tlbf::FilterConfig config(const Kind& kind, const Stream& s, double target) {
  tlbf::FilterConfig c;
  c.algorithm = kind.algorithm;
  c.error_rate = target;
  c.tlbf_layout = kind.layout;
  if (kind.time_window) {
    c.span = s.span;
  } else {
    c.window_count = s.count;
  }
  return c;
}

struct Result {
  std::uint64_t false_positives = 0, binds = 0, bits = 0;
};

Result run(const tlbf::FilterConfig& cfg, const Stream& s) {
  auto f = tlbf::make_filter(cfg);
  Result r;
  Time now = tlbf::kSecond;
  tlbf::visit_filter(*f, [&](auto& g) {
    for (std::uint64_t i = 0; i < kKeys; ++i) r.false_positives += !g.insert_if_absent(key(i), now += s.step);
  });
  r.binds = f->cap_binds();
  r.bits = f->stats(now).peak_bits_allocated;
  return r;
}

}  // namespace

TEST_SUITE("memory_cap_fpr") {
  TEST_CASE("under a memory cap that binds, every filter keeps its false-positive rate") {
    const std::vector<Kind> kinds = {
        {"tlbf", tlbf::Algorithm::tlbf, true},
        {"tlbf slice-major", tlbf::Algorithm::tlbf, true, tlbf::TlbfLayout::slice_major},
        {"apbf", tlbf::Algorithm::apbf, false},
        {"gebf count", tlbf::Algorithm::gebf, false},
        {"gebf time", tlbf::Algorithm::gebf, true},
        {"exact count", tlbf::Algorithm::exact, false},
        {"exact time", tlbf::Algorithm::exact, true},
    };
    const std::vector<Stream> streams = {{"all keys in the window", 3600 * tlbf::kSecond, 1000, kKeys},
                                         {"three windows", tlbf::kSecond, 15 * tlbf::kMicrosecond, kKeys / 3}};
    std::uint64_t capped_runs = 0;
    for (const Kind& kind : kinds) {
      for (const Stream& s : streams) {
        for (const double target : {1e-2, 1e-3}) {
          const tlbf::FilterConfig uncapped = config(kind, s, target);
          const Result free_run = run(uncapped, s);
          for (const std::uint64_t share : {4u, 16u, 64u}) {
            tlbf::FilterConfig cfg = uncapped;
            cfg.max_memory_bytes = free_run.bits / 8 / share;
            Result r;
            try {
              r = run(cfg, s);
            } catch (const tlbf::invalid_parameter&) {
              continue;  // a cap too small to build the filter at all: refused, not degraded
            }
            const double n = static_cast<double>(kKeys);
            const double bound = target * n + 3 * std::sqrt(target * (1 - target) * n);
            INFO(kind.name << ", " << s.name << ", target " << target << ", cap 1/" << share << " ("
                           << cfg.max_memory_bytes << " bytes): " << r.false_positives << " false positives of "
                           << kKeys << " (bound " << bound << "), " << r.binds << " cap binds");
            CHECK(static_cast<double>(r.false_positives) <= bound);
            capped_runs += r.binds > 0;
          }
        }
      }
    }
    MESSAGE(capped_runs << " capped runs in which the cap bound");
    CHECK(capped_runs >= 40);  // of 84
  }
}
