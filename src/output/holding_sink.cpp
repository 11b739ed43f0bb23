// The holding stage as a sink (holding_sink.hpp): each keyed record to the holder, the
// records whose windows close to the printer, with the time of each copy as the input wrote
// it. Records without a key (--on-error pass) are written at once, as a count of 1.
#include "output/holding_sink.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "extract/extract.hpp"
#include "output/json_member.hpp"
#include "report/diagnostics.hpp"

namespace tlbf_dedup {
namespace {

// A JSON number, true, false or null: written bare, as the input wrote it.
bool is_bare_json(std::string_view text) {
  if (text == "true" || text == "false" || text == "null") return true;
  std::string canonical;
  return append_canonical_number(canonical, text);
}

}  // namespace

HoldingSink::HoldingSink(Holder& holder, RecordSink& out, const std::string& time_field, Clock& wall)
    : SinkWrapper(out),
      holder_(&holder),
      wall_(&wall),
      timed_(!time_field.empty()),
      time_member_(json_escape(time_field)) {}

void HoldingSink::start(const SinkStart& how) {
  emitted_ = how.emitted;
  out_->start(how);
}

RecordSink::Fate HoldingSink::decided(const DecidedRecord& r) {
  Copy copy{r.key, r.hash, r.record.bytes, r.record.text_size, r.record.format, seen_time(r.record, r.time, r.at)};
  if (r.time && r.time->parsed) copy.seen.own = r.time->time;  // (a late copy's own time, not the clock's)
  const HoldVerdict v = holder_->take(copy, *this);
  held_last_ = v.held;
  return Fate{v.held, v.dup, v.early};
}

void HoldingSink::undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) {
  held_last_ = false;
  const SeenTime seen = seen_time(r, time, now);
  *emitted_ += 1;
  out_->held(CountedRecord{r.bytes, r.text_size, r.format, 1, seen, seen}, false);  // (not counted: untouched)
}

void HoldingSink::passed(const OutRecord& r) {
  held_last_ = false;
  out_->passed_among_held(r);
}

void HoldingSink::continuation(std::string_view bytes, std::size_t term_len) {
  if (held_last_ && holder_->continue_last(bytes, term_len)) return;
  out_->continuation(bytes, term_len);
}

void HoldingSink::write_held(const CountedRecord& r) { *emitted_ += out_->held(r, true); }

SeenTime HoldingSink::seen_time(const OutRecord& r, const TimeReading* time, tlbf::Time at) const {
  if (!timed_ || !time) return SeenTime{SeenForm::clock, {}, at, {}};
  const std::string_view t = time->text;
  if (!time->present) return SeenTime{SeenForm::absent, {}, at, {}};
  if (r.format != InputFormat::json) return SeenTime{SeenForm::bare, t, at, {}};
  // A JSON string read in place is preceded by its opening quote; a number read in place is
  // not. A time read elsewhere (unescaped, or a copy) is looked up in the record as a
  // top-level member, and else judged by its text.
  const std::uintptr_t offset =
      reinterpret_cast<std::uintptr_t>(t.data()) - reinterpret_cast<std::uintptr_t>(r.bytes.data());
  if (!t.empty() && offset > 0 && offset < r.bytes.size())
    return SeenTime{r.bytes[offset - 1] == '"' ? SeenForm::string : SeenForm::bare, t, at, {}};
  const auto [begin, end] = find_member_value(r.bytes.substr(0, r.text_size), time_member_);
  if (begin != std::string_view::npos) return SeenTime{SeenForm::bare, r.bytes.substr(begin, end - begin), at, {}};
  return SeenTime{is_bare_json(t) ? SeenForm::bare : SeenForm::string, t, at, {}};
}

void HoldingSink::close_by_wall_clock(tlbf::Time clock) {
  if (timed_) return;  // event time stands still while the input does
  holder_->close_until(std::max(clock, wall_->wall_ns()), *this);
}

int HoldingSink::wait_ms(tlbf::Time clock) {
  const std::optional<tlbf::Time> next = holder_->next_close();
  if (!next || timed_) return -1;
  const tlbf::Time now = std::max(clock, wall_->wall_ns());
  const tlbf::Duration left = *next > now ? *next - now : 0;
  return static_cast<int>(std::min<tlbf::Duration>(left / tlbf::kMillisecond + 1, 60000));
}

void HoldingSink::end(End how, tlbf::Time clock) {
  // A state saved at the end keeps them for the next run, unless --drain; else they go now.
  if (how == End::state_saved && !holder_->config().drain)
    close_by_wall_clock(clock);
  else
    holder_->close_all(*this);
}

void HoldingSink::count_into(RunStats& stats) const {
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

void HoldingSink::warn_totals(Diagnostics& diagnostics, const RunStats& stats) const {
  const HeldStats h = holder_->stats();
  if (h.early == 0) return;
  diagnostics.warning(
      Warning{WarningKind::memory_cap, "", 0, h.early,
              fmt::format("the memory cap (--max-memory) bound in this run: {} held record(s) were written before "
                          "their window closed, with partial counts (the shortest held: {})",
                          h.early, cap_window(stats.filter))});
}

}  // namespace tlbf_dedup
