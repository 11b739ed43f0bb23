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

class InOrderSink final : public SinkWrapper {
 public:
  explicit InOrderSink(RecordSink& out) : SinkWrapper(out) {}

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

  // (With a decider that answers later, every judged record awaits its answer, and
  // --multiline, --explain and the holding stage are not run: the other verbs go through.)
  void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) override;
  void passed(const OutRecord& r) override;
  void passed_among_held(const OutRecord& r) override { passed(r); }
  void blank(const OutRecord& r) override;
  bool keeps_keys() const override { return true; }

 private:
  HeldRecords held_;
};

}  // namespace tlbf_dedup
