// The record loop: records from the source (record_source.hpp) are clocked (segment.hpp),
// submitted to the decider in batches (decide/decider.hpp) and handed with their answers to
// the sink (output/record_sink.hpp), with the bookkeeping around them: counters, warnings,
// progress, checkpoints. A run (run.hpp) starts and ends it. The world comes in through two
// interfaces: a Clock for wall and steady time, and Diagnostics for every warning and the
// end-of-run summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/clock.hpp"
#include "decide/decider.hpp"
#include "output/record_sink.hpp"
#include "pipeline/cap_watch.hpp"
#include "pipeline/checkpoints.hpp"
#include "pipeline/clock_warnings.hpp"
#include "pipeline/config.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/first_checks.hpp"
#include "pipeline/later_answers.hpp"
#include "pipeline/record_source.hpp"
#include "pipeline/segment.hpp"
#include "pipeline/side_records.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"
#include "report/top_keys.hpp"

namespace tlbf_dedup {

struct MergeStats;
class Progress;

class Pipeline final : public BatchSink {
 public:
  // `decider`, `sink`, `clock` and `diagnostics` must outlive the pipeline.
  Pipeline(PipelineConfig cfg, Decider& decider, RecordSink& sink, tlbf::Time start_clock, Clock& clock,
           Diagnostics& diagnostics, StateHooks hooks = {});
  ~Pipeline();

  tlbf::Time clock() const { return clock_.now(); }
  // What a source of records for this pipeline extracts (record_source.hpp).
  SourceConfig source_config() const;
  const RunStats& stats() const { return stats_; }

  // The steps of a run (run.hpp). Before the first record: the run's stop flag, whether a
  // second thread reads ahead (may_read_ahead()), the inputs' size for --progress.
  bool may_read_ahead() const;
  void start(const volatile int* stop, bool read_ahead, std::uint64_t total_size);
  // The input ended, or the run stopped: every answer is taken and the sink ended.
  void end_input();
  // The first records' checks settle, and the state is saved; false: the run failed one (no
  // time, no key) and wrote nothing.
  bool end_checks();
  // After an error: what was decided before it goes out.
  enum class After { lost_decisions, input_error, other_error };
  void write_decided(After error);
  void count_merge(const MergeStats& m);
  // The run's statistics completed, the end-of-run checks and warnings, then the summary.
  void summarise();
  // The error of a run whose end_checks() failed.
  [[noreturn]] void throw_failed_check() const;

 private:
  // BatchSink: the source hands over batches, and tells of its reader's pauses.
  std::size_t take(const RecordBatch& batch) override;
  bool stopped() const override { return *stop_ || clock_.probe_failed() || checks_.failed(); }
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
    if (caps_.bound_again(stats_)) caps_.filter_bound(input_name(r), r.number, segment_.times[k], stats_);
  }
  // A record without a key (malformed, or a -k absent): the run's error with --on-error
  // fail, else as side_records.hpp says; true when it was written. Cold: the usual record has
  // a key.
  [[gnu::cold]] bool judge_unkeyed(const SourceRecord& r);
  OutRecord out_record(const SourceRecord& r) const { return SideRecords::out_record(r, format_); }
  // Hands the batch's k-th record of the segment (its key the batch's `key`-th), judged `dup`,
  // to the sink, and counts the answer that counts (the sink's).
  void hand_over(const SourceRecord& r, std::size_t key, std::size_t k, bool dup) {
    const DecidedRecord d{out_record(r), batch_->keys()[key], batch_->hashes()[key], segment_.times[k], &r.time, dup};
    const RecordSink::Fate f = sink_->decided(d);
    count(f.dup, d.key, d.hash);
    emitted_ = f.continues;
    if (f.early > 0) caps_.sink_bound(input_name(r), r.number, f.early, clock_.now());
  }
  void count(bool dup, std::string_view key, tlbf::KeyHash hash) {
    stats_.duplicates += dup;
    if (dup && top_) top_->add(key, hash);  // whose duplicate it was
  }
  // With a decider that answers later: the records whose answers have come go on.
  void release_answered();
  // Waits for every answer and writes every held record.
  void drain();
  // A warning about record `r`, naming its input and number.
  void warn_at(const SourceRecord& r, WarningKind kind, const std::string& what);
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
  DecisionClock clock_;
  std::unique_ptr<TopKeys> top_;  // with --top only
  FirstChecks checks_;            // a time, a key, --multiline; output held meanwhile
  SideRecords side_;              // records beside the decisions, --explain's lines
  // The run's: its stop flag, --progress.
  const volatile int* stop_ = nullptr;
  std::int64_t started_ns_ = 0;  // the steady clock at the start
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
