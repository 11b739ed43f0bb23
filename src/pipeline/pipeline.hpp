// The record loop: records from the source (record_source.hpp) are clocked (decision_clock.hpp),
// submitted to the decider in batches (decide/decider.hpp) and handed with their answers to
// the sink (output/record_sink.hpp), with the bookkeeping around them: counters, warnings,
// progress, checkpoints. The world comes in through two interfaces: a Clock for wall and
// steady time, and Diagnostics for every warning and the end-of-run summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "decide/decider.hpp"
#include "extract/extract.hpp"
#include "extract/timestamp.hpp"
#include "input/record_reader.hpp"
#include "output/output_mode.hpp"
#include "output/record_sink.hpp"
#include "pipeline/cap_watch.hpp"
#include "pipeline/checkpoints.hpp"
#include "pipeline/clock_warnings.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/key_check.hpp"
#include "pipeline/keyless_records.hpp"
#include "pipeline/later_answers.hpp"
#include "pipeline/output_gate.hpp"
#include "pipeline/record_source.hpp"
#include "pipeline/segment.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"
#include "report/top_keys.hpp"

namespace tlbf_dedup {

class InputMerge;
class MultilineCheck;
class Progress;

struct PipelineConfig {
  InputFormat format = InputFormat::auto_detect;
  ExtractConfig extract;
  TimeParser time_parser{TimeFormat::auto_detect, std::nullopt, 1970};
  ClockPolicy clock;
  Refresh refresh = Refresh::no;  // for the decider the front end makes (decider.hpp)
  OutputMode output;
  bool line_buffered = false;
  OnError on_error = OnError::pass;
  // When none of the first ClockPolicy::kUntimedProbe records judged has a key and some lack a
  // key part, the run stops (KeylessInput): the output is held as for the untimed check, so
  // that nothing is written. The program turns it on unless --on-error is given.
  bool stop_when_keyless = false;
  OnCap on_cap = OnCap::warn;
  // --multiline's pattern (empty: none) and the line terminator, for the check that it
  // matches any of the first lines (multiline_check.hpp).
  std::string multiline;
  char terminator = '\n';
  FilterSizing sizing;  // what the filter was sized for, for --stats (the front end knows the filter)
  bool progress = false;
  // --explain: print what was made of the first `explain` records instead of them; 0: off.
  std::uint64_t explain = 0;
  // --top: report the `top` keys with the most duplicates (top_keys.hpp); 0: off.
  std::size_t top = 0;
  // --threads: 2 reads and extracts on a second thread, one batch ahead of the decisions,
  // when every input is a regular file, the filter is local and there is no --explain or
  // --line-buffered (else, and with 1, one thread does everything). The program's default
  // depends on the CPUs the process may use (options.cpp).
  int threads = 2;
  // Several inputs are merged by time (input_merge.hpp); false: read one after another.
  bool merged = false;
};

class Pipeline final : private BatchSink {
 public:
  // `decider`, `sink`, `clock` and `diagnostics` must outlive the pipeline: every record goes
  // to `sink` (output/record_sink.hpp) in input order. Throws SpecError for a given format
  // whose extractor cannot be made.
  Pipeline(PipelineConfig cfg, Decider& decider, RecordSink& sink, tlbf::Time start_clock, Clock& clock,
           Diagnostics& diagnostics, StateHooks hooks = {});
  ~Pipeline();

  // Processes every record until the input ends or *stop becomes non-zero, then hands the
  // warning totals and the summary to the diagnostics. Throws RecordError (--on-error fail),
  // CapError (--on-cap fail), UntimedInput, KeylessInput, InputError, SpecError, DecisionsLost,
  // and what the sink throws (OutputError, BrokenPipe, OutputStopped).
  RunStats run(RecordReader& in, const volatile int* stop);
  // The same over inputs merged by time and held for --lateness (input_merge.hpp).
  RunStats run(InputMerge& in, const volatile int* stop);

  tlbf::Time clock() const { return clock_.now(); }
  // What a source of records for this pipeline extracts (record_source.hpp).
  SourceConfig source_config() const;

 private:
  template <class Input>
  RunStats run_input(Input& in, const volatile int* stop);
  // Step 2 of a run: every record read and judged.
  void read_all(RecordReader& in, bool read_ahead);
  void read_all(InputMerge& in, bool read_ahead);

  // BatchSink: the source hands over batches, and tells of its reader's pauses.
  std::size_t take(const RecordBatch& batch) override;
  bool stopped() const override { return *stop_ || clock_.probe_failed() || keys_.failed(); }
  void release_records() override { sink_->release_borrowed(); }
  int input_paused() override;
  void reached_end(const std::string& name) override { last_input_ = name; }

  // Clocks records from `from` on, as many as may be decided together; returns the end.
  std::size_t clock_segment(const RecordBatch& b, std::size_t from);
  // Submits, judges and writes the segment's records [from, end), in order.
  void judge_segment(const RecordBatch& b, std::size_t from, std::size_t end);
  void judge_keyed(const RecordBatch& b, const SourceRecord& r, std::size_t k);
  // judge_keyed() with --explain, --line-buffered, or a decider that answers later.
  void judge_keyed_aside(const RecordBatch& b, const SourceRecord& r, std::size_t k);
  // Submits the segment's keys from the k-th on, in one batch.
  void submit(std::size_t k);
  // After `r`, the k-th key, the last the decider took: did the memory cap bind again?
  void check_cap(const SourceRecord& r, std::size_t k) {
    if (caps_.bound_again(stats_)) cap_bound(r, segment_.times[k]);
  }
  // A record without a key (malformed, or a -k absent): counted, warned about once, then
  // passed, dropped or fatal as --on-error says; true when it was written. Cold: the usual
  // record has a key.
  [[gnu::cold]] bool judge_unkeyed(const SourceRecord& r);
  // A record --where did not select: written as read (not with --only-dups), counted as
  // passed; true when it was written.
  bool pass_unmatched(const SourceRecord& r);
  OutRecord out_record(const SourceRecord& r) const { return OutRecord{r.bytes, r.text_size(), format_, !r.replayed}; }
  // Hands the batch's k-th record of the segment (its key the batch's `key`-th), judged `dup`,
  // to the sink, and counts the answer that counts (the sink's).
  void hand_over(const SourceRecord& r, std::size_t key, std::size_t k, bool dup) {
    const DecidedRecord d{out_record(r), batch_->keys()[key], batch_->hashes()[key], segment_.times[k], &r.time, dup};
    const RecordSink::Fate f = sink_->decided(d);
    count(f.dup, d.key, d.hash);
    emitted_ = f.continues;
    if (f.early > 0) sink_cap_bound(r, f.early);
  }
  void count(bool dup, std::string_view key, tlbf::KeyHash hash) {
    stats_.duplicates += dup;
    if (dup && top_) top_->add(key, hash);  // whose duplicate it was
  }
  // A record written whatever the filter says, behind the records waiting for answers.
  void write_undecided(const SourceRecord& r);
  // A blank line of JSON input (ExtractStatus::blank): no record, written as read where the
  // output is the input's records in order.
  [[gnu::cold]] void write_blank(const SourceRecord& r);
  // With a decider that answers later: the records whose answers have come go on.
  void release_answered();
  // Waits for every answer and writes every held record.
  void drain();
  // --explain: one line for the record (with its `key`, null for none) instead of the record.
  void explain_record(const SourceRecord& r, const std::string_view* key, const char* decision);
  // A warning about record `r`, naming its input and number.
  void warn_at(const SourceRecord& r, WarningKind kind, const std::string& what);
  void warn_totals();
  // The run's statistics completed, the end-of-run checks and warnings, then the summary.
  void summarise(std::uint64_t bytes_out, std::int64_t started_ns);
  // The memory cap bound at record `r`, decided at `now` (cap_watch.hpp); with --on-cap fail,
  // the run ends after the records before it are written.
  [[gnu::cold]] void cap_bound(const SourceRecord& r, tlbf::Time now);
  // The first kUntimedProbe records (or all, when fewer) are judged: the key check's verdicts.
  [[gnu::cold]] void check_keys() { keys_.check(stats_, keyless_.action(), *diagnostics_); }
  // A sink that keeps records of its own (the holding stage) wrote `early` of them before
  // their time for its memory cap, at record `r`.
  [[gnu::cold]] void sink_cap_bound(const SourceRecord& r, std::uint64_t early);
  // What a sink keeps of its own goes out (after an error, or at the end without a state).
  void end_sink(RecordSink::End how) { sink_->end(how, clock_.now()); }
  const std::string& input_name(const SourceRecord& r) const { return batch_->names[r.input]; }

  PipelineConfig cfg_;
  Decider* decider_;
  Clock* time_source_;
  Diagnostics* diagnostics_;
  Checkpoints checkpoints_;
  LaterAnswers later_;  // with a decider that answers later, sink_ is its wrapper around the sink
  RecordSink* sink_;    // where every record goes
  RecordSource source_;
  DecisionClock clock_;
  std::unique_ptr<TopKeys> top_;  // with --top only
  KeyCheck keys_;                 // the first records' keys
  KeylessRecords keyless_;
  OutputGate gate_;                            // output held while the first checks may fail
  std::unique_ptr<MultilineCheck> multiline_;  // with --multiline, until the check is decided
  // The run's: its stop flag, --progress.
  const volatile int* stop_ = nullptr;
  std::unique_ptr<Progress> progress_;
  // The record loop's.
  Segment segment_;
  Answers answers_;                          // the decider's, not yet taken
  const RecordBatch* batch_ = nullptr;       // the batch being judged
  std::string last_input_;                   // the input of the last record judged, or at the end
  InputFormat format_ = InputFormat::lines;  // what the batch's records are read as
  bool emitted_ = false;                     // the record before continues (written or held): its lines follow it
  bool aside_ = false;                       // --explain, --line-buffered, or answers later: judge_keyed_aside()
  CapWatch caps_;
  ClockWarnings clock_warnings_;  // the clock's, given when their record is judged
  RunStats stats_;
};

}  // namespace tlbf_dedup
