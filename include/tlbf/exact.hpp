// SPDX-License-Identifier: MIT
// Exact sliding-window membership: a table of 64-bit key fingerprints (KeyHash.lo) mapped to
// the key's last insert stamp, with expiry in stamp order through a FIFO.
//
// The stamp is the caller's time for a time window and the insert sequence number (1, 2, ...)
// for a count window. An entry is live iff now - stamp < span (time) or stamp > n - W (count,
// n = inserts so far); may_contain() compares the stored stamp itself, so answers are exact
// whether or not expired entries have been swept yet. The only approximation is the
// fingerprint: two keys whose 64-bit fingerprints collide are one key (probability about
// n^2 / 2^65, ~3e-8 for a million live keys).
//
// Invariant: every table entry has exactly one FIFO record carrying its current stamp (older
// records of a refreshed key carry older stamps), and FIFO stamps are non-decreasing. Inserts
// sweep expired records from the FIFO front and drop a table entry when the swept record
// carries its current stamp (a refreshed key has a newer record further back). So memory is
// bounded by what is inside the window: the table holds at most the keys inserted in the
// window plus those not yet swept, and the FIFO is compacted to one record per key whenever
// refreshes make it more than twice the table size.
//
// The table is open addressing with linear probing and backward-shift deletion (no
// tombstones, so lookups stay short however many keys pass through). Fingerprint 0 marks an
// empty slot; a key whose fingerprint is 0 lives in a side slot. Table and FIFO sizes are
// not powers of two (a key's home slot is a multiply-shift reduction, the ring wraps by a
// compare): the table runs from load 1/2 after a rebuild to 4/5 (linear probing at 7/8
// doubled the instructions per lookup), the FIFO grows by half and runs full, so memory is
// about 16/load + 16/fill bytes per live key instead of doubling at each power of two.
//
// Memory cap (max_memory_bytes): table and FIFO together, counting the moment a rebuild holds
// the old and the new arrays, never exceed it. A growth that would pass it evicts the oldest
// FIFO records instead (a record that is not its key's current stamp goes for free), so
// under the cap the filter keeps the most recent keys that fit: it gives up window length,
// never answers wrongly about a key it holds. Each key evicted while still inside the window
// is a cap bind (cap_binds(), cap_evictions); the keys stamped after it are all kept, so the
// window has effectively shrunk to its age (effective_span / effective_count in stats: the
// smallest since creation).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"

namespace tlbf {

class ExactWindow final : public WindowFilter {
 public:
  explicit ExactWindow(const FilterConfig& cfg) {
    check_window(cfg);
    span_ = cfg.span;
    window_count_ = cfg.window_count;
    if (window_count_ > kMaxWindowCount)
      throw invalid_parameter("window_count", parameter_value(window_count_), "is too large");
    check_max_memory(cfg.max_memory_bytes);
    cap_bytes_ = std::max(cfg.max_memory_bytes, kMinBytes);
    shortest_window_ = window();
    start_empty();
  }

  static std::unique_ptr<ExactWindow> load(ByteReader& in) { return SavedForm::load<ExactWindow>(in); }

  bool may_contain(KeyHash h, Time now) const override {
    const Time* stamp = find(h.lo);
    return stamp != nullptr && live(*stamp, is_count() ? latest_ : std::max(now, latest_));
  }

  // Refreshes the stamp of a key already present (the --refresh behaviour).
  void insert(KeyHash h, Time now) override {
    Time stamp;
    if (is_count()) {
      stamp = ++latest_;
    } else {
      latest_ = std::max(now, latest_);
      stamp = latest_;
    }
    ++keys_inserted_;
    sweep();
    const Time* had = find(h.lo);
    if (had != nullptr && *had == stamp) return;  // one FIFO record per stamp of a key (see live_keys())
    put(h.lo, stamp);
    push(Record{stamp, h.lo});
    if (fifo_size_ > 2 * size() + kMinFifo && fits(compaction_bytes())) compact_fifo();
  }
  bool insert_if_absent(KeyHash h, Time now) override { return insert_if_absent_in_two_steps(*this, h, now); }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    FilterStats s;
    s.algorithm = "exact";
    s.keys_inserted = keys_inserted_;
    const std::uint64_t n = live_keys(is_count() ? latest_ : std::max(now, latest_));
    s.live_keys = n;
    s.bits_allocated = 8 * held_bytes();
    s.peak_bits_allocated = 8 * peak_bytes_;
    s.bits_per_live_key = n ? static_cast<double>(s.bits_allocated) / static_cast<double>(n) : 0.0;
    s.cap_evictions = cap_evictions_;
    s.memory_capped = cap_evictions_ > 0;
    if (cap_evictions_ > 0) {
      if (is_count())
        s.effective_count = static_cast<std::uint64_t>(shortest_window_);
      else
        s.effective_span = shortest_window_;
    }
    return s;
  }

  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::exact); }

  // Number of keys held in the table (live or not yet swept).
  std::uint64_t size() const { return used_ + (has_zero_ ? 1 : 0); }

 private:
  struct Record {
    Time stamp = 0;
    std::uint64_t fp = 0;
  };
  static constexpr std::uint8_t kFormat = 2;  // 2: the cap and its statistics
  static constexpr std::size_t kMinSlots = 16;
  static constexpr std::size_t kMinFifo = 16;
  // Below this the minimum table and FIFO (and one rebuild of them) could not fit.
  static constexpr std::uint64_t kMinBytes = 4 * 16 * (kMinSlots + kMinFifo);
  static constexpr std::uint64_t kMaxWindowCount = std::uint64_t{1} << 62;

  friend struct SavedForm;
  ExactWindow() = default;

  // The saved form: a format byte, the window, (format 2) the cap and its statistics, the
  // clock, then the live entries in stamp order (fingerprint, stamp), from which loading
  // rebuilds the table and the FIFO. Format 1 had no cap: it loads with the default one.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    std::uint8_t format = kFormat;
    ar.u8(format);
    if (format != kFormat && format != 1) throw state_error("state: exact: unknown format version");
    ar.i64(f.span_);
    ar.u64(f.window_count_);
    if (format >= 2) {
      ar.u64(f.cap_bytes_, f.peak_bytes_, f.cap_evictions_);
      ar.i64(f.shortest_window_);
    }
    if constexpr (Archive::loading) {
      if (f.span_ < 0 || (f.span_ > 0) == (f.window_count_ > 0) || f.window_count_ > kMaxWindowCount)
        throw state_error("state: exact: bad window");
      if (format == 1) {
        f.cap_bytes_ = FilterConfig{}.max_memory_bytes;
        f.shortest_window_ = f.window();
      }
      if (f.cap_bytes_ < kMinBytes || f.shortest_window_ <= 0 || f.shortest_window_ > f.window())
        throw state_error("state: exact: bad cap");
      f.start_empty();
    }
    ar.i64(f.latest_);
    ar.u64(f.keys_inserted_);
    std::vector<Record> entries;
    if constexpr (!Archive::loading) entries = f.live_records();
    std::uint64_t n = entries.size();
    ar.u64(n);
    if constexpr (Archive::loading) {
      if (n > ar.remaining() / 16) throw state_error("state: exact: entry count out of range");
      if (f.is_count() && (f.latest_ < 0 || static_cast<std::uint64_t>(f.latest_) != f.keys_inserted_))
        throw state_error("state: exact: sequence number does not match insert count");
    }
    [[maybe_unused]] Time prev = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      Record r = Archive::loading ? Record{} : entries[i];
      ar.u64(r.fp);
      ar.i64(r.stamp);
      if constexpr (Archive::loading) {
        if ((i > 0 && r.stamp < prev) || r.stamp > f.latest_ || !f.live(r.stamp, f.latest_))
          throw state_error("state: exact: entries out of order or outside the window");
        if (f.find(r.fp) != nullptr) throw state_error("state: exact: duplicate fingerprint");
        prev = r.stamp;
        f.put(r.fp, r.stamp);
        f.push(r);
      }
    }
    if constexpr (Archive::loading) f.peak_bytes_ = std::max(f.peak_bytes_, f.held_bytes());
  }

  // An empty table and FIFO, and the clock before any insert.
  void start_empty() {
    latest_ = is_count() ? 0 : std::numeric_limits<Time>::min();
    rehash(kMinSlots);
    fifo_.assign(kMinFifo, Record{});
    fifo_head_ = fifo_size_ = 0;
    peak_bytes_ = std::max(peak_bytes_, held_bytes());
  }

  bool is_count() const { return window_count_ > 0; }
  // The window in stamp units.
  Time window() const { return is_count() ? static_cast<Time>(window_count_) : span_; }

  // Bytes of the table and the FIFO as allocated.
  std::uint64_t held_bytes() const {
    return keys_.size() * (sizeof(std::uint64_t) + sizeof(Time)) + fifo_.size() * sizeof(Record);
  }
  // Whether holding `extra` more bytes for a moment (a rebuild's new arrays) stays within the cap.
  bool fits(std::uint64_t extra) const { return held_bytes() + extra <= cap_bytes_; }
  std::uint64_t compaction_bytes() const {
    const std::uint64_t n = size();
    return sizeof(Record) * (n + std::max<std::uint64_t>(kMinFifo, n + n / 2)) + 16 * slots_for(n);
  }
  void note_peak(std::uint64_t extra) { peak_bytes_ = std::max(peak_bytes_, held_bytes() + extra); }

  // Under the cap: drops the oldest FIFO record, and its key when the record is the key's
  // current stamp and still inside the window (window given up, counted). False when empty.
  bool evict_oldest() {
    if (fifo_size_ == 0) return false;
    const Record r = fifo_[fifo_head_];
    fifo_head_ = fifo_at(1);
    --fifo_size_;
    const std::uint64_t before = size();
    erase_if_stamp(r.fp, r.stamp);
    if (size() < before && live(r.stamp, latest_)) {
      ++cap_evictions_;
      shortest_window_ = std::min(shortest_window_, latest_ - r.stamp);
      note_cap_bound();
    }
    return true;
  }
  // The keys live at t: those held, less those whose current stamp has expired, which sit at
  // the FIFO's front (stamps only grow along it) with exactly one record each carrying that
  // stamp. So this costs the expired records, not the table: under a binding cap the
  // pipeline asks at every bind, and a pass over the table each time made a capped run
  // quadratic.
  std::uint64_t live_keys(Time t) const {
    std::uint64_t n = size();
    for (std::size_t i = 0; i < fifo_size_; ++i) {
      const Record& r = fifo_[fifo_at(i)];
      if (live(r.stamp, t)) break;
      const Time* stamp = find(r.fp);
      if (stamp != nullptr && *stamp == r.stamp) --n;
    }
    return n;
  }
  // The age is taken in unsigned arithmetic: stamps from a damaged state file may lie anywhere
  // in the int64 range, and a signed difference could overflow.
  bool live(Time stamp, Time t) const {
    if (stamp >= t) return !is_count() || stamp == t;  // a count stamp ahead of n is not live
    const std::uint64_t age = static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(stamp);
    return is_count() ? age < window_count_ : age < static_cast<std::uint64_t>(span_);
  }

  // Fibonacci hashing (fingerprints in tests are often small consecutive integers), then a
  // multiply-shift reduction to any table size.
  std::size_t slot_of(std::uint64_t fp) const {
    return static_cast<std::size_t>(reduce(fp * 0x9E3779B97F4A7C15ULL, keys_.size()));
  }
  std::size_t next_slot(std::size_t i) const { return i + 1 == keys_.size() ? 0 : i + 1; }
  // Table slots for n keys right after a rebuild: load 1/2, room to grow before 4/5.
  static std::size_t slots_for(std::size_t n) { return std::max(kMinSlots, 2 * n + 1); }

  const Time* find(std::uint64_t fp) const {
    if (fp == 0) return has_zero_ ? &zero_stamp_ : nullptr;
    for (std::size_t i = slot_of(fp);; i = next_slot(i)) {
      if (keys_[i] == fp) return &stamps_[i];
      if (keys_[i] == 0) return nullptr;
    }
  }

  void put(std::uint64_t fp, Time stamp) {
    if (fp == 0) {
      has_zero_ = true;
      zero_stamp_ = stamp;
      return;
    }
    // A new key beyond load 4/5 rebuilds the table, or under the cap makes room by eviction.
    while (5 * (used_ + 1) > 4 * keys_.size() && find(fp) == nullptr) {
      if (fits(16 * slots_for(used_ + 1))) {
        rehash(slots_for(used_ + 1));
      } else if (!evict_oldest()) {
        break;
      }
    }
    std::size_t i = slot_of(fp);
    while (keys_[i] != 0 && keys_[i] != fp) i = next_slot(i);
    if (keys_[i] == 0) ++used_;
    keys_[i] = fp;
    stamps_[i] = stamp;
  }

  // Removes fp if its current stamp is `stamp` (an older FIFO record of a refreshed key
  // must not remove it).
  void erase_if_stamp(std::uint64_t fp, Time stamp) {
    if (fp == 0) {
      if (has_zero_ && zero_stamp_ == stamp) has_zero_ = false;
      return;
    }
    std::size_t i = slot_of(fp);
    while (keys_[i] != fp) {
      if (keys_[i] == 0) return;
      i = next_slot(i);
    }
    if (stamps_[i] != stamp) return;
    // Backward-shift deletion: pull later members of the probe run into the hole when
    // their home slot is not strictly between the hole and their position.
    for (std::size_t j = next_slot(i);; j = next_slot(j)) {
      if (keys_[j] == 0) break;
      std::size_t home = slot_of(keys_[j]);
      bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        keys_[i] = keys_[j];
        stamps_[i] = stamps_[j];
        i = j;
      }
    }
    keys_[i] = 0;
    --used_;
  }

  void rehash(std::size_t slots) {
    note_peak(16 * slots);  // old and new arrays, for a moment
    std::vector<std::uint64_t> old_keys = std::move(keys_);
    std::vector<Time> old_stamps = std::move(stamps_);
    keys_ = std::vector<std::uint64_t>(slots, 0);
    stamps_ = std::vector<Time>(slots, 0);
    used_ = 0;
    for (std::size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != 0) put(old_keys[i], old_stamps[i]);
  }

  // FIFO as a ring buffer (its capacity is the memory we report).
  std::size_t fifo_at(std::size_t i) const {
    std::size_t j = fifo_head_ + i;
    return j >= fifo_.size() ? j - fifo_.size() : j;
  }
  void push(Record r) {
    while (fifo_size_ == fifo_.size()) {
      const std::size_t grown = fifo_.size() + fifo_.size() / 2;
      if (fits(sizeof(Record) * grown))
        regrow_fifo(grown);
      else
        evict_oldest();  // the FIFO is full, so this frees a record
    }
    fifo_[fifo_at(fifo_size_)] = r;
    ++fifo_size_;
  }
  void regrow_fifo(std::size_t cap) {
    note_peak(sizeof(Record) * std::max(cap, fifo_size_));
    std::vector<Record> next(std::max(cap, fifo_size_));
    for (std::size_t i = 0; i < fifo_size_; ++i) next[i] = fifo_[fifo_at(i)];
    fifo_ = std::move(next);
    fifo_head_ = 0;
  }

  // Drops expired records from the front (the newest stamp is latest_) and shrinks the
  // structures when a burst has passed, so memory follows the window's content.
  void sweep() {
    while (fifo_size_ > 0) {
      const Record& r = fifo_[fifo_head_];
      if (live(r.stamp, latest_)) break;
      erase_if_stamp(r.fp, r.stamp);
      fifo_head_ = fifo_at(1);
      --fifo_size_;
    }
    if (keys_.size() > kMinSlots && 8 * used_ < keys_.size() && fits(16 * slots_for(used_))) rehash(slots_for(used_));
    const std::size_t shrunk = std::max(kMinFifo, fifo_size_ + fifo_size_ / 2);
    if (fifo_.size() > kMinFifo && 4 * fifo_size_ < fifo_.size() && fits(sizeof(Record) * shrunk)) regrow_fifo(shrunk);
  }

  std::vector<Record> live_records() const {
    std::vector<Record> out;
    out.reserve(size());
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != 0 && live(stamps_[i], latest_)) out.push_back(Record{stamps_[i], keys_[i]});
    if (has_zero_ && live(zero_stamp_, latest_)) out.push_back(Record{zero_stamp_, 0});
    std::sort(out.begin(), out.end(),
              [](const Record& a, const Record& b) { return a.stamp != b.stamp ? a.stamp < b.stamp : a.fp < b.fp; });
    return out;
  }

  // Rebuilds the FIFO with one record per live key, in stamp order, and drops expired keys
  // from the table (each of them would otherwise lose its FIFO record).
  void compact_fifo() {
    note_peak(compaction_bytes());
    std::vector<Record> recs = live_records();
    fifo_ = std::vector<Record>(std::max(kMinFifo, recs.size() + recs.size() / 2));
    std::copy(recs.begin(), recs.end(), fifo_.begin());
    fifo_head_ = 0;
    fifo_size_ = recs.size();
    const std::size_t slots = slots_for(recs.size());
    keys_ = std::vector<std::uint64_t>(slots, 0);
    stamps_ = std::vector<Time>(slots, 0);
    used_ = 0;
    has_zero_ = false;
    for (const Record& r : recs) put(r.fp, r.stamp);
  }

  Duration span_ = 0;
  std::uint64_t window_count_ = 0;
  std::uint64_t cap_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;     // the most held_bytes() has been, rebuilds included
  std::uint64_t cap_evictions_ = 0;  // keys evicted inside the window for the cap
  Time shortest_window_ = 0;         // the smallest window kept when a key was evicted (the window until then)
  Time latest_ = 0;  // time window: latest time seen (min before any insert); count window: inserts so far
  std::uint64_t keys_inserted_ = 0;

  std::vector<std::uint64_t> keys_;
  std::vector<Time> stamps_;
  std::size_t used_ = 0;
  bool has_zero_ = false;
  Time zero_stamp_ = 0;

  std::vector<Record> fifo_;
  std::size_t fifo_head_ = 0;
  std::size_t fifo_size_ = 0;
};

}  // namespace tlbf
