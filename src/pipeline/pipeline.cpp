// The record loop: read, clock, submit, hand over (pipeline.hpp); a run drives it (run.hpp).
//
// Invariants:
//  - Records are judged and handed to the sink in input order, byte for byte as read; lines
//    that continue a multi-line record after it was judged (the input paused) follow its fate.
//  - Records are clocked and submitted in segments, but nothing of a record shows before the
//    records ahead of it are done: the clock's warnings wait for their record, and a segment
//    ends where the sink might flush (RecordSink::room), at a record that is fatal
//    (--on-error fail), at the untimed probe's end and at a checkpoint. So whenever output
//    fails, a state is saved, or the run stops at a record, every record before it is decided
//    and written and none after it is decided.
//  - A record without a key, or one --where did not select, is never inserted into the filter
//    (side_records.hpp).
//  - The record whose decision made the memory cap bind (the decider stops its batch right
//    after it) is the moment the user hears of it (cap_watch.hpp); the filter's statistics
//    are read only then and at the end.
//  - Output is flushed whenever the reader is about to wait for input, after each record with
//    --line-buffered, before every state save, and at the end.
//  - Every warning about a record names its input and its number there, and comes after the
//    warnings of the records before it; totals come at the end, once.
//  - Nothing here prints or reads a clock: warnings and the summary go to the Diagnostics, and
//    every time comes from the Clock passed in.
#include "pipeline/pipeline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "pipeline/input_merge.hpp"
#include "report/progress.hpp"

namespace tlbf_dedup {
SourceConfig Pipeline::source_config() const {
  const bool keys = cfg_.top > 0 || cfg_.explain > 0 || decider_->answers_later() || sink_->keeps_keys();
  return SourceConfig{cfg_.format, cfg_.extract, cfg_.time_parser, cfg_.clock.year, cfg_.explain, keys};
}

Pipeline::Pipeline(PipelineConfig cfg, Decider& decider, RecordSink& sink, tlbf::Time start_clock, Clock& clock,
                   Diagnostics& diagnostics, StateHooks hooks)
    : cfg_(std::move(cfg)),
      decider_(&decider),
      time_source_(&clock),
      diagnostics_(&diagnostics),
      checkpoints_(std::move(hooks), clock),
      later_(decider, sink),
      sink_(&later_.sink(sink)),
      clock_(cfg_.clock, cfg_.extract.time, start_clock, clock),
      checks_(cfg_, *sink_, clock_, diagnostics, [this] { drain(); }),
      side_(SideConfig{&cfg_.extract, cfg_.on_error, cfg_.output.only_dups, cfg_.explain > 0}, checks_.keys(), *sink_,
            clock_, stats_, diagnostics),
      caps_(cfg_.on_cap, decider, *sink_, diagnostics),
      clock_warnings_(cfg_.extract, cfg_.clock.lateness, cfg_.merged, segment_, clock_, last_input_) {
  if (cfg_.top > 0) top_ = std::make_unique<TopKeys>(TopKeys::counters_for(cfg_.top));
}

Pipeline::~Pipeline() = default;

bool Pipeline::may_read_ahead() const {
  return cfg_.threads > 1 && !decider_->answers_later() && cfg_.explain == 0 && !cfg_.line_buffered;
}

void Pipeline::start(const volatile int* stop, bool read_ahead, std::uint64_t total_size) {
  started_ns_ = time_source_->steady_ns();
  checkpoints_.start(started_ns_);
  if (cfg_.format != InputFormat::auto_detect) clock_.refresh_future_limit();
  if (cfg_.progress) progress_ = std::make_unique<Progress>(total_size, *time_source_);
  stats_.selecting = !cfg_.extract.where.empty() || !cfg_.extract.where_regex.empty();
  stats_.errors_went = side_.keyless().went(cfg_.output.only_dups);
  stop_ = stop;
  aside_ = cfg_.explain > 0 || cfg_.line_buffered || decider_->answers_later();
  sink_->start(SinkStart{stop, read_ahead, cfg_.line_buffered, cfg_.explain > 0, &stats_.emitted});
}

void Pipeline::end_input() {
  drain();
  // A state saved at the end keeps what the sink holds of its own for the next run.
  const bool saved = checkpoints_.saves() && !checks_.untimed(*stop_);
  end_sink(saved ? RecordSink::End::state_saved : RecordSink::End::all_written);
}

bool Pipeline::end_checks() {
  const bool passed = checks_.end(*stop_, stats_);
  sink_->flush();
  if (passed) checkpoints_.save(*sink_, clock_.now());
  return passed;
}

void Pipeline::write_decided(After error) {
  if (error == After::lost_decisions) release_answered();
  if (error == After::input_error) end_sink(RecordSink::End::all_written);
  checks_.gate().end(true);
  sink_->flush();
}

void Pipeline::count_merge(const MergeStats& m) {
  stats_.held_most = m.held_most;
  stats_.held_most_bytes = m.held_most_bytes;
  stats_.released_early = m.released_early;
}

void Pipeline::throw_failed_check() const { checks_.fail(stats_, last_input_); }

void Pipeline::summarise() {
  stats_.bytes_out = sink_->bytes_written();
  stats_.seconds = static_cast<double>(time_source_->steady_ns() - started_ns_) / 1e9;
  stats_.filter = decider_->stats(clock_.now());
  sink_->count_into(stats_);
  stats_.sizing = cfg_.sizing;
  caps_.complete(stats_);
  clock_.count_into(stats_);
  if (top_) stats_.top = top_->report(cfg_.top, KeyShape{has_composite_key(cfg_.extract), format_});
  if (progress_) progress_->finish(stats_.bytes_in, stats_.records, stats_.emitted);
  checks_.summarise(stats_, last_input_);
  side_.keyless().warn_totals(stats_, format_, *diagnostics_);
  clock_.warn_totals(*diagnostics_, clock_warnings_.late_fix());
  sink_->warn_totals(*diagnostics_, stats_);
  caps_.warn_total(stats_);
  diagnostics_->summary(stats_);
}

std::size_t Pipeline::take(const RecordBatch& b) {
  batch_ = &b;
  clock_warnings_.batch(b);
  if (!b.empty()) format_ = b.format;  // (the last batch may be empty: the run's format stays for --top)
  if (b.format_detected) clock_.refresh_future_limit();
  checks_.batch(b, last_input_);
  std::size_t i = 0;
  segment_.reset(0, 0);
  while (i < b.size() && !clock_.probe_failed() && !checks_.failed() && (b.judge_all || !*stop_)) {
    const std::size_t end = clock_segment(b, i);
    checks_.clocked(stats_.records);
    judge_segment(b, i, end);
    checks_.judged(b, i, end, stats_);
    i = end;
  }
  if (i > 0) last_input_ = b.names[b[i - 1].input];
  return i;
}

std::size_t Pipeline::clock_segment(const RecordBatch& b, std::size_t from) {
  // One record at a time where each is explained, flushed, or answered later.
  const std::size_t end = aside_ ? from + 1 : room_end(b, from, sink_->room());
  const bool timed = !cfg_.extract.time.empty(), fatal = cfg_.on_error == OnError::fail;
  const std::size_t i = segment_.clock(b, from, end, Clocking{clock_, clock_warnings_, stats_, timed, fatal});
  checks_.keys().saw_keys(segment_.keyed > 0);
  return i;
}

[[gnu::always_inline]] inline void Pipeline::judge_keyed(const RecordBatch& b, const SourceRecord& r, std::size_t k) {
  Segment& s = segment_;
  if (k == s.submitted) submit(k);
  if (aside_) return judge_keyed_aside(b, r, k);
  hand_over(r, s.first_key + k, k, answers_.take());
  if (k + 1 == s.submitted) check_cap(r, k);
}

void Pipeline::judge_segment(const RecordBatch& b, std::size_t from, std::size_t end) {
  std::size_t k = 0;  // the segment's keyed records judged so far
  std::size_t warning = segment_.next_warning();
  for (std::size_t i = from; i < end; ++i) {
    const SourceRecord& r = b[i];
    if (i == warning)
      warning = segment_.give(i, [&](WarningKind kind, const std::string& what) { warn_at(r, kind, what); });
    if (r.keyed) {
      judge_keyed(b, r, k++);
    } else if (r.continues) {  // --multiline: lines of a record judged when the input paused
      if (emitted_) sink_->continuation(r.bytes, r.term_len);
      continue;
    } else if (r.status == ExtractStatus::blank) {
      side_.blank(r, format_);
      continue;
    } else if (r.status == ExtractStatus::unmatched) {
      emitted_ = side_.unmatched(r, input_name(r), format_);
    } else {
      emitted_ = judge_unkeyed(r);
    }
    if (progress_ && !r.replayed) progress_->update(stats_.bytes_in, stats_.records, stats_.emitted);
  }
  if (segment_.checkpoint) {
    checkpoints_.maybe(*sink_, clock_.now(), checks_.holding());
    clock_.refresh_future_limit();
  }
}

void Pipeline::submit(std::size_t k) {
  Segment& s = segment_;
  const std::size_t key = s.first_key + k;
  s.submitted =
      k + decider_->submit(KeyBatch{batch_->hashes() + key, s.times.data() + k, batch_->keys() + key, s.keyed - k},
                           answers_);
}

void Pipeline::warn_at(const SourceRecord& r, WarningKind kind, const std::string& what) {
  const std::string& input = input_name(r);
  diagnostics_->warning(Warning{kind, input, r.number, 1, fmt::format("{}: record {}: {}", input, r.number, what)});
}

bool Pipeline::judge_unkeyed(const SourceRecord& r) {
  if (auto fatal = side_.fatal(r, input_name(r), format_)) {
    drain();
    end_sink(RecordSink::End::all_written);
    sink_->flush();
    throw *fatal;
  }
  return side_.unkeyed(r, input_name(r), format_);
}

void Pipeline::release_answered() {
  later_.release(answers_, [this](bool dup, std::string_view key, tlbf::KeyHash hash) { count(dup, key, hash); });
}

void Pipeline::drain() {
  decider_->flush(answers_);
  release_answered();
}

int Pipeline::input_paused() {
  checks_.gate().paused();  // a live stream stays prompt: what the checks held goes out
  // What has been decided goes out now (tail -f), and a due checkpoint runs.
  drain();
  sink_->paused(clock_.now());
  sink_->flush();
  checkpoints_.maybe(*sink_, clock_.now(), checks_.holding());
  const int wait = checkpoints_.wait_ms();
  const int sink_wait = sink_->wait_ms(clock_.now());
  return sink_wait < 0 ? wait : wait < 0 ? sink_wait : std::min(wait, sink_wait);
}

void Pipeline::judge_keyed_aside(const RecordBatch& b, const SourceRecord& r, std::size_t k) {
  const std::size_t key = segment_.first_key + k;
  if (later_.later()) {  // the record waits for its answer
    later_.awaits(DecidedRecord{out_record(r), b.keys()[key], b.hashes()[key], segment_.times[k], nullptr, false});
    release_answered();
    return;
  }
  const bool dup = answers_.take();
  if (cfg_.explain > 0) {
    count(dup, b.keys()[key], b.hashes()[key]);
    emitted_ = false;
    side_.explain_keyed(r, input_name(r), b.keys()[key], dup, segment_.verdict, format_);
  } else {
    hand_over(r, key, k, dup);
  }
  if (k + 1 == segment_.submitted) check_cap(r, k);
}

}  // namespace tlbf_dedup
