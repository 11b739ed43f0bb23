// The holding stage of --count and --keep last: between the record loop and the emitter, it
// holds one record per key until the key's window closes, counting the copies, and then
// hands the record on once. It decides by itself, exactly: the held records are the window's
// keys (held_table.hpp), so a copy whose key is held is a duplicate and any other copy is new.
//
// A key's window closes a window after its first copy, or after its last one when the window
// runs from the last copy (--refresh): for a time window when the clock reaches that time, for
// a count window (-n N) when N more keys have been inserted (every copy is an insert with
// --refresh). Records come out in the order their windows close. When the held records would
// take more than the memory cap, the ones whose windows close first are written early, with
// the count they have; later copies of their keys start new records. A record over the cap by
// itself is written at once, as early as can be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "output/count_format.hpp"
#include "output/held_table.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// Which copy of a key is written: the first (the default) or the last inside its window.
enum class Keep { first, last };
// Where a key's window is measured from: its first copy, or its last (--refresh).
enum class WindowFrom { first_copy, last_copy };

struct HoldConfig {
  bool count = false;       // --count: what is written carries its count and its copies' times
  Keep keep = Keep::first;  // --keep
  // --drain: a run that saves a state writes the held records at its end instead of keeping
  // them in the state for the next run.
  bool drain = false;
  // The window (a time span, or else a count of inserts), set from the filter's configuration.
  tlbf::Duration span = 0;
  std::uint64_t window_count = 0;
  WindowFrom from = WindowFrom::first_copy;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;  // --max-memory

  // Records are held at all: with --count, or to keep the last copy.
  bool active() const { return count || keep == Keep::last; }
};

// One copy of a key, as the record loop hands it over.
struct Copy {
  std::string_view key;
  tlbf::KeyHash hash;
  std::string_view bytes;  // the record, exactly as read, terminator included
  std::size_t text_size;   // without the terminator
  InputFormat format;
  SeenTime seen;  // its time; seen.at is the time it is judged at
};

// Where held records go when they are written: the emitter, through the record loop.
class HeldSink {
 public:
  virtual void write_held(const CountedRecord& r) = 0;

 protected:
  ~HeldSink() = default;
};

// What the holder made of a copy.
struct HoldVerdict {
  bool dup;  // its key was held: counted into that record
  // It is the copy held for its key now (new, or the last with --keep last), or it was written
  // at once, being over the memory cap by itself: either way its continuation lines follow it.
  bool held;
  std::uint64_t early;  // records written early to make room for it (the memory cap bound)
};

// What --stats reports of the held records.
struct HeldStats {
  std::uint64_t peak = 0;        // the most records held at once
  std::uint64_t peak_bytes = 0;  // the most memory they took
  std::uint64_t bytes = 0;       // the memory they take now
  std::uint64_t held = 0;        // records held now
  std::uint64_t taken = 0;       // records held in all (new keys)
  std::uint64_t early = 0;       // records written early for the memory cap
  // The shortest a record written early had been held (a time, or inserts with -n).
  std::optional<tlbf::Duration> shortest_early;
};

class Holder {
 public:
  explicit Holder(HoldConfig cfg);

  const HoldConfig& config() const { return cfg_; }
  bool empty() const { return table_.empty(); }

  // Writes the records whose windows have closed before `c` (judged at c.seen.at), then
  // decides `c`: counted into its key's record, or held as a new one.
  HoldVerdict take(const Copy& c, HeldSink& out);
  // Lines that continue the copy taken last (--multiline), when it is held: appended to it
  // (`term_len`: their last line's terminator). False when that copy is not held (a duplicate
  // under --keep first, or written already).
  bool continue_last(std::string_view bytes, std::size_t term_len);

  // A time window: writes the records whose windows have closed at `now`.
  void close_until(tlbf::Time now, HeldSink& out);
  // Writes every held record, in the order their windows close.
  void close_all(HeldSink& out);
  // A time window: when the next held record's window closes; nullopt when none is held.
  std::optional<tlbf::Time> next_close() const;

  HeldStats stats() const;

  // The held records and the insert count, in the holder's own saved form (docs/state.md),
  // and back: load() replaces what is held; throws tlbf::state_error for bytes it cannot read.
  void save(tlbf::ByteWriter& out) const;
  void load(std::string_view bytes);

 private:
  // Writes entry i and forgets it.
  void write_and_remove(std::uint32_t i, HeldSink& out);
  void close_due(tlbf::Time now, HeldSink& out);
  // Writes the records whose windows close first, early, until the held records fit under
  // the cap: with a new one of `data_bytes` when `adding`, else as they are (entry `keep`
  // stays). Returns how many it wrote.
  std::uint64_t make_room(bool adding, std::size_t data_bytes, std::uint32_t keep, tlbf::Time now, HeldSink& out);
  // Counts a record written early, `kept` after its window opened, for --stats.
  void note_early(tlbf::Duration kept);
  std::uint32_t hold_new(const Copy& c, tlbf::Time anchor);
  void count_copy(std::uint32_t i, const Copy& c, tlbf::Time anchor);
  // The close of a window that runs from `anchor` (a time, or an insert number).
  tlbf::Time close_of(tlbf::Time anchor) const;
  // The window's length on its own axis: the span, or the count.
  tlbf::Time window() const;
  void note_size();

  HoldConfig cfg_;
  HeldTable table_;
  std::uint64_t inserts_ = 0;              // a count window's clock: keys inserted so far
  std::uint32_t last_ = HeldTable::kNone;  // the entry holding the copy taken last
  HeldStats stats_;
};

}  // namespace tlbf_dedup
