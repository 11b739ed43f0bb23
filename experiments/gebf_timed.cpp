// Our extensions: the time-window GEBF (TimedEpochFilter) and the tagged filter (TaggedFilter)
// beside TLBF and the exact filter on the same event streams, at the same target rate. Not in
// either paper. Beside them, the space floor of sliding-window membership at the tagged
// filter's slack (Naor and Yogev: about log2(1/error) + log2(window/slack) bits a key).
//
// Streams: a 60 s window over 10 minutes of events at 1,000/s, half of them repeating a key
// from the last 100,000 events (so some repeats fall inside the window and some beyond),
// under three rate profiles: steady; burst (every 10th 20 s phase at 10x the rate); idle
// (a silent gap of three windows after every 150 s of events). Each filter is used as the program uses it
// by default, insert_if_absent, and has its own exact oracle fed with the keys it inserted:
// a key the oracle holds inside the window that the filter calls absent is a false
// negative, counted (must stay 0). Every 10 s of stream: bits per live key (allocated bits
// over the oracle's count of distinct keys inside the window, as `--stats` reports it) and
// the false-positive rate on 100,000 fresh keys. The summary takes samples from 200 s of
// stream on (the repeat mix has settled) and, in the idle profile, not within one window
// after a gap (almost nothing is live then, so bits per live key says nothing); the series
// CSV keeps every sample.
#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "experiments.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/tagged.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf_experiments {

void run_gebf_timed(Context& ctx) {
  const tlbf::Duration span = 60 * tlbf::kSecond;
  const tlbf::Duration length = (ctx.quick ? 130 : 600) * tlbf::kSecond;
  const tlbf::Duration warm_up = (ctx.quick ? 70 : 200) * tlbf::kSecond;
  const std::uint64_t fresh_queries = ctx.quick ? 5000 : 100000;
  Csv series(ctx.out / "gebf_timed_series.csv",
             {"profile", "error_rate", "filter", "time_s", "live_keys", "bits_per_live_key", "fpr"});
  Csv summary(ctx.out / "gebf_timed.csv",
              {"profile", "error_rate", "filter", "events", "median_bits_per_live_key", "p90_bits_per_live_key",
               "median_fpr", "p90_fpr", "false_negatives", "live_checks"});
  const std::vector<double> rates = ctx.quick ? std::vector<double>{1e-3} : std::vector<double>{1e-3, 1e-5};
  for (double rate : rates) {
    for (const char* profile : {"steady", "burst", "idle"}) {
      tlbf::FilterConfig cfg;
      cfg.span = span;
      cfg.error_rate = rate;
      cfg.capacity = 60000;
      cfg.algorithm = tlbf::Algorithm::tlbf;
      auto tl_made = tlbf::TimeLimitedFilter::make(cfg);
      tlbf::TimeLimitedFilter& tl = *tl_made;
      cfg.algorithm = tlbf::Algorithm::gebf;
      tlbf::TimedEpochFilter ge(cfg);
      cfg.algorithm = tlbf::Algorithm::tagged;
      tlbf::TaggedFilter tagged(cfg);
      cfg.algorithm = tlbf::Algorithm::exact;
      tlbf::ExactWindow exact(cfg);
      tlbf::FilterConfig ocfg = cfg;
      ocfg.algorithm = tlbf::Algorithm::exact;
      struct Entry {
        const char* name;
        tlbf::WindowFilter* f;
        tlbf::ExactWindow oracle;
        std::uint64_t fn = 0, live_checks = 0;
        std::vector<double> bits, fpr;  // settled samples, for the summary
        struct Sample {
          double time_s;
          std::uint64_t live_keys;
          double bits, fpr;
        };
        std::vector<Sample> samples;  // all samples; written per filter so plot lines join
      };
      std::vector<Entry> filters;
      filters.push_back(Entry{"tlbf", &tl, tlbf::ExactWindow(ocfg), 0, 0, {}, {}, {}});
      filters.push_back(Entry{"gebf-timed", &ge, tlbf::ExactWindow(ocfg), 0, 0, {}, {}, {}});
      filters.push_back(Entry{"tagged", &tagged, tlbf::ExactWindow(ocfg), 0, 0, {}, {}, {}});
      filters.push_back(Entry{"exact", &exact, tlbf::ExactWindow(ocfg), 0, 0, {}, {}, {}});

      std::mt19937_64 rng(7);
      const bool burst = std::string(profile) == "burst", idle = std::string(profile) == "idle";
      std::vector<std::uint64_t> recent;
      std::uint64_t next_id = 0, events = 0, fresh_id = 0;
      // `active` is stream time without the idle gaps; `now` = active + gaps so far.
      tlbf::Time active = 0, idle_total = 0, last_gap_end = 0, next_sample = 10 * tlbf::kSecond;
      while (active < length) {
        const std::int64_t phase = active / (20 * tlbf::kSecond);
        const tlbf::Duration step = burst && phase % 10 == 9 ? tlbf::kMillisecond / 10 : tlbf::kMillisecond;
        active += step;
        if (idle && active % (150 * tlbf::kSecond) < step) {
          idle_total += 3 * span;
          last_gap_end = active + idle_total;
        }
        const tlbf::Time now = active + idle_total;
        std::uint64_t id = (rng() % 2 == 0 && !recent.empty()) ? recent[rng() % recent.size()] : next_id++;
        if (recent.size() < 100000)
          recent.push_back(id);
        else
          recent[events % 100000] = id;
        const tlbf::KeyHash h = inserted_key(id);
        for (Entry& e : filters) {
          const bool live = e.oracle.may_contain(h, now);
          e.live_checks += live ? 1 : 0;
          if (e.f->insert_if_absent(h, now)) {
            e.fn += live ? 1 : 0;
            e.oracle.insert(h, now);
          }
        }
        ++events;
        if (active >= next_sample) {
          next_sample += 10 * tlbf::kSecond;
          // Summaries skip the warm-up (the repeat mix settles by 200 s) and, after an idle
          // gap, the first window (nearly empty, so any filter's bits per key is huge).
          const bool settled = active >= warm_up && now - last_gap_end >= span;
          for (Entry& e : filters) {
            const std::uint64_t live_keys = e.oracle.stats(now).live_keys;
            std::uint64_t pos = 0;
            for (std::uint64_t q = 0; q < fresh_queries; ++q)
              pos += e.f->may_contain(fresh_key(fresh_id + q), now) ? 1 : 0;
            const double bits =
                live_keys ? static_cast<double>(e.f->stats(now).bits_allocated) / static_cast<double>(live_keys) : 0;
            const double fpr = static_cast<double>(pos) / static_cast<double>(fresh_queries);
            if (settled && live_keys > 0) {
              e.bits.push_back(bits);
              e.fpr.push_back(fpr);
            }
            e.samples.push_back({static_cast<double>(now) / 1e9, live_keys, bits, fpr});
          }
          fresh_id += fresh_queries;
        }
      }
      for (Entry& e : filters) {
        for (const auto& x : e.samples) {
          series << profile << rate << e.name << x.time_s << x.live_keys << x.bits << x.fpr;
          series.end_row();
        }
        summary << profile << rate << e.name << events << median(e.bits) << percentile(e.bits, 0.9) << median(e.fpr)
                << percentile(e.fpr, 0.9) << e.fn << e.live_checks;
        summary.end_row();
        fmt::print("  {:<6} {:<7} {:<10} {:6.1f} bits/live key (p90 {:6.1f})  fpr {:.2e}  false negatives {}\n",
                   profile, fmt::format("{:g}", rate), e.name, median(e.bits), percentile(e.bits, 0.9), median(e.fpr),
                   e.fn);
      }
      // The floor at the tagged filter's slack, as a row of its own (no filter, no samples).
      const double floor_bits =
          std::log2(1 / rate) + std::log2(static_cast<double>(span) / static_cast<double>(tagged.slack()));
      summary << profile << rate << "floor" << events << floor_bits << floor_bits << rate << rate << 0 << 0;
      summary.end_row();
      fmt::print("  {:<6} {:<7} {:<10} {:6.1f} bits/live key (the space floor at a slack of {:.1f} s)\n", profile,
                 fmt::format("{:g}", rate), "floor", floor_bits, static_cast<double>(tagged.slack()) / 1e9);
    }
  }
  std::string body = "set multiplot layout 3,1\nset yrange [0:60]\nset key inside right top\n";
  for (const char* p : {"steady", "burst", "idle"}) {
    body += fmt::format("set title 'Bits per live key, 60 s window, error rate 1e-3: {} rate'\n", p);
    body += fmt::format(
        "plot for [f in 'tlbf gebf-timed tagged'] 'gebf_timed_series.csv' "
        "using (strcol(1) eq '{}' && strcol(3) eq f && $2 == 0.001 ? $4 : 1/0):6 with lines lw 2 title f\n",
        p);
  }
  body += "unset multiplot";
  add_plot(ctx, "gebf_timed_bits", "", "stream time (s)", "bits per live key", body);
}

}  // namespace tlbf_experiments
