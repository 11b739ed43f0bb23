// The record loop with a holding stage (--count, --keep last): each keyed record goes to the
// holder (output/holder.hpp), which decides it exactly and writes, through the emitter, the
// records whose windows close; the decider is not asked. Records without a key (--on-error
// pass) are written at once, as a count of 1.
//
// Invariants:
//  - No held record is lost: on every way out of the run each one is written, or kept in the
//    state file when the run saves one (unless --drain): at the end of input, after a stop
//    signal, at the untimed probe, after an input error, a fatal record or a binding cap
//    with --on-cap fail. Only when the output itself stops taking bytes (a signal with the
//    output blocked) are they neither, as the kept records of a run without holding are not.
//  - With the wall clock (no -t) and a time window, a record is written when its window
//    closes by that clock, also while the input pauses: the pause hook closes what is due
//    and asks to be called again when the next window closes.
#include <algorithm>

#include <fmt/format.h>

#include "extract/extract.hpp"
#include "output/json_member.hpp"
#include "pipeline/pipeline.hpp"

namespace tlbf_dedup {
namespace {

// A JSON number, true, false or null: written bare, as the input wrote it.
bool is_bare_json(std::string_view text) {
  if (text == "true" || text == "false" || text == "null") return true;
  std::string canonical;
  return append_canonical_number(canonical, text);
}

}  // namespace

void Pipeline::hold_keyed(const RecordBatch& b, const SourceRecord& r, std::size_t k) {
  const std::size_t key = segment_.first_key + k;
  Copy copy{b.keys()[key], b.hashes()[key], r.bytes, r.text_size(), json_, seen_time(r, segment_.times[k])};
  if (r.time.parsed) copy.seen.own = r.time.time;  // (a late copy's own time, not the clock's)
  const HoldVerdict v = holder_->take(copy, *this);
  stats_.duplicates += v.dup;
  if (v.dup && top_) top_->add(copy.key, copy.hash);
  held_last_ = emitted_ = v.held;
  if (v.early > 0) held_cap_bound(r, v.early);
}

SeenTime Pipeline::seen_time(const SourceRecord& r, tlbf::Time at) const {
  if (cfg_.extract.time.empty()) return SeenTime{SeenForm::clock, {}, at};
  const std::string_view t = r.time.text;
  if (!r.time.present) return SeenTime{SeenForm::absent, {}, at};
  if (!json_) return SeenTime{SeenForm::bare, t, at};
  // A JSON string read in place is preceded by its opening quote; a number read in place is
  // not. A time read elsewhere (unescaped, or a copy) is looked up in the record as a
  // top-level member, and else judged by its text.
  const std::uintptr_t offset =
      reinterpret_cast<std::uintptr_t>(t.data()) - reinterpret_cast<std::uintptr_t>(r.bytes.data());
  if (!t.empty() && offset > 0 && offset < r.bytes.size())
    return SeenTime{r.bytes[offset - 1] == '"' ? SeenForm::string : SeenForm::bare, t, at};
  const auto [begin, end] = find_member_value(r.bytes.substr(0, r.text_size()), time_member_);
  if (begin != std::string_view::npos) return SeenTime{SeenForm::bare, r.bytes.substr(begin, end - begin), at};
  return SeenTime{is_bare_json(t) ? SeenForm::bare : SeenForm::string, t, at};
}

void Pipeline::write_held(const CountedRecord& r) { stats_.emitted += sink_->held(r, true); }

void Pipeline::pass_held(const SourceRecord& r) {
  const SeenTime seen = seen_time(r, clock_.now());
  sink_->held(CountedRecord{r.bytes, r.text_size(), json_, 1, seen, seen}, false);  // (not counted: untouched)
}

void Pipeline::held_cap_bound(const SourceRecord& r, std::uint64_t early) {
  if (cfg_.on_cap == OnCap::fail) {
    write_all_held();
    sink_->flush();
    throw CapError(fmt::format(
        "{}: record {}: the memory cap (--max-memory) bound: {} held record(s) had to be written before their "
        "window closed (--on-cap fail)",
        input_name(r), r.number, early));
  }
  if (held_cap_reported_) return;
  held_cap_reported_ = true;
  warn_at(r, WarningKind::memory_cap,
          fmt::format("the memory cap (--max-memory) bound: {} held record(s) were written before their window "
                      "closed, with the counts they had; later copies of their keys start new records (see the "
                      "summary at exit)",
                      early));
}

void Pipeline::release_held_at_end() {
  // A state saved at the end keeps them for the next run, unless --drain; else they go now.
  const bool saved = hooks_.save && !holder_->config().drain && !(clock_.found_no_time() && !*stop_);
  if (saved)
    close_held_by_wall_clock();
  else
    holder_->close_all(*this);
}

void Pipeline::close_held_by_wall_clock() {
  if (!cfg_.extract.time.empty()) return;  // event time stands still while the input does
  holder_->close_until(std::max(clock_.now(), time_source_->wall_ns()), *this);
}

int Pipeline::held_wait(int wait) {
  const std::optional<tlbf::Time> next = holder_->next_close();
  if (!next || !cfg_.extract.time.empty()) return wait;
  const tlbf::Time now = std::max(clock_.now(), time_source_->wall_ns());
  const tlbf::Duration left = *next > now ? *next - now : 0;
  const int ms = static_cast<int>(std::min<tlbf::Duration>(left / tlbf::kMillisecond + 1, 60000));
  return wait < 0 ? ms : std::min(wait, ms);
}

void Pipeline::count_held(RunStats& stats) const {
  const HeldStats h = holder_->stats();
  stats.held = HeldReport{true, h.peak, h.peak_bytes, h.early};
  // The held records are the window's keys: the filter the run decided with.
  tlbf::FilterStats& f = stats.filter;
  f = tlbf::FilterStats{};
  f.algorithm = "exact";
  f.bits_allocated = 8 * h.bytes;
  f.peak_bits_allocated = 8 * h.peak_bytes;
  f.keys_inserted = h.taken;
  f.live_keys = h.held;
  f.bits_per_live_key = h.peak > 0 ? 8.0 * static_cast<double>(h.peak_bytes) / static_cast<double>(h.peak) : 0;
  f.memory_capped = h.early > 0;
  f.cap_evictions = h.early;
  if (h.shortest_early && holder_->config().span > 0) f.effective_span = *h.shortest_early;
  if (h.shortest_early && holder_->config().span == 0)
    f.effective_count = static_cast<std::uint64_t>(std::max<tlbf::Duration>(1, *h.shortest_early));
}

void Pipeline::warn_held_total() {
  const HeldStats h = holder_->stats();
  if (h.early == 0) return;
  diagnostics_->warning(
      Warning{WarningKind::memory_cap, "", 0, h.early,
              fmt::format("the memory cap (--max-memory) bound in this run: {} held record(s) were written before "
                          "their window closed, with partial counts (the shortest held: {})",
                          h.early, cap_window(stats_.filter))});
}

}  // namespace tlbf_dedup
