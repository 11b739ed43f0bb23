// The holding stage as a sink (--count, --keep last): a wrapper around the printer that gives
// each judged record to the holder (holder.hpp), which decides it exactly by its own table, and
// hands the records whose windows close on to the printer. The decider the pipeline asks then
// answers every key new (make_unasked_decider): the answer that counts is the holder's.
//
// Invariants:
//  - No held record is lost: on every way out of the run each one is written (end(), also
//    after errors), or kept in the state file when the run saves one (unless --drain). Only
//    when the output itself stops taking bytes are they neither, as the kept records of a run
//    without holding are not.
//  - With the wall clock (no -t) and a time window, a record is written when its window
//    closes by that clock, also while the input pauses (paused() closes what is due and says
//    when the next window closes).
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.hpp"
#include "output/holder.hpp"
#include "output/record_sink.hpp"
#include "output/table_column.hpp"

namespace tlbf_dedup {

class HoldingSink final : public SinkWrapper, private HeldSink {
 public:
  // `holder`, `out` and `wall` must outlive the sink; `time_field` is -t's (empty: none).
  // Without -t, held records' windows close by `wall`'s time, or the decision clock's when
  // that is later.
  HoldingSink(Holder& holder, RecordSink& out, const std::string& time_field, Clock& wall);

  void start(const SinkStart& how) override;
  Fate decided(const DecidedRecord& r) override;
  void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) override;
  void passed(const OutRecord& r) override;
  void passed_among_held(const OutRecord& r) override { passed(r); }
  // A blank line has no place among held records; a table's header goes out at once, ahead of
  // the rows held after it.
  void blank(const OutRecord& r) override {
    if (is_table(r.format) && is_header_line(r.bytes.substr(0, r.text_size))) out_->blank(r);
  }
  void continuation(std::string_view bytes, std::size_t term_len) override;

  void paused(tlbf::Time clock) override { close_by_wall_clock(clock); }
  int wait_ms(tlbf::Time clock) override;
  void end(End how, tlbf::Time clock) override;
  bool keeps_keys() const override { return true; }
  void count_into(RunStats& stats) const override;
  void warn_totals(Diagnostics& diagnostics, const RunStats& stats) const override;

 private:
  void write_held(const CountedRecord& r) override;
  SeenTime seen_time(const OutRecord& r, const TimeReading* time, tlbf::Time at) const;
  void close_by_wall_clock(tlbf::Time clock);

  Holder* holder_;
  Clock* wall_;
  bool timed_;               // -t given: event time, which stands still while the input does
  std::string time_member_;  // JSON records: -t as a top-level member name, JSON-escaped
  std::uint64_t* emitted_ = nullptr;
  bool held_last_ = false;  // the record before is held (its continuation lines join it)
};

}  // namespace tlbf_dedup
