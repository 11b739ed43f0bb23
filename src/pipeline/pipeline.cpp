// The main loop of the program: read, clock, submit, emit.
//
// Invariants:
//  - Records are judged and written in input order, never reordered, byte for byte as read
//    (with --mark, plus the flag); lines that continue a multi-line record after it was
//    judged (the input paused) follow its fate. With a holding stage (--count, --keep last)
//    records are judged in input order and written as their windows close
//    (output/holding_sink.cpp).
//  - Records are clocked and submitted to the decider in segments, but nothing of a record
//    shows before the records ahead of it are done: the clock's warnings wait for their
//    record, and a segment ends where the sink might flush (RecordSink::room), at a record
//    that is fatal (--on-error fail), at the untimed probe's end and at a checkpoint. So
//    whenever output fails, a state is saved, or the run stops at a record, every record
//    before it is decided and written and none after it is decided.
//  - A bad record (malformed JSON, missing key) is never inserted into the filter; it is
//    passed, dropped or fatal as --on-error says, counted, and warned about once (the first
//    occurrence at once, the total at the end). A record --where does not select is no bad
//    record: written as read, counted as passed, never clocked, judged or held.
//  - A run whose first kUntimedProbe records include none with a key, and some without a key
//    part, writes nothing (stop_when_keyless), as one without a readable time does: output is
//    held until both checks cannot fail.
//  - The record whose decision made the memory cap bind (the decider stops its batch right
//    after it) is the moment the user hears of it: a warning naming the window the filter
//    still keeps, or with --on-cap fail the end of the run (exit 1) after that record is
//    written. The filter's statistics are read only then and at the end.
//  - Output is flushed whenever the reader is about to wait for input, after each record
//    with --line-buffered, before every state save, and at the end, so what has been decided
//    is visible downstream before the program blocks.
//  - An input error (unreadable, damaged, a record over --max-record) comes after every
//    record before it was decided and written; the state is then not saved.
//  - Nothing here prints or reads a clock: warnings and the summary go to the Diagnostics,
//    and every time comes from the Clock the caller passed in.
#include "pipeline/pipeline.hpp"

#include <optional>

#include "pipeline/input_merge.hpp"
#include "pipeline/multiline_check.hpp"
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
      source_(source_config(), decider.hasher(), clock),
      clock_(cfg_.clock, cfg_.extract.time, start_clock, clock),
      keys_(cfg_.stop_when_keyless && cfg_.explain == 0),
      keyless_(cfg_.extract, cfg_.on_error, keys_),
      gate_(*sink_, clock_, keys_, [this] { drain(); }),
      caps_(cfg_.on_cap, decider, diagnostics),
      clock_warnings_(cfg_.extract, cfg_.clock.lateness, cfg_.merged, segment_, clock_, last_input_) {
  if (cfg_.top > 0) top_ = std::make_unique<TopKeys>(TopKeys::counters_for(cfg_.top));
  if (!cfg_.multiline.empty()) multiline_ = std::make_unique<MultilineCheck>(cfg_.multiline, cfg_.terminator);
}

Pipeline::~Pipeline() = default;

RunStats Pipeline::run(RecordReader& in, const volatile int* stop) { return run_input(in, stop); }

RunStats Pipeline::run(InputMerge& in, const volatile int* stop) { return run_input(in, stop); }

void Pipeline::read_all(RecordReader& in, bool read_ahead) {
  in.set_stop_flag(stop_);
  if (read_ahead)
    source_.run_ahead(in, *this);
  else
    source_.run(in, *this, stop_);
}

void Pipeline::read_all(InputMerge& in, bool read_ahead) {
  in.run(*this, stop_, read_ahead);
  const MergeStats& m = in.stats();
  stats_.held_most = m.held_most;
  stats_.held_most_bytes = m.held_most_bytes;
  stats_.released_early = m.released_early;
}

template <class Input>
RunStats Pipeline::run_input(Input& in, const volatile int* stop) {
  // Step 1: where the run writes, how it stops, what it shows.
  const std::int64_t started_ns = time_source_->steady_ns();
  checkpoints_.start(started_ns);
  if (cfg_.format != InputFormat::auto_detect) clock_.refresh_future_limit();
  if (cfg_.progress) progress_ = std::make_unique<Progress>(in.total_size(), *time_source_);
  // Step 1b: with -t, output is held back until the untimed check cannot fail, and so it is
  // until the key check cannot (--explain shows what it read whatever the checks say).
  gate_.start(!cfg_.extract.time.empty() && !cfg_.clock.allow_untimed && cfg_.explain == 0);
  stats_.selecting = !cfg_.extract.where.empty() || !cfg_.extract.where_regex.empty();
  stats_.errors_went = keyless_.went(cfg_.output.only_dups);
  stop_ = stop;
  aside_ = cfg_.explain > 0 || cfg_.line_buffered || decider_->answers_later();
  // Step 2: the records, read, clocked, decided and written batch by batch. A second thread
  // reads ahead only where it can always be stopped and joined (regular files: reads never
  // block for long) and where output timing does not matter.
  const bool read_ahead = cfg_.threads > 1 && !decider_->answers_later() && cfg_.explain == 0 && !cfg_.line_buffered &&
                          in.inputs_are_regular_files();
  RecordSink& out = *sink_;
  out.start(SinkStart{stop, read_ahead, cfg_.line_buffered, cfg_.explain > 0, &stats_.emitted});
  bool untimed_failed = false, downstream_closed = false;
  std::optional<OutputStopped> output_stopped;
  try {
    try {
      read_all(in, read_ahead);
      drain();
      // A state saved at the end keeps what the sink holds of its own for the next run.
      const bool saved = checkpoints_.saves() && !(clock_.found_no_time() && !*stop);
      end_sink(saved ? RecordSink::End::state_saved : RecordSink::End::all_written);
    } catch (const DecisionsLost&) {
      // What was decided before the loss is written; the records after it are not.
      release_answered();
      gate_.end(true);
      out.flush();
      throw;
    }
    // A run that found no time, or no key, at all is an error: it writes nothing, and its
    // state is not saved; its summary still comes first, so that --stats shows what was read.
    if (!*stop) keys_.end_probe();
    untimed_failed = clock_.found_no_time() && !*stop;
    if (gate_.end(!untimed_failed && !keys_.failed())) stats_.emitted = 0;  // nothing was written
    out.flush();
    if (!untimed_failed && !keys_.failed()) checkpoints_.save(*sink_, clock_.now());
  } catch (const InputError&) {
    // A damaged or unreadable input: what was decided before it goes out; the state is not
    // saved, as for any error.
    end_sink(RecordSink::End::all_written);
    gate_.end(true);
    out.flush();
    throw;
  } catch (const BrokenPipe&) {
    // Downstream stopped reading: the program ends quietly. The state is not saved: records
    // decided as kept may not have reached the reader (they were in the output buffer), and
    // a state holding their keys would make the next run drop them unseen. The state file
    // keeps its last checkpoint, whose keys' records were all written.
    downstream_closed = true;  // the summary still goes out (--stats), then the quiet end
  } catch (const OutputStopped& e) {
    // Stopped by a signal with the output blocked: records decided as kept were not written,
    // so the state is not saved (a run resumed from it would take them for duplicates); the
    // state file keeps its last save, and a rerun from there writes them again.
    output_stopped = e;
  } catch (...) {
    // Any other error (--on-error fail, --on-cap fail): the records before it go out, as they
    // would have without the hold; the error is the one reported.
    try {
      gate_.end(true);
      out.flush();
    } catch (...) {
    }
    throw;
  }
  // Step 3: the summary, after the warnings' totals; then how the run ended.
  summarise(out.bytes_written(), started_ns);
  if (downstream_closed) throw BrokenPipe{};
  if (output_stopped) throw *output_stopped;
  if (keys_.failed()) throw keys_.error(stats_, gate_.written_while_checking());
  if (untimed_failed) throw clock_.no_time_error(last_input_, stats_.records, gate_.written_while_checking());
  return stats_;
}

void Pipeline::summarise(std::uint64_t bytes_out, std::int64_t started_ns) {
  stats_.bytes_out = bytes_out;
  stats_.seconds = static_cast<double>(time_source_->steady_ns() - started_ns) / 1e9;
  stats_.filter = decider_->stats(clock_.now());
  sink_->count_into(stats_);
  stats_.sizing = cfg_.sizing;
  caps_.complete(stats_);
  clock_.count_into(stats_);
  if (top_) stats_.top = top_->report(cfg_.top, KeyShape{has_composite_key(cfg_.extract), format_});
  if (progress_) progress_->finish(stats_.bytes_in, stats_.records, stats_.emitted);
  if (multiline_) multiline_->check(nullptr, last_input_, *diagnostics_);
  if (keys_.pending()) check_keys();
  warn_totals();
  diagnostics_->summary(stats_);
}

std::size_t Pipeline::take(const RecordBatch& b) {
  batch_ = &b;
  clock_warnings_.batch(b);
  if (!b.empty()) format_ = b.format;  // (the last batch may be empty: the run's format stays for --top)
  if (b.format_detected) clock_.refresh_future_limit();
  if (multiline_ && multiline_->check(&b, last_input_, *diagnostics_)) multiline_.reset();
  std::size_t i = 0;
  segment_.reset(0, 0);
  while (i < b.size() && !clock_.probe_failed() && !keys_.failed() && (b.judge_all || !*stop_)) {
    const std::size_t end = clock_segment(b, i);
    if (gate_.pending()) gate_.check(stats_.records);
    judge_segment(b, i, end);
    keys_.tally(b, i, end);
    if (keys_.pending() && stats_.records >= ClockPolicy::kUntimedProbe) {
      keys_.end_probe();
      check_keys();
    }
    i = end;
  }
  if (i > 0) last_input_ = b.names[b[i - 1].input];
  return i;
}

std::size_t Pipeline::clock_segment(const RecordBatch& b, std::size_t from) {
  Segment& s = segment_;
  s.reset(s.first_key + s.keyed, b.size() - from);
  // One record at a time where each is explained, flushed, or answered later.
  const std::size_t end = aside_ ? from + 1 : room_end(b, from, sink_->room());
  const bool timed = !cfg_.extract.time.empty(), fatal = cfg_.on_error == OnError::fail;
  std::uint64_t records = stats_.records;
  // A segment ends at a checkpoint, every 4096 records, and where the checks of the first
  // kUntimedProbe records end (check_keys(), the output hold), so they judge exactly those.
  const std::uint64_t stop_at =
      records < ClockPolicy::kUntimedProbe ? ClockPolicy::kUntimedProbe : (records | 4095) + 1;
  std::size_t i = from, n = 0;
  while (i < end) {  // (a stop signal is looked at between segments)
    const SourceRecord& r = b[i++];
    if (r.continues || r.status == ExtractStatus::blank) continue;  // bytes, no record
    ++records;
    bool last = false;
    if (r.keyed) {
      s.warnings_for = i - 1;
      s.verdict = timed ? clock_.accept(r.time, clock_warnings_) : (clock_.arrive(), TimeVerdict::accepted);
      s.times[n++] = clock_.now();
      last = s.verdict == TimeVerdict::untimed && clock_.probe_failed();  // the run reads no further
    } else {
      // A record without a key still tells the time: it moves the clock (judging nothing).
      if (timed && r.time.parsed) {
        s.warnings_for = i - 1;
        clock_.accept(r.time, clock_warnings_);
      }
      last = fatal && r.status != ExtractStatus::unmatched;  // --on-error fail: the run ends at this record
    }
    if (last || records == stop_at) {
      s.checkpoint = (records & 4095) == 0 && !r.replayed;
      break;
    }
  }
  stats_.records = records;
  if (i > from) stats_.bytes_in += b.bytes_between(from, i);
  s.keyed = n;
  keys_.saw_keys(n > 0);
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
      write_blank(r);
      continue;
    } else if (r.status == ExtractStatus::unmatched) {
      emitted_ = pass_unmatched(r);
    } else {
      emitted_ = judge_unkeyed(r);
    }
    if (progress_ && !r.replayed) progress_->update(stats_.bytes_in, stats_.records, stats_.emitted);
  }
  if (segment_.checkpoint) {
    checkpoints_.maybe(*sink_, clock_.now(), gate_.holding());
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

}  // namespace tlbf_dedup
