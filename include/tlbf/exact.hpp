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
// Invariant: every table entry has at least one FIFO record carrying its current stamp, and
// FIFO stamps are non-decreasing. Inserts sweep expired records from the FIFO front and drop
// a table entry when the swept record carries its current stamp (a refreshed key has a newer
// record further back). So memory is bounded by what is inside the window: the table holds
// at most the keys inserted in the window plus those not yet swept, and the FIFO is compacted
// to one record per key whenever refreshes make it more than twice the table size.
//
// The table is open addressing with linear probing and backward-shift deletion (no
// tombstones, so lookups stay short however many keys pass through). Fingerprint 0 marks an
// empty slot; a key whose fingerprint is 0 lives in a side slot. Table and FIFO sizes are
// not powers of two (a key's home slot is a multiply-shift reduction, the ring wraps by a
// compare): the table runs from load 1/2 after a rebuild to 4/5 (linear probing at 7/8
// doubled the instructions per lookup), the FIFO grows by half and runs full, so memory is
// about 16/load + 16/fill bytes per live key instead of doubling at each power of two.
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
    put(h.lo, stamp);
    push(Record{stamp, h.lo});
    if (fifo_size_ > 2 * size() + kMinFifo) compact_fifo();
  }
  bool insert_if_absent(KeyHash h, Time now) override { return insert_if_absent_in_two_steps(*this, h, now); }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    FilterStats s;
    s.algorithm = "exact";
    s.keys_inserted = keys_inserted_;
    Time t = is_count() ? latest_ : std::max(now, latest_);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != 0 && live(stamps_[i], t)) ++n;
    if (has_zero_ && live(zero_stamp_, t)) ++n;
    s.live_keys = n;
    s.bits_allocated = 8 * (keys_.capacity() * sizeof(std::uint64_t) + stamps_.capacity() * sizeof(Time) +
                            fifo_.capacity() * sizeof(Record));
    s.bits_per_live_key = n ? static_cast<double>(s.bits_allocated) / static_cast<double>(n) : 0.0;
    return s;
  }

  void save(ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(Algorithm::exact));
    SavedForm::save(*this, out);
  }

  // Number of keys held in the table (live or not yet swept).
  std::uint64_t size() const { return used_ + (has_zero_ ? 1 : 0); }

 private:
  struct Record {
    Time stamp = 0;
    std::uint64_t fp = 0;
  };
  static constexpr std::uint8_t kFormat = 1;
  static constexpr std::size_t kMinSlots = 16;
  static constexpr std::size_t kMinFifo = 16;
  static constexpr std::uint64_t kMaxWindowCount = std::uint64_t{1} << 62;

  friend struct SavedForm;
  ExactWindow() = default;

  // The saved form: a format byte, the window, the clock, then the live entries in stamp
  // order (fingerprint, stamp), from which loading rebuilds the table and the FIFO.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    ar.version(kFormat, "state: exact: unknown format version");
    ar.i64(f.span_);
    ar.u64(f.window_count_);
    if constexpr (Archive::loading) {
      if (f.span_ < 0 || (f.span_ > 0) == (f.window_count_ > 0) || f.window_count_ > kMaxWindowCount)
        throw state_error("state: exact: bad window");
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
  }

  // An empty table and FIFO, and the clock before any insert.
  void start_empty() {
    latest_ = is_count() ? 0 : std::numeric_limits<Time>::min();
    rehash(kMinSlots);
    fifo_.assign(kMinFifo, Record{});
  }

  bool is_count() const { return window_count_ > 0; }
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
    if (5 * (used_ + 1) > 4 * keys_.size()) rehash(slots_for(used_ + 1));
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
    if (fifo_size_ == fifo_.size()) regrow_fifo(fifo_.size() + fifo_.size() / 2);
    fifo_[fifo_at(fifo_size_)] = r;
    ++fifo_size_;
  }
  void regrow_fifo(std::size_t cap) {
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
    if (keys_.size() > kMinSlots && 8 * used_ < keys_.size()) rehash(slots_for(used_));
    if (fifo_.size() > kMinFifo && 4 * fifo_size_ < fifo_.size())
      regrow_fifo(std::max(kMinFifo, fifo_size_ + fifo_size_ / 2));
  }

  std::vector<Record> live_records() const {
    std::vector<Record> out;
    out.reserve(size());
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != 0 && live(stamps_[i], latest_)) out.push_back(Record{stamps_[i], keys_[i]});
    if (has_zero_ && live(zero_stamp_, latest_)) out.push_back(Record{zero_stamp_, 0});
    std::sort(out.begin(), out.end(), [](const Record& a, const Record& b) {
      return a.stamp != b.stamp ? a.stamp < b.stamp : a.fp < b.fp;
    });
    return out;
  }

  // Rebuilds the FIFO with one record per live key, in stamp order, and drops expired keys
  // from the table (each of them would otherwise lose its FIFO record).
  void compact_fifo() {
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
