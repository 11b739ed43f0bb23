// The record loop: reader → extractor → clock → decider → writer, with the bookkeeping
// (counters, warnings, progress, checkpoints) around it. The world comes in through two
// interfaces: a Clock (clock.hpp) for wall and steady time, and Diagnostics
// (diagnostics.hpp) for every warning and the end-of-run summary.
// Reading files, reading and extraction may run on a second thread (read_ahead.hpp).
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>

#include "base/clock.hpp"
#include "decide/decider.hpp"
#include "extract/extract.hpp"
#include "extract/timestamp.hpp"
#include "input/record_reader.hpp"
#include "output/emitter.hpp"
#include "output/writer.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/read_ahead.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"
#include "report/top_keys.hpp"
#include "tlbf/filter.hpp"

namespace tlbf_dedup {

class Progress;

enum class InputFormat { auto_detect, lines, json };
// What happens to a record whose key cannot be extracted.
enum class OnError { pass, drop, fail };

// What happens when the memory cap makes the filter give up window length.
enum class OnCap { warn, fail };

// --on-error fail met a record whose key could not be extracted; the message says which.
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --on-cap fail: the memory cap bound; the message says at which record and what was lost.
class CapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How the pipeline persists its filter: `save` is called with the output flushed, every
// `every` of wall time (checked between records and whenever input pauses) and once at the
// end of the run, with the clock it has reached; the caller knows the filter. Empty `save` =
// no state.
struct StateHooks {
  std::function<void(tlbf::Time clock)> save;
  tlbf::Duration every = 0;
};

struct PipelineConfig {
  InputFormat format = InputFormat::auto_detect;
  ExtractConfig extract;
  TimeParser time_parser{TimeFormat::auto_detect, std::nullopt, 1970};
  ClockPolicy clock;
  Refresh refresh = Refresh::no;  // for the decider the front end makes (decider.hpp)
  OutputMode output;
  bool line_buffered = false;
  OnError on_error = OnError::pass;
  OnCap on_cap = OnCap::warn;
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
};

class Pipeline : private RecordWarnings {
 public:
  // `decider`, `clock` and `diagnostics` must outlive the pipeline.
  Pipeline(PipelineConfig cfg, Decider& decider, tlbf::Time start_clock, Clock& clock, Diagnostics& diagnostics,
           StateHooks hooks = {});

  // Processes every record until the input ends or *stop becomes non-zero, then hands the
  // warning totals and the summary to the diagnostics. Throws RecordError (--on-error fail),
  // CapError (--on-cap fail), UntimedInput, InputError, OutputError, SpecError, BrokenPipe.
  RunStats run(RecordReader& in, Writer& out, const volatile int* stop);

  tlbf::Time clock() const { return clock_.now(); }

 private:
  // The record loop.
  void decide_all(RecordReader& in, Writer& out, const volatile int* stop, Progress* progress, bool read_ahead);
  // decide_all() from the hand-over to the producer thread on.
  template <class Judge, class AfterRecord>
  void decide_read_ahead(RecordReader& in, Writer& out, const volatile int* stop, Judge& judge,
                         AfterRecord& after_record, bool& emitted);
  // The producer of read-ahead batches (on its own thread): reads and extracts, with
  // `extractor` and its `parser`, from the input after the record the loop judged last.
  void read_ahead(RecordReader& in, ReadAheadQueue<RecordBatch>& queue, std::unique_ptr<Extractor> extractor,
                  TimeParser parser, bool json) const;
  void choose_extractor(std::string_view first_record);
  // A new input starts: with -t, `parser` counts year-less stamps from its year again (true:
  // an extractor made before must be made again with it).
  bool restart_years(TimeParser& parser, const RecordReader& in) const;
  // The number in its input of the record being judged: a held blank record's own number
  // while held records are judged, else the one the loop set.
  std::uint64_t record_number() const { return replaying_record_ ? replaying_record_ : place_record_; }
  void start_input(const RecordReader& in);
  // Steps 3 to 5 for a record without a key (malformed, or a -k absent): counted, warned
  // about once, then passed, dropped or fatal as --on-error says; true when it was written.
  // Cold: kept out of the record loop, whose usual record has a key.
  [[gnu::cold]] bool judge_unkeyed(Writer& out, const Record& rec, const Extracted& x);
  // --explain: one line for the record instead of the record.
  void explain_record(const Extracted& x, const char* decision);
  void refresh_future_limit() {
    if (wants_time_) clock_.refresh_future_limit();
  }
  // The clock's warnings about the record being judged.
  void warn(WarningKind kind, std::string what) override { warn_at(kind, std::move(what)); }
  void warn_first(WarningKind kind, const char* what);
  // A warning about the record being judged, naming its input and number.
  void warn_at(WarningKind kind, std::string what);
  void warn_totals();
  void cap_bound(Writer& out);
  void save_state(Writer& out);
  void maybe_checkpoint(Writer& out);
  // Step 5 for a record whose decision is `dup`: the emitter writes it as --mark and
  // --only-dups say; true when it was written.
  bool write_decided(const OutRecord& r, bool dup) {
    const bool written = emitter_->decided(r, dup);
    stats_.emitted += written;
    return written;
  }
  // A record written whatever the filter says (blank, or passed with --on-error pass), behind
  // the records still waiting for their answers.
  void write_undecided(const Record& rec);
  // Writes the held records from the front up to the first one whose answer has not come.
  void release_answered(Writer& out);
  // Waits for every answer and writes every held record.
  void drain(Writer& out);

  PipelineConfig cfg_;
  Decider* decider_;
  Answers answers_;  // the decider's, in submit order, not yet taken
  // With a decider that answers later: the records waiting for their answers (or behind one that waits), in
  // input order, their bytes in held_bytes_ from held_start_ on.
  enum class HeldKind : unsigned char { awaits_answer, undecided };
  struct Held {
    std::size_t size, text_size;
    bool json;
    HeldKind kind;
  };
  std::deque<Held> held_;
  // With --top: the keys (and their hashes) of the records awaiting answers, in order.
  std::deque<std::pair<std::string, tlbf::KeyHash>> held_keys_;
  std::string held_bytes_;
  std::size_t held_start_ = 0;
  DecisionClock clock_;
  std::size_t input_ = 0;               // the reader's input_number() of the last record
  std::uint64_t replaying_record_ = 0;  // see record_number()
  // The record being judged: the name of its input (the reader's, or with read-ahead
  // thread_name_) and its number there.
  const std::string* place_name_ = nullptr;
  std::uint64_t place_record_ = 0;
  std::string thread_name_;
  // With read-ahead: the batches, kept as long as the pipeline, so that the writer may still
  // hold bytes of them while run() ends on an error.
  std::unique_ptr<ReadAheadQueue<RecordBatch>> batches_;
  // Batches in the pool: one decided, one filled, one spare, so neither thread waits on a
  // batch boundary; memory: kBatches x (RecordBatch::kBytes + kItems items), more only for
  // a record longer than kBytes.
  static constexpr std::size_t kBatches = 3;
  // Auto mode holds leading blank records up to this many bytes before calling the input lines.
  static constexpr std::size_t kMaxHeldBytes = std::size_t{1} << 20;
  Clock* time_source_;
  Diagnostics* diagnostics_;
  StateHooks hooks_;
  std::unique_ptr<Extractor> extractor_;  // with read-ahead: the producer's from the hand-over on
  bool json_ = false;
  bool wants_time_ = false;     // extractor_->wants_time(), kept when the producer takes the extractor
  bool cap_reported_ = false;   // the memory cap's first bind was reported
  Emitter* emitter_ = nullptr;  // run()'s, over the writer it was given
  RunStats stats_;
  std::unique_ptr<TopKeys> top_;  // with --top only
  std::int64_t last_checkpoint_ns_ = 0;
};

}  // namespace tlbf_dedup
