// SPDX-License-Identifier: MIT
// The tagged filter: sliding-window membership over a time window as a table of short key
// fingerprints, each with a coarse time tag (docs/filters.md, "The tagged filter", has the
// layout, the proofs and the sizes).
//
// Epochs. The caller's clock is cut into epochs of L = ceil(span / E) ns (E = epochs(),
// 16 by default): epoch(t) = floor(t / L). A key written at t carries epoch(t); at the latest
// time `now` a slot is live while its epoch is >= lo = epoch(now) - E (and >= the cap's
// floor, below). So a key is reported at least while now - t < span (no false negatives:
// E L >= span) and at most while now - t < (E + 1) L, a slack of L + (E L - span) < span / E
// + E ns beyond the window (slack()). Times are not rounded: a copy at exactly the window's
// age is inside the slack, so it is reported present, where the exact filter (live iff
// now - t < span) calls it new; a copy of age span + s may be reported while s < slack(),
// never later.
//
// Blocks. Each key has two candidate 64-byte blocks in a table, one in each half, chosen by
// its two hash halves, and within a block a bucket and a remainder of r bits: a block is a
// small quotient filter (detail/quotient_block.hpp) of S slots, each the remainder and the
// epoch mod 2^t (t the smallest with 2^t >= 2E), sorted by bucket. A query reads the two
// blocks of every live table and compares the slots of its bucket; an insert adds a slot to
// the block with fewer live slots (the left one on a tie), dropping the block's slots that are
// not live first when it is full of slots. A live slot is never evicted: when both blocks are
// full of live slots in a table under its target load (where that is rare) the key goes to the
// stash (detail/tagged_stash.hpp: exact 64-bit fingerprints with their epochs, room for 1/4096
// of the newest table's slots); when the stash is full too, or the table is above its target,
// or its live slots reach max_load() of its slots, the insert opens a new table (below).
// One table at live load a answers a key never inserted with chance at most 2 a S / (B 2^r)
// for B buckets a block; the geometry is chosen from the error rate so that this bound is
// <= error_rate at a = kLeastMaxLoad (layout_for()), and max_load() is the load at which it
// reaches error_rate (or 1).
//
// Format 1 blocks (detail/tagged_block.hpp: fixed slots, no buckets) come only from states
// saved before format 2: such tables answer queries until they drain, and take no inserts.
//
// Sweep. Tags are decoded against the table's floor (tagged_block.hpp), which must stay
// within 2^t - 1 epochs of every epoch written. A sequential pass over the newest table
// clears the slots that are no longer live; a pass started at epoch p leaves no slot older
// than lo(p), which becomes the floor when it completes. Passes are paced over (2^t - 1 - E)
// / 2 - 1 epochs of time, and an insert whose epoch would pass floor + 2^t - 1 (after an
// idle gap) first completes passes until it does not: a tag can never wrap and look young.
//
// Tables, the memory cap: tagged_sizing.hpp. Saved form: tagged_state.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/bit_ops.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/detail/quotient_block.hpp"
#include "tlbf/detail/tagged_block.hpp"
#include "tlbf/detail/tagged_stash.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"

namespace tlbf {

// The byte a saved tagged filter starts with.
inline constexpr auto kTaggedStateTag = static_cast<std::uint8_t>(Algorithm::tagged);

// What the tagged filter reports beyond FilterStats.
struct TaggedShape {
  std::uint64_t slots = 0;       // slots in all tables
  std::uint64_t live_slots = 0;  // slots written in live epochs (keys the filter reports)
  double load = 0;               // live slots / slots of the newest table
  std::uint32_t tables = 0;      // tables live (1, or more while older ones drain)
  std::uint64_t stashed = 0;     // live keys in the stash (in live_slots too)
  std::uint32_t block_slots = 0;
  std::uint32_t buckets = 0;  // a block's
  std::uint32_t remainder_bits = 0;
  std::uint32_t tag_bits = 0;
  std::uint32_t epochs = 0;  // E: epochs a window
  Duration epoch_length = 0;
  Duration slack = 0;  // how far beyond the window a key may still be reported
};

class TaggedFilter final : public WindowFilter {
 public:
  static constexpr std::uint32_t kDefaultEpochs = 16;
  static constexpr std::uint32_t kMaxEpochs = 31;  // tags of at most 6 bits

  // `epochs` (E) sets the slack: at most span / E beyond the window. Doubling it halves the
  // slack for one more tag bit per slot once 2E passes a power of two.
  explicit TaggedFilter(const FilterConfig& cfg, std::uint32_t epochs = kDefaultEpochs) {
    check_window(cfg);
    if (!cfg.is_time_window()) throw invalid_parameter("span", "0", "the tagged filter needs a time window (span > 0)");
    if (cfg.span > kMaxSpan) throw invalid_parameter("span", parameter_value(cfg.span), "is too large");
    check_error_rate(cfg.error_rate);
    check_capacity(cfg.capacity);
    check_max_memory(cfg.max_memory_bytes);
    if (epochs < 2 || epochs > kMaxEpochs)
      throw invalid_parameter("epochs", parameter_value(epochs), "must be between 2 and 31");
    span_ = cfg.span;
    epochs_ = epochs;
    error_rate_ = cfg.error_rate;
    cap_bytes_ = std::max(cfg.max_memory_bytes, kMinBytes);
    derive();
    shortest_ = span_;
    // Late in an epoch, E + 1 epochs of keys are live: capacity (E + 1) / E at the target load.
    const double want =
        std::ceil(static_cast<double>(cfg.capacity) * (1.0 + 1.0 / epochs_) / (layout_.slots() * target_load()));
    const auto blocks = static_cast<std::uint64_t>(std::min(want, static_cast<double>(cap_bytes_ / 64 / 2)));
    tables_.emplace_back();
    tables_.back().blocks.resize(std::max(blocks, kMinBlocks));
    peak_bytes_ = held_bytes();
  }

  static std::unique_ptr<TaggedFilter> load(ByteReader& in) { return SavedForm::load<TaggedFilter>(in); }

  // The least max_load() a geometry is chosen for: a table fills to about 0.9 before two
  // blocks of a key are full (target_load()).
  static constexpr double kLeastMaxLoad = 0.9;

  // The block geometry for an error rate: the most slots a block whose bound keeps within
  // it, with the tail width (and so the buckets left) that gives the lowest bound. Below what
  // 8 slots with the widest remainder (53 bits) reach, about 4e-17, that geometry.
  static detail::QuotientLayout layout_for(double error_rate, std::uint32_t tag_bits) {
    detail::QuotientLayout lowest;
    double lowest_bound = 2;
    for (std::uint32_t slots = 63; slots >= 1; --slots) {
      detail::QuotientLayout best;
      double best_bound = 2;
      for (std::uint32_t tail = 0; tail <= 42; ++tail) {
        const int room = 512 - static_cast<int>((17 + tail) * slots);
        const auto buckets = static_cast<std::uint32_t>(std::min(64 - static_cast<int>(slots), room));
        if (room < 1 || !detail::QuotientLayout::fits(slots, buckets, tag_bits, tail)) break;
        const detail::QuotientLayout l(slots, buckets, tag_bits, tail);
        if (fpr_bound(l) < best_bound) best = l, best_bound = fpr_bound(l);
      }
      if (best_bound <= error_rate) return best;
      if (slots >= 8 && best_bound < lowest_bound) lowest = best, lowest_bound = best_bound;
    }
    return lowest;
  }
  // The bound on one table's false-positive rate at live load `load`: a query compares the
  // slots of its bucket in two blocks, load S / B a bucket on average.
  static double fpr_bound(const detail::QuotientLayout& l, double load = kLeastMaxLoad) {
    return 2.0 * load * l.slots() / (l.buckets() * std::ldexp(1.0, static_cast<int>(l.remainder_bits())));
  }
  // The live load at which a table's bound reaches the error rate, at most 1: the table
  // taking inserts is kept below it.
  static double max_load(const detail::QuotientLayout& l, double error_rate) {
    return std::min(1.0, error_rate / fpr_bound(l, 1.0));
  }
  // Bits that `cfg.capacity` keys a window take once a steady stream has filled one table.
  // Nothing is allocated; the parameters are checked as the constructor checks them.
  static std::uint64_t window_bits_for(const FilterConfig& cfg, std::uint32_t epochs = kDefaultEpochs) {
    FilterConfig small = cfg;
    small.capacity = 1;
    const TaggedFilter checked(small, epochs);
    const double live = static_cast<double>(cfg.capacity) * (1.0 + 1.0 / epochs);
    return 512 * static_cast<std::uint64_t>(std::ceil(live / (checked.layout_.slots() * checked.target_load())));
  }

  bool may_contain(KeyHash h, Time now) const override {
    if (!started_) return false;
    const std::int64_t lo = lowest_live(epoch_of(std::max(now, latest_)));
    const LiveKey k = key_of(h);
    for (std::size_t i = tables_.size(); i-- > 0;)
      if (tables_[i].newest >= lo && answers(tables_[i], h, k, lo)) return true;
    return in_stash(h, lo);
  }

  // Renews a key already present in the newest table (the --refresh behaviour).
  void insert(KeyHash h, Time now) override {
    switch (kernel_) {
      case detail::Kernel::avx512:
        return insert_avx512(h, now);
      case detail::Kernel::bit_ops:
        return insert_bit_ops(h, now);
      default:
        return insert_portable(h, now);
    }
  }
  // The program's path: the key's remainder and the newest table's live view are made once
  // for the query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    switch (kernel_) {
      case detail::Kernel::avx512:
        return insert_if_absent_avx512(h, now);
      case detail::Kernel::bit_ops:
        return insert_if_absent_bit_ops(h, now);
      default:
        return insert_if_absent_portable(h, now);
    }
  }
  // The kernel the decisions run (detail/bit_ops.hpp): the best this processor runs well,
  // unless use_kernel() chose a lower one (the answers and states are the same).
  detail::Kernel kernel() const { return kernel_; }
  void use_kernel(detail::Kernel k) { kernel_ = std::min(k, detail::best_kernel()); }

 private:
  // The instantiations of each decision, one a kernel (the dispatchers above stay small: no
  // registers to save, no copies of the key).
  [[gnu::noinline]] void insert_portable(KeyHash h, Time now) { insert_with<detail::Kernel::portable>(h, now); }
  [[gnu::noinline]] bool insert_if_absent_portable(KeyHash h, Time now) {
    return insert_if_absent_with<detail::Kernel::portable>(h, now);
  }
  [[gnu::noinline]] TLBF_BIT_OPS_TARGET void insert_bit_ops(KeyHash h, Time now) {
    insert_with<detail::Kernel::bit_ops>(h, now);
  }
  [[gnu::noinline]] TLBF_BIT_OPS_TARGET bool insert_if_absent_bit_ops(KeyHash h, Time now) {
    return insert_if_absent_with<detail::Kernel::bit_ops>(h, now);
  }
  [[gnu::noinline]] TLBF_AVX512_TARGET void insert_avx512(KeyHash h, Time now) {
    insert_with<detail::Kernel::avx512>(h, now);
  }
  [[gnu::noinline]] TLBF_AVX512_TARGET bool insert_if_absent_avx512(KeyHash h, Time now) {
    return insert_if_absent_with<detail::Kernel::avx512>(h, now);
  }
  template <detail::Kernel kK>
  [[gnu::always_inline]] void insert_with(const KeyHash& h, Time now) {
    const std::int64_t cur = advance(now);
    ++keys_inserted_;
    Table& t = tables_.back();
    const LiveKey k = key_of(h);
    const detail::QuotientView v = view(t, lowest_live(cur));
    if (!stash_.empty() && stash_.renew(stash_key(h), cur, lowest_live(cur))) return;
    const Probes p = probes<kK>(t, h, k, v);
    const std::pair<detail::TaggedBlock*, int> found[] = {{p.first, p.a.found}, {p.second, p.b.found}};
    for (const auto& [b, s] : found) {
      if (s < 0) continue;
      const std::uint64_t head = layout_.head(*b, static_cast<std::uint32_t>(s));
      const std::int64_t was = decode(t, head);
      if (was == cur) return;
      layout_.set_head(*b, static_cast<std::uint32_t>(s), (head & ~layout_.tag_mask()) | tag_of(cur));
      t.count(was, -1);
      t.count(cur, +1);
      return;
    }
    place<kK>(h, k, cur, v, p);
  }
  template <detail::Kernel kK>
  [[gnu::always_inline]] bool insert_if_absent_with(const KeyHash& h, Time now) {
    const std::int64_t cur = advance(now);
    const std::int64_t lo = lowest_live(cur);
    const LiveKey k = key_of(h);
    Table& t = tables_.back();
    const detail::QuotientView newest = view(t, lo);
    Probes p{{}, {}, &first_block(t, h), &second_block(t, h)};
    detail::prefetch(p.second);  // its line comes while the first block is read
    p.a = newest.probe<kK>(*p.first, k.key);
    if (p.a.found >= 0) return false;
    p.b = newest.probe<kK>(*p.second, k.key);
    if (p.b.found >= 0) return false;
    for (std::size_t i = tables_.size() - 1; i-- > 0;)
      if (tables_[i].newest >= lo && answers<kK>(tables_[i], h, k, lo)) return false;
    if (in_stash(h, lo)) return false;
    ++keys_inserted_;
    place<kK>(h, k, cur, newest, p);
    return true;
  }

 public:
  // insert_if_absent() for keys[0..n) in order, with the contract of tlbf::insert_if_absent_batch()
  // (filter.hpp): one loop a kernel, the decision inlined into it. While every table fits the
  // cache, prefetch() would fetch nothing, so the keys are decided without asking it (a table
  // that grows past the cache inside the batch is prefetched from the next batch on: a hint, no
  // answer changes).
  std::size_t insert_if_absent_batch(const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
    switch (kernel_) {
      case detail::Kernel::avx512:
        return batch_avx512(keys, times, n, fresh);
      case detail::Kernel::bit_ops:
        return batch_bit_ops(keys, times, n, fresh);
      default:
        return batch_portable(keys, times, n, fresh);
    }
  }

 private:
  template <detail::Kernel kK>
  [[gnu::always_inline]] std::size_t batch_with(const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
    const bool ahead = !all_cached();
    const std::uint64_t binds = cap_binds();
    for (std::size_t i = 0; ahead && i < n && i < kPrefetchAhead; ++i) prefetch_blocks(keys[i]);
    for (std::size_t i = 0; i < n; ++i) {
      if (ahead && i + kPrefetchAhead < n) prefetch_blocks(keys[i + kPrefetchAhead]);
      fresh[i] = insert_if_absent_with<kK>(keys[i], times[i]);
      if (cap_binds() != binds) return i + 1;
    }
    return n;
  }
  [[gnu::noinline]] std::size_t batch_portable(const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
    return batch_with<detail::Kernel::portable>(keys, times, n, fresh);
  }
  [[gnu::noinline]] TLBF_BIT_OPS_TARGET std::size_t batch_bit_ops(const KeyHash* keys, const Time* times, std::size_t n,
                                                                  bool* fresh) {
    return batch_with<detail::Kernel::bit_ops>(keys, times, n, fresh);
  }
  [[gnu::noinline]] TLBF_AVX512_TARGET std::size_t batch_avx512(const KeyHash* keys, const Time* times, std::size_t n,
                                                                bool* fresh) {
    return batch_with<detail::Kernel::avx512>(keys, times, n, fresh);
  }

 public:
  void prefetch(const KeyHash& h) const override { prefetch_blocks(h); }

  FilterStats stats(Time now) const override {
    const TaggedShape sh = shape(now);
    FilterStats s;
    s.algorithm = "tagged";
    s.slices = sh.tables;
    s.slots = sh.slots;
    s.load = sh.load;
    s.slack = sh.slack;
    s.l = epochs_;
    s.slice0_bits = 512 * tables_.back().blocks.size();
    s.bits_allocated = 8 * held_bytes();
    s.peak_bits_allocated = 8 * std::max(peak_bytes_, held_bytes());
    s.keys_inserted = keys_inserted_;
    s.live_keys = sh.live_slots;
    s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0;
    s.cap_evictions = cap_evictions_;
    s.memory_capped = cap_evictions_ > 0;
    if (cap_evictions_ > 0) s.effective_span = shortest_;
    return s;
  }

  TaggedShape shape(Time now) const {
    TaggedShape s;
    const std::int64_t cur = epoch_of(std::max(now, latest_));
    const std::int64_t lo = lowest_live(cur);
    for (const Table& t : tables_) {
      s.slots += t.blocks.size() * layout_.slots();
      if (started_) s.live_slots += t.live(lo, cur);
    }
    if (started_) s.stashed = stash_.live(lo);
    s.live_slots += s.stashed;
    const Table& newest = tables_.back();
    s.load = started_ ? static_cast<double>(newest.live(lo, cur)) /
                            static_cast<double>(newest.blocks.size() * layout_.slots())
                      : 0.0;
    s.tables = static_cast<std::uint32_t>(tables_.size());
    s.block_slots = layout_.slots();
    s.buckets = layout_.buckets();
    s.remainder_bits = layout_.remainder_bits();
    s.tag_bits = layout_.tag_bits();
    s.epochs = epochs_;
    s.epoch_length = epoch_len_;
    s.slack = slack();
    return s;
  }

  // How far past the window a key may still be reported: (E + 1) L - span.
  Duration slack() const { return (static_cast<Duration>(epochs_) + 1) * epoch_len_ - span_; }
  std::uint32_t epochs() const { return epochs_; }
  const detail::QuotientLayout& layout() const { return layout_; }

  void save(ByteWriter& out) const override { SavedForm::save(*this, out, kTaggedStateTag); }
  void accept(FilterVisitor& v) override { v.visit(*this); }

 private:
  friend struct SavedForm;
  TaggedFilter() = default;

  static constexpr std::uint8_t kFormat = 2;
  static constexpr std::uint64_t kMinBlocks = 4;
  static constexpr std::uint64_t kCachedBytes = 32 << 10;
  static constexpr std::uint64_t kMinBytes = 4 * 64 * kMinBlocks;
  static constexpr std::uint64_t kMaxGrowth = 256;
  static constexpr double kRightSize = 0.75;
  static constexpr double kShrink = 0.5;
  static constexpr double kBurst = 4;
  static constexpr Duration kMaxSpan = std::numeric_limits<Duration>::max() / 4;

  // New slots written per epoch, by epoch mod 2^t: the live estimate of a table.
  struct EpochCount {
    std::int64_t epoch = std::numeric_limits<std::int64_t>::min();
    std::uint64_t n = 0;
  };
  struct Table {
    std::vector<detail::TaggedBlock> blocks;
    bool format1 = false;           // loaded from a format 1 state: answers queries only
    std::uint64_t live_now = 0;     // of the newest table: its live slots (count_live() sets it)
    std::uint64_t max_live = 0;     // live slots at max_load() (set_max_live() sets it)
    std::uint64_t target_live = 0;  // live slots at target_load() (likewise)
    std::int64_t floor = 0;         // no slot's epoch is older; all are within 2^t - 1 of it
    std::int64_t newest = 0;        // the newest epoch written
    Time opened = 0;                // time of the table's first insert
    std::int64_t pass_epoch = 0;
    std::int64_t pass_lo = 0;  // lo when the sweep pass started: the floor once it completes
    Time pass_time = 0;
    std::uint64_t swept = 0;  // blocks the pass has cleared
    std::array<EpochCount, 64> ring{};

    void count(std::int64_t epoch, int delta) {
      EpochCount& c = ring[static_cast<std::uint64_t>(epoch) & 63];
      if (c.epoch != epoch) {
        if (delta < 0) return;  // that epoch is no longer counted
        c = EpochCount{epoch, 0};
      }
      c.n = delta < 0 ? c.n - (c.n > 0) : c.n + 1;
    }
    std::uint64_t live(std::int64_t lo, std::int64_t cur) const {
      std::uint64_t n = 0;
      if (lo <= cur && distance(lo, cur) < ring.size()) {  // the epochs asked for, not the whole ring
        for (std::int64_t e = lo;; ++e) {
          const EpochCount& c = ring[static_cast<std::uint64_t>(e) & 63];
          if (c.epoch == e) n += c.n;
          if (e == cur) return n;
        }
      }
      for (const EpochCount& c : ring)
        if (c.epoch >= lo && c.epoch <= cur) n += c.n;
      return n;
    }
  };
  struct LiveKey {
    detail::QuotientLayout::Key key;
  };
  // The probes of a key's two blocks in one table, and the blocks.
  struct Probes {
    detail::QuotientView::Probe a, b;
    detail::TaggedBlock *first, *second;
  };

  // Everything that follows from span, epochs and error rate.
  void derive() {
    layout_ = layout_for(error_rate_, tag_bits_for(epochs_));
    format1_ = format1_layout_for(error_rate_, tag_bits_for(epochs_));
    epoch_len_ = span_ / epochs_ + (span_ % epochs_ != 0);
  }
  // Format 1's slot width for an error rate: the most slots a word (4, 3, 2 or 1, of 16, 21,
  // 32 or 64 bits) whose remainder keeps 2 b / (2^r - 1) <= error_rate.
  static detail::TaggedLayout format1_layout_for(double error_rate, std::uint32_t tag_bits) {
    for (std::uint32_t per_word = 4; per_word > 1; --per_word) {
      const detail::TaggedLayout l(per_word, tag_bits);
      if (2.0 * l.slots() / (std::ldexp(1.0, static_cast<int>(l.remainder_bits())) - 1.0) <= error_rate) return l;
    }
    return detail::TaggedLayout(1, tag_bits);
  }
  // The smallest t with 2^t >= 2E.
  static std::uint32_t tag_bits_for(std::uint32_t epochs) {
    std::uint32_t t = 1;
    while ((std::uint32_t{1} << t) < 2 * epochs) ++t;
    return t;
  }
  void set_max_live(Table& t) const {
    const double slots = static_cast<double>(layout_.slots()) * static_cast<double>(t.blocks.size());
    t.max_live = static_cast<std::uint64_t>(max_load(layout_, error_rate_) * slots);
    t.target_live = static_cast<std::uint64_t>(target_load() * slots);
  }
  double target_load() const { return std::min(target_load(layout_.slots()), max_load(layout_, error_rate_) - 0.03); }
  // The average live load a table is sized for: below the load at which two-choice blocks of
  // this many slots first overflow (simulated, left and right halves, 10^5 blocks: 0.90 at 20
  // slots, 0.91 at 21, 0.92 at 24, 0.93 at 28), and below max_load().
  static double target_load(std::uint32_t slots) {
    const double overflow = slots < 12   ? 0.75
                            : slots < 16 ? 0.82
                            : slots < 20 ? 0.87
                            : slots < 21 ? 0.90
                            : slots < 24 ? 0.91
                            : slots < 28 ? 0.92
                                         : 0.93;
    return overflow - 0.04;
  }

  bool below_max_load(const Table& t) const { return t.live_now < t.max_live; }
  // Sets the newest table's live_now, after the lowest live epoch moved.
  void count_live(std::int64_t cur) {
    Table& t = tables_.back();
    t.live_now = t.live(lowest_live(cur), cur);
  }

  std::int64_t mask() const { return static_cast<std::int64_t>(layout_.tag_mask()); }
  std::int64_t epoch_of(Time t) const {
    if (started_ && t >= epoch_start_ && t - epoch_start_ < epoch_len_) return cur_;  // no division
    const std::int64_t q = t / epoch_len_;
    return (t % epoch_len_ < 0) ? q - 1 : q;
  }
  std::int64_t lowest_live(std::int64_t cur) const {
    const std::int64_t by_window = cur < std::numeric_limits<std::int64_t>::min() + epochs_
                                       ? std::numeric_limits<std::int64_t>::min()
                                       : cur - epochs_;
    return std::max(by_window, min_epoch_);
  }
  std::uint64_t held_bytes() const {
    std::uint64_t n = stash_.bytes();
    for (const Table& t : tables_) n += 64 * t.blocks.size();
    return n;
  }
  // A key's blocks: one in each half of a table (a tie goes left, which balances the blocks
  // better than two choices from the whole table); format 1 took both from the whole table.
  static const detail::TaggedBlock& first_block(const Table& t, const KeyHash& h) {
    return t.blocks[t.format1 ? reduce(h.lo, t.blocks.size()) : reduce(h.lo, t.blocks.size() / 2)];
  }
  static const detail::TaggedBlock& second_block(const Table& t, const KeyHash& h) {
    const std::uint64_t n = t.blocks.size(), half = n / 2;
    return t.blocks[t.format1 ? reduce(h.hi, n) : half + reduce(h.hi, n - half)];
  }
  static detail::TaggedBlock& first_block(Table& t, const KeyHash& h) {
    return const_cast<detail::TaggedBlock&>(first_block(std::as_const(t), h));
  }
  static detail::TaggedBlock& second_block(Table& t, const KeyHash& h) {
    return const_cast<detail::TaggedBlock&>(second_block(std::as_const(t), h));
  }
  // prefetch(), inlined into the batch's loop.
  [[gnu::always_inline]] void prefetch_blocks(const KeyHash& h) const {
    for (const Table& t : tables_) {
      if (cached(t)) continue;
      detail::prefetch(&first_block(t, h));
      detail::prefetch(&second_block(t, h));
    }
  }
  // A table within the L1 cache is not prefetched. A larger one is, even one that fits L2: the
  // program streams its input through the caches, which evicts the table's lines between two
  // touches, and two hints a key cost little beside a decision (text, 60 s window, 200 KiB
  // table: 6 % less CPU time than prefetching past 1 MiB only, the other filters' threshold).
  static bool cached(const Table& t) { return t.blocks.size() * 64 <= kCachedBytes; }
  bool all_cached() const {
    return std::all_of(tables_.begin(), tables_.end(), [](const Table& t) { return cached(t); });
  }
  // The key's bucket and remainder, from hash bits the block choice does not use (the
  // reductions read the high bits of each half): the low 32 bits of h.hi, then the low 26 of
  // h.lo for the remainder, the low 32 bits of h.lo (their top bits, in effect) for the bucket.
  LiveKey key_of(const KeyHash& h) const {
    const std::uint64_t bits = (h.hi & 0xFFFFFFFF) | ((h.lo & 0x3FFFFFF) << 32);
    const std::uint64_t remainder = bits & ((std::uint64_t{1} << layout_.remainder_bits()) - 1);
    return LiveKey{layout_.key(remainder, static_cast<std::uint32_t>(h.lo))};
  }
  std::uint64_t tag_of(std::int64_t epoch) const { return static_cast<std::uint64_t>(epoch) & layout_.tag_mask(); }
  // How many epochs above t's floor the lowest live one is, clamped to [0, 2^t].
  std::uint64_t threshold(const Table& t, std::int64_t lo) const {
    return lo <= t.floor ? 0 : std::min(distance(t.floor, lo), layout_.tag_mask() + 1);
  }
  detail::QuotientView view(const Table& t, std::int64_t lo) const {
    return detail::QuotientView(&layout_, tag_of(t.floor), threshold(t, lo));
  }
  // b - a for a <= b, in unsigned arithmetic (no overflow however far apart).
  static std::uint64_t distance(std::int64_t a, std::int64_t b) {
    return static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
  }
  std::int64_t decode(const Table& t, std::uint64_t slot) const {
    const std::uint64_t rel = (slot - static_cast<std::uint64_t>(t.floor)) & layout_.tag_mask();
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(t.floor) + rel);
  }
  // Whether a live slot of the key's two blocks in `t` holds its remainder (`v`: t's view).
  template <detail::Kernel kK = detail::Kernel::portable>
  bool holds(const Table& t, const KeyHash& h, const LiveKey& k, const detail::QuotientView& v) const {
    return v.find<kK>(first_block(t, h), k.key) >= 0 || v.find<kK>(second_block(t, h), k.key) >= 0;
  }
  // The key as the stash holds it, and whether a live entry of the stash does.
  static std::uint64_t stash_key(const KeyHash& h) { return detail::TaggedStash::fingerprint(h.lo, h.hi); }
  bool in_stash(const KeyHash& h, std::int64_t lo) const { return !stash_.empty() && stash_.holds(stash_key(h), lo); }
  // The same for any table at lowest live epoch lo, format 1 too.
  template <detail::Kernel kK = detail::Kernel::portable>
  bool answers(const Table& t, const KeyHash& h, const LiveKey& k, std::int64_t lo) const {
    if (!t.format1) return holds<kK>(t, h, k, view(t, lo));
    const detail::LiveView v(&format1_, tag_of(t.floor), threshold(t, lo));
    const std::uint64_t r = format1_.remainder_of(h.lo ^ h.hi);
    return v.either_holds(first_block(t, h), second_block(t, h), r, format1_.spread(r));
  }

  // Moves the clock to `now` (never back) and does what the new time asks: drops tables with
  // nothing live, empties a newest table whose slots all expired, sweeps, and checks the size
  // once an epoch. Returns the current epoch. Inside the current epoch (nearly every call) only
  // the sweep's time is due; the rest is new_time()'s.
  std::int64_t advance(Time now) {
    if (started_ && now >= epoch_start_ && now - epoch_start_ < epoch_len_) {
      latest_ = std::max(now, latest_);
      if (latest_ >= next_sweep_) sweep(cur_);
      return cur_;
    }
    return new_time(now);
  }
  [[gnu::noinline]] std::int64_t new_time(Time now) {
    if (!started_) {
      started_ = true;
      latest_ = now;
      set_epoch(epoch_of(now));
      open_table(tables_.back(), cur_);
      return cur_;
    }
    latest_ = std::max(now, latest_);
    const std::int64_t cur = epoch_of(latest_);
    if (cur != cur_) {
      const std::int64_t before = cur_;
      set_epoch(cur);
      const std::int64_t lo = lowest_live(cur);
      tables_.erase(std::remove_if(tables_.begin(), tables_.end() - 1, [&](const Table& t) { return t.newest < lo; }),
                    tables_.end() - 1);
      Table& t = tables_.back();
      if (t.newest < lo) {
        std::fill(t.blocks.begin(), t.blocks.end(), detail::TaggedBlock{});
        open_table(t, cur);
      }
      right_size(cur);
      if (cur == before + 1) shrink_after_drop(cur);
      count_live(cur);
      // A tag can only come near wrapping at a new epoch (a table opens at floor = cur).
      Table& newest = tables_.back();
      while (distance(newest.floor, cur) > layout_.tag_mask()) finish_pass(newest, cur, newest.blocks.size());
    }
    if (latest_ >= next_sweep_) sweep(cur);
    return cur;
  }

  void set_epoch(std::int64_t cur) {
    cur_ = cur;
    // cur L, or no shortcut where it is below the Time range (times near its start).
    if (__builtin_mul_overflow(cur, epoch_len_, &epoch_start_)) epoch_start_ = std::numeric_limits<Time>::max();
  }

  void open_table(Table& t, std::int64_t cur) const {
    t.live_now = 0;
    set_max_live(t);
    t.floor = t.newest = t.pass_epoch = cur;
    t.pass_lo = lowest_live(cur);
    t.opened = t.pass_time = latest_;
    t.swept = 0;
    t.ring = {};
  }

  // Clears the blocks of the newest table that its pace asks for by now (advance() calls it
  // once latest_ reaches next_sweep_: 64 times a pass, or n / 16 times for n < 1,024 blocks, so
  // that a small table's call clears 16 blocks, not one).
  [[gnu::noinline]] void sweep(std::int64_t cur) {
    Table& t = tables_.back();
    const std::int64_t pace = std::max<std::int64_t>(1, (mask() - epochs_) / 2 - 1);
    const auto budget = static_cast<std::uint64_t>(pace * epoch_len_);
    const std::uint64_t n = t.blocks.size(), calls = std::clamp<std::uint64_t>(n / 16, 1, 64);
    next_sweep_ = latest_ + static_cast<Time>(std::max<std::uint64_t>(1, budget / calls));
    const std::uint64_t elapsed = distance(t.pass_time, latest_);
    const std::uint64_t due =
        elapsed >= budget ? n : static_cast<std::uint64_t>(static_cast<uint128_t>(n) * elapsed / budget);
    if (due > t.swept) finish_pass(t, cur, due);
  }
  // Clears blocks [swept, until); a pass that reaches the end raises the floor to the lo it
  // started with and starts the next pass.
  void finish_pass(Table& t, std::int64_t cur, std::uint64_t until) {
    switch (kernel_) {
      case detail::Kernel::avx512:
        clear_avx512(t, cur, until);
        break;
      case detail::Kernel::bit_ops:
        clear_bit_ops(t, cur, until);
        break;
      default:
        clear<detail::Kernel::portable>(t, cur, until);
    }
    if (t.swept < t.blocks.size()) return;
    t.floor = std::max(t.floor, std::min(t.pass_lo, t.newest));
    t.pass_epoch = cur;
    t.pass_lo = lowest_live(cur);
    t.pass_time = latest_;
    t.swept = 0;
  }

  template <detail::Kernel kK>
  void clear(Table& t, std::int64_t cur, std::uint64_t until) const {
    const detail::QuotientView v = view(t, lowest_live(cur));
    for (; t.swept < until; ++t.swept) v.purge<kK>(t.blocks[t.swept]);
  }
  TLBF_BIT_OPS_TARGET void clear_bit_ops(Table& t, std::int64_t cur, std::uint64_t until) const {
    clear<detail::Kernel::bit_ops>(t, cur, until);
  }
  TLBF_AVX512_TARGET void clear_avx512(Table& t, std::int64_t cur, std::uint64_t until) const {
    clear<detail::Kernel::avx512>(t, cur, until);
  }

  // Writes the key into the newest table, making room as the class comment says; `newest`
  // is that table's live view at cur.
  // `p`: the probes of the key's blocks in the newest table through `newest`.
  template <detail::Kernel kK>
  [[gnu::always_inline]] void place(const KeyHash& h, const LiveKey& k, std::int64_t cur, detail::QuotientView newest,
                                    Probes p) {
    for (;;) {
      Table& t = tables_.back();
      const bool second = p.b.live < p.a.live;
      detail::TaggedBlock& x = second ? *p.second : *p.first;
      const detail::QuotientView::Probe& px = second ? p.b : p.a;
      const bool room = below_max_load(t);
      if (px.live < layout_.slots() && room) {
        // A block full of slots, some not live: they all go.
        layout_.insert<kK>(x, k.key, tag_of(cur), px.stored, px.stored == layout_.slots() ? px.dead : 0);
        t.count(cur, +1);
        ++t.live_now;
        t.newest = cur;
        return;
      }
      // Under its target load a table's full pairs are rare: the stash takes them. Above it, the
      // rate has risen: a new table.
      if (t.live_now < t.target_live && stash_.add(stash_key(h), cur, lowest_live(cur),
                                                   std::max<std::uint64_t>(4, t.blocks.size() * layout_.slots() / 4096),
                                                   cap_bytes_ - std::min(cap_bytes_, held_bytes() - stash_.bytes()))) {
        peak_bytes_ = std::max(peak_bytes_, held_bytes());
        return;
      }
      if (!grow(cur) && !forget_oldest(cur)) {
        // Only the current epoch is live and both blocks are full of it: the key is not
        // kept, so no age is guaranteed any more.
        ++cap_evictions_;
        shortest_ = 1;
        note_cap_bound();
        return;
      }
      newest = view(tables_.back(), lowest_live(cur));  // a new table, or a new cap floor
      p = probes<kK>(tables_.back(), h, k, newest);
    }
  }
  template <detail::Kernel kK>
  Probes probes(Table& t, const KeyHash& h, const LiveKey& k, const detail::QuotientView& v) const {
    detail::TaggedBlock &a = first_block(t, h), &b = second_block(t, h);
    return Probes{v.probe<kK>(a, k.key), v.probe<kK>(b, k.key), &a, &b};
  }

  // The live slots a table holds at most (late in an epoch: E + 1 epochs of inserts) at the
  // rate it has taken since the later of its opening and the oldest live epoch: measured over
  // whole epochs once it has one, or over the current epoch if that is faster (a burst, a
  // jump of the rate), over at least 1/16 of an epoch.
  double peak_live(const Table& t, std::int64_t cur) const;
  // Opens a table sized for the rate the newest one saw; false when none larger fits the cap.
  bool grow(std::int64_t cur);
  // A newest table that has held a window and stays under kRightSize of its target load is
  // replaced by one sized for what it holds (a burst has passed, or growth overshot).
  void right_size(std::int64_t cur);
  // A newest table whose last epoch, over a window, would fill under kShrink of it (a burst has
  // passed, the rate fell) is replaced at once by one sized for that rate: the large table takes
  // no more inserts and is dropped a window later, not kept for a window first (right_size()).
  // Only after a whole epoch in the table, with no gap before the new one (an idle gap is no
  // rate), and with at most one older table draining.
  void shrink_after_drop(std::int64_t cur);
  // Opens a newest table of `blocks` (at least kMinBlocks, at most what the cap leaves);
  // false, opening nothing, when fewer than `least` blocks fit.
  bool open_new(std::uint64_t blocks, std::uint64_t least, std::int64_t cur);
  // Under the cap: forgets the oldest live epoch of every table and drops the tables left
  // with nothing live. False when only the current epoch is live.
  bool forget_oldest(std::int64_t cur);
  // After loading a state whose newest table is of format 1: inserts go to a new table of as
  // many blocks (fewer if the cap leaves fewer), and the format 1 tables drain. A filter not
  // started has nothing to drain; one whose cap leaves no room starts again, a cap bind.
  void take_over_format1();
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar);

  Duration span_ = 0;
  std::uint32_t epochs_ = kDefaultEpochs;
  double error_rate_ = 0;
  detail::QuotientLayout layout_;
  detail::TaggedLayout format1_;  // of the tables loaded from a format 1 state
  Duration epoch_len_ = 1;
  std::uint64_t cap_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
  std::uint64_t cap_evictions_ = 0;  // epochs forgotten while live, for the cap
  std::uint64_t keys_inserted_ = 0;
  Time shortest_ = 0;  // the smallest effective span since creation (the span until a bind)
  Time latest_ = 0;
  std::int64_t cur_ = 0;                                               // epoch_of(latest_)
  Time epoch_start_ = std::numeric_limits<Time>::max();                // where epoch cur_ starts, cur_ L
  Time next_sweep_ = std::numeric_limits<Time>::min();                 // when sweep() next clears blocks
  std::int64_t min_epoch_ = std::numeric_limits<std::int64_t>::min();  // the cap floor
  bool started_ = false;
  detail::Kernel kernel_ = detail::best_kernel();
  std::vector<Table> tables_;  // the newest last: it takes the inserts
  detail::TaggedStash stash_;
};

}  // namespace tlbf

#include "tlbf/tagged_sizing.hpp"
#include "tlbf/tagged_state.hpp"
