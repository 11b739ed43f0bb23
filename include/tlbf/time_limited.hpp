// Time-limited Bloom filter (Rodrigues, Shtul, Baquero, Almeida 2023, §6): an
// age-partitioned Bloom filter whose window is a time span instead of a count, and whose
// slices grow, shrink and multiply to follow the insertion rate.
//
// Structure. At least k + l slices; position 0 is the newest. Slice i has m_i bits (a
// multiple of 64), an insert count n_i and a timestamp t_i, the time of its last update.
// Slices are created with consecutive sequence numbers and slice s uses probe hash s mod k
// (§6: slices k positions apart never take the same inserts, so k hashes suffice); the k
// slices at positions 0..k-1 therefore use k distinct hashes, and a slice keeps its hash
// for life, so a query probes each slice with the hash its inserts used.
//
// Time. Integer nanoseconds, no rounding; all differences saturate, so no idle gap can
// overflow. A slice is live iff now - t_i < span; queries skip slices that are not (Algorithm
// 1), so a key of age < span is always reported (no false negatives: its k slices carry
// stamps >= its insert time and are only dropped once expired, or by the cap below).
// An earlier `now` than the latest seen counts as the latest seen. may_contain() is const.
//
// Insert. Sets one bit in each of positions 0..k-1 and stamps them with `now`. A shift comes
// first when the generation counter is spent (§6.2) or when the current generation started
// more than span/l ago (a time-forced shift), so a generation's inserts lie within span/l.
//
// Staleness bound. A key inserted at t is reported while now - t < span. It is forgotten
// (reported only at the false-positive rate, like a key never inserted) once all k of its
// slices have expired. Its newest slice takes inserts for k generations; each lies within
// span/l, and the next starts with the first insert after that, so if consecutive inserts
// are at most d apart its last update is at most t + k*span/l + (k-1)*d and the key is
// forgotten from
//     t + span + k*span/l + (k-1)*d.
// (An idle gap of span or more clears the key's slices at the next shift, so d < span is
// the only case that matters.) In between it fades: once its oldest slice expires (by
// t + span + span/l) a query finds only k-1 of its bits in a run and needs a neighbouring
// slice to complete it by chance. If nothing is inserted after t, all its slices carry
// stamp t and it is gone at exactly t + span (zero slack).
//
// Shift, at time now:
//  1. Rate: G inserts in the ending generation over t_s = max(1 ns, now - start) give the
//     target generation tg = G span / (t_s l) (eq. 6), limited to 4 G so a generation that
//     ends within one clock tick cannot ask for an unbounded slice, and raised by 10% of
//     headroom so a steady stream ends its generations by time (span/l), keeping k + l
//     slices, rather than by count a little early.
//  2. Slices among the new positions 1..k-1 that have expired are cleared (their keys are all
//     older than the span) so that stale bits do not come back to life.
//  3. New slice size (eqs. 7-8): with u_i = floor((m_i ln2 - n_i)/(k - i)) (eq. 4, in signed
//     arithmetic clamped at 0) for the slices that will sit at positions 1..k-1, j the
//     position of the smallest u_i and count = m_j ln2 - n_j, the new slice will take
//     c0 = min(count, (k-j) tg) + j tg inserts; m0 = ceil(c0 / ln2), clamped to
//     [min_bits, max_slice_bits]. (The min() is ours: without it an over-sized filter
//     passes its excess on to every new slice; with it, the first shift sizes slice 0 for
//     the observed rate, as in the paper's Figure 2.)
//  4. Expired slices beyond position k + l - 1 are dropped; if the oldest is still live, the
//     filter grows by a slice instead. Caps: if a new slice would pass max_slices or
//     max_memory_bytes, the oldest slices are dropped even though live (cap_evictions,
//     memory_capped): the effective window shortens, so duplicates older than the retained
//     slices may pass as new. A dropped buffer is reused for the new slice, zeroed in full.
//  5. g = max(1, min u_i over positions 0..k-1) (eq. 5): never 0, so a full slice forces
//     the next shift instead of stopping shifts.
//
// Saved form (after the tag byte): u32 k, u32 l, i64 span, u64 min_bits, u64 max_slice_bits,
// u64 max_bits, u32 max_slices, i64 latest, u8 started, i64 generation start, u64
// generation left, u64 generation inserts, u64 next sequence number, u64 keys inserted,
// u64 cap evictions, u8 memory capped, u64 slice count, then per slice from the oldest:
// i64 stamp, u64 inserts, word array. Sequence numbers are consecutive, ending at next - 1.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/slice_view.hpp"

namespace tlbf {

class TimeLimitedFilter final : public WindowFilter {
 public:
  // Headroom on the target generation and the most a generation's rate estimate may
  // exceed the inserts actually seen (shift step 1).
  static constexpr double kHeadroom = 1.1;
  static constexpr double kMaxGrowth = 4.0;

  explicit TimeLimitedFilter(const FilterConfig& cfg) {
    if (cfg.span <= 0) throw invalid_parameter("span", parameter_value(cfg.span), "must be > 0 ns for tlbf");
    check_capacity(cfg.capacity);
    const SliceLayout layout = detail::resolve_layout(cfg);
    k_ = layout.k;
    l_ = layout.l;
    if (cfg.max_slices < k_ + l_ || cfg.max_slices > detail::kMaxSlicesHard)
      throw invalid_parameter("max_slices", parameter_value(cfg.max_slices),
                              "must be in [k + l = " + std::to_string(k_ + l_) + ", " +
                                  std::to_string(detail::kMaxSlicesHard) + "]");
    span_ = cfg.span;
    compute_gen_limit();
    max_slices_ = cfg.max_slices;
    max_bits_ = detail::memory_cap_bits(cfg);
    max_slice_bits_ = max_bits_ / (k_ + l_) / 64 * 64;

    // Initial slices as an APBF sized for `capacity` keys per span: g = capacity / l.
    const double gen = std::ceil(static_cast<double>(cfg.capacity) / l_);
    const std::uint64_t initial = detail::slice_bits_for(gen * k_, 64, detail::kMaxTotalBits);
    // Floor on slice size: a burst or a quiet spell must not shrink slices to a few words.
    // A slice holds at least 4k inserts, so a new slice 0 always allows generations of >= 4
    // (eq. 4 never rounds to 0 for a fresh slice), and at least 1/64 of the initial size.
    min_bits_ = std::max(detail::slice_bits_for(4.0 * k_, 64, detail::kMaxTotalBits),
                         std::min(initial / 64, max_slice_bits_) / 64 * 64);
    if (max_slice_bits_ < min_bits_ || max_slice_bits_ == 0)
      throw invalid_parameter("max_memory_bytes", parameter_value(cfg.max_memory_bytes),
                              "is too small: " + std::to_string(k_ + l_) + " slices of at least " +
                                  std::to_string(min_bits_) + " bits are needed");
    std::uint64_t bits = std::clamp(initial, min_bits_, max_slice_bits_);
    if (bits < initial) memory_capped_ = true;
    slices_.resize(k_ + l_);
    for (std::size_t i = 0; i < slices_.size(); ++i) init_slice(slices_[i], i, bits);
    seq_next_ = slices_.size();
    total_bits_ = bits * slices_.size();
    gen_left_ = next_generation();
  }

  static std::unique_ptr<TimeLimitedFilter> load(ByteReader& in) { return SavedForm::load<TimeLimitedFilter>(in); }

  bool may_contain(KeyHash h, Time now) const override {
    Probes x;
    x.compute(h, k_);
    return probes_present(x, now);
  }
  void insert(KeyHash h, Time now) override {
    Probes x;
    x.compute(h, k_);
    set_probes(x, now);
  }
  // The program's path: the k probe hashes are computed once for the query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    Probes x;
    x.compute(h, k_);
    if (probes_present(x, now)) return false;
    set_probes(x, now);
    return true;
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    FilterStats s;
    s.algorithm = "tlbf";
    s.slices = slices_.size();
    s.k = k_;
    s.l = l_;
    s.slice0_bits = slices_.back().bits;
    s.bits_allocated = total_bits_;
    s.keys_inserted = keys_inserted_;
    // Every insert counts once in each of k slices; the live slices' counts over k estimate
    // the inserts inside the window (high by up to a generation whose slice is still live).
    const Time threshold = detail::sat_sub(std::max(now, latest_), span_);
    std::uint64_t live = 0;
    for (const Slice& x : slices_)
      if (x.stamp > threshold) live += x.inserts;
    s.live_keys = (live + k_ - 1) / k_;
    s.bits_per_live_key = s.live_keys ? static_cast<double>(total_bits_) / static_cast<double>(s.live_keys) : 0.0;
    s.memory_capped = memory_capped_;
    s.cap_evictions = cap_evictions_;
    return s;
  }

  void save(ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(Algorithm::tlbf));
    SavedForm::save(*this, out);
  }

  std::uint32_t k() const { return k_; }
  std::uint32_t l() const { return l_; }
  std::size_t slice_count() const { return slices_.size(); }
  std::uint64_t min_slice_bits() const { return min_bits_; }
  std::uint64_t max_slice_bits() const { return max_slice_bits_; }
  // Inserts left before the count-triggered shift (g of eq. 5 minus the inserts since).
  std::uint64_t generation_left() const { return gen_left_; }
  // Slices the filter has ever created (sequence numbers handed out).
  std::uint64_t slices_created() const { return seq_next_; }
  // Position 0 is the newest slice. Throws std::out_of_range for position >= slice_count().
  SliceView slice(std::size_t position) const {
    if (position >= slices_.size()) throw std::out_of_range("tlbf: no slice at position " + std::to_string(position));
    const Slice& s = slices_[slices_.size() - 1 - position];
    SliceView v;
    v.bits = s.bits;
    v.inserts = s.inserts;
    v.stamp = s.stamp;
    v.hash_index = s.hash_index;
    v.ones = detail::count_ones(s.words.data(), s.words.size());
    return v;
  }

 private:
  struct Slice {
    std::vector<std::uint64_t> words;
    std::uint64_t bits = 0;
    std::uint64_t hash_index = 0;
    std::uint64_t inserts = 0;
    Time stamp = kNever;
  };
  static constexpr Time kNever = std::numeric_limits<Time>::min();  // no insert yet: not live
  static constexpr std::uint64_t kMaxInserts = std::uint64_t{1} << 62;

  friend struct SavedForm;
  TimeLimitedFilter() = default;

  // The saved form, field by field (see the top of the file). Loading checks the parameters
  // before it allocates anything and each slice as it arrives, so damaged state is refused.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    ar.u32(f.k_, f.l_);
    ar.i64(f.span_);
    ar.u64(f.min_bits_, f.max_slice_bits_, f.max_bits_);
    ar.u32(f.max_slices_);
    ar.i64(f.latest_);
    ar.flag(f.started_);
    ar.i64(f.gen_start_);
    ar.u64(f.gen_left_, f.gen_inserts_, f.seq_next_, f.keys_inserted_, f.cap_evictions_);
    ar.flag(f.memory_capped_);
    std::uint64_t n = f.slices_.size();
    ar.u64(n);
    if constexpr (Archive::loading) f.check_loaded_parameters(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto& s = f.slices_[i];
      ar.i64(s.stamp);
      ar.u64(s.inserts);
      ar.words(s.words, f.max_slice_bits_ / 64);
      if constexpr (Archive::loading) f.check_loaded_slice(i);
    }
    if constexpr (Archive::loading) f.compute_gen_limit();
  }

  // Every parameter against the others and the hard limits; then room for n slices.
  void check_loaded_parameters(std::uint64_t n) {
    if (k_ == 0 || k_ > detail::kMaxK || l_ == 0) throw state_error("state: tlbf k or l out of range");
    if (max_slices_ < k_ + l_ || max_slices_ > detail::kMaxSlicesHard)
      throw state_error("state: tlbf max_slices out of range");
    if (span_ <= 0) throw state_error("state: tlbf span is not positive");
    if (max_bits_ > detail::kMaxTotalBits || min_bits_ < 64 || min_bits_ % 64 || max_slice_bits_ % 64 ||
        max_slice_bits_ < min_bits_ || max_slice_bits_ > max_bits_ / (k_ + l_))
      throw state_error("state: tlbf size limits inconsistent");
    if (n < k_ + l_ || n > max_slices_ || seq_next_ < n) throw state_error("state: tlbf slice count out of range");
    slices_.resize(n);
  }

  // Slice i (from the oldest) as read: its derived fields, then its bounds.
  void check_loaded_slice(std::size_t i) {
    Slice& s = slices_[i];
    s.bits = s.words.size() * 64;
    s.hash_index = (seq_next_ - slices_.size() + i) % k_;
    if (s.bits < min_bits_) throw state_error("state: tlbf slice smaller than the minimum");
    // A real count stays far below this; refusing more keeps ++inserts from wrapping.
    if (s.inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
    total_bits_ += s.bits;
    if (total_bits_ > max_bits_) throw state_error("state: tlbf slices exceed the memory cap");
  }

  // The key's k probe hashes (probe_hashes()); slice s reads x[s.hash_index]. A shift does
  // not invalidate them: they depend on the key alone.
  static_assert(detail::kMaxK <= detail::kProbeTable, "probe_hashes() must cover every k a filter accepts");
  struct Probes {
    std::uint64_t x[detail::kMaxK];
    void compute(KeyHash h, std::uint32_t k) { probe_hashes(h, k, x); }
  };

  bool probes_present(const Probes& x, Time now) const {
    const Time threshold = detail::sat_sub(std::max(now, latest_), span_);  // live iff stamp > threshold
    const Slice* top = slices_.data() + (slices_.size() - 1);
    return detail::jump_back_query(slices_.size(), k_, [&](std::size_t pos) {
      const Slice& s = *(top - pos);
      return s.stamp > threshold && detail::test_bit(s.words.data(), reduce(x.x[s.hash_index], s.bits));
    });
  }
  void set_probes(const Probes& x, Time now) {
    now = std::max(now, latest_);
    latest_ = now;
    if (!started_) {
      started_ = true;
      gen_start_ = now;
    } else if (gen_left_ == 0 || detail::sat_sub(now, gen_start_) > gen_limit_) {
      shift(now);
    }
    Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::uint32_t pos = 0; pos < k_; ++pos, --s) {
      detail::set_bit(s->words.data(), reduce(x.x[s->hash_index], s->bits));
      ++s->inserts;
      s->stamp = now;
    }
    if (gen_left_ > 0) --gen_left_;
    ++gen_inserts_;
    ++keys_inserted_;
  }

  void init_slice(Slice& s, std::uint64_t seq, std::uint64_t bits) {
    if (s.words.capacity() > 2 * (bits / 64)) s.words = std::vector<std::uint64_t>();  // do not hoard a big buffer
    s.words.assign(bits / 64, 0);  // every word, whatever the buffer held before
    s.bits = bits;
    s.hash_index = seq % k_;
    s.inserts = 0;
    s.stamp = kNever;
  }

  void compute_gen_limit() { gen_limit_ = std::max<Duration>(1, span_ / l_); }

  // The slice at a position (0 = newest).
  Slice& at(std::size_t pos) { return slices_[slices_.size() - 1 - pos]; }
  const Slice& at(std::size_t pos) const { return slices_[slices_.size() - 1 - pos]; }

  // Eq. 4 for the slice at `pos` in 0..k-1; never negative, never wraps.
  std::uint64_t updates_left(std::size_t pos) const {
    const Slice& s = at(pos);
    const std::uint64_t cap = detail::half_fill_capacity(s.bits);
    const std::uint64_t rem = s.inserts >= cap ? 0 : cap - s.inserts;
    return rem / (k_ - pos);
  }
  // Eq. 5, at least 1.
  std::uint64_t next_generation() const {
    std::uint64_t g = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t pos = 0; pos < k_; ++pos) g = std::min(g, updates_left(pos));
    return std::max<std::uint64_t>(g, 1);
  }

  bool live(const Slice& s, Time now) const { return s.stamp > detail::sat_sub(now, span_); }

  // Drops the oldest slice, keeping its buffer for reuse.
  void drop_oldest(std::vector<std::uint64_t>& spare, Time now) {
    Slice& old = slices_.front();
    if (live(old, now)) {
      ++cap_evictions_;
      memory_capped_ = true;
    }
    total_bits_ -= old.bits;
    if (old.words.capacity() > spare.capacity()) spare = std::move(old.words);
    slices_.erase(slices_.begin());
  }

  void shift(Time now) {
    // 1. Target generation from the observed rate (eq. 6).
    const Duration ts = std::max<Duration>(1, detail::sat_sub(now, gen_start_));
    const double seen = static_cast<double>(gen_inserts_);
    double tg = seen * static_cast<double>(span_) / (static_cast<double>(ts) * l_);
    tg = std::min(tg, kMaxGrowth * std::max(seen, 1.0)) * kHeadroom;

    // 2. Expired slices still in the insert range start over empty.
    for (std::size_t pos = 0; pos + 1 < k_; ++pos) {
      Slice& s = at(pos);
      if (!live(s, now) && s.inserts != 0) {
        std::fill(s.words.begin(), s.words.end(), std::uint64_t{0});
        s.inserts = 0;
      }
    }

    // 3. Capacity of the new slice 0 (eqs. 7-8). Old position p becomes p + 1.
    double c0 = k_ * tg;
    if (k_ > 1) {
      std::size_t j = 0;
      std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
      for (std::size_t pos = 0; pos + 1 < k_; ++pos) {
        const Slice& s = at(pos);
        const std::uint64_t cap = detail::half_fill_capacity(s.bits);
        const std::uint64_t rem = s.inserts >= cap ? 0 : cap - s.inserts;
        const std::uint64_t u = rem / (k_ - (pos + 1));
        if (u < best) {
          best = u;
          j = pos + 1;
          c0 = static_cast<double>(rem);
        }
      }
      c0 = std::min(c0, static_cast<double>(k_ - j) * tg) + static_cast<double>(j) * tg;
    }
    std::uint64_t m0 = detail::slice_bits_for(c0, min_bits_, max_slice_bits_ + 64);
    if (m0 > max_slice_bits_) {
      m0 = max_slice_bits_;
      memory_capped_ = true;
    }

    // 4. Retire expired slices beyond k + l - 1, then enforce the caps.
    std::vector<std::uint64_t> spare;
    while (slices_.size() >= k_ + l_ && !live(slices_.front(), now)) drop_oldest(spare, now);
    while (slices_.size() >= max_slices_) drop_oldest(spare, now);
    while (slices_.size() >= k_ + l_ && total_bits_ + m0 > max_bits_) drop_oldest(spare, now);
    if (total_bits_ + m0 > max_bits_) {  // only reachable from a hand-made state; stay within the cap
      m0 = std::max<std::uint64_t>(64, (max_bits_ - std::min(max_bits_, total_bits_)) / 64 * 64);
      memory_capped_ = true;
    }
    slices_.emplace_back();
    slices_.back().words = std::move(spare);
    init_slice(slices_.back(), seq_next_++, m0);
    total_bits_ += m0;

    // 5. Next generation (eq. 5).
    gen_left_ = next_generation();
    gen_inserts_ = 0;
    gen_start_ = now;
  }

  std::uint32_t k_ = 0, l_ = 0;
  Duration span_ = 0;
  Duration gen_limit_ = 1;  // span / l, at least 1 ns: longest a generation may stay open
  std::uint64_t min_bits_ = 0, max_slice_bits_ = 0, max_bits_ = 0;
  std::uint32_t max_slices_ = 0;
  std::vector<Slice> slices_;  // oldest first; slices_.back() is position 0
  std::uint64_t total_bits_ = 0;
  std::uint64_t seq_next_ = 0;
  Time latest_ = kNever;
  bool started_ = false;
  Time gen_start_ = 0;
  std::uint64_t gen_left_ = 0;
  std::uint64_t gen_inserts_ = 0;
  std::uint64_t keys_inserted_ = 0;
  std::uint64_t cap_evictions_ = 0;
  bool memory_capped_ = false;
};

}  // namespace tlbf
