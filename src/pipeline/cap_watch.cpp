// The memory caps as the user hears of them (cap_watch.hpp).
#include "pipeline/cap_watch.hpp"

#include <fmt/format.h>

namespace tlbf_dedup {

void CapWatch::warn_at(const std::string& input, std::uint64_t number, const std::string& what) const {
  diagnostics_->warning(
      Warning{WarningKind::memory_cap, input, number, 1, fmt::format("{}: record {}: {}", input, number, what)});
}

void CapWatch::filter_bound(const std::string& input, std::uint64_t number, tlbf::Time now, RunStats& stats) {
  // A batch stops right after the key whose decision made the memory cap bind: the window kept
  // is read at that moment.
  const bool first = stats.cap_binds == 0;
  stats.cap_binds = decider_->cap_binds();
  const tlbf::FilterStats at_bind = decider_->stats(now);
  if (first || narrower_window(at_bind, shortest_)) shortest_ = at_bind;
  if (!first) return;
  const std::string kept = cap_window(at_bind);
  if (on_cap_ == OnCap::fail) {
    sink_->flush();
    throw CapError(
        fmt::format("{}: record {}: the memory cap (--max-memory) bound: keeping the filter under it would "
                    "shrink the window to {} (--on-cap fail)",
                    input, number, kept));
  }
  warn_at(input, number,
          fmt::format("the memory cap (--max-memory) bound: the filter now keeps the last {} of the window; older "
                      "duplicates may pass, no unique record is lost to the cap (see the summary at exit)",
                      kept));
}

void CapWatch::sink_bound(const std::string& input, std::uint64_t number, std::uint64_t early, tlbf::Time now) {
  if (on_cap_ == OnCap::fail) {
    sink_->end(RecordSink::End::all_written, now);
    sink_->flush();
    throw CapError(fmt::format(
        "{}: record {}: the memory cap (--max-memory) bound: {} held record(s) had to be written before their "
        "window closed (--on-cap fail)",
        input, number, early));
  }
  if (held_reported_) return;
  held_reported_ = true;
  warn_at(input, number,
          fmt::format("the memory cap (--max-memory) bound: {} held record(s) were written before their window "
                      "closed, with the counts they had; later copies of their keys start new records (see the "
                      "summary at exit)",
                      early));
}

void CapWatch::complete(RunStats& stats) const {
  if (stats.cap_binds == 0) return;
  stats.filter.effective_span = shortest_.effective_span;
  stats.filter.effective_count = shortest_.effective_count;
}

void CapWatch::warn_total(const RunStats& stats) const {
  if (decider_->cap_binds() == 0) return;
  diagnostics_->warning(
      Warning{WarningKind::memory_cap, "", 0, decider_->cap_binds(),
              fmt::format("the memory cap (--max-memory) bound {} time(s) in this run: the window "
                          "kept shrank to {} at its shortest ({} key(s) or blocks dropped before "
                          "they expired; older duplicates may have passed)",
                          decider_->cap_binds(), cap_window(stats.filter), stats.filter.cap_evictions)});
}

}  // namespace tlbf_dedup
