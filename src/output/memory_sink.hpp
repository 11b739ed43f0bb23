// A sink that keeps in memory what it is handed, for tests of the record loop: each record
// with what was made of it, in the order handed over, and no output policy of its own (a
// judged record counts as written unless it is a duplicate, as by default).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "output/record_sink.hpp"

namespace tlbf_dedup {

class MemorySink final : public RecordSink {
 public:
  enum class Kind { decided, undecided, passed, blank, continuation, held, explained };
  struct Entry {
    Kind kind;
    std::string bytes;  // the record as handed over; for an explained one, its decision
    std::string key;    // decided: the key
    tlbf::KeyHash hash{};
    tlbf::Time at = 0;  // decided: the time it was judged at
    bool dup = false;
    std::uint64_t count = 0;  // held: the copies it stood for
  };
  std::vector<Entry> entries;
  SinkStart how;
  bool holding = false;       // between hold_back() and let_go()
  std::size_t held_from = 0;  // the first entry handed over while holding
  int flushes = 0;

  void start(const SinkStart& h) override { how = h; }
  Fate decided(const DecidedRecord& r) override {
    entries.push_back({Kind::decided, std::string(r.record.bytes), std::string(r.key), r.hash, r.at, r.dup, 0});
    if (how.emitted) *how.emitted += !r.dup;
    return Fate{!r.dup, r.dup, 0};
  }
  void undecided(const OutRecord& r, const TimeReading*, tlbf::Time now) override {
    add(Kind::undecided, r.bytes, now);
  }
  void passed(const OutRecord& r) override { add(Kind::passed, r.bytes); }
  void passed_among_held(const OutRecord& r) override { add(Kind::passed, r.bytes); }
  void blank(const OutRecord& r) override { add(Kind::blank, r.bytes, 0, false); }
  void continuation(std::string_view bytes, std::size_t) override { add(Kind::continuation, bytes, 0, false); }
  bool held(const CountedRecord& r, bool counted) override {
    entries.push_back({Kind::held, std::string(r.bytes), {}, {}, r.last.at, r.count > 1, counted ? r.count : 0});
    return true;
  }
  void explain(const ExplainLine& line) override { add(Kind::explained, line.decision, line.clock, false); }

  SinkRoom room() const override {
    return {std::numeric_limits<std::uint64_t>::max() / 2, 0, std::numeric_limits<std::size_t>::max()};
  }
  void release_borrowed() override {}
  void flush() override { ++flushes; }
  bool wait_until_read(int) override { return true; }
  std::uint64_t bytes_written() const override { return 0; }
  void hold_back() override {
    if (!holding) held_from = entries.size();
    holding = true;
  }
  void let_go(bool keep) override {
    if (holding && !keep) entries.resize(held_from);
    holding = false;
  }

 private:
  // A record written (counted as the printer counts) or, `record` false, other bytes.
  void add(Kind kind, std::string_view bytes, tlbf::Time at = 0, bool record = true) {
    entries.push_back({kind, std::string(bytes), {}, {}, at, false, 0});
    if (record && how.emitted) ++*how.emitted;
  }
};

}  // namespace tlbf_dedup
