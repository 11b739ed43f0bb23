// The main loop of the program.
//
// Invariants:
//  - Records are judged in input order, and the clock never goes backwards: it is the
//    largest record time accepted so far (or the wall clock without -t), and a late or
//    untimed record is judged at that clock. A time further ahead of the wall clock than
//    --max-future is not accepted (the record is judged as untimed), so one bad stamp cannot
//    carry the clock away; jumps between consecutive times are warned about, not refused.
//  - Each input is a stream of its own: year-less stamps start again from that input's year
//    (ClockPolicy::year), and warnings name the input and the record's number in it.
//  - A run asked to read times (-t) that finds none in its first kUntimedProbe records stops
//    (UntimedInput) unless untimed input is allowed; what it wrote until then was decided as
//    any untimed record is, so nothing is held back from a live stream.
//  - Emitted records are written byte for byte as they were read (with --mark, plus the
//    flag); records are never reordered. A multi-line record is judged by its first line and
//    written or dropped whole; lines that continue it after it was judged (the input paused)
//    follow its fate.
//  - An input error (unreadable, corrupt or truncated compressed data, a record over
//    --max-record) comes after every record before it was decided and written.
//  - Output is flushed whenever the reader is about to wait for input, after each record
//    with --line-buffered, before every state save, and at the end, so what has been
//    decided is visible downstream before the program blocks.
//  - A bad record (malformed JSON, missing key) is never inserted into the filter; it is
//    passed, dropped or fatal as --on-error says, counted, and warned about once (the
//    first occurrence at once, the total at the end).
//  - Nothing here prints or reads a clock: warnings and the summary go to the Diagnostics,
//    and every time comes from the Clock the caller passed in.
//  - The record whose insert made the memory cap bind (the filter dropped keys still inside
//    the window, WindowFilter::cap_binds()) is the moment the user hears of it: a warning
//    naming the window the filter still keeps, or with --on-cap fail the end of the run
//    (exit 1) after that record is written. The check is one load per record; the filter's
//    statistics, which may cost a pass over it, are read only then and at the end.
//  - With --threads 2 and regular files (docs/architecture.md, "Threads"), reading and
//    extraction run one batch ahead on a second thread, and everything above holds as with
//    one: records are judged, warned about (same file, same record number) and written in
//    the same order; an input error arrives after the records before it; the producer is
//    stopped and joined on every way out of the loop, before run() saves state or reports.
#include "pipeline/pipeline.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/duration.hpp"
#include "base/signal_free_thread.hpp"
#include "report/progress.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank_record(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// Where a batch keeps `v` (a key, a time text) that the extractor made of `rec`: as an offset
// into the record's copy when it points into the record, else copied to the batch's side.
void place_in_batch(std::string_view v, const Record& rec, RecordBatch& batch, bool& in_record, std::size_t& offset) {
  const auto at = reinterpret_cast<std::uintptr_t>(v.data());
  const auto from = reinterpret_cast<std::uintptr_t>(rec.data);
  in_record = at >= from && at + v.size() <= from + rec.size + rec.term_len;
  if (in_record) {
    offset = at - from;
  } else {
    offset = batch.side.size();
    batch.side.append(v);
  }
}

}  // namespace

Pipeline::Pipeline(PipelineConfig cfg, Decider& decider, tlbf::Time start_clock, Clock& clock, Diagnostics& diagnostics,
                   StateHooks hooks)
    : cfg_(std::move(cfg)),
      decider_(&decider),
      clock_(cfg_.clock, cfg_.extract.time, start_clock, clock),
      time_source_(&clock),
      diagnostics_(&diagnostics),
      hooks_(std::move(hooks)) {
  if (cfg_.top > 0) top_ = std::make_unique<TopKeys>(TopKeys::counters_for(cfg_.top));
  if (cfg_.format == InputFormat::lines) choose_extractor({});
  if (cfg_.format == InputFormat::json) choose_extractor("{");
}

bool Pipeline::restart_years(TimeParser& parser, const RecordReader& in) const {
  if (cfg_.extract.time.empty()) return false;
  YearStart start = cfg_.clock.year ? YearStart(*cfg_.clock.year)
                                    : YearStart::not_after(in.modified_ns().value_or(time_source_->wall_ns()));
  parser.restart_years(start);
  return true;
}

void Pipeline::start_input(const RecordReader& in) {
  if (restart_years(cfg_.time_parser, in) && extractor_) choose_extractor(json_ ? "{" : "");
}

void Pipeline::explain_record(const Extracted& x, const char* decision) {
  const bool keyed = x.status == ExtractStatus::ok;
  emitter_->explain(ExplainLine{*place_name_, record_number(), keyed ? &x.key : nullptr, cfg_.extract.keys.size() > 1,
                                wants_time_ ? &x.time : nullptr, clock_.now(), decision});
}

void Pipeline::warn_at(WarningKind kind, std::string what) {
  diagnostics_->warning(Warning{kind, *place_name_, record_number(), 1,
                                fmt::format("{}: record {}: {}", *place_name_, record_number(), what)});
}

void Pipeline::choose_extractor(std::string_view first_record) {
  std::size_t i = first_record.find_first_not_of(" \t\r\n");
  json_ = i != std::string_view::npos && first_record[i] == '{';
  extractor_ =
      json_ ? make_json_extractor(cfg_.extract, cfg_.time_parser) : make_line_extractor(cfg_.extract, cfg_.time_parser);
  wants_time_ = extractor_->wants_time();
}

void Pipeline::warn_first(WarningKind kind, const char* what) {
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  warn_at(kind, fmt::format("{} ({}; further ones are counted, see the summary at exit)", what, action));
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
  if (decider_->cap_binds() > 0)
    diagnostics_->warning(
        Warning{WarningKind::memory_cap, "", 0, decider_->cap_binds(),
                fmt::format("the memory cap (--max-memory) bound {} time(s) in this run: the window "
                            "kept shrank to {} at its shortest ({} key(s) or blocks dropped before "
                            "they expired; older duplicates may have passed)",
                            decider_->cap_binds(), cap_window(stats_.filter), stats_.filter.cap_evictions)});
}

void Pipeline::cap_bound(Writer& out) {
  cap_reported_ = true;
  const std::string kept = cap_window(decider_->stats(clock_.now()));
  if (cfg_.on_cap == OnCap::fail) {
    out.flush();
    throw CapError(
        fmt::format("{}: record {}: the memory cap (--max-memory) bound: keeping the filter under it would "
                    "shrink the window to {} (--on-cap fail)",
                    *place_name_, record_number(), kept));
  }
  warn_at(WarningKind::memory_cap,
          fmt::format("the memory cap (--max-memory) bound: the filter now keeps the last {} of the window; older "
                      "duplicates may pass, no unique record is lost to the cap (see the summary at exit)",
                      kept));
}

void Pipeline::save_state(Writer& out) {
  if (!hooks_.save) return;
  out.flush();
  hooks_.save(clock_.now());
  last_checkpoint_ns_ = time_source_->steady_ns();
}

void Pipeline::maybe_checkpoint(Writer& out) {
  if (hooks_.save && hooks_.every > 0 && time_source_->steady_ns() - last_checkpoint_ns_ >= hooks_.every)
    save_state(out);
}

void Pipeline::write_undecided(const Record& rec) {
  ++stats_.emitted;
  if (!held_.empty()) {
    held_bytes_.append(rec.bytes());
    held_.push_back(Held{rec.bytes().size(), rec.size, json_, HeldKind::undecided});
    return;
  }
  emitter_->undecided(OutRecord{rec.bytes(), rec.size, json_, false});
}

void Pipeline::release_answered(Writer& out) {
  bool wrote = false;
  while (!held_.empty()) {
    const Held& h = held_.front();
    const std::string_view bytes(held_bytes_.data() + held_start_, h.size);
    if (h.kind == HeldKind::awaits_answer) {
      if (answers_.empty()) break;
      const bool dup = answers_.take();
      stats_.duplicates += dup;
      if (top_) {
        if (dup) top_->add(held_keys_.front().first, held_keys_.front().second);
        held_keys_.pop_front();
      }
      write_decided(OutRecord{bytes, h.text_size, h.json, false}, dup);
    } else {
      emitter_->undecided(OutRecord{bytes, h.text_size, h.json, false});
    }
    held_start_ += h.size;
    held_.pop_front();
    wrote = true;
  }
  // The bytes of released records go once they are half the buffer (amortised O(1) each).
  if (held_.empty()) {
    held_bytes_.clear();
    held_start_ = 0;
  } else if (held_start_ > held_bytes_.size() / 2) {
    held_bytes_.erase(0, held_start_);
    held_start_ = 0;
  }
  if (wrote && cfg_.line_buffered) out.flush();
}

void Pipeline::drain(Writer& out) {
  decider_->flush(answers_);
  release_answered(out);
}

bool Pipeline::judge_unkeyed(Writer& out, const Record& rec, const Extracted& x) {
  const bool explain = cfg_.explain > 0;
  const bool only_dups = cfg_.output.only_dups;
  const std::string what = x.status == ExtractStatus::malformed ? "not a readable JSON object"
                                                                : describe_missing_key(cfg_.extract, x, json_);
  const WarningKind kind =
      x.status == ExtractStatus::malformed ? WarningKind::malformed_record : WarningKind::missing_key;
  std::uint64_t& count = x.status == ExtractStatus::malformed ? stats_.malformed : stats_.missing_key;
  if (cfg_.on_error == OnError::fail) {
    drain(out);
    out.flush();
    throw RecordError(fmt::format("{}: record {}: {} (--on-error fail)", *place_name_, record_number(), what));
  }
  if (count++ == 0) warn_first(kind, what.c_str());
  if (explain) {
    explain_record(x, "error");
    return false;
  }
  if (cfg_.on_error == OnError::pass && !only_dups) {
    write_undecided(rec);
    if (cfg_.line_buffered) out.flush();
    return true;
  }
  return false;
}

void Pipeline::decide_all(RecordReader& in, Writer& out, const volatile int* stop, Progress* progress,
                          bool read_ahead) {
  const bool explain = cfg_.explain > 0;
  if (explain) emitter_->explain_header();
  bool emitted = false;  // the record before was written (its late continuation lines follow it)

  // Step 6: bookkeeping that runs only every few thousand records.
  auto after_record = [&] {
    if ((stats_.records & 4095) == 0) {
      maybe_checkpoint(out);
      refresh_future_limit();
    }
    if (progress) progress->update(stats_.bytes_in, stats_.records, stats_.emitted);
  };

  // Steps 3 to 5 for one record whose format is known, after step 2 made `x` of it;
  // `hashed`: its key's hash when the producer thread made it already, else null.
  auto judge = [&](const Record& rec, const Extracted& x, const tlbf::KeyHash* hashed) {
    if (x.status != ExtractStatus::ok) {
      emitted = judge_unkeyed(out, rec, x);
      return;
    }

    // Step 3: the clock, which only moves forward.
    TimeVerdict verdict = TimeVerdict::accepted;
    if (wants_time_)
      verdict = clock_.accept(x.time, *this);
    else
      clock_.arrive();

    // Steps 4 and 5: the decision and the output; a decider that answers later gets the key
    // now, and the record waits in held_ until its answer has come (release_answered).
    const tlbf::KeyHash hash = hashed ? *hashed : decider_->hasher()(x.key);
    const tlbf::Time now = clock_.now();
    decider_->submit(KeyBatch{&hash, &now, &x.key, 1}, answers_);
    if (decider_->answers_later()) {
      if (top_) held_keys_.emplace_back(x.key, hash);  // for --top, when the answer comes
      held_bytes_.append(rec.bytes());
      held_.push_back(Held{rec.bytes().size(), rec.size, json_, HeldKind::awaits_answer});
      release_answered(out);
    } else {
      const bool dup = answers_.take();
      stats_.duplicates += dup;
      if (dup && top_) top_->add(x.key, hash);  // --top: whose duplicate it was
      emitted = false;
      if (explain) {
        static constexpr const char* kDecisions[2][4] = {{"new", "new late", "new untimed", "new future"},
                                                         {"dup", "dup late", "dup untimed", "dup future"}};
        explain_record(x, kDecisions[dup][static_cast<int>(verdict)]);
      } else {
        emitted = write_decided(OutRecord{rec.bytes(), rec.size, json_, replaying_record_ == 0}, dup);
      }
      if (cfg_.line_buffered) out.flush();
      if (!cap_reported_ && decider_->cap_binds() != 0) cap_bound(out);
    }
  };

  // Auto mode: blank records before the first record with content are held (copies) until
  // that record decides the format, then judged in order as that format judges blank
  // records, so a leading blank line is treated exactly like a later one. An input that
  // ends with only blank records held, or too many of them, is lines.
  struct HeldBlank {
    std::uint64_t number;
    std::size_t offset, size;
    std::uint32_t term_len;
  };
  std::vector<HeldBlank> blanks;
  std::string blank_bytes;
  auto judge_blanks = [&] {
    if (!extractor_) choose_extractor({});
    blank_bytes.append(RecordReader::kTailPadding, '\0');  // the extractors read past a record
    for (const HeldBlank& h : blanks) {
      Record r;
      r.data = blank_bytes.data() + h.offset;
      r.size = h.size;
      r.term_len = h.term_len;
      replaying_record_ = h.number;
      judge(r, extractor_->extract(r.head()), nullptr);
    }
    replaying_record_ = 0;
    blanks.clear();
    blank_bytes.clear();
  };

  Record rec;
  while (!*stop && !clock_.probe_failed() && (!explain || stats_.records < cfg_.explain) && in.next(rec)) {
    stats_.bytes_in += rec.size + rec.term_len;
    if (rec.continues) {  // --multiline: lines of a record judged when the input paused
      if (emitted) emitter_->continuation(rec.bytes());
      continue;
    }
    ++stats_.records;
    place_record_ = in.record_in_input();
    if (in.input_number() != input_) {
      if (!blanks.empty()) judge_blanks();  // the previous input held only blank records
      input_ = in.input_number();
      start_input(in);
    }

    // Step 1: the format, decided by the first record with content (auto mode).
    if (!extractor_) {
      if (is_blank_record(rec.text()) && blank_bytes.size() < kMaxHeldBytes) {
        blanks.push_back(HeldBlank{in.record_in_input(), blank_bytes.size(), rec.size, rec.term_len});
        blank_bytes.append(rec.bytes());
        continue;
      }
      choose_extractor(rec.text());
      refresh_future_limit();
      if (!blanks.empty()) judge_blanks();
    }
    // Step 2: key and time.
    judge(rec, extractor_->extract(rec.head()), nullptr);

    after_record();
    // The format is known: the rest is read and extracted on the producer's thread.
    if (read_ahead && extractor_) break;
  }
  if (!blanks.empty() && !*stop) judge_blanks();
  if (read_ahead && extractor_) decide_read_ahead(in, out, stop, judge, after_record, emitted);
}

// The record loop from the hand-over on: the reader and the extractor belong to the
// producer thread (read_ahead()), which runs one batch ahead; records come out of batches in
// the order read, each with its input's name and its number there, and are judged exactly as
// above. A batch's bytes may be borrowed by the writer until the batch goes back to the pool.
template <class Judge, class AfterRecord>
void Pipeline::decide_read_ahead(RecordReader& in, Writer& out, const volatile int* stop, Judge& judge,
                                 AfterRecord& after_record, bool& emitted) {
  // The reader's buffer is the producer's from here: nothing borrowed may point into it, and
  // its hooks must not touch the writer from the other thread (regular files do not pause).
  out.return_borrowed();
  in.on_buffer_reuse({});
  in.on_input_pause({});
  thread_name_ = in.current_name();
  place_name_ = &thread_name_;
  batches_ = std::make_unique<ReadAheadQueue<RecordBatch>>(kBatches);
  ReadAheadQueue<RecordBatch>& queue = *batches_;
  std::thread producer = signal_free_thread(&Pipeline::read_ahead, this, std::ref(in), std::ref(queue),
                                            std::move(extractor_), cfg_.time_parser, json_);
  // On every way out (the end, a stop, an error thrown here): the producer stops and is joined.
  struct Join {
    ReadAheadQueue<RecordBatch>& queue;
    std::thread& thread;
    ~Join() {
      queue.stop();
      thread.join();
    }
  } join{queue, producer};

  std::size_t input = std::size_t(-1);
  while (RecordBatch* b = queue.take()) {
    std::size_t judged = 0;
    for (const RecordBatch::Item& item : b->items) {
      if (*stop || clock_.probe_failed()) break;
      ++judged;
      stats_.bytes_in += item.size + item.term_len;
      const std::string_view bytes = b->record_bytes(item);
      if (item.continues) {
        if (emitted) emitter_->continuation(bytes);
        continue;
      }
      ++stats_.records;
      place_record_ = item.record;
      if (item.input != input) {
        input = item.input;
        for (const auto& [number, name] : b->names)
          if (number == input) thread_name_ = name;
      }
      Record rec;
      rec.data = bytes.data();
      rec.size = item.size;
      rec.term_len = item.term_len;
      Extracted x;
      x.status = item.status;
      x.absent_part = item.absent_part;
      x.key = b->key(item);
      x.time = item.time;
      x.time.text = b->time_text(item);
      judge(rec, x, &item.hash);
      after_record();
    }
    out.return_borrowed();
    const bool whole = judged == b->items.size();
    std::exception_ptr error = whole ? b->error : nullptr;
    const bool end = b->end || b->error || !whole;
    if (whole && b->end) thread_name_ = b->end_name;
    queue.recycle(b);
    if (error) std::rethrow_exception(error);
    if (end) break;
  }
}

void Pipeline::read_ahead(RecordReader& in, ReadAheadQueue<RecordBatch>& queue, std::unique_ptr<Extractor> extractor,
                          TimeParser parser, bool json) const {
  std::size_t input = in.input_number();
  RecordBatch* b = nullptr;
  try {
    Record rec;
    while ((b = queue.acquire())) {
      b->clear();
      bool more = true;
      std::size_t named = std::size_t(-1);  // the input whose name the batch has last
      while (b->bytes.size() < RecordBatch::kBytes && b->items.size() < RecordBatch::kItems && (more = in.next(rec))) {
        // What decide_all() does at a new input, for the extractor this thread owns.
        if (!rec.continues && in.input_number() != input) {
          input = in.input_number();
          if (restart_years(parser, in))
            extractor = json ? make_json_extractor(cfg_.extract, parser) : make_line_extractor(cfg_.extract, parser);
        }
        if (input != named) {
          b->names.emplace_back(input, in.current_name());
          named = input;
        }
        RecordBatch::Item item{};
        item.offset = b->bytes.size();
        item.size = rec.size;
        item.term_len = rec.term_len;
        item.continues = rec.continues;
        item.record = in.record_in_input();
        item.input = input;
        b->bytes.append(rec.data, rec.size + rec.term_len);
        if (!rec.continues) {
          const Extracted x = extractor->extract(rec.head());
          item.status = x.status;
          item.absent_part = x.absent_part;
          if (x.status == ExtractStatus::ok) item.hash = decider_->hasher()(x.key);
          item.key_size = x.key.size();
          place_in_batch(x.key, rec, *b, item.key_in_record, item.key_offset);
          item.time = x.time;
          item.time.text = {};
          item.time_size = x.time.text.size();
          place_in_batch(x.time.text, rec, *b, item.time_in_record, item.time_offset);
        }
        b->items.push_back(item);
      }
      if (!more) {
        b->end = true;
        b->end_name = in.current_name();
      }
      queue.publish(std::exchange(b, nullptr));
      if (!more) return;
    }
  } catch (...) {
    // After the records read before it, in order (InputError: a damaged input, a record too long).
    if (b) {
      b->error = std::current_exception();
      queue.publish(b);
    }
  }
}

RunStats Pipeline::run(RecordReader& in, Writer& out, const volatile int* stop) {
  const std::int64_t started_ns = time_source_->steady_ns();
  last_checkpoint_ns_ = started_ns;
  refresh_future_limit();
  std::unique_ptr<Progress> progress;
  if (cfg_.progress) progress = std::make_unique<Progress>(in.total_size(), *time_source_);
  Emitter emitter(out, cfg_.output);
  emitter_ = &emitter;
  in.set_stop_flag(stop);
  out.set_stop_flag(stop);  // a stop ends the run even when nothing reads the output
  // Kept records go out from the reader's buffer (Writer::write_borrowed): written before
  // the reader overwrites them.
  in.on_buffer_reuse([&] { out.return_borrowed(); });
  // Input paused: what has been decided goes out now (tail -f), and a due checkpoint runs.
  in.on_input_pause([&]() -> int {
    drain(out);
    out.flush();
    maybe_checkpoint(out);
    if (!hooks_.save || hooks_.every <= 0) return -1;
    std::int64_t due_ns = last_checkpoint_ns_ + hooks_.every - time_source_->steady_ns();
    return due_ns <= 0 ? 0 : static_cast<int>(std::min<std::int64_t>(due_ns / 1000000 + 1, 60000));
  });
  place_name_ = &in.current_name();
  // A second thread reads ahead only where it can always be stopped and joined (regular
  // files: reads never block for long) and where output timing does not matter.
  const bool read_ahead = cfg_.threads > 1 && !decider_->answers_later() && cfg_.explain == 0 && !cfg_.line_buffered &&
                          in.inputs_are_regular_files();
  bool untimed_failed = false, downstream_closed = false;
  std::optional<OutputStopped> output_stopped;
  try {
    try {
      decide_all(in, out, stop, progress.get(), read_ahead);
      drain(out);
    } catch (const DecisionsLost&) {
      // What was decided before the loss is written; the records after it are not.
      release_answered(out);
      out.flush();
      throw;
    }
    out.flush();
    // A run that found no time at all is an error, and its state is not saved; its summary
    // still comes first, so that --stats shows what was read.
    untimed_failed = clock_.found_no_time() && !*stop;
    if (!untimed_failed) save_state(out);
  } catch (const InputError&) {
    // A damaged or unreadable input: what was decided before it goes out; the state is not
    // saved, as for any error.
    out.flush();
    throw;
  } catch (const BrokenPipe&) {
    // Downstream stopped reading: the program ends quietly, but what was read and decided is
    // kept, so the next run with the same --state continues from here.
    if (hooks_.save) hooks_.save(clock_.now());
    downstream_closed = true;  // the summary still goes out (--stats), then the quiet end
  } catch (const OutputStopped& e) {
    // Stopped by a signal with the output blocked: records decided as kept were not written,
    // so the state is not saved (a run resumed from it would take them for duplicates); the
    // state file keeps its last save, and a rerun from there writes them again.
    output_stopped = e;
  }
  stats_.bytes_out = out.bytes_written();
  stats_.seconds = static_cast<double>(time_source_->steady_ns() - started_ns) / 1e9;
  stats_.filter = decider_->stats(clock_.now());
  clock_.count_into(stats_);
  if (top_) stats_.top = top_->report(cfg_.top, cfg_.extract.keys.size() > 1);
  if (progress) progress->finish(stats_.bytes_in, stats_.records, stats_.emitted);
  warn_totals();
  diagnostics_->summary(stats_);
  if (downstream_closed) throw BrokenPipe{};
  if (output_stopped) throw *output_stopped;
  if (untimed_failed) throw clock_.no_time_error(*place_name_, stats_.records);
  return stats_;
}

}  // namespace tlbf_dedup
