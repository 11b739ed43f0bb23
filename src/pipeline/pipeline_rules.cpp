// What the record loop (pipeline.cpp) does beside deciding and writing the usual record:
// records without a key (--on-error), records judged one at a time (--explain,
// --line-buffered, a decider that answers later, and the records held for its answers),
// warnings and their totals, the memory cap, checkpoints and input pauses, and how long a
// segment may be.
//
// Invariant: every warning about a record names its input and its number there, and comes
// after the warnings of the records before it; totals come at the end, once.
#include <algorithm>

#include <fmt/format.h>

#include "pipeline/pipeline.hpp"

namespace tlbf_dedup {

void Pipeline::warn(WarningKind kind, std::string what) {
  segment_.warnings.push_back(Segment::Pending{segment_.warnings_for, kind, std::move(what)});
}

void Pipeline::warn_at(const SourceRecord& r, WarningKind kind, const std::string& what) {
  const std::string& input = input_name(r);
  diagnostics_->warning(Warning{kind, input, r.number, 1, fmt::format("{}: record {}: {}", input, r.number, what)});
}

std::size_t Pipeline::give_warnings(const SourceRecord& r, std::size_t i) {
  Segment& s = segment_;
  for (; s.warned < s.warnings.size() && s.warnings[s.warned].record == i; ++s.warned)
    warn_at(r, s.warnings[s.warned].kind, s.warnings[s.warned].what);
  return s.warned < s.warnings.size() ? s.warnings[s.warned].record : SIZE_MAX;
}

void Pipeline::warn_totals() {
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  if (stats_.malformed)
    diagnostics_->warning(
        Warning{WarningKind::malformed_record, "", 0, stats_.malformed,
                fmt::format("{} record(s) were not readable JSON objects ({})", stats_.malformed, action)});
  if (stats_.missing_key)
    diagnostics_->warning(Warning{WarningKind::missing_key, "", 0, stats_.missing_key,
                                  fmt::format("{} record(s) had no key ({})", stats_.missing_key, action)});
  clock_.warn_totals(*diagnostics_);
  if (holder_) warn_held_total();
  if (decider_->cap_binds() > 0)
    diagnostics_->warning(
        Warning{WarningKind::memory_cap, "", 0, decider_->cap_binds(),
                fmt::format("the memory cap (--max-memory) bound {} time(s) in this run: the window "
                            "kept shrank to {} at its shortest ({} key(s) or blocks dropped before "
                            "they expired; older duplicates may have passed)",
                            decider_->cap_binds(), cap_window(stats_.filter), stats_.filter.cap_evictions)});
}

void Pipeline::explain_record(const SourceRecord& r, const std::string_view* key, const char* decision) {
  emitter_->explain(ExplainLine{input_name(r), r.number, key, cfg_.extract.keys.size() > 1,
                                cfg_.extract.time.empty() ? nullptr : &r.time, clock_.now(), decision});
}

bool Pipeline::judge_unkeyed(const SourceRecord& r) {
  const bool malformed = r.status == ExtractStatus::malformed;
  Extracted x;
  x.status = r.status;
  x.absent_part = r.absent_part;
  x.time = r.time;
  const std::string what = malformed ? "not a readable JSON object" : describe_missing_key(cfg_.extract, x, json_);
  const WarningKind kind = malformed ? WarningKind::malformed_record : WarningKind::missing_key;
  std::uint64_t& count = malformed ? stats_.malformed : stats_.missing_key;
  if (cfg_.on_error == OnError::fail) {
    drain();
    write_all_held();
    out_->flush();
    throw RecordError(fmt::format("{}: record {}: {} (--on-error fail)", input_name(r), r.number, what));
  }
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  if (count++ == 0)
    warn_at(r, kind, fmt::format("{} ({}; further ones are counted, see the summary at exit)", what, action));
  if (cfg_.explain > 0) {
    explain_record(r, nullptr, "error");
    return false;
  }
  if (cfg_.on_error == OnError::pass && !cfg_.output.only_dups) {
    write_undecided(r);
    if (cfg_.line_buffered) out_->flush();
    return true;
  }
  return false;
}

void Pipeline::write_undecided(const SourceRecord& r) {
  ++stats_.emitted;
  if (holder_)
    pass_held(r);
  else if (held_.empty())
    emitter_->undecided(out_record(r));
  else
    held_.hold(out_record(r), false, {}, {}, false);
}

void Pipeline::release_answered() {
  bool wrote = false;
  while (!held_.empty()) {
    const HeldRecords::Held h = held_.front();
    if (h.awaits_answer) {
      if (answers_.empty()) break;
      const bool dup = answers_.take();
      stats_.duplicates += dup;
      if (dup && top_) top_->add(h.key, h.hash);
      write_decided(h.record, dup);
    } else {
      emitter_->undecided(h.record);
    }
    held_.pop();
    wrote = true;
  }
  held_.compact();
  if (wrote && cfg_.line_buffered) out_->flush();
}

void Pipeline::drain() {
  decider_->flush(answers_);
  release_answered();
}

void Pipeline::cap_bound(const SourceRecord& r, tlbf::Time now) {
  cap_reported_ = true;
  const std::string kept = cap_window(decider_->stats(now));
  if (cfg_.on_cap == OnCap::fail) {
    out_->flush();
    throw CapError(
        fmt::format("{}: record {}: the memory cap (--max-memory) bound: keeping the filter under it would "
                    "shrink the window to {} (--on-cap fail)",
                    input_name(r), r.number, kept));
  }
  warn_at(r, WarningKind::memory_cap,
          fmt::format("the memory cap (--max-memory) bound: the filter now keeps the last {} of the window; older "
                      "duplicates may pass, no unique record is lost to the cap (see the summary at exit)",
                      kept));
}

void Pipeline::save_state() {
  if (!hooks_.save) return;
  out_->flush();
  hooks_.save(clock_.now());
  last_checkpoint_ns_ = time_source_->steady_ns();
}

void Pipeline::maybe_checkpoint() {
  if (hooks_.save && hooks_.every > 0 && time_source_->steady_ns() - last_checkpoint_ns_ >= hooks_.every) save_state();
}

int Pipeline::input_paused() {
  // What has been decided goes out now (tail -f), and a due checkpoint runs.
  drain();
  if (holder_) close_held_by_wall_clock();
  out_->flush();
  maybe_checkpoint();
  int wait = -1;
  if (hooks_.save && hooks_.every > 0) {
    const std::int64_t due_ns = last_checkpoint_ns_ + hooks_.every - time_source_->steady_ns();
    wait = due_ns <= 0 ? 0 : static_cast<int>(std::min<std::int64_t>(due_ns / 1000000 + 1, 60000));
  }
  return holder_ ? held_wait(wait) : wait;
}

std::size_t Pipeline::room_end(const RecordBatch& b, std::size_t from) const {
  const Emitter::Room room = emitter_->room();
  auto fits = [&](std::size_t end) {
    const std::size_t n = end - from;
    return n <= room.records && b.bytes_between(from, end) + n * room.per_record <= room.bytes;
  };
  std::size_t lo = from + 1, hi = b.size();  // the first record goes whether it fits or not
  if (fits(hi)) return hi;
  while (hi - lo > 1) {  // fits(lo) or lo == from + 1; !fits(hi)
    const std::size_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

void Pipeline::judge_keyed_aside(const RecordBatch& b, const SourceRecord& r, std::size_t k) {
  const std::size_t key = segment_.first_key + k;
  if (decider_->answers_later()) {  // the record waits for its answer
    held_.hold(out_record(r), true, b.keys()[key], b.hashes()[key], top_ != nullptr);
    release_answered();
    return;
  }
  const bool dup = answers_.take();
  stats_.duplicates += dup;
  if (dup && top_) top_->add(b.keys()[key], b.hashes()[key]);
  if (cfg_.explain > 0) {
    static constexpr const char* kDecisions[2][4] = {{"new", "new late", "new untimed", "new future"},
                                                     {"dup", "dup late", "dup untimed", "dup future"}};
    emitted_ = false;
    explain_record(r, b.keys() + key, kDecisions[dup][static_cast<int>(segment_.verdict)]);
  } else {
    emitted_ = write_decided(out_record(r), dup);
  }
  if (cfg_.line_buffered) out_->flush();
  if (k + 1 == segment_.submitted && !cap_reported_) check_cap(r, k);
}

void Pipeline::check_cap(const SourceRecord& r, std::size_t k) {
  // A batch stops right after the key whose decision made the memory cap bind.
  if (decider_->cap_binds() != 0) cap_bound(r, segment_.times[k]);
}

void Pipeline::Segment::reset(std::size_t first, std::size_t n) {
  if (times.size() < n) times.resize(n);
  first_key = first;
  keyed = submitted = warned = 0;
  checkpoint = false;
  warnings.clear();
}

}  // namespace tlbf_dedup
