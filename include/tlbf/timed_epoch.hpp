// The guarded epoch Bloom filter over a time window (our extension of Alpay & Sarioglu 2026,
// whose filter counts inserts; see guarded_epoch.hpp). Epochs of E = ⌈span/r⌉ ns of the caller's clock,
// aligned to multiples of E, so r·E >= span. Epoch e lives in ring slot e mod (r+1); a query at
// time t (epoch c) consults epochs c−r .. c. A key inserted at t0 with t − t0 < span has
// t0 > t − rE, hence epoch >= c − r: no false negatives inside the window, whatever gaps
// passed (several boundaries at once just free several slots). It stays positive only while
// t − t0 < (r+1)·E, i.e. at most one epoch (plus rounding, < r ns) beyond the span.
// Segments adapt to the rate like TLBF slices: an epoch's first block is sized from the
// insert count of the last finished epoch (plus 2σ of Poisson headroom); if the epoch
// outgrows it, a block sized for the rest of the epoch at its pace so far is added (see
// grow()), with targets tightened geometrically (0.9·f, then 0.05·f, 0.025·f, ...) so the
// epoch's rate stays <= f = 1 − (1 − p)^{1/(r+1)}. Memory cap (max_memory_bytes): each
// epoch may hold 1/(r+1) of it. An epoch that needs more gets a first block shrunk to its
// share, or stops adding blocks and keeps filling its last one, so false negatives stay
// impossible and staleness is unchanged; what is lost is the false-positive rate, which
// rises above the target in the epochs where the cap binds (memory_capped = true in stats).
//
// Saved form, after the Algorithm::gebf tag and the time-variant byte: a format byte, then the
// fields in visit_fields()'s order, every bit array a counted word vector. load() checks each
// field against the others (epochs against their ring slots and the current epoch, block
// shapes against the layout, lengths against the remaining input) and throws state_error on
// any mismatch, so damaged input is refused rather than trusted.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/filter.hpp"

namespace tlbf {

class TimedEpochFilter final : public WindowFilter {
 public:
  explicit TimedEpochFilter(const FilterConfig& cfg) {
    if (cfg.span <= 0) throw invalid_parameter("span", parameter_value(cfg.span), "must be > 0 for the time-window GEBF");
    detail::check_gebf_r(cfg.gebf_r);
    check_error_rate(cfg.error_rate);
    check_max_memory(cfg.max_memory_bytes);
    span_ = cfg.span;
    r_ = cfg.gebf_r;
    blocked_ = cfg.gebf_blocked;
    target_ = cfg.error_rate;
    epoch_ns_ = span_ / r_ + (span_ % r_ != 0 ? 1 : 0);
    cap_bits_ = std::min(cfg.max_memory_bytes, detail::kGebfMaxBits / 8) * 8;
    last_count_ = std::max<std::uint64_t>(1, (cfg.capacity + r_ - 1) / r_);
    slots_.resize(r_ + 1);
  }

  static std::unique_ptr<TimedEpochFilter> load(ByteReader& in) { return SavedForm::load<TimedEpochFilter>(in); }

  bool may_contain(KeyHash h, Time now) const override {
    if (keys_inserted_ == 0) return false;
    return blocked_ ? contains<true>(h, now) : contains<false>(h, now);
  }

  void insert(KeyHash h, Time now) override {
    latest_ = keys_inserted_ == 0 ? now : std::max(now, latest_);
    const Time e = epoch_of(latest_);
    if (keys_inserted_ == 0 || e != current_) advance(e);
    Slot& s = slots_[slot_index(e)];
    if (s.blocks.back().count >= s.blocks.back().capacity) grow(s, latest_);
    Block& b = s.blocks.back();
    detail::Probe probes[kGebfMaxK];
    detail::gebf_probes(h, b.k, b.bits, blocked_, probes);
    detail::set_all(b.words.data(), probes, b.k);
    ++b.count;
    ++s.count;
    ++keys_inserted_;
  }
  bool insert_if_absent(KeyHash h, Time now) override { return insert_if_absent_in_two_steps(*this, h, now); }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    FilterStats st;
    st.algorithm = blocked_ ? "gebf-blocked" : "gebf";
    st.slices = r_ + 1;
    st.keys_inserted = keys_inserted_;
    st.memory_capped = capped_;
    st.bits_allocated = used_bits_;
    if (keys_inserted_ == 0) return st;
    const Time t = std::max(now, latest_);
    const Time c = epoch_of(t);
    double live = 0;
    for (const Slot& s : slots_) {
      if (s.blocks.empty() || s.epoch < c - static_cast<Time>(r_)) continue;
      if (s.epoch == current_) {  // the newest segment
        st.k = s.blocks.back().k;
        for (const Block& b : s.blocks) st.slice0_bits += b.bits;
      }
      // The oldest epoch straddles the window start: count the share of it still inside.
      double share = 1.0;
      if (s.epoch == c - static_cast<Time>(r_)) {
        double end = static_cast<double>(s.epoch + 1) * static_cast<double>(epoch_ns_);
        double start = static_cast<double>(t - span_ + 1);
        share = std::clamp((end - start) / static_cast<double>(epoch_ns_), 0.0, 1.0);
      }
      live += share * static_cast<double>(s.count);
    }
    st.live_keys = static_cast<std::uint64_t>(std::llround(live));
    st.bits_per_live_key = st.live_keys ? static_cast<double>(st.bits_allocated) / static_cast<double>(st.live_keys) : 0.0;
    return st;
  }

  void save(ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(Algorithm::gebf));
    out.u8(detail::kGebfTimed);
    SavedForm::save(*this, out);
  }

  Duration epoch_ns() const { return epoch_ns_; }
  std::uint32_t r() const { return r_; }

 private:
  struct Block {
    std::uint64_t bits = 0;
    std::uint32_t k = 1;
    std::uint64_t capacity = 0;  // keys it was sized for
    std::uint64_t count = 0;
    std::vector<std::uint64_t> words;
  };
  struct Slot {
    Time epoch = 0;
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
    ar.version(detail::kGebfFormat, "state: gebf: unknown format version");
    ar.i64(f.span_);
    ar.u32(f.r_);
    ar.flag(f.blocked_);
    ar.f64(f.target_);
    ar.i64(f.epoch_ns_);
    ar.u64(f.cap_bits_, f.last_count_);
    ar.i64(f.latest_, f.current_);
    ar.u64(f.keys_inserted_);
    ar.flag(f.capped_);
    if constexpr (Archive::loading) f.check_loaded_parameters();
    [[maybe_unused]] std::uint64_t total_count = 0;
    for (std::uint32_t i = 0; i <= f.r_; ++i) {
      auto& s = f.slots_[i];
      ar.i64(s.epoch);
      ar.u64(s.count);
      std::uint64_t nblocks = s.blocks.size();
      ar.u64(nblocks);
      if constexpr (Archive::loading) f.check_loaded_slot(i, nblocks);
      [[maybe_unused]] std::uint64_t block_sum = 0;
      for (auto& b : s.blocks) {
        ar.u64(b.bits);
        ar.u32(b.k);
        ar.u64(b.capacity, b.count);
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
    }
  }

  void check_loaded_parameters() {
    if (span_ <= 0 || r_ < 1 || r_ > detail::kGebfMaxR || !(target_ > 0 && target_ < 1) ||
        epoch_ns_ != span_ / r_ + (span_ % r_ != 0 ? 1 : 0) || cap_bits_ == 0 || cap_bits_ > detail::kGebfMaxBits ||
        last_count_ == 0)
      throw state_error("state: gebf: bad parameters");
    if (latest_ < -kTimeLimit || latest_ > kTimeLimit || current_ < -kTimeLimit || current_ > kTimeLimit)
      throw state_error("state: gebf: time out of range");
    if (keys_inserted_ > 0 && epoch_of(latest_) != current_)
      throw state_error("state: gebf: current epoch does not match the latest time");
    slots_.resize(r_ + 1);
  }

  // Slot i, whose epoch and count were just read, announces `nblocks` blocks.
  void check_loaded_slot(std::uint32_t i, std::uint64_t nblocks) {
    Slot& s = slots_[i];
    if (nblocks > 64) throw state_error("state: gebf: too many blocks in an epoch");
    if (nblocks == 0 && s.count != 0) throw state_error("state: gebf: inserts in an empty epoch");
    if (nblocks > 0 && (keys_inserted_ == 0 || s.epoch > current_ || s.epoch < current_ - static_cast<Time>(r_) ||
                        slot_index(s.epoch) != i))
      throw state_error("state: gebf: epoch out of place");
    s.blocks.resize(nblocks);
  }

  // A block whose shape was just read, before its words.
  void check_loaded_block(const Block& b) {
    const std::uint64_t unit = detail::unit_bits(blocked_);
    if (b.bits == 0 || b.bits % unit != 0 || b.bits > detail::kGebfMaxBits || b.k < 1 || b.k > kGebfMaxK)
      throw state_error("state: gebf: bad block shape");
    used_bits_ += b.bits;
    if (used_bits_ > detail::kGebfMaxBits) throw state_error("state: gebf: too much memory");
  }

  template <bool Blocked>
  bool contains(KeyHash h, Time now) const {
    const Time c = epoch_of(std::max(now, latest_));
    detail::KeyProbes<Blocked> probes(h);  // hashed once for every block of every epoch
    for (const Slot& s : slots_) {
      if (s.blocks.empty() || s.epoch < c - static_cast<Time>(r_)) continue;
      for (const Block& b : s.blocks)
        if (probes.contained_in(b.words.data(), b.k, b.bits)) return true;
    }
    return false;
  }

  // Epoch arithmetic (c − r) must not overflow; real clocks are far inside ±2^62 ns.
  static constexpr Time kTimeLimit = Time{1} << 62;

  Time epoch_of(Time t) const {
    Time q = t / epoch_ns_;
    return (t % epoch_ns_ < 0) ? q - 1 : q;
  }
  std::size_t slot_index(Time e) const {
    Time m = e % static_cast<Time>(r_ + 1);
    return static_cast<std::size_t>(m < 0 ? m + static_cast<Time>(r_ + 1) : m);
  }

  // Enters epoch e: frees every epoch that can no longer answer for the window, then opens
  // e with a block sized from the last finished epoch's insert count.
  void advance(Time e) {
    if (keys_inserted_ > 0) {
      const Slot& cur = slots_[slot_index(current_)];
      if (!cur.blocks.empty() && cur.epoch == current_) last_count_ = std::max<std::uint64_t>(1, cur.count);
    }
    for (Slot& s : slots_)
      if (!s.blocks.empty() && s.epoch < e - static_cast<Time>(r_)) release(s);
    current_ = e;
    Slot& s = slots_[slot_index(e)];
    release(s);
    s.epoch = e;
    double pred = static_cast<double>(last_count_);
    auto capacity = static_cast<std::uint64_t>(pred + 2.0 * std::sqrt(pred) + 4.0);
    s.blocks.push_back(make_block(capacity, 0.9 * epoch_target(), epoch_budget(), /*shrink_to=*/0.0));
  }

  // The epoch has outgrown its blocks: add one at a tighter rate, sized for what the epoch's
  // pace so far projects for the rest of it (with 25% + 2σ headroom; a slowly rising rate
  // then costs a small block, not a doubling), and at least a quarter of what the epoch
  // already holds, doubling it from the 8th block on, so an epoch holds few blocks however
  // steep a burst. If the epoch's share of the cap cannot hold at least half that block, the
  // last block keeps filling instead (a tiny overfilled block would answer yes to anything).
  void grow(Slot& s, Time now) {
    const std::size_t j = s.blocks.size();
    const double f = 0.1 * epoch_target() * std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(j, 60)));
    std::uint64_t held = 0, capacity_so_far = 0;
    for (const Block& b : s.blocks) {
      held += b.bits;
      capacity_so_far = b.capacity > UINT64_MAX - capacity_so_far ? UINT64_MAX : capacity_so_far + b.capacity;
    }
    // Elapsed share of the epoch, at least 1/16 so the first instants do not extrapolate wildly.
    const double elapsed = std::max(static_cast<double>(now) - static_cast<double>(s.epoch) * static_cast<double>(epoch_ns_),
                                    static_cast<double>(epoch_ns_) / 16.0);
    const double count = static_cast<double>(s.count);
    const double rest = std::max(0.0, count * static_cast<double>(epoch_ns_) / elapsed - count);
    double want = 1.25 * rest + 2.0 * std::sqrt(rest) + 4.0;
    want = std::max(want, static_cast<double>(capacity_so_far) / 4.0);
    if (j >= 8) want = std::max(want, 2.0 * static_cast<double>(capacity_so_far));
    const auto capacity = static_cast<std::uint64_t>(std::min(want, 1e15));
    const std::uint64_t left = epoch_budget() > held ? epoch_budget() - held : 0;
    Block b = make_block(capacity, f, left, /*shrink_to=*/0.5);
    if (b.bits > 0) s.blocks.push_back(std::move(b));
    else s.blocks.back().capacity = std::numeric_limits<std::uint64_t>::max();
  }

  // A block for `capacity` keys at rate f, within `budget` bits. When it does not fit: a block
  // of the whole budget if that is at least `shrink_to` of the wanted size (and one unit),
  // never grown past; else none (bits 0).
  Block make_block(std::uint64_t capacity, double f, std::uint64_t budget, double shrink_to) {
    SegmentShape shape = shapes_.shape_for(blocked_, static_cast<double>(capacity), f);
    const std::uint64_t unit = detail::unit_bits(blocked_);
    Block b;
    b.capacity = capacity;
    if (shape.bits > budget) {
      capped_ = true;
      budget = budget / unit * unit;
      if (budget == 0 || static_cast<double>(budget) < shrink_to * static_cast<double>(shape.bits)) return b;
      shape.bits = budget;
      shape.k = best_k(blocked_, static_cast<double>(capacity), static_cast<double>(shape.bits));
      b.capacity = std::numeric_limits<std::uint64_t>::max();
    }
    b.bits = shape.bits;
    b.k = shape.k;
    b.words.assign(b.bits / 64, 0);
    used_bits_ += b.bits;
    return b;
  }

  // Each epoch may hold 1/(r+1) of the cap, so the r+1 epochs together never exceed it.
  std::uint64_t epoch_budget() const {
    const std::uint64_t unit = detail::unit_bits(blocked_);
    return std::max(unit, cap_bits_ / (r_ + 1) / unit * unit);
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
  bool capped_ = false;
  std::vector<Slot> slots_;  // epoch e in slot e mod (r+1)
  SegmentShapeCache shapes_;  // not saved: a loaded filter rebuilds it on its first epochs
};

}  // namespace tlbf
