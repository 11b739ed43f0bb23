// SPDX-License-Identifier: MIT
// The bit-sliced layout of the time-limited Bloom filter (time_limited.hpp), for k + l <= 64:
// the slices are grouped into eras, runs of consecutive slices of one size m, each era stored
// as detail::RunCells (cell x holds bit x of every slice of the era). A key's probe p lands on
// cell reduce(x_p, m) of an era whatever the slice, so a query reads k cells per live era and
// finds every accepted run that holds the key with ANDs and shifts (64 runs at a time). The
// newest era takes the new slices; the era policy (time_limited_eras.hpp) keeps at most
// kMaxEras live. It keeps only the k slices of the insert range and the live ones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/detail/run_cells.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/time_limited_base.hpp"

namespace tlbf {

class BitSlicedTimeLimitedFilter final : public TimeLimitedFilter {
 public:
  // The era policy (shift step 3): the most live eras, the factor by which one generation's
  // rate starts a new size at once, and the drift below the era's rate that starts one after
  // a whole span (above it, the headroom: past it generations end by count, adding slices);
  // after a silence, the factor below the era's rate that starts a new size.
  static constexpr std::size_t kMaxEras = 4;
  // An era takes the slices of a faster rate up to this many slots (cells of two words),
  // widened to it at once, before a new era starts (era_policy()).
  static constexpr std::uint32_t kWideSlots = 128;
  static constexpr double kEraStep = 2.0;
  static constexpr double kEraDrift = 1.0625;
  static constexpr double kEraSilenceStep = 16.0;

  static constexpr bool kSliced = true;

  // Whatever cfg.tlbf_layout says. Throws invalid_parameter naming the first bad field, k
  // when k + l > 64.
  explicit BitSlicedTimeLimitedFilter(const FilterConfig& cfg) : TimeLimitedFilter(true) {
    configure(in_layout(cfg, TlbfLayout::bit_sliced));
  }

  bool may_contain(KeyHash h, Time now) const override {
    const Time threshold = query_threshold(now);
    const std::size_t runs = accepted_runs(threshold);
    Probes at;
    locate(h, at);
    return cells_hold(at, runs) || older_formats_hold(h, threshold);
  }
  void insert(KeyHash h, Time now) override {
    Probes at;
    locate(h, at);
    add(at, now);
  }
  // The program's path. The accepted runs are counted from the previous call's count
  // (accepted_runs_from_hint()), not by bisection; the key's cells are located once for the
  // query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    Probes at;
    locate(h, at);
    return decide(at, now);
  }
  // insert_if_absent() for keys[0..n) in order, with the contract of tlbf::insert_if_absent_batch()
  // (filter.hpp): fresh[i] as insert_if_absent(keys[i], times[i]) would answer, a key
  // repeated in the batch a duplicate of its earlier copy; it returns after the first key
  // whose insert made cap_binds() grow. Each key's cells are located and prefetched
  // kPrefetchAhead keys before it is decided, so their cache misses overlap the decisions
  // before it.
  std::size_t insert_if_absent_batch(const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
    const std::uint64_t binds = cap_binds();
    Probes ahead[kPrefetchAhead];
    for (std::size_t i = 0; i < n && i < kPrefetchAhead; ++i) locate_and_prefetch(keys[i], ahead[i]);
    for (std::size_t i = 0; i < n; ++i) {
      Probes& at = ahead[i % kPrefetchAhead];
      fresh[i] = decide(at, times[i]);
      if (cap_binds() != binds) return i + 1;
      if (i + kPrefetchAhead < n) locate_and_prefetch(keys[i + kPrefetchAhead], at);
    }
    return n;
  }
  // Nothing while the filter fits the cache (kPrefetchingQueryBits); else the key's k cells in
  // the newest era and in older ones past that size (a small era stays cached).
  void prefetch(const KeyHash& h) const override {
    if (total_bits_ <= kPrefetchingQueryBits) return;
    Probes at;
    locate(h, at);
    prefetch_cells(at);
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }
  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::tlbf); }

  std::size_t era_count() const override { return eras_.size(); }
  EraView era(std::size_t i) const override {
    const Era& e = eras_.at(eras_.size() - 1 - i);
    return {e.slices, e.cells.slots(), e.bits()};
  }

 private:
  friend class TimeLimitedFilter;
  friend struct SavedForm;
  BitSlicedTimeLimitedFilter() : TimeLimitedFilter(true) {}

  // Consecutive slices of one size, bit-sliced: `slices` of them, the newest in slot 0.
  struct Era {
    detail::RunCells cells;
    std::uint64_t slices = 0;
    std::uint64_t bits() const { return cells.cells(); }  // m, each slice's size
  };
  // A key located in the bit-sliced layout: the cell each of its probes lands on in the newest
  // era (valid while `epoch` is the filter's layout epoch; with 64 slots, the word), and,
  // while older eras live, its probe values (detail::run_probe()), from which their cells are
  // found. bit(p) is the cell's first bit.
  struct Probes {
    KeyHash h;
    std::uint64_t epoch;
    std::uint64_t slots;
    std::uint64_t cell[detail::RunCells::kMaxSlices];  // k <= 63 (k + l <= 64): room for k rounded up to 4
    std::uint64_t x[detail::RunCells::kMaxSlices];
    std::uint64_t bit(std::uint32_t p) const { return cell[p] * slots; }
  };
  struct EraSlot {
    std::size_t era;
    std::uint32_t slot;
  };

  std::uint64_t ones_at(std::size_t position) const override {
    const EraSlot e = era_slot(position);
    return eras_[e.era].cells.ones_at(e.slot);
  }
  bool bit_at(std::size_t position, std::uint64_t x) const override {
    const EraSlot e = era_slot(position);
    const detail::RunCells& c = eras_[e.era].cells;
    return detail::test_bit(c.data(), c.cell_of(x) + e.slot);
  }
  // The first slices: the k slices of the insert range in one era, which widens as slices are
  // added (newest_slots()), so a filter that never fills its window never holds the l slices
  // it did not need.
  void start_slices(std::uint64_t bits) override {
    slices_.assign(k_, Slice{});
    for (Slice& x : slices_) reset_slice(x, bits);
    eras_.assign(1, Era{});
    eras_[0].cells.reset(k_, bits, k_ + l_);  // widened in place, its pages taken as written
    eras_[0].slices = k_;
    seq_next_ = std::max<std::uint64_t>(seq_next_, slices_.size());
    total_bits_ = bits * slices_.size();
    ++epoch_;
  }
  void clear_bits(std::size_t position) override {
    const EraSlot e = era_slot(position);
    eras_[e.era].cells.clear_slot(e.slot);
  }
  // Steps 3-4, the era policy: time_limited_eras.hpp.
  void add_slice(Time now, double tg, Duration measured_over) override;
  // Drops the oldest slice, whose slot is the oldest era's top one; an older era left without
  // slices is freed.
  void drop_oldest(std::vector<std::uint64_t>&, Time now) {
    count_drop(slices_.front(), now);
    if (--eras_.front().slices == 0 && eras_.size() > 1) {
      total_bits_ -= eras_.front().cells.bits();
      eras_.erase(eras_.begin());
      ++epoch_;
    }
    pop_oldest();
  }

  // The eras in the saved form (time_limited_state.hpp).
  template <class Self, class Archive>
  static void visit_eras(Self& f, Archive& ar);

  // --- The query and the insert --------------------------------------------------------

  void locate(KeyHash h, Probes& at) const {
    at.h = h;
    relocate(at);
  }
  // The key's cells in the newest era (again, after the layout changed): probe value x_p of
  // detail::run_probe() made and reduced in one pass; the values kept only for older eras.
  void relocate(Probes& at) const {
    const detail::RunCells& c = eras_.back().cells;
    detail::probe_cells(at.h, k_, c.cells(), eras_.size() > 1 ? at.x : nullptr, at.cell, isa_);
    at.slots = c.slots();
    at.epoch = epoch_;
  }
  // An older era's first probes only: a new key's query (eras_hold()) stops once its probes
  // have cleared every run of a block of 64, after about log2(64) + 2 = 8 of them, and all k
  // of every era, 8 keys ahead, ask for more lines than a core keeps in flight.
  static constexpr std::uint32_t kOlderEraPrefetches = 8;
  void prefetch_cells(const Probes& at) const {
    const detail::RunCells& c = eras_.back().cells;
    for (std::uint32_t p = 0; p < k_; ++p) c.prefetch_bit(at.bit(p) + p);
    for (std::size_t e = 0; e + 1 < eras_.size(); ++e)
      if (eras_[e].cells.bits() > kPrefetchingQueryBits)
        for (std::uint32_t p = 0, m = std::min(k_, kOlderEraPrefetches); p < m; ++p)
          eras_[e].cells.prefetch_bit(eras_[e].cells.cell_of(at.x[p]));
  }
  void locate_and_prefetch(KeyHash h, Probes& at) const {
    locate(h, at);
    if (total_bits_ > kPrefetchingQueryBits) prefetch_cells(at);
  }

  // insert_if_absent() of a located key.
  bool decide(Probes& at, Time now) {
    const Time threshold = query_threshold(now);
    const std::size_t runs = accepted_runs_from_hint(threshold);
    if (at.epoch != epoch_) relocate(at);
    if (cells_hold(at, runs) || older_formats_hold(at.h, threshold)) return false;
    add(at, now);
    return true;
  }

  // Whether one of runs 0..runs-1 holds all the key's bits. Run j's bits are slot j + p of
  // the key's cell for probe p, so the 64 bits read from the cell's slot b + p hold runs b..b
  // + 63 at probe p, and their AND over p holds the runs that have every bit.
  bool cells_hold(const Probes& at, std::size_t runs) const {
    if (runs == 0) return false;
    const detail::RunCells& c = eras_.back().cells;
    if (runs <= 64 && eras_.size() == 2) return two_eras_hold(at, runs);
    if (eras_.size() == 1 && runs > 64 && runs <= 128) return wide_era_holds(at, runs);
    if (eras_.size() > 1 || runs > 64) return eras_hold(at, runs);
    // One era, at most 64 runs: one read of each probe's cell, from slot p, holds every run
    // (slot j + p of a run j < runs is one of the era's slices). 64 slots make a cell a word.
    const std::uint64_t* w = c.data();
    if (c.slots() == 64) return cells_hold_one(runs, [&](std::uint32_t p) { return w[at.cell[p]] >> p; });
    return cells_hold_one(runs, [&](std::uint32_t p) { return c.bits64(at.bit(p) + p); });
  }
  // The AND of read(p) over the probes, masked to the runs; a new key's runs are usually all
  // refused after a few probes, so it stops at an empty AND every 8 probes.
  template <class Read>
  bool cells_hold_one(std::size_t runs, Read&& read) const {
    std::uint64_t all = low_bits(runs);
    const std::uint32_t k = k_;
    std::uint32_t p = 0;
    for (; p + 8 <= k; p += 8) {
#pragma GCC unroll 8
      for (std::uint32_t q = p; q < p + 8; ++q) all &= read(q);
      if (all == 0) return false;
    }
    for (; p < k; ++p) all &= read(p);
    return all != 0;
  }
  // cells_hold() over one era and 65..128 runs: runs 0..63 and 64..127 read from slots p and
  // 64 + p of the probe's cell, with the AND of both tested every 8 probes. The era holds
  // runs + k - 1 >= 64 + k slots, so every read ends within the cells and their guard word;
  // bits past the runs' slots are masked off.
  bool wide_era_holds(const Probes& at, std::size_t runs) const {
    const detail::RunCells& c = eras_.back().cells;
    // 128 slots (kWideSlots, a burst's era): a cell is words 2x and 2x + 1, read from slot p
    // with no bit index to split (p < 63). Runs 64 + j < runs <= 129 - k read slot 64 + j + p
    // <= 127, in the cell's high word: the next cell's bits would be masked off.
    if (c.slots() == 128) {
      const std::uint64_t* w = c.data();
      return wide_cells_hold(runs, [&](std::uint32_t p, std::uint64_t& low, std::uint64_t& high) {
        const std::uint64_t* q = w + 2 * at.cell[p];
        low &= (q[0] >> p) | ((q[1] << 1) << (63 - p));
        high &= q[1] >> p;
      });
    }
    return wide_cells_hold(runs, [&](std::uint32_t p, std::uint64_t& low, std::uint64_t& high) {
      low &= c.bits64(at.bit(p) + p);
      high &= c.bits64(at.bit(p) + 64 + p);
    });
  }
  template <class Read>
  bool wide_cells_hold(std::size_t runs, Read&& read) const {
    std::uint64_t low = ~std::uint64_t{0}, high = low_bits(runs - 64);
    const std::uint32_t k = k_;
    for (std::uint32_t p0 = 0; p0 < k; p0 += 8) {
      for (std::uint32_t p = p0; p < std::min(k, p0 + 8); ++p) read(p, low, high);
      if ((low | high) == 0) return false;
    }
    return true;
  }
  static std::uint64_t low_bits(std::size_t n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

  // cells_hold() over two eras and at most 64 runs, the usual case while the rate changes:
  // positions 0..n-1 are the newer era's slots, n.. the older one's (bits past the older
  // era's slices belong to no accepted run, and the runs' mask drops them).
  bool two_eras_hold(const Probes& at, std::size_t runs) const {
    const Era& newer = eras_[1];
    const Era& older = eras_[0];
    const auto n = static_cast<std::uint32_t>(newer.slices);
    return cells_hold_one(runs, [&](std::uint32_t p) {
      if (p + runs <= n) return newer.cells.bits64(at.bit(p) + p);  // the runs reach no older slot
      const std::uint64_t cell = older.cells.cell_of(at.x[p]);
      if (p >= n) return older.cells.bits64(cell + (p - n));
      // The newer era's slots p..n-1, then the older era's from its slot 0.
      const std::uint32_t from_newer = n - p;
      std::uint64_t v = newer.cells.bits64(at.bit(p) + p);
      if (from_newer < 64) v = (v & low_bits(from_newer)) | (older.cells.bits64(cell) << from_newer);
      return v;
    });
  }

  // cells_hold() over several eras. Positions o..o+n-1 of the filter are slots 0..n-1 of the
  // era at offset o (the newest at offset 0), so the 64 positions from b + p are read from
  // every era they cross, each read cut to the era's own slices (bits past them belong to its
  // next cell) except in the oldest era, past whose slices no accepted run reaches. The era
  // holding position b + p only moves to older ones as p grows, so each probe starts there;
  // an older era's cell is made only when it is read (a new key's AND is usually empty after
  // a few probes, and reads one or two eras a probe).
  bool eras_hold(const Probes& at, std::size_t runs) const {
    const std::size_t n = eras_.size();  // era e counted from the newest is eras_[n - 1 - e]
    std::int64_t offset[kMaxEras + 1];   // era e's first position; offset[n]: past the last
    offset[0] = 0;
    for (std::size_t e = 0; e < n; ++e) offset[e + 1] = offset[e] + static_cast<std::int64_t>(eras_[n - 1 - e].slices);
    for (std::size_t b = 0; b < runs; b += 64) {
      std::uint64_t all = low_bits(runs - b);
      const auto reach = static_cast<std::int64_t>(std::min<std::size_t>(64, runs - b));  // runs b.. b + reach - 1
      std::size_t first_era = 0;
      for (std::uint32_t p = 0; p < k_ && all != 0; ++p) {
        const auto pos = static_cast<std::int64_t>(b + p);  // a position of run b's slices: it exists
        while (offset[first_era + 1] <= pos) ++first_era;
        std::uint64_t bits = 0;
        for (std::size_t e = first_era; e < n && offset[e] < pos + reach; ++e) {
          const detail::RunCells& c = eras_[n - 1 - e].cells;
          const std::uint64_t cell = e == 0 ? at.bit(p) : c.cell_of(at.x[p]);
          const std::int64_t from = pos - offset[e];  // the window's start in era e's slots
          std::uint64_t v = from >= 0 ? c.bits64(cell + static_cast<std::uint64_t>(from)) : c.bits64(cell) << -from;
          if (e + 1 < n && offset[e + 1] - pos < 64) v &= low_bits(static_cast<std::size_t>(offset[e + 1] - pos));
          bits |= v;
        }
        all &= bits;
      }
      if (all != 0) return true;
    }
    return false;
  }

  // The bit-sliced insert: shift first if due (which may move the key's cells), then run 0's
  // bits, probe p in the slice at position p.
  void add(Probes& at, Time now) {
    now = open_insert(now);
    if (at.epoch != epoch_) relocate(at);
    Era& newest = eras_.back();
    if (newest.slices >= k_) {
      std::uint64_t* w = newest.cells.data();
      const std::uint32_t k = k_;
      if (newest.cells.slots() == 64) {
        std::uint64_t bit = 1;  // slot p of the word: a shift a probe, not one by p
#pragma GCC unroll 4
        for (std::uint32_t p = 0; p < k; ++p, bit <<= 1) w[at.cell[p]] |= bit;
      } else {
        for (std::uint32_t p = 0; p < k; ++p) detail::set_bit(w, at.bit(p) + p);
      }
    } else {
      // Positions 0..k-1 cross into older eras: the era at offset o holds positions o..o+n-1.
      std::uint32_t p = 0;
      for (std::size_t e = eras_.size(); p < k_ && e-- > 0;) {
        detail::RunCells& c = eras_[e].cells;
        const std::uint32_t offset = p;
        const auto end = static_cast<std::uint32_t>(std::min<std::uint64_t>(k_, offset + eras_[e].slices));
        for (; p < end; ++p) c.set((e + 1 == eras_.size() ? at.bit(p) : c.cell_of(at.x[p])) + (p - offset));
      }
    }
    close_insert(now);
  }

  // The era and slot of the slice at a position.
  EraSlot era_slot(std::size_t position) const {
    std::size_t e = eras_.size() - 1;
    while (position >= eras_[e].slices) position -= eras_[e--].slices;
    return {e, static_cast<std::uint32_t>(position)};
  }

  // --- The era policy (time_limited_eras.hpp) ------------------------------------------

  // What the era policy does with the new slice (shift step 3).
  struct EraMove {
    enum Kind { join, upsample, fold, start } kind = join;
    std::uint64_t factor = 1;  // upsample, fold
    std::uint64_t bits = 0;    // start: the new era's slice size
    bool burst = false;        // join: an era past k + l slices takes a faster rate's slice
  };
  bool foldable(std::uint64_t c) const;
  EraMove era_policy(Time now, double tg, Duration measured_over);
  std::uint64_t newest_slots(bool lost, bool tight, bool burst) const;
  std::uint64_t bits_after(const EraMove& move, bool lost, bool tight) const;
  void resize_newest_slices(std::uint64_t bits);
  void narrow_older_eras(bool tight);

  std::vector<Era> eras_;                        // oldest first, holding slices_ in order
  std::uint64_t epoch_ = 0;                      // changes whenever a key's cells in the newest era may move
  std::uint64_t era_bits_ = 0;                   // while loading: the eras' bits so far
  detail::AgeIsa isa_ = detail::best_age_isa();  // for relocate(): the probes four at a time with AVX2
};

}  // namespace tlbf

#include "tlbf/time_limited_eras.hpp"
