// Records kept in input order ahead of a decider that answers later (--redis): a judged record
// waits for its answer (awaits()), and whatever is handed over after it waits behind it,
// copied (held_records.hpp), until answer() gives that answer; then they go on to the sink this
// one wraps, in input order. With nothing waiting, every verb goes straight through.
//
// Invariant: the wrapped sink sees the records in the order they were handed over here, each
// once, a judged one with the answer given for it.
#pragma once

#include <cstdint>
#include <string>

#include "output/held_records.hpp"
#include "output/record_sink.hpp"

namespace tlbf_dedup {

class InOrderSink final : public RecordSink {
 public:
  explicit InOrderSink(RecordSink& out) : out_(&out) {}

  // A judged record whose answer comes later (`r.dup` is not read): its copy waits, with its key.
  void awaits(const DecidedRecord& r) { held_.hold(r.record, r.key, r.hash, r.at); }
  // A record waits for its answer.
  bool waiting() const { return !held_.empty(); }
  // What became of the record that waited longest, now that its answer came.
  struct Released {
    Fate fate;
    std::string key;  // its key, for --top
    tlbf::KeyHash hash;
  };
  // The answer of the record that waited longest: it goes on, and the records behind it up to
  // the next that waits.
  Released answer(bool dup);

  void start(const SinkStart& how) override { out_->start(how); }
  // (With a decider that answers later, every judged record awaits its answer.)
  Fate decided(const DecidedRecord& r) override { return out_->decided(r); }
  void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) override;
  void passed(const OutRecord& r) override;
  void passed_among_held(const OutRecord& r) override { passed(r); }
  void blank(const OutRecord& r) override;
  // (--multiline, --explain and the holding stage are not run with a decider that answers later.)
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
  bool keeps_keys() const override { return true; }
  void count_into(RunStats& stats) const override { out_->count_into(stats); }
  void warn_totals(Diagnostics& d, const RunStats& stats) const override { out_->warn_totals(d, stats); }

 private:
  RecordSink* out_;
  HeldRecords held_;
};

}  // namespace tlbf_dedup
