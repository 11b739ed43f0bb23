// SPDX-License-Identifier: MIT
// TimeLimitedFilter, what both storage layouts of the time-limited Bloom filter share
// (time_limited.hpp says what the filter promises): the slices' metadata and generations, the
// window rule (a run is accepted iff its last insert is younger than the span), the rate model
// that sizes each new slice, the shift, the caps and the slices of older saved formats that
// still answer. A layout class (time_limited_sliced.hpp, time_limited_slice_major.hpp) stores
// the bits, answers and inserts, and places each shift's new slice. docs/filters.md derives
// the rules and numbers the shift's steps, which the comments here cite.
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
#include "tlbf/detail/level_scan.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/detail/run_cells.hpp"
#include "tlbf/detail/tlbf_slices.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/slice_view.hpp"

namespace tlbf {

// The layouts, final classes: make() and load() choose one.
class BitSlicedTimeLimitedFilter;
class SliceMajorTimeLimitedFilter;

class TimeLimitedFilter : public WindowFilter {
 public:
  // Headroom on the target generation and the most a generation's rate estimate may
  // exceed the inserts actually seen (shift step 1).
  static constexpr double kHeadroom = 1.03;
  static constexpr double kMaxGrowth = 4.0;
  // Bit-sliced: the growth limit of a rate measured over a cell or more, which is no clock
  // artefact; a burst then takes one era of its own size rather than a ladder of 4x steps.
  static constexpr double kMaxGrowthMeasured = 16.0;
  // Bit-sliced: the growth limit of a rate beyond kMaxGrowth measured over less than a cell
  // (and more than 1/1024 of one): a backlog of unknown length, such as a file read without
  // event times or a bulk load. An era's slices share one size, so each step multiplies the
  // memory of all of them, not the new slice's: a backlog that stops soon after a step holds
  // k slices sized for a pace it did not keep. At 4 a step that was 310-2,000 bits per key
  // (10^5 to 3 x 10^6 keys, -e 1e-5); at 2, 88-143 (bench/eras.cpp). A rate within one
  // step's reach is still taken in one step.
  static constexpr double kMaxGrowthSliced = 2.0;
  // Slices of more bits than this in all are taken to be beyond the L2 cache: the batch
  // prefetches each key's cells (bit-sliced), the query fetches each surviving run's next
  // word while it tests the current level (slice-major). In cache a hint costs about as many
  // instructions as the read it fetches for.
  static constexpr std::uint64_t kPrefetchingQueryBits = detail::kPrefetchFromBits;
  // How fast the fill falls as runs pile up past l + 1 (fill_log_for()): above 1, so that
  // their chance bits add up to a bounded share of the model's rate, half of it at 3; for
  // k >= 6 (excess_runs_exponent()).
  static constexpr double kExcessRunsExponent = 3.0;

  // The layout for an error rate: the fewest bits per key under the TLBF's own rate model,
  // averaged over a generation with this filter's headroom (params.hpp, tlbf_fpr()).
  static SliceLayout choose_layout(double error_rate, std::uint32_t max_kl) {
    return choose_tlbf_kl(error_rate, max_kl, kHeadroom);
  }

  // A filter in the layout cfg.tlbf_layout asks for (bit-sliced only while k + l <= 64);
  // throws invalid_parameter naming the first bad field. Defined in time_limited.hpp.
  static std::unique_ptr<TimeLimitedFilter> make(const FilterConfig& cfg);

  // Bits of slices that cfg.capacity keys per span take once a steady stream has filled the
  // window: k + l slices of the size a filter built for cfg starts with, before any memory cap
  // (compare with cfg.max_memory_bytes to see whether it would bind). Nothing is allocated.
  static std::uint64_t window_bits_for(const FilterConfig& cfg) {
    const Sizing z = sizing_for(cfg);
    return std::max(z.initial_bits, z.floor_bits) * (std::uint64_t{z.layout.k} + z.layout.l);
  }

  // Reads what save() wrote after the tag byte, in the layout it was saved in (a state of an
  // older format: time_limited_state.hpp); throws state_error. Defined in time_limited_state.hpp.
  static std::unique_ptr<TimeLimitedFilter> load(ByteReader& in);

  FilterStats stats(Time now) const override {
    now = std::max(now, latest_);
    FilterStats s;
    s.algorithm = "tlbf";
    s.slices = slices_.size();
    s.k = k_;
    s.l = l_;
    s.slice0_bits = slices_.back().bits;
    s.bits_allocated = total_bits_ + older_format_bits();
    s.peak_bits_allocated = std::max(peak_bits_, s.bits_allocated);
    s.keys_inserted = keys_inserted_;
    // Every insert counts once in each of k slices; the live slices' counts over k estimate
    // the inserts inside the window (high by up to a generation whose slice is still live).
    const Time threshold = detail::sat_sub(now, span_);
    std::uint64_t live = 0;
    for (std::size_t i = 0; i < slices_.size(); ++i)
      if (stamp_of(i) > threshold) live += inserts_of(i);
    for (const Slice& x : format2_)
      if (x.stamp > threshold) live += x.inserts;
    s.live_keys = (live + k_ - 1) / k_;
    s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0.0;
    s.memory_capped = memory_capped_;
    s.cap_evictions = cap_evictions_;
    if (cap_horizon_ != kNever) s.effective_span = std::clamp<Duration>(detail::sat_sub(now, cap_horizon_), 0, span_);
    return s;
  }

  std::uint32_t k() const { return k_; }
  std::uint32_t l() const { return l_; }
  TlbfLayout layout() const { return sliced_ ? TlbfLayout::bit_sliced : TlbfLayout::slice_major; }
  std::size_t slice_count() const { return slices_.size(); }
  // Bit-sliced: the live eras (0 in the slice-major layout), and era i (0 = the newest): its
  // slices, its cells' slots and each slice's bits. Throws std::out_of_range past the oldest.
  virtual std::size_t era_count() const { return 0; }
  struct EraView {
    std::uint64_t slices, slots, bits;
  };
  virtual EraView era(std::size_t i) const {
    throw std::out_of_range("tlbf: no era " + std::to_string(i) + " in the slice-major layout");
  }
  std::uint64_t min_slice_bits() const { return min_bits_; }
  std::uint64_t max_slice_bits() const { return max_slice_bits_; }
  // Length of a grid cell: the longest a generation lasts, and the slack of the window.
  Duration cell() const { return cell_; }
  // Inserts left before the count-triggered shift (g of eq. 5 minus the inserts since).
  std::uint64_t generation_left() const { return gen_left_; }
  // Slices the filter has ever created (sequence numbers handed out).
  std::uint64_t slices_created() const { return seq_next_; }
  // Slices still answering for a state of an older format (0 once they have expired).
  std::size_t legacy_slice_count() const { return legacy_.slices.size() + format2_.size(); }
  // Position 0 is the newest slice. Throws std::out_of_range for position >= slice_count().
  SliceView slice(std::size_t position) const {
    if (position >= slices_.size()) throw std::out_of_range("tlbf: no slice at position " + std::to_string(position));
    const std::size_t i = slices_.size() - 1 - position;
    const Slice& s = slices_[i];
    SliceView v;
    v.bits = s.bits;
    v.inserts = inserts_of(i);
    v.stamp = stamp_of(i);
    v.run_last = s.own_last;
    v.ones = ones_at(position);
    return v;
  }
  // Whether the slice at a position (0 = newest) has the bit probe value x lands on
  // (reduce(x, its bits)): for tests that check the query against a run-by-run search. Throws
  // std::out_of_range for position >= slice_count().
  bool slice_bit(std::size_t position, std::uint64_t x) const {
    if (position >= slices_.size()) throw std::out_of_range("tlbf: no slice at position " + std::to_string(position));
    return bit_at(position, x);
  }
  // The words of the slice at a position (0 = newest), read-only and without slice()'s count
  // of ones, for a benchmark that counts the words a query reads (bench/load_floor.hpp); in
  // the bit-sliced layout `words` is null (the slice is a slot of its era's cells, which
  // slice_bit() reads). No caller in the library or the program: it changes no decision and
  // costs nothing else.
  struct SliceWords {
    const std::uint64_t* words;
    std::uint64_t bits;
    Time run_last;  // the last insert of the generation that opened it (its run's e_G)
  };
  SliceWords slice_words(std::size_t position) const {
    const Slice& s = slices_.at(slices_.size() - 1 - position);
    return {sliced_ ? nullptr : s.words.data(), s.bits, s.own_last};
  }

 protected:
  using Slice = detail::TlbfSlice;
  using SliceList = detail::TlbfSliceList;
  static constexpr Time kNever = detail::kTlbfNever;
  static constexpr std::uint64_t kMaxInserts = std::uint64_t{1} << 62;
  static constexpr std::uint8_t kFormat = 3;

  explicit TimeLimitedFilter(bool sliced) : sliced_(sliced) {}

  // --- What a layout supplies ----------------------------------------------------------

  // The ones of the slice at a position (0 = newest), and whether it has the bit probe value
  // x lands on; the position is checked.
  virtual std::uint64_t ones_at(std::size_t position) const = 0;
  virtual bool bit_at(std::size_t position, std::uint64_t x) const = 0;
  // The first slices, each of `bits`.
  virtual void start_slices(std::uint64_t bits) = 0;
  // Shift step 2: the bits of the expired slice at `position` in the insert range, cleared.
  virtual void clear_bits(std::size_t position) = 0;
  // Shift steps 3-4: the new slice 0, its size and place; retiring and caps.
  virtual void add_slice(Time now, double tg, Duration measured_over) = 0;

  // --- Construction and loading --------------------------------------------------------

  friend struct SavedForm;

  // What a configuration asks of the constructor, checked, before anything is allocated.
  struct Sizing {
    SliceLayout layout;
    bool sliced = false;
    std::uint64_t initial_bits = 0;  // each first slice, for capacity / l keys per generation
    std::uint64_t floor_bits = 0;    // a slice for 4k inserts
  };
  static Sizing sizing_for(const FilterConfig& cfg) {
    if (cfg.span <= 0) throw invalid_parameter("span", parameter_value(cfg.span), "must be > 0 ns for tlbf");
    check_capacity(cfg.capacity);
    Sizing z;
    z.layout = detail::resolve_layout(cfg, choose_layout);
    const std::uint32_t k = z.layout.k, l = z.layout.l;
    z.sliced = cfg.tlbf_layout == TlbfLayout::bit_sliced && k + l <= detail::RunCells::kMaxSlices;
    if (cfg.max_slices < k + l || cfg.max_slices > detail::kMaxSlicesHard)
      throw invalid_parameter(
          "max_slices", parameter_value(cfg.max_slices),
          "must be in [k + l = " + std::to_string(k + l) + ", " + std::to_string(detail::kMaxSlicesHard) + "]");
    // The first slices as an APBF's sized for `capacity` keys per span: g = capacity / l.
    const double gen = std::ceil(static_cast<double>(cfg.capacity) / l);
    z.initial_bits =
        detail::slice_bits_for(gen * k * (z.sliced ? kHeadroom * kHeadroom : 1.0), 64, detail::kMaxTotalBits);
    z.floor_bits = detail::slice_bits_for(4.0 * k, 64, detail::kMaxTotalBits);
    return z;
  }

  static FilterConfig in_layout(FilterConfig cfg, TlbfLayout layout) {
    cfg.tlbf_layout = layout;
    return cfg;
  }
  // The constructor of a layout: the parameters, checked, then its first slices.
  void configure(const FilterConfig& cfg) {
    const Sizing z = sizing_for(cfg);
    if (z.sliced != sliced_)
      throw invalid_parameter("k", parameter_value(z.layout.k),
                              "the bit-sliced layout needs k + l <= " + std::to_string(detail::RunCells::kMaxSlices));
    k_ = z.layout.k;
    l_ = z.layout.l;
    span_ = cfg.span;
    compute_cell();
    max_slices_ = cfg.max_slices;
    max_bits_ = detail::memory_cap_bits(cfg);
    max_slice_bits_ = max_bits_ / (k_ + l_) / 64 * 64;
    // Floor on slice size: a burst or a quiet spell must not shrink slices to a few words.
    // A slice holds at least 4k inserts, so a new slice 0 always allows generations of >= 4
    // (eq. 4 never rounds to 0 for a fresh slice), and at least 1/64 of the initial size.
    min_bits_ = std::max(z.floor_bits, std::min(z.initial_bits / 64, max_slice_bits_) / 64 * 64);
    if (max_slice_bits_ < min_bits_ || max_slice_bits_ == 0)
      throw invalid_parameter("max_memory_bytes", parameter_value(cfg.max_memory_bytes),
                              "is too small: " + std::to_string(k_ + l_) + " slices of at least " +
                                  std::to_string(min_bits_) + " bits are needed");
    std::uint64_t bits = std::clamp(z.initial_bits, min_bits_, max_slice_bits_);
    if (bits < z.initial_bits) memory_capped_ = true;
    start_slices(bits);
    peak_bits_ = total_bits_;
    gen_left_ = next_generation();
  }

  // The saved form (time_limited_state.hpp): both layouts' fields, the layout's own through
  // Self, and the formats before it.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar);
  template <class Self, class Archive>
  static void visit_format2_slices(Self& f, Archive& ar);
  template <class Archive>
  void load_format2(Archive& ar);
  template <class Archive>
  void load_format1(std::uint32_t k, Archive& ar);
  void check_loaded_parameters(std::uint64_t n, bool sliced);
  void check_loaded_slice(std::size_t i, bool sliced);
  template <class Slices>
  static void check_loaded_runs(const Slices& v);
  // The layout a saved payload is loaded in, read from a copy of the reader.
  static bool loads_bit_sliced(ByteReader in);

  // --- The window rule -----------------------------------------------------------------

  static_assert(detail::kMaxK <= detail::kProbeTable, "run_probe() must cover every k a filter accepts");

  // The runs of `v` (oldest first, k slices per run) accepted when a run is accepted iff its
  // last insert is after `threshold`: runs 0..J-1, returned as J. Runs never get newer with
  // age (check_loaded_runs()), so the accepted ones are the first J and J is found by
  // bisection (about log2(l) steps instead of l + 1), in a form the compiler makes
  // branch-free: on a stream about half of the steps go each way.
  template <class Slices>
  static std::size_t accepted_in(const Slices& v, std::uint32_t k, Time threshold) {
    if (v.size() < k) return 0;
    const Slice* top = v.data() + (v.size() - 1);
    std::size_t first = 0;  // runs before `first` are accepted
    for (std::size_t n = v.size() - k + 1; n > 1;) {
      const std::size_t half = n / 2;
      first = (top - (first + half))->own_last > threshold ? first + half : first;
      n -= half;
    }
    return first + ((top - first)->own_last > threshold);
  }
  std::size_t accepted_runs(Time threshold) const { return accepted_in(slices_, k_, threshold); }

  // accepted_runs(threshold), found by walking from the count this function returned last
  // (runs_hint_) instead of bisecting: the answer J is the one count with run J - 1 accepted
  // (or J = 0) and run J refused (or J = the number of runs), and since runs never get newer
  // with age (check_loaded_runs()) that J is accepted_runs(threshold). So the result is exact
  // whatever the hint was, provided it is at most the number of runs (drop_oldest() clamps
  // it). On the program's path the threshold rises with the stream and the runs change only
  // at a shift, so the walk takes no step on most records and one when a run expires or a
  // shift renumbers the runs; an earlier time after a later query walks back up.
  std::size_t accepted_runs_from_hint(Time threshold) {
    const Slice* top = slices_.data() + (slices_.size() - 1);
    const std::size_t runs = slices_.size() - k_ + 1;
    std::size_t j = runs_hint_;
    while (j > 0 && (top - (j - 1))->own_last <= threshold) --j;
    while (j < runs && (top - j)->own_last > threshold) ++j;
    runs_hint_ = j;
    return j;
  }

  // A run is accepted iff its last insert is after this (the window rule, at the later of
  // now and the latest time seen).
  Time query_threshold(Time now) const { return detail::sat_sub(std::max(now, latest_), span_); }

  // --- Slices that hold their own words: the slice-major layout, format-2 slices --------

  // Where probe value x falls in slice s.
  static detail::ProbeSite site(const Slice& s, std::uint64_t x) {
    const std::uint64_t bit = reduce(x, s.bits);
    return {s.words.data() + (bit >> 6), bit & 63};
  }

  // The run query over the slices of `v` (oldest first), whose accepted runs are runs
  // 0..runs-1, level by level (detail/level_scan.hpp). The slice at position j + p of run j
  // reads probe value x_p (detail::run_probe()), the same at every run of a level, so the
  // compiler makes it once per level, outside the loop over the survivors. Beyond the cache
  // (`bits` in all) each survivor's next word is fetched while the current level is tested.
  template <class Slices>
  bool slices_hold(const Slices& v, KeyHash h, std::size_t runs, std::uint64_t bits) const {
    if (runs == 0) return false;
    const Slice* top = v.data() + (v.size() - 1);
    if (bits > kPrefetchingQueryBits)
      return detail::any_run_all_hit_prefetching(
          runs, k_, [&](std::size_t j, std::uint32_t p) { return site(*(top - (j + p)), detail::run_probe(h, p)); });
    return detail::any_run_all_hit(runs, k_, [&](std::size_t j, std::uint32_t p) {
      // site(...).hit() reads the same bit, but splitting the index into word and bit first
      // costs ~74 instructions per record (callgrind, bench/profile.sh).
      const Slice& s = *(top - (j + p));
      return detail::test_bit(s.words.data(), reduce(detail::run_probe(h, p), s.bits));
    });
  }

  // --- Inserts, generations and shifts ------------------------------------------------

  // The slices of older formats still answering: format-2 slices run by run, format-1 ones
  // with the jump-back scan; both only while live.
  bool older_formats_hold(KeyHash h, Time threshold) const {
    return (!format2_.empty() || !legacy_.slices.empty()) && older_slices_hold(h, threshold);
  }
  [[gnu::noinline]] bool older_slices_hold(KeyHash h, Time threshold) const {
    if (!format2_.empty() && slices_hold(format2_, h, accepted_in(format2_, k_, threshold), 0)) return true;
    return !legacy_.slices.empty() &&
           legacy_.may_contain(h, k_, [&](const detail::LegacySlices::Slice& s) { return s.age > threshold; });
  }
  std::uint64_t older_format_bits() const { return format2_bits_ + legacy_.bits(); }

  // An insert's clock and shift; then the caller sets the bits and close_insert() counts.
  Time open_insert(Time now) {
    now = std::max(now, latest_);
    latest_ = now;
    if (!started_) {
      started_ = true;
      gen_start_ = now;
      gen_end_ = detail::cell_end(now, cell_);
    } else if (gen_left_ == 0 || now > gen_end_) {
      shift(now);
    }
    return now;
  }
  void close_insert(Time now) {
    slices_.back().own_last = now;  // also the stamp of positions 0..k-1 (stamp_of())
    if (gen_left_ > 0) --gen_left_;
    ++gen_inserts_;
    ++keys_inserted_;
  }

  // Each insert counts once in each slice at positions 0..k-1 and stamps them with its time;
  // the inserts leave both to these, for the inserts of the current generation not yet
  // counted in the slices (gen_inserts_ - gen_counted_): k writes to k Slice structs fewer per
  // insert. The slice at index i (from the oldest) as it would be had every insert updated
  // it: its insert count, and its stamp, the generation's last insert (position 0's own_last).
  std::uint64_t inserts_of(std::size_t i) const {
    return slices_[i].inserts + (i + k_ >= slices_.size() ? gen_inserts_ - gen_counted_ : 0);
  }
  Time stamp_of(std::size_t i) const {
    return i + k_ >= slices_.size() && gen_inserts_ != gen_counted_ ? slices_.back().own_last : slices_[i].stamp;
  }
  // Writes those counts and stamps into positions 0..k-1, before anything that reads or
  // changes the slices directly (shift()).
  void count_generation() {
    for (std::size_t i = slices_.size() - k_; i < slices_.size(); ++i) {
      slices_[i].stamp = stamp_of(i);
      slices_[i].inserts = inserts_of(i);
    }
    gen_counted_ = gen_inserts_;
  }

  // A slice's metadata, empty (a slice-major slice's words are its layout's).
  static void reset_slice(Slice& s, std::uint64_t bits) {
    s.bits = bits;
    s.inserts = 0;
    s.upsampled = 0;
    s.stamp = kNever;
    s.own_last = kNever;
  }
  // Both counts stay under kMaxInserts (2^62), so the sum cannot wrap.
  static std::uint64_t fill_inserts(const Slice& s) { return s.inserts + s.upsampled; }

  void compute_cell() { cell_ = std::max<Duration>(1, span_ / l_); }

  // The slice at a position (0 = newest).
  Slice& at(std::size_t pos) { return slices_[slices_.size() - 1 - pos]; }
  const Slice& at(std::size_t pos) const { return slices_[slices_.size() - 1 - pos]; }

  // Inserts a slice of `bits` can take. Slice-major: until it is half full (eq. 8's m ln2).
  // Bit-sliced, and slice-major while the memory cap keeps its slices at the largest size:
  // until it reaches the fill the layout was chosen for, fill_log_ (shift step 5), since the
  // slices may be sized for a slower rate than the stream's (capped, they are).
  std::uint64_t capacity(std::uint64_t bits) const {
    return filled_to_layout() ? static_cast<std::uint64_t>(std::floor(static_cast<double>(bits) * fill_log_))
                              : detail::half_fill_capacity(bits);
  }
  bool filled_to_layout() const { return sliced_ || slices_.back().bits >= max_slice_bits_; }

  // Eq. 4 for the slice at `pos` in 0..k-1, relaxed: the generation may take the slice's
  // remaining capacity less `reserve` inserts for each later generation the slice will
  // receive, when that is more than the even share rem / (k - pos). Never more than rem, so
  // no slice passes half full whatever the later generations take; never negative, never
  // wraps (reserve <= 2^43, k <= 1024). `cap` is capacity() of the slice's size. When the
  // slice may take `below` or more, the result is only some value >= `below` (found without
  // a division): next_generation() wants just the least over the positions.
  std::uint64_t updates_left(std::size_t pos, std::uint64_t cap, std::uint64_t reserve, std::uint64_t below) const {
    const std::uint64_t filled = fill_inserts(at(pos));
    const std::uint64_t rem = filled >= cap ? 0 : cap - filled;
    const std::uint64_t held = (k_ - 1 - pos) * reserve;
    if (held < rem && rem - held >= below) return rem - held;
    return std::max(rem / (k_ - pos), held < rem ? rem - held : 0);
  }
  // Eq. 5 with the relaxed eq. 4, at least 1. The reserve is the generation slice 0 was
  // sized for (its capacity over k and the headroom): a generation of a steady stream then
  // ends by count only when the inserts of the slice's k generations together pass the
  // headroom, not when one generation passes its even share, so a small headroom keeps the
  // generations ending by time (shift step 1). At each shift, so the capacity is computed once
  // a slice size (an era's slices share theirs).
  std::uint64_t next_generation() const {
    std::uint64_t size = at(0).bits, cap = capacity(size);
    const auto reserve = static_cast<std::uint64_t>(static_cast<double>(cap) / (k_ * kHeadroom));
    std::uint64_t g = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t pos = 0; pos < k_; ++pos) {
      if (at(pos).bits != size) cap = capacity(size = at(pos).bits);
      g = std::min(g, updates_left(pos, cap, reserve, g));
    }
    return std::max<std::uint64_t>(g, 1);
  }

  bool live(const Slice& s, Time now) const { return s.stamp > detail::sat_sub(now, span_); }

  // Dropping the oldest slice, in the layouts' drop_oldest(): first its count, when it is
  // live, as a cap binding (the keys of the runs through it, inserted up to its last update,
  // may no longer be found); after the layout let go of its bits, its place.
  void count_drop(const Slice& old, Time now) {
    if (live(old, now)) {
      ++cap_evictions_;
      memory_capped_ = true;
      cap_horizon_ = std::max(cap_horizon_, old.stamp);
      note_cap_bound();
    }
  }
  void pop_oldest() {
    slices_.pop_front();
    runs_hint_ = std::min<std::size_t>(runs_hint_, slices_.size() >= k_ ? slices_.size() - k_ + 1 : 0);
  }

  // Inserts over a stretch of time ending now, for the rate of eq. 6.
  struct RateSample {
    double inserts = 0;
    Duration duration = 1;
    double generations = 1;
    double allowed = 0;  // inserts the ending generation could have taken (eq. 5)
  };
  // The ending generation alone (the paper's estimate) when it lasted a cell or more;
  // otherwise it and the generations before it, back to one cell or more. A generation cut
  // short by its cell holds few inserts, and sized from those alone the next slice is too
  // small, fills by count, and the filter adds slices it never needed. For the same reason
  // the growth limit is relative to what the ending generation could take (or the mean of
  // the sample), not to what it took.
  // Generation q (the one that opened the slice at position q, 1 <= q < k) inserted
  // inserts(q) - inserts(q - 1): each insert counts once in every slice of positions
  // 0..k-1. It began after e_{q+1} (the previous generation's last insert) and inside the
  // cell of its own last insert e_q. Generations that ended before the last two cells are
  // left out, so an idle gap does not dilute the rate of the stream after it, and so is the
  // generation the stream began in, whose start is unknown.
  RateSample recent_rate(Time now) const {
    RateSample r;
    r.inserts = static_cast<double>(gen_inserts_);
    r.allowed = static_cast<double>(gen_inserts_) + static_cast<double>(gen_left_);
    r.duration = std::max<Duration>(1, detail::sat_sub(now, gen_start_));
    const Time recent = detail::sat_sub(detail::sat_sub(now, cell_), cell_);
    for (std::size_t q = 1; r.duration < cell_ && q < k_ && q + 1 < slices_.size(); ++q) {
      const Slice& s = at(q);
      const Slice& newer = at(q - 1);
      const Time before = at(q + 1).own_last;  // kNever: the stream began inside generation q
      if (s.own_last == kNever || before == kNever || s.own_last < recent || s.inserts < newer.inserts) break;
      const Time began = std::max(before, detail::sat_sub(detail::cell_end(s.own_last, cell_), cell_));
      r.inserts += static_cast<double>(s.inserts - newer.inserts);
      r.duration = std::max(r.duration, detail::sat_sub(now, began));
      r.generations += 1;
    }
    return r;
  }

  // A rate measured over less than 1/1024 of a cell: inserts the clock cannot tell apart
  // (a burst within one tick), no rate at all.
  bool within_a_tick(Duration measured_over) const { return measured_over < cell_ / 1024; }

  // Step 1: the target generation, inserts per span / l, with the headroom.
  double target_generation(Time now, Duration& measured_over) const {
    const RateSample r = recent_rate(now);
    measured_over = r.duration;
    double tg = r.inserts * static_cast<double>(span_) / (static_cast<double>(r.duration) * l_);
    // At a steady rate the k generations of the slice at position k - 1 estimate it about
    // sqrt(k) times more closely: take theirs while it lies within two standard deviations
    // (Poisson) of the ending generation's, its edge otherwise, so a change of rate is still
    // followed from one generation.
    if (const Slice& oldest = at(k_ - 1); oldest.inserts > 0 && slices_.size() > k_ && at(k_).own_last != kNever) {
      const Duration d = std::max<Duration>(1, detail::sat_sub(now, at(k_).own_last));
      const double band = 2.0 / std::sqrt(std::max(r.inserts, 1.0));
      tg = std::clamp(static_cast<double>(oldest.inserts) * static_cast<double>(span_) / (static_cast<double>(d) * l_),
                      tg * (1.0 - band), tg * (1.0 + band));
    }
    // Bit-sliced, what the ending generation could have taken at the layout's fill: a fill
    // lowered for extra runs (fill_log_for()) makes generations short, and a limit on their
    // size would hold the rate, and the era, where the extra runs came from.
    const double allowed = sliced_ ? r.allowed * fill_shortfall(now) : r.allowed;
    const double base = std::max({r.inserts / r.generations, allowed, 1.0});
    double growth = sliced_ && r.duration >= cell_ ? kMaxGrowthMeasured : kMaxGrowth;
    // Bit-sliced, a rate beyond one step's reach, measured over less than a cell (but not
    // within one clock tick, which grows by new eras) is a backlog of unknown length.
    if (sliced_ && r.duration < cell_ && !within_a_tick(r.duration) && tg > growth * base) growth = kMaxGrowthSliced;
    return std::min(tg, growth * base) * kHeadroom;
  }

  void shift(Time now) {
    count_generation();
    // 1. Target generation from the observed rate (eq. 6), over at least one cell.
    Duration measured_over = 0;
    const double tg = target_generation(now, measured_over);

    // 2. Expired slices still in the insert range start over empty.
    for (std::size_t pos = 0; pos + 1 < k_; ++pos) {
      Slice& s = at(pos);
      if (!live(s, now) && s.inserts != 0) {
        clear_bits(pos);
        s.inserts = 0;
        s.upsampled = 0;
      }
    }

    // 3-4. The new slice 0, its size and place; retiring and caps.
    add_slice(now, tg, measured_over);
    ++seq_next_;
    const Time threshold = detail::sat_sub(now, span_);
    legacy_.retire([&](const detail::LegacySlices::Slice& s) { return s.age <= threshold; });
    while (!format2_.empty() && !live(format2_.front(), now)) {
      format2_bits_ -= format2_.front().bits;
      format2_.erase(format2_.begin());
    }
    peak_bits_ = std::max(peak_bits_, total_bits_ + older_format_bits());

    // 5. Next generation (eq. 5), to the end of now's cell at most.
    if (filled_to_layout()) set_fill_target(older_runs_accepted(threshold) + 1);
    gen_left_ = next_generation();
    gen_inserts_ = 0;
    gen_counted_ = 0;
    gen_start_ = now;
    gen_end_ = detail::cell_end(now, cell_);
  }

  // Runs 1.. accepted at `threshold` (run 0, the new slice's, has no insert yet).
  std::size_t older_runs_accepted(Time threshold) const {
    std::size_t j = 1;
    while (j + k_ <= slices_.size() && at(j).own_last > threshold) ++j;
    return j - 1;
  }
  // The fill a bit-sliced slice may reach, as -ln(1 - f) (inserts per bit), for a generation
  // that starts with `runs` accepted (its own included): the layout's f_h = 1 - 2^(-1/h),
  // where the rate model puts a slice that ends its k generations by time (params.hpp,
  // tlbf_fpr()), and lower past l + 1 runs (slices sized for a slower rate end their
  // generations by count, and the filter holds more of them): the run's chance bits, f^k,
  // are f_h^k ((l + 1) / runs)^kExcessRunsExponent. Runs only expire oldest first, so the run
  // at age rank i among those accepted at a query found at least i - k + 1 accepted when any
  // generation that filled its slices started; the ranks past l + k then add at most
  // (l + 1) / (kExcessRunsExponent - 1) runs at the layout's fill, however many pile up
  // (with exponent 1, a share of 1 / runs each, they added (l + 1) ln(runs / (l + 1)): 3-4
  // times the target after a jump of the rate; docs/filters.md).
  double fill_log_for(std::size_t runs) const {
    double f = -std::expm1(-detail::kLn2 / kHeadroom);
    if (runs > l_ + 1)
      f *= std::pow(static_cast<double>(l_ + 1) / static_cast<double>(runs), excess_runs_exponent() / k_);
    return -std::log1p(-f);
  }
  // kExcessRunsExponent where it is at most k / 2, else 1 (the exponent before issue 52). At
  // a given rate and slice size a generation holds inserts in proportion to the fill, so the
  // runs of a span grow as runs^(exponent / k), and the era policy sizes for the fill of the
  // runs (fill_shortfall()): at exponent / k <= 1/2, slices at most sqrt(runs / (l + 1))
  // times larger. With 3 at k = 1 the fill fell as the cube of the runs: generations of one
  // insert, hundreds of runs, and slices of 2^32 bits asked for (the unit test "with k = 1
  // no era is left without slices behind a newer one" took 62 s). choose_layout() picks
  // k >= 6 for any -e up to 0.1; a smaller k (-e above 0.1, or k given) keeps the fill of
  // before, whose excess runs add up as a harmonic sum.
  double excess_runs_exponent() const { return k_ >= 2 * kExcessRunsExponent ? kExcessRunsExponent : 1.0; }
  void set_fill_target(std::size_t runs) { fill_log_ = fill_log_for(runs); }
  // Bit-sliced: how many times fewer inserts a bit takes at the fill of a generation started
  // now than at the layout's (1 with at most l + 1 runs accepted). From the runs, not from
  // fill_log_, which is not saved: a loaded filter shifts as the one it was saved from.
  double fill_shortfall(Time now) const {
    return detail::kLn2 / kHeadroom / fill_log_for(accepted_runs(detail::sat_sub(now, span_)) + 1);
  }

  std::uint32_t k_ = 0, l_ = 0;
  Duration span_ = 0;
  Duration cell_ = 1;  // max(1, span / l): the grid generations keep to
  std::uint64_t min_bits_ = 0, max_slice_bits_ = 0, max_bits_ = 0;
  std::uint32_t max_slices_ = 0;
  const bool sliced_;  // the bit-sliced layout, else slice-major: the layout class's
  SliceList slices_;   // oldest first; slices_.back() is position 0
  std::uint64_t total_bits_ = 0;
  std::uint64_t peak_bits_ = 0;
  std::uint64_t seq_next_ = 0;
  Time latest_ = kNever;
  bool started_ = false;
  Time gen_start_ = 0;
  Time gen_end_ = 0;  // end of the cell the current generation started in
  std::uint64_t gen_left_ = 0;
  std::uint64_t gen_inserts_ = 0;
  std::uint64_t gen_counted_ = 0;  // of gen_inserts_, those counted in the slices (inserts_of())
  std::uint64_t keys_inserted_ = 0;
  std::uint64_t cap_evictions_ = 0;
  bool memory_capped_ = false;
  Time cap_horizon_ = kNever;  // newest last update of a live slice a cap dropped
  // The era policy's slow rule: the side (1 over, 2 under) the rate has been on since.
  Time drift_since_ = 0;
  std::uint8_t drift_side_ = 0;
  // -ln(1 - f) for the fill f a bit-sliced slice may reach (set_fill_target()); only the
  // generation size is made from it, at each shift, so it is not saved.
  double fill_log_ = detail::kLn2 / kHeadroom;
  // insert_if_absent()'s last count of accepted runs, where its next count starts (never more
  // than the runs there are; not saved: a loaded filter starts from 0).
  std::size_t runs_hint_ = 0;
  std::vector<Slice> format2_;  // a format-2 state's slices, answering until they expire
  std::uint64_t format2_bits_ = 0;
  detail::LegacySlices legacy_;
};

}  // namespace tlbf
