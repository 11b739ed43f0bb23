// The main loop of the program.
//
// Invariants:
//  - Records are judged in input order, and the clock never goes backwards: it is the
//    largest record time seen so far (or the wall clock without -t), and a late or untimed
//    record is judged at that clock.
//  - Emitted records are written byte for byte as they were read (with --mark, plus the
//    flag); records are never reordered.
//  - Output is flushed whenever the reader is about to wait for input, after each record
//    with --line-buffered, before every state save, and at the end, so what has been
//    decided is visible downstream before the program blocks.
//  - A bad record (malformed JSON, missing key) is never inserted into the filter; it is
//    passed, dropped or fatal as --on-error says, counted, and warned about once (the
//    first occurrence at once, the total at the end).
//  - Nothing here prints or reads a clock: warnings and the summary go to the Diagnostics,
//    and every time comes from the Clock the caller passed in.
#include "pipeline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "progress.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank_record(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

}  // namespace

Pipeline::Pipeline(PipelineConfig cfg, tlbf::WindowFilter& filter, tlbf::Time start_clock, Clock& clock,
                   Diagnostics& diagnostics, StateHooks hooks)
    : cfg_(std::move(cfg)),
      filter_(&filter),
      clock_(start_clock),
      time_source_(&clock),
      diagnostics_(&diagnostics),
      hooks_(std::move(hooks)) {
  mark_name_ = json_escape(cfg_.output.mark_name);
  if (cfg_.format == InputFormat::lines) choose_extractor({});
  if (cfg_.format == InputFormat::json) choose_extractor("{");
}

void Pipeline::choose_extractor(std::string_view first_record) {
  std::size_t i = first_record.find_first_not_of(" \t\r\n");
  json_ = i != std::string_view::npos && first_record[i] == '{';
  extractor_ = json_ ? make_json_extractor(cfg_.extract, cfg_.time_parser) : make_line_extractor(cfg_.extract, cfg_.time_parser);
}

void Pipeline::warn_first(WarningKind kind, const char* what, const RecordReader& in) {
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  diagnostics_->warning(Warning{kind, in.current_name(), stats_.records, 1,
                                fmt::format("{}: record {}: {} ({}; further ones are counted, see the summary at exit)",
                                            in.current_name(), stats_.records, what, action)});
}

void Pipeline::warn_totals() {
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  if (stats_.malformed)
    diagnostics_->warning(Warning{WarningKind::malformed_record, "", 0, stats_.malformed,
                                  fmt::format("{} record(s) were not readable JSON objects ({})", stats_.malformed, action)});
  if (stats_.missing_key)
    diagnostics_->warning(Warning{WarningKind::missing_key, "", 0, stats_.missing_key,
                                  fmt::format("{} record(s) had no key ({})", stats_.missing_key, action)});
  if (stats_.untimed)
    diagnostics_->warning(Warning{WarningKind::untimed, "", 0, stats_.untimed,
                                  fmt::format("{} record(s) had no readable time at -t {} (judged at the current clock)",
                                              stats_.untimed, cfg_.extract.time)});
}

void Pipeline::save_state(Writer& out) {
  if (!hooks_.save) return;
  out.flush();
  hooks_.save(*filter_, clock_);
  last_checkpoint_ns_ = time_source_->steady_ns();
}

void Pipeline::maybe_checkpoint(Writer& out) {
  if (hooks_.save && hooks_.every > 0 && time_source_->steady_ns() - last_checkpoint_ns_ >= hooks_.every) save_state(out);
}

template <class D>
void Pipeline::decide_all(D& decider, RecordReader& in, Writer& out, const volatile int* stop, Progress* progress) {
  const bool only_dups = cfg_.output.only_dups;
  const bool mark = cfg_.output.mark;
  Record rec;
  while (!*stop && in.next(rec)) {
    ++stats_.records;
    stats_.bytes_in += rec.size + rec.term_len;

    // Step 1: the format, decided by the first record with content (auto mode).
    if (!extractor_) {
      if (is_blank_record(rec.text())) {
        out.write(rec.bytes());
        ++stats_.emitted;
        continue;
      }
      choose_extractor(rec.text());
    }

    // Step 2: key and time.
    Extracted x = extractor_->extract(rec);
    if (x.status != ExtractStatus::ok) {
      const char* what = x.status == ExtractStatus::malformed ? "not a readable JSON object" : "the key is missing";
      const WarningKind kind = x.status == ExtractStatus::malformed ? WarningKind::malformed_record : WarningKind::missing_key;
      std::uint64_t& count = x.status == ExtractStatus::malformed ? stats_.malformed : stats_.missing_key;
      if (cfg_.on_error == OnError::fail) {
        out.flush();
        throw RecordError(fmt::format("{}: record {}: {} (--on-error fail)", in.current_name(), stats_.records, what));
      }
      if (count++ == 0) warn_first(kind, what, in);
      if (cfg_.on_error == OnError::pass && !only_dups) {
        if (mark) write_marked(out, rec.bytes(), rec.size, json_, false, mark_name_);
        else out.write(rec.bytes());
        ++stats_.emitted;
        if (cfg_.line_buffered) out.flush();
      }
      continue;
    }

    // Step 3: the clock, which only moves forward.
    if (extractor_->wants_time()) {
      if (x.time) {
        if (*x.time > clock_) clock_ = *x.time;
      } else {
        ++stats_.untimed;
      }
    } else {
      tlbf::Time now = time_source_->wall_ns();
      if (now > clock_) clock_ = now;
    }

    // Step 4: the decision.
    bool dup = decider.is_duplicate(x.key, clock_);
    stats_.duplicates += dup;

    // Step 5: the output.
    if (mark) {
      if (!only_dups || dup) {
        write_marked(out, rec.bytes(), rec.size, json_, dup, mark_name_);
        ++stats_.emitted;
      }
    } else if (dup == only_dups) {
      out.write(rec.bytes());
      ++stats_.emitted;
    }
    if (cfg_.line_buffered) out.flush();

    // Step 6: bookkeeping that runs only every few thousand records.
    if ((stats_.records & 4095) == 0) {
      maybe_checkpoint(out);
    }
    if (progress) progress->update(stats_.bytes_in, stats_.records, stats_.emitted);
  }
}

RunStats Pipeline::run(RecordReader& in, Writer& out, const volatile int* stop) {
  const std::int64_t started_ns = time_source_->steady_ns();
  last_checkpoint_ns_ = started_ns;
  std::unique_ptr<Progress> progress;
  if (cfg_.progress) progress = std::make_unique<Progress>(in.total_size(), *time_source_);
  in.set_stop_flag(stop);
  // Input paused: what has been decided goes out now (tail -f), and a due checkpoint runs.
  in.on_input_pause([&]() -> int {
    out.flush();
    maybe_checkpoint(out);
    if (!hooks_.save || hooks_.every <= 0) return -1;
    std::int64_t due_ns = last_checkpoint_ns_ + hooks_.every - time_source_->steady_ns();
    return due_ns <= 0 ? 0 : static_cast<int>(std::min<std::int64_t>(due_ns / 1000000 + 1, 60000));
  });
  try {
    with_decider(*filter_, cfg_.refresh,
                 [&](auto& decider) { decide_all(decider, in, out, stop, progress.get()); });
    out.flush();
    save_state(out);
  } catch (const BrokenPipe&) {
    // Downstream stopped reading: the program ends quietly, but what was read and decided is
    // kept, so the next run with the same --state continues from here.
    if (hooks_.save) hooks_.save(*filter_, clock_);
    throw;
  }
  stats_.bytes_out = out.bytes_written();
  stats_.seconds = static_cast<double>(time_source_->steady_ns() - started_ns) / 1e9;
  stats_.filter = filter_->stats(clock_);
  if (progress) progress->finish(stats_.bytes_in, stats_.records, stats_.emitted);
  warn_totals();
  diagnostics_->summary(stats_);
  return stats_;
}

}  // namespace tlbf_dedup
