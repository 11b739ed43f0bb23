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
#include "pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "progress.hpp"

namespace tlbf_dedup {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool is_blank_record(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

}  // namespace

Pipeline::Pipeline(PipelineConfig cfg, tlbf::WindowFilter& filter, tlbf::Time start_clock, StateHooks hooks)
    : cfg_(std::move(cfg)), filter_(&filter), decider_(filter, cfg_.refresh), clock_(start_clock), hooks_(std::move(hooks)) {
  mark_name_ = json_escape(cfg_.output.mark_name);
  if (!cfg_.wall_clock) {
    cfg_.wall_clock = [] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    };
  }
  if (cfg_.format == InputFormat::lines) choose_extractor({});
  if (cfg_.format == InputFormat::json) choose_extractor("{");
}

void Pipeline::choose_extractor(std::string_view first_record) {
  std::size_t i = first_record.find_first_not_of(" \t\r\n");
  json_ = i != std::string_view::npos && first_record[i] == '{';
  extractor_ = json_ ? make_json_extractor(cfg_.extract, cfg_.time_parser) : make_line_extractor(cfg_.extract, cfg_.time_parser);
}

void Pipeline::warn_first(const char* what, const RecordReader& in) {
  if (cfg_.quiet) return;
  const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
  std::fprintf(stderr, "tlbf-dedup: warning: %s: record %llu: %s (%s; further ones are counted, see the summary at exit)\n",
               in.current_name().c_str(), static_cast<unsigned long long>(stats_.records), what, action);
}

void Pipeline::save_state(Writer& out) {
  if (!hooks_.save) return;
  out.flush();
  hooks_.save(*filter_, clock_);
  last_checkpoint_ns_ = steady_ns();
}

void Pipeline::maybe_checkpoint(Writer& out) {
  if (hooks_.save && hooks_.every > 0 && steady_ns() - last_checkpoint_ns_ >= hooks_.every) save_state(out);
}

RunStats Pipeline::run(RecordReader& in, Writer& out, const volatile int* stop) {
  auto started = std::chrono::steady_clock::now();
  last_checkpoint_ns_ = steady_ns();
  std::unique_ptr<Progress> progress;
  if (cfg_.progress) progress = std::make_unique<Progress>(in.total_size());
  in.set_stop_flag(stop);
  // Input paused: what has been decided goes out now (tail -f), and a due checkpoint runs.
  in.on_input_pause([&]() -> int {
    out.flush();
    maybe_checkpoint(out);
    if (!hooks_.save || hooks_.every <= 0) return -1;
    std::int64_t due_ns = last_checkpoint_ns_ + hooks_.every - steady_ns();
    return due_ns <= 0 ? 0 : static_cast<int>(std::min<std::int64_t>(due_ns / 1000000 + 1, 60000));
  });
  const bool wants_time = !cfg_.extract.time.empty();
  const bool only_dups = cfg_.output.only_dups;
  const bool mark = cfg_.output.mark;

  Record rec;
  try {
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
        const std::string what = x.status == ExtractStatus::malformed ? "not a readable JSON object" : describe_missing_key(cfg_.extract, x);
        std::uint64_t& count = x.status == ExtractStatus::malformed ? stats_.malformed : stats_.missing_key;
        if (cfg_.on_error == OnError::fail) {
          out.flush();
          throw RecordError(fmt::format("{}: record {}: {} (--on-error fail)", in.current_name(), stats_.records, what));
        }
        if (count++ == 0) warn_first(what.c_str(), in);
        if (cfg_.on_error == OnError::pass && !only_dups) {
          if (mark) write_marked(out, rec.bytes(), rec.size, json_, false, mark_name_);
          else out.write(rec.bytes());
          ++stats_.emitted;
          if (cfg_.line_buffered) out.flush();
        }
        continue;
      }

      // Step 3: the clock, which only moves forward.
      if (wants_time) {
        if (x.time) {
          if (*x.time > clock_) clock_ = *x.time;
        } else {
          ++stats_.untimed;
        }
      } else {
        tlbf::Time now = cfg_.wall_clock();
        if (now > clock_) clock_ = now;
      }

      // Step 4: the decision.
      bool dup = decider_.is_duplicate(x.key, clock_);
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

    out.flush();
    save_state(out);
  } catch (const BrokenPipe&) {
    // Downstream stopped reading: the program ends quietly, but what was read and decided is
    // kept, so the next run with the same --state continues from here.
    if (hooks_.save) hooks_.save(*filter_, clock_);
    throw;
  }
  stats_.bytes_out = out.bytes_written();
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  stats_.filter = filter_->stats(clock_);
  if (progress) progress->finish(stats_.bytes_in, stats_.records, stats_.emitted);
  if (!cfg_.quiet) {
    const char* action = cfg_.on_error == OnError::pass ? "passed through" : "dropped";
    if (stats_.malformed)
      std::fprintf(stderr, "tlbf-dedup: warning: %llu record(s) were not readable JSON objects (%s)\n",
                   static_cast<unsigned long long>(stats_.malformed), action);
    if (stats_.missing_key)
      std::fprintf(stderr, "tlbf-dedup: warning: %llu record(s) had no key (%s)\n", static_cast<unsigned long long>(stats_.missing_key), action);
    if (stats_.untimed)
      std::fprintf(stderr, "tlbf-dedup: warning: %llu record(s) had no readable time at -t %s (judged at the current clock)\n",
                   static_cast<unsigned long long>(stats_.untimed), cfg_.extract.time.c_str());
  }
  return stats_;
}

}  // namespace tlbf_dedup
