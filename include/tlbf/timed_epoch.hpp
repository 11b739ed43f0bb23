// SPDX-License-Identifier: MIT
// The guarded epoch Bloom filter over a time window (our extension of Alpay & Sarioglu 2026,
// whose filter counts inserts; see guarded_epoch.hpp). Epochs of E = ⌈span/r⌉ ns of the
// caller's clock on a grid aligned to multiples of E, right-closed: epoch i holds the times in
// ((i−1)E, iE], so r·E >= span. Epoch i lives in ring slot i mod (r+1) and keeps the time of
// its last insert, L_i. A query at time t consults exactly the epochs with L_i > t − span.
//  - No false negatives: a key inserted at t0 with t − t0 < span lies in an epoch whose
//    L_i >= t0 > t − span, so that epoch is consulted.
//  - Tight window: a key inserted at t0 is positive through its own insert only while
//    t < L_i + span, and L_i <= iE <= t0 + E − 1 (t0 > (i−1)E), so never at t >= t0 + span + E − 1:
//    the slack is below one epoch, E = ⌈span/r⌉ (5% of the span at the time window's default
//    r = 20). Beyond that the key only answers yes by chance, at the false-positive rate. A
//    key lives in one epoch's blocks only, so there is no fade over later epochs.
//  - r+1 slots suffice: an epoch i <= c − r − 1 (c the current epoch) has L_i <= (c−r−1)E <
//    t − rE <= t − span, so it is never consulted and its slot can take epoch c.
// Whatever gaps pass (several boundaries at once just free several slots), and wherever the
// clock restarts after a load, these hold, because they only compare stored times.
// Segments adapt to the rate like TLBF slices: an epoch's first block is sized from the
// insert count of the last finished epoch (plus 2σ of Poisson headroom); if the epoch
// outgrows it, a block sized for the rest of the epoch at its pace so far is added (see
// grow()), with targets tightened geometrically (0.9·f, then 0.05·f, 0.025·f, ...) so the
// epoch's rate stays <= f = 1 − (1 − p)^{1/(r+1)}: at most r+1 epochs are consulted.
// Memory cap (max_memory_bytes): the blocks together never hold more. A block that does not
// fit makes room by evicting the oldest blocks (oldest epoch first, its first block first):
// the cap gives up window length, never the false-positive rate. Each eviction of a block
// still inside the window is a cap bind (cap_binds(), cap_evictions); keys younger than the
// newest evicted insert are all kept, so the window has effectively shrunk to the age of that
// insert at the moment of eviction (effective_span in stats: the smallest since creation). No
// block is larger than a quarter of the cap (one wanted larger holds the keys that fit at its
// rate), so an eviction gives up at most about a quarter of what the cap can hold.
//
// Saved form, after the Algorithm::gebf tag and the time-variant byte: a format byte, then the
// fields in visit_fields()'s order, every bit array a counted word vector. load() checks each
// field against the others (epochs against their ring slots and the current epoch, last
// insert times against their epochs, block shapes against the layout, lengths against the
// remaining input) and throws state_error on any mismatch, so damaged input is refused
// rather than trusted. Format 1 (left-closed epochs [iE, (i+1)E), no last insert times) is
// still read: each of its epochs is renumbered on the right-closed grid by the latest time it
// can hold, which is then its L_i (as late as possible, so nothing inside the window is lost).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/detail/level_scan.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/filter.hpp"

namespace tlbf {

class TimedEpochFilter final : public WindowFilter {
 public:
  explicit TimedEpochFilter(const FilterConfig& cfg) {
    if (cfg.span <= 0)
      throw invalid_parameter("span", parameter_value(cfg.span), "must be > 0 for the time-window GEBF");
    detail::check_gebf_r(gebf_r_for(cfg));
    check_error_rate(cfg.error_rate);
    check_max_memory(cfg.max_memory_bytes);
    span_ = cfg.span;
    r_ = gebf_r_for(cfg);
    blocked_ = cfg.gebf_blocked;
    target_ = cfg.error_rate;
    epoch_ns_ = span_ / r_ + (span_ % r_ != 0 ? 1 : 0);
    cap_bits_ = std::min(cfg.max_memory_bytes, detail::kGebfMaxBits / 8) * 8;
    last_count_ = std::max<std::uint64_t>(1, (cfg.capacity + r_ - 1) / r_);
    shortest_window_ = span_;
    slots_.resize(r_ + 1);
  }

  static std::unique_ptr<TimedEpochFilter> load(ByteReader& in) { return SavedForm::load<TimedEpochFilter>(in); }

  // Bits that cfg.capacity keys per span take once a steady stream has filled the window: the
  // r + 1 epochs of the block the first epoch starts with (ceil(capacity / r) keys plus two
  // standard deviations and 4, at 0.9 of the per-epoch rate; advance()), before any memory
  // cap. Nothing is allocated.
  static std::uint64_t window_bits_for(const FilterConfig& cfg) {
    const TimedEpochFilter f(cfg);  // allocates nothing before its first insert
    const auto pred = static_cast<double>(f.last_count_);
    const auto keys = static_cast<std::uint64_t>(pred + 2.0 * std::sqrt(pred) + 4.0);
    SegmentShapeCache shapes;
    return shapes.shape_for(f.blocked_, static_cast<double>(keys), 0.9 * f.epoch_target()).bits * (f.r_ + 1);
  }

  bool may_contain(KeyHash h, Time now) const override {
    return with_probes(h, [&](auto& probes) { return contains(probes, now); });
  }
  void insert(KeyHash h, Time now) override {
    with_probes(h, [&](auto& probes) { add(probes, now); });
  }
  // The key's probe hashes are computed once, for the query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    return with_probes(h, [&](auto& probes) {
      if (contains(probes, now)) return false;
      add(probes, now);
      return true;
    });
  }
  // Probe 0 of every block consulted at the latest time seen: the query's first level.
  void prefetch(const KeyHash& h) const override {
    if (used_bits_ <= detail::kPrefetchFromBits) return;
    with_probes(h, [&](auto& probes) {
      for (const Slot& s : slots_) {
        if (!consulted(s, latest_)) continue;
        for (const Block& b : s.blocks) probes.prefetch(b.words.data(), b.bits, 0);
      }
    });
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    FilterStats st;
    st.algorithm = blocked_ ? "gebf-blocked" : "gebf";
    st.slices = r_ + 1;
    st.keys_inserted = keys_inserted_;
    st.memory_capped = cap_evictions_ > 0;
    st.cap_evictions = cap_evictions_;
    st.effective_span = cap_evictions_ > 0 ? shortest_window_ : 0;
    st.bits_allocated = used_bits_;
    st.peak_bits_allocated = peak_bits_;
    if (keys_inserted_ == 0) return st;
    const Time t = std::max(now, latest_);
    double live = 0;
    for (const Slot& s : slots_) {
      if (!consulted(s, t)) continue;
      if (s.epoch == current_) {  // the newest segment
        st.k = s.blocks.back().k;
        for (const Block& b : s.blocks) st.slice0_bits += b.bits;
      }
      // The oldest epochs straddle the window start: count the share of them still inside.
      const double end = static_cast<double>(s.epoch) * static_cast<double>(epoch_ns_);
      const double start = static_cast<double>(t - span_);
      const double share = std::clamp((end - start) / static_cast<double>(epoch_ns_), 0.0, 1.0);
      live += share * static_cast<double>(s.count);
    }
    st.live_keys = static_cast<std::uint64_t>(std::llround(live));
    st.bits_per_live_key =
        st.live_keys ? static_cast<double>(st.bits_allocated) / static_cast<double>(st.live_keys) : 0.0;
    return st;
  }

  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::gebf, detail::kGebfTimed); }

  Duration epoch_ns() const { return epoch_ns_; }
  std::uint32_t r() const { return r_; }

  // What a query at `now` searches, block by block, for measurement (how many words a query
  // reads, bench/scaling.cpp) and tests. A copy: it stays valid whatever the filter does next.
  struct BlockView {
    std::uint64_t bits = 0;
    std::uint32_t k = 0;
    std::uint64_t ones = 0;      // set bits
    bool takes_inserts = false;  // the block an insert at the latest time seen goes to
  };
  std::vector<BlockView> consulted_blocks(Time now) const {
    std::vector<BlockView> v;
    if (keys_inserted_ == 0) return v;
    const Time t = std::max(now, latest_);
    const Slot& current = slots_[slot_index(current_)];
    const Block* active = current.blocks.empty() ? nullptr : &current.blocks.back();
    for (const Slot& s : slots_) {
      if (!consulted(s, t)) continue;
      for (const Block& b : s.blocks) {
        std::uint64_t ones = 0;
        for (std::uint64_t w : b.words) ones += static_cast<std::uint64_t>(__builtin_popcountll(w));
        v.push_back(BlockView{b.bits, b.k, ones, &b == active});
      }
    }
    return v;
  }

 private:
  struct Block {
    std::uint64_t bits = 0;
    std::uint32_t k = 1;
    std::uint64_t capacity = 0;  // keys it was sized for
    std::uint64_t count = 0;
    Time last = 0;  // time of its last insert
    std::vector<std::uint64_t> words;
  };
  struct Slot {
    Time epoch = 0;
    Time last = 0;  // time of the epoch's last insert
    std::uint64_t count = 0;
    std::vector<Block> blocks;  // empty = unused
  };

  friend struct SavedForm;
  TimedEpochFilter() = default;

  // The saved form: the parameters and the clock, then the r+1 ring slots in order, each
  // with its epoch, insert count and blocks. Loading checks every field against the others
  // as it arrives (see the top of the file).
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    std::uint8_t format = detail::kGebfTimedFormat;
    ar.u8(format);
    if (format != detail::kGebfTimedFormat && format != 1) throw state_error("state: gebf: unknown format version");
    [[maybe_unused]] const bool left_closed = format == 1;
    // Format 1 probed plain blocks by double hashing; format 2 names its scheme.
    auto scheme = static_cast<std::uint8_t>(left_closed ? detail::ProbeScheme::double_hashing : f.scheme_);
    if (!left_closed) ar.u8(scheme);
    if constexpr (Archive::loading) {
      detail::check_probe_scheme(scheme);
      f.scheme_ = static_cast<detail::ProbeScheme>(scheme);
    }
    ar.i64(f.span_);
    ar.u32(f.r_);
    ar.flag(f.blocked_);
    ar.f64(f.target_);
    ar.i64(f.epoch_ns_);
    ar.u64(f.cap_bits_, f.last_count_);
    ar.i64(f.latest_, f.current_);
    ar.u64(f.keys_inserted_);
    if (left_closed) {
      bool capped = false;  // format 1's flag: the rate had risen under the cap
      ar.flag(capped);
    } else {
      ar.u64(f.peak_bits_, f.cap_evictions_);
      ar.i64(f.shortest_window_);
    }
    if constexpr (Archive::loading) f.check_loaded_parameters(left_closed);
    [[maybe_unused]] std::uint64_t total_count = 0;
    for (std::uint32_t i = 0; i <= f.r_; ++i) {
      auto& s = f.slots_[i];
      ar.i64(s.epoch);
      if (!left_closed) ar.i64(s.last);
      ar.u64(s.count);
      std::uint64_t nblocks = s.blocks.size();
      ar.u64(nblocks);
      if constexpr (Archive::loading) f.check_loaded_slot(i, nblocks, left_closed);
      [[maybe_unused]] std::uint64_t block_sum = 0;
      for (auto& b : s.blocks) {
        ar.u64(b.bits);
        ar.u32(b.k);
        ar.u64(b.capacity, b.count);
        if (!left_closed) ar.i64(b.last);
        if constexpr (Archive::loading) f.check_loaded_block(b);
        ar.words(b.words, b.bits / 64);
        if (b.words.size() != b.bits / 64) throw state_error("state: gebf: bit array has the wrong length");
        block_sum += b.count;
      }
      if constexpr (Archive::loading) {
        if (block_sum != s.count) throw state_error("state: gebf: epoch count does not match its blocks");
        total_count += s.count;
      }
    }
    if constexpr (Archive::loading) {
      if (total_count > f.keys_inserted_) throw state_error("state: gebf: more keys held than inserted");
      if (left_closed) f.renumber_left_closed();
      if (f.peak_bits_ < f.used_bits_ || f.shortest_window_ < 0 || f.shortest_window_ > f.span_)
        throw state_error("state: gebf: bad cap statistics");
    }
  }

  // `left_closed`: a format 1 file, whose epochs are numbered [iE, (i+1)E).
  void check_loaded_parameters(bool left_closed) {
    if (span_ <= 0 || r_ < 1 || r_ > detail::kGebfMaxR || !(target_ > 0 && target_ < 1) ||
        epoch_ns_ != span_ / r_ + (span_ % r_ != 0 ? 1 : 0) || cap_bits_ == 0 || cap_bits_ > detail::kGebfMaxBits ||
        last_count_ == 0)
      throw state_error("state: gebf: bad parameters");
    if (latest_ < -kTimeLimit || latest_ > kTimeLimit || current_ < -kTimeLimit || current_ > kTimeLimit)
      throw state_error("state: gebf: time out of range");
    const Time expect_current = left_closed ? floor_div(latest_, epoch_ns_) : epoch_of(latest_);
    if (keys_inserted_ > 0 && expect_current != current_)
      throw state_error("state: gebf: current epoch does not match the latest time");
    slots_.resize(r_ + 1);
  }

  // Slot i, whose epoch, last insert time and count were just read, announces `nblocks` blocks.
  void check_loaded_slot(std::uint32_t i, std::uint64_t nblocks, bool left_closed) {
    Slot& s = slots_[i];
    if (nblocks > 64) throw state_error("state: gebf: too many blocks in an epoch");
    if (nblocks == 0 && s.count != 0) throw state_error("state: gebf: inserts in an empty epoch");
    if (nblocks > 0 && (keys_inserted_ == 0 || s.epoch > current_ || s.epoch < current_ - static_cast<Time>(r_) ||
                        slot_index(s.epoch) != i))
      throw state_error("state: gebf: epoch out of place");
    if (nblocks > 0 && !left_closed &&
        (s.last > latest_ || s.last > s.epoch * epoch_ns_ || s.last <= (s.epoch - 1) * epoch_ns_))
      throw state_error("state: gebf: last insert time outside its epoch");
    s.blocks.resize(nblocks);
  }

  // A format 1 filter's epochs [iE, (i+1)E) on the right-closed grid: the latest time epoch i
  // can hold, min((i+1)E − 1, latest), becomes its last insert time and names its new epoch.
  // Two old epochs can land in one new epoch (the old current one when it holds only the
  // time iE); their blocks are then kept together.
  void renumber_left_closed() {
    peak_bits_ = used_bits_;
    shortest_window_ = span_;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(r_ + 1, Slot{});
    current_ = epoch_of(latest_);
    for (Slot& o : old) {
      if (o.blocks.empty()) continue;
      o.last = std::min((o.epoch + 1) * epoch_ns_ - 1, latest_);
      o.epoch = epoch_of(o.last);
      for (Block& b : o.blocks) b.last = o.last;
      Slot& s = slots_[slot_index(o.epoch)];
      if (s.blocks.empty()) {
        s = std::move(o);
        continue;
      }
      s.last = std::max(s.last, o.last);
      s.count += o.count;
      for (Block& b : o.blocks) s.blocks.push_back(std::move(b));
    }
  }

  // A block whose shape (and last insert time) was just read, before its words.
  void check_loaded_block(const Block& b) {
    if (b.last > latest_) throw state_error("state: gebf: block's last insert after the latest time");
    const std::uint64_t unit = detail::unit_bits(blocked_);
    if (b.bits == 0 || b.bits % unit != 0 || b.bits > detail::kGebfMaxBits || b.k < 1 || b.k > kGebfMaxK)
      throw state_error("state: gebf: bad block shape");
    used_bits_ += b.bits;
    if (used_bits_ > detail::kGebfMaxBits) throw state_error("state: gebf: too much memory");
  }

  // The consulted epochs' blocks are searched level by level (detail/level_scan.hpp), 64 at
  // a time: probe 0 of every block, then probe 1 of those that hit, and so on, instead of one
  // block after another with a data-dependent branch at every probe.
  // `probes` are the key's, computed once for every block of every epoch.
  template <bool Blocked>
  bool contains(detail::KeyProbes<Blocked>& probes, Time now) const {
    if (keys_inserted_ == 0) return false;
    const Time t = std::max(now, latest_);
    const Block* batch[64];
    std::size_t n = 0;
    auto batch_holds_key = [&] {
      return detail::any_candidate_all_hit(
          n, [&](std::size_t c) { return batch[c]->k; },
          [&](std::size_t c, std::uint32_t p) { return probes.hits(batch[c]->words.data(), batch[c]->bits, p); },
          [&](std::size_t c, std::uint32_t p) { probes.prefetch(batch[c]->words.data(), batch[c]->bits, p); });
    };
    for (const Slot& s : slots_) {
      if (!consulted(s, t)) continue;
      for (const Block& b : s.blocks) {
        batch[n++] = &b;
        if (n == std::size(batch)) {
          if (batch_holds_key()) return true;
          n = 0;
        }
      }
    }
    return batch_holds_key();
  }

  template <bool Blocked>
  void add(detail::KeyProbes<Blocked>& probes, Time now) {
    latest_ = keys_inserted_ == 0 ? now : std::max(now, latest_);
    const Time e = epoch_of(latest_);
    if (keys_inserted_ == 0 || e != current_) advance(e);
    Slot& s = slots_[slot_index(e)];
    s.last = latest_;
    if (s.blocks.back().count >= s.blocks.back().capacity) grow(s, latest_);
    Block& b = s.blocks.back();
    b.last = latest_;
    probes.set(b.words.data(), b.bits, b.k);
    ++b.count;
    ++s.count;
    ++keys_inserted_;
  }
  // Calls f with the key's probes in this filter's layout (plain or blocked), made once for
  // the call, so a query and the insert after it share them.
  template <class F>
  auto with_probes(KeyHash h, F&& f) const -> std::invoke_result_t<F&, detail::KeyProbes<false>&> {
    if (blocked_) {
      detail::KeyProbes<true> probes(h, scheme_);
      return f(probes);
    }
    detail::KeyProbes<false> probes(h, scheme_);
    return f(probes);
  }

  // Epoch arithmetic (c − r) must not overflow; real clocks are far inside ±2^62 ns.
  static constexpr Time kTimeLimit = Time{1} << 62;

  // The right-closed epoch holding t: ⌈t/E⌉.
  Time epoch_of(Time t) const {
    Time q = t / epoch_ns_;
    return (t % epoch_ns_ > 0) ? q + 1 : q;
  }
  static Time floor_div(Time t, Duration d) {
    Time q = t / d;
    return (t % d < 0) ? q - 1 : q;
  }
  // The epochs a query at t consults: those whose last insert is younger than the span.
  bool consulted(const Slot& s, Time t) const { return !s.blocks.empty() && s.last > t - span_; }
  std::size_t slot_index(Time e) const {
    Time m = e % static_cast<Time>(r_ + 1);
    return static_cast<std::size_t>(m < 0 ? m + static_cast<Time>(r_ + 1) : m);
  }

  // Enters epoch e (latest_ is in it): frees every epoch no query can consult any more, then
  // opens e with a block sized from the last finished epoch's insert count.
  void advance(Time e) {
    if (keys_inserted_ > 0) {
      const Slot& cur = slots_[slot_index(current_)];
      if (!cur.blocks.empty() && cur.epoch == current_) last_count_ = std::max<std::uint64_t>(1, cur.count);
    }
    for (Slot& s : slots_)
      if (!consulted(s, latest_)) release(s);
    current_ = e;
    Slot& s = slots_[slot_index(e)];
    release(s);
    s.epoch = e;
    double pred = static_cast<double>(last_count_);
    auto capacity = static_cast<std::uint64_t>(pred + 2.0 * std::sqrt(pred) + 4.0);
    s.blocks.push_back(make_block(capacity, 0.9 * epoch_target()));
  }

  // The epoch has outgrown its blocks: add one at a tighter rate, sized for what the epoch's
  // pace so far projects for the rest of it (with 25% + 2σ headroom; a slowly rising rate
  // then costs a small block, not a doubling), and at least a quarter of what the epoch
  // already holds, doubling it from the 8th block on, so an epoch holds few blocks however
  // steep a burst.
  void grow(Slot& s, Time now) {
    const std::size_t j = s.blocks.size();
    const double f = 0.1 * epoch_target() * std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(j, 60)));
    std::uint64_t capacity_so_far = 0;
    for (const Block& b : s.blocks)
      capacity_so_far = b.capacity > UINT64_MAX - capacity_so_far ? UINT64_MAX : capacity_so_far + b.capacity;
    // Elapsed share of the epoch, at least 1/16 so the first instants do not extrapolate wildly.
    const double elapsed =
        std::max(static_cast<double>(now) - static_cast<double>(s.epoch - 1) * static_cast<double>(epoch_ns_),
                 static_cast<double>(epoch_ns_) / 16.0);
    const double count = static_cast<double>(s.count);
    const double rest = std::max(0.0, count * static_cast<double>(epoch_ns_) / elapsed - count);
    double want = 1.25 * rest + 2.0 * std::sqrt(rest) + 4.0;
    want = std::max(want, static_cast<double>(capacity_so_far) / 4.0);
    if (j >= 8) want = std::max(want, 2.0 * static_cast<double>(capacity_so_far));
    s.blocks.push_back(make_block(static_cast<std::uint64_t>(std::min(want, 1e15)), f));
  }

  // A block for `capacity` keys at rate f. Under the cap, room is made by evicting the oldest
  // blocks. No block is larger than a quarter of the cap, so one eviction gives up at most
  // about a quarter of the window the cap holds (a block wanted larger is cut and sized down
  // to the keys that fit at rate f, at least one).
  Block make_block(std::uint64_t capacity, double f) {
    SegmentShape shape = shapes_.shape_for(blocked_, static_cast<double>(capacity), f);
    const std::uint64_t unit = detail::unit_bits(blocked_);
    const std::uint64_t largest = std::max(unit, cap_bits_ / 4 / unit * unit);
    if (shape.bits > largest) {
      shape.bits = largest;
      capacity = keys_fitting(blocked_, largest, f);
      shape.k = best_k(blocked_, static_cast<double>(capacity), static_cast<double>(largest));
    }
    while (used_bits_ + shape.bits > cap_bits_ && evict_oldest_block()) {
    }
    Block b;
    b.capacity = capacity;
    b.bits = shape.bits;
    b.k = shape.k;
    b.words.assign(b.bits / 64, 0);
    used_bits_ += b.bits;
    peak_bits_ = std::max(peak_bits_, used_bits_);
    return b;
  }

  // Drops the oldest block (oldest epoch, its first block). A block still consulted is window
  // given up to the cap: counted, and the window kept shrinks to the age of its last insert.
  // False when there is no block left.
  bool evict_oldest_block() {
    Slot* oldest = nullptr;
    for (Slot& s : slots_)
      if (!s.blocks.empty() && (oldest == nullptr || s.epoch < oldest->epoch)) oldest = &s;
    if (oldest == nullptr) return false;
    const Block& b = oldest->blocks.front();
    if (b.count > 0 && b.last > latest_ - span_) {
      ++cap_evictions_;
      shortest_window_ = std::min(shortest_window_, latest_ - b.last);
      note_cap_bound();
    }
    used_bits_ -= b.bits;
    oldest->count -= b.count;
    oldest->blocks.erase(oldest->blocks.begin());
    if (oldest->blocks.empty()) release(*oldest);
    return true;
  }

  void release(Slot& s) {
    for (const Block& b : s.blocks) used_bits_ -= b.bits;
    s.blocks.clear();
    s.blocks.shrink_to_fit();
    s.count = 0;
  }

  double epoch_target() const { return gebf_segment_target(target_, r_); }

  Duration span_ = 0;
  std::uint32_t r_ = 0;
  bool blocked_ = false;
  double target_ = 0;
  Duration epoch_ns_ = 1;
  std::uint64_t cap_bits_ = 0;
  std::uint64_t used_bits_ = 0;
  std::uint64_t last_count_ = 1;  // inserts of the last finished epoch: the next epoch's forecast
  Time latest_ = 0;
  Time current_ = 0;
  std::uint64_t keys_inserted_ = 0;
  std::uint64_t peak_bits_ = 0;      // the most used_bits_ has been
  std::uint64_t cap_evictions_ = 0;  // blocks still inside the window evicted for the cap
  Duration shortest_window_ = 0;     // the smallest age kept when a block was evicted (span until then)
  detail::ProbeScheme scheme_ = detail::ProbeScheme::multiply;  // plain blocks' probe positions
  std::vector<Slot> slots_;                                     // epoch e in slot e mod (r+1)
  SegmentShapeCache shapes_;  // not saved: a loaded filter rebuilds it on its first epochs
};

}  // namespace tlbf
