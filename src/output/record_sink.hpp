// Where judged records go (ripgrep's Sink): the record loop hands each record over in input
// order, a keyed one with its key, hash, the time it was judged at and the answer; the sink
// decides what bytes it becomes and when they go out. The printer (printer.hpp) writes to a
// file descriptor; the memory sink (memory_sink.hpp) keeps what it is handed, for tests.
//
// Invariant: nothing of a record goes out before the records handed over ahead of it; what
// the sink was handed is out (or held back, hold_back()) once flush() returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/timestamp.hpp"
#include "output/count_format.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

class Diagnostics;
struct RunStats;

// A record as the sink writes it.
struct OutRecord {
  std::string_view bytes;  // exactly as read, terminator included
  std::size_t text_size;   // without the terminator
  InputFormat format;      // what it was read as (JSON: --mark adds a member, not a column)
  // The bytes stay unchanged until the writer's next flush (the reader's buffer, a read-ahead
  // batch): the writer may point at them instead of copying them.
  bool borrowable;
};

// What --explain shows of one record, in its columns' order.
struct ExplainLine {
  std::string_view input;
  std::uint64_t record = 0;     // its number in `input`
  const std::string_view* key;  // null: the record has no key
  bool composite = false;       // the key has several parts (-k given more than once)
  const TimeReading* time;      // null: no -t
  tlbf::Time clock = 0;         // the decision clock the record was judged at
  const char* decision;
  InputFormat format = InputFormat::lines;  // its record's (JSON: the key is made of JSON values)
};

// How much may be handed over before the output must flush (RecordSink::room).
struct SinkRoom {
  std::uint64_t bytes;       // of records, with `per_record` more for each
  std::uint64_t per_record;  // what --mark adds at most
  std::size_t records;
};

// How a run uses its sink, told once before the first record.
struct SinkStart {
  // A stop signal's flag: once non-zero, output that blocks gives up (OutputStopped).
  const volatile int* stop = nullptr;
  // The records' bytes were written by another thread (read ahead): lend every run of them
  // to the output rather than copy the short ones (they are in the other core's cache).
  bool read_ahead = false;
  bool line_buffered = false;  // every record out as soon as it is handed over
  bool explain = false;        // --explain: lines about the records instead of the records
  // The run's count of records written, which the sink adds to as it writes them.
  std::uint64_t* emitted = nullptr;
};

// A record the decider judged.
struct DecidedRecord {
  OutRecord record;
  // Empty unless the run keeps keys' bytes (--top, --explain, --count, --keep last, a decider
  // that answers later): the hash stands for the key.
  std::string_view key;
  tlbf::KeyHash hash;
  tlbf::Time at;            // the decision clock it was judged at
  const TimeReading* time;  // what -t read of it (null: not kept)
  bool dup;
};

class RecordSink {
 public:
  virtual ~RecordSink() = default;

  virtual void start(const SinkStart& how) = 0;

  // What became of a judged record.
  struct Fate {
    bool continues;       // its continuation lines, if any come, follow it (it was written, or is held)
    bool dup;             // the answer that counts: the decider's, or a sink's that decides by itself
    std::uint64_t early;  // records a memory cap made the sink write before their time
  };
  // A judged record, written as the output mode says (--only-dups, --mark, --compact).
  virtual Fate decided(const DecidedRecord& r) = 0;
  // A record written whatever the filter says (--on-error pass), read at `now`.
  virtual void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) = 0;
  // A record --where did not select: exactly as read.
  virtual void passed(const OutRecord& r) = 0;
  // The same between the records of the holding stage (--count, --keep last).
  virtual void passed_among_held(const OutRecord& r) = 0;
  // A blank line between JSON records, where the output is the input's records in order; a
  // table's header line or empty line (output/table_column.hpp).
  virtual void blank(const OutRecord& r) = 0;
  // Lines that continue the record handed over last (--multiline), when it continues;
  // `term_len`: their last line's terminator.
  virtual void continuation(std::string_view bytes, std::size_t term_len) = 0;
  // A record of the holding stage; `counted` false: one that was never held (no key). True
  // when it was written.
  virtual bool held(const CountedRecord& r, bool counted) = 0;
  // --explain: a line about a record instead of it.
  virtual void explain(const ExplainLine& line) = 0;

  // How much may be handed over before the output must flush: within it, no write fails or
  // blocks before the next flush().
  virtual SinkRoom room() const = 0;
  // The bytes of records handed over are about to change: whatever points at them goes out.
  virtual void release_borrowed() = 0;
  virtual void flush() = 0;
  // Waits at most `max_ms` until the output's reader took every byte flushed; true once it has.
  virtual bool wait_until_read(int max_ms) = 0;
  // Bytes written to the output (not those held back).
  virtual std::uint64_t bytes_written() const = 0;

  // Output is held back, not written, until let_go(): then it goes out in order (`keep`) or
  // never. While a run may still fail for want of a time or a key, it writes nothing.
  virtual void hold_back() = 0;
  virtual void let_go(bool keep) = 0;

  // A sink that keeps records for a while of its own (the holding stage), told the decision
  // clock `clock`: the input pauses, and what is due goes out; then, in how many
  // milliseconds it wants to be told again (-1: no need).
  virtual void paused(tlbf::Time /*clock*/) {}
  virtual int wait_ms(tlbf::Time /*clock*/) { return -1; }
  // The run ends: with a state saved, records the state can keep stay with it; otherwise
  // (and after an error) everything goes out.
  enum class End { state_saved, all_written };
  virtual void end(End, tlbf::Time /*clock*/) {}
  // It reads the keys' bytes (else DecidedRecord::key may be empty).
  virtual bool keeps_keys() const { return false; }
  // Its part of the run's statistics, and of the warnings' totals.
  virtual void count_into(RunStats&) const {}
  virtual void warn_totals(Diagnostics&, const RunStats&) const {}
};

// A sink around another that forwards every verb to it: the base of the wrappers (the holding
// stage, the order of later answers), which override only what they change.
class SinkWrapper : public RecordSink {
 public:
  explicit SinkWrapper(RecordSink& out) : out_(&out) {}

  void start(const SinkStart& how) override { out_->start(how); }
  Fate decided(const DecidedRecord& r) override { return out_->decided(r); }
  void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) override {
    out_->undecided(r, time, now);
  }
  void passed(const OutRecord& r) override { out_->passed(r); }
  void passed_among_held(const OutRecord& r) override { out_->passed_among_held(r); }
  void blank(const OutRecord& r) override { out_->blank(r); }
  void continuation(std::string_view bytes, std::size_t term_len) override { out_->continuation(bytes, term_len); }
  bool held(const CountedRecord& r, bool counted) override { return out_->held(r, counted); }
  void explain(const ExplainLine& line) override { out_->explain(line); }
  SinkRoom room() const override { return out_->room(); }
  void release_borrowed() override { out_->release_borrowed(); }
  void flush() override { out_->flush(); }
  bool wait_until_read(int max_ms) override { return out_->wait_until_read(max_ms); }
  std::uint64_t bytes_written() const override { return out_->bytes_written(); }
  void hold_back() override { out_->hold_back(); }
  void let_go(bool keep) override { out_->let_go(keep); }
  void paused(tlbf::Time clock) override { out_->paused(clock); }
  int wait_ms(tlbf::Time clock) override { return out_->wait_ms(clock); }
  void end(End how, tlbf::Time clock) override { out_->end(how, clock); }
  bool keeps_keys() const override { return out_->keeps_keys(); }
  void count_into(RunStats& stats) const override { out_->count_into(stats); }
  void warn_totals(Diagnostics& d, const RunStats& stats) const override { out_->warn_totals(d, stats); }

 protected:
  RecordSink* out_;
};

}  // namespace tlbf_dedup
