// Time-limited Bloom filter (Rodrigues, Shtul, Baquero, Almeida 2023, §6): an
// age-partitioned Bloom filter whose window is a time span instead of a count, and whose
// slices grow, shrink and multiply to follow the insertion rate.
//
// Structure. At least k + l slices; position 0 is the newest. Slice i has m_i bits (a
// multiple of 64), an insert count n_i, a timestamp t_i (the time of its last update) and
// e_i, the time of the last insert of the generation that opened it (while it was position
// 0). Probes are generation-keyed (detail/age_partitioned.hpp): an insert sets, in the slice
// at position p = 0..k-1, the bit of probe hash p, so the k bits of a generation's inserts
// form its run, and two runs never probe a shared slice with the same hash.
//
// Time. Integer nanoseconds, no rounding; all differences saturate, so no idle gap can
// overflow. An earlier `now` than the latest seen counts as the latest seen. may_contain()
// is const. Generations live on a grid of cells of g = max(1 ns, floor(span / l)):
// right-closed cells ((i-1) g, i g], and a generation never spans two of them (an insert in
// a later cell than the generation's first shifts first, a time-forced shift).
//
// Query (the window rule). Run G is accepted iff e_G > now - span. A key is reported iff an
// accepted run holds all its k bits.
//  - No false negatives: a key inserted at t in generation G has e_G >= t, so its run is
//    accepted while now - t < span; its slices carry stamps >= e_G and are only dropped once
//    expired (stamp <= now - span), or by the caps below.
//  - Tight: e_G lies in the cell of t, so e_G <= t + g - 1 ns and the run is refused from
//    now = e_G + span < t + span + g on. Another run finds the key only by chance, with k
//    bits at other hashes, the false-positive level. So a key of age >= span + g is
//    reported only at the false-positive rate, under growth, time-forced shifts, idle
//    gaps and save/load alike; with g <= span/l the slack is at most 1/l of the window (2.3%
//    at the default k = 21, l = 43). A key whose age is in [span, span + g) may still be
//    reported: it is, exactly when a later key of its generation is younger than the span.
//    If nothing is inserted after t, it is gone at exactly t + span.
//
// Insert. Sets one bit in each of positions 0..k-1, stamps them with `now` and sets e_0. A
// shift comes first when the generation counter is spent (§6.2) or at the first insert in a
// later cell (above).
//
// Shift, at time now:
//  1. Rate: G inserts over t_s = max(1 ns, now - start) give the target generation
//     tg = G span / (t_s l) (eq. 6). G and t_s are the ending generation's when it lasted a
//     cell or more (the paper's estimate); otherwise they also take the generations before
//     it, back to a cell or more (recent_rate()), so a generation the grid cut short does not
//     size the next slice from its few inserts. At a steady rate the k generations of the
//     slice at position k-1 estimate it sqrt(k) times more closely; their rate is taken,
//     kept within two Poisson standard deviations of the first estimate (so a change of
//     rate is still followed from one generation). tg is limited to 4 times what the ending
//     generation could take, so a generation that ends within one clock tick cannot ask
//     for an unbounded slice, and raised by 3% of headroom so a steady stream ends its
//     generations by time, keeping k + l slices, rather than by count a little early.
//  2. Slices among the new positions 1..k-1 that have expired are cleared (their keys are all
//     older than the span, and no accepted run includes them).
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
//     memory_capped, WindowFilter::cap_binds()): the window gives up its oldest part, so
//     duplicates older than the retained slices may pass as new (stats().effective_span
//     says how old a key may be and still be found); unique keys are not reported more
//     often than without the cap. A dropped buffer is reused for the new slice, zeroed in
//     full.
//  5. g = max(1, min u_i over positions 0..k-1) (eq. 5): never 0, so a full slice forces
//     the next shift instead of stopping shifts. Here u_i is eq. 4 relaxed: the larger of
//     the even share and what slice i has left beyond the slice-0 generation (c0 / (k x
//     headroom)) for each later generation it will receive. Either is at most what it has
//     left, so no slice passes half full; but the k generations of a slice share its
//     headroom, so a random stream ends a generation by count only when k of them together
//     pass it (4.4 Poisson standard deviations at 1,000 inserts a second, 60 s, k = 15,
//     l = 42), not when one generation passes its even share (1.1 deviations).
//
// Saved form (after the tag byte), format 2: u32 0, u8 format (2), u32 k, u32 l, i64 span,
// u64 min_bits, u64 max_slice_bits, u64 max_bits, u32 max_slices, i64 latest, u8 started,
// i64 generation start, i64 generation end (the cell's end), u64 generation left, u64
// generation inserts, u64 next sequence number, u64 keys inserted, u64 cap evictions, u8
// memory capped, i64 cap horizon, u64 peak bits, u64 slice count, then per slice from the
// oldest: i64 stamp, i64 last own insert, u64 inserts, word array; then the format-1 slices
// still answering (detail::LegacySlices). Format 1 (no marker; it starts with k, never 0)
// is still read: its slices become legacy slices, queried with their one hash per slice
// until they expire (one span plus format 1's fade), beside fresh generation-keyed slices
// of the same sizes that take the new inserts.
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
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/slice_view.hpp"

namespace tlbf {

class TimeLimitedFilter final : public WindowFilter {
 public:
  // Headroom on the target generation and the most a generation's rate estimate may
  // exceed the inserts actually seen (shift step 1).
  static constexpr double kHeadroom = 1.03;
  static constexpr double kMaxGrowth = 4.0;
  // Slices of more bits than this in all are taken to be beyond the L2 cache, where the
  // query fetches each surviving run's next word while it tests the current level
  // (tlbf-bench-scaling: +42-56 % decisions per CPU second at 10^7 live keys, +25-40 % at
  // 10^6). In cache (10^5 live keys, ~0.6 MB) the hint cost 3-15 %: its address takes as
  // many instructions as the test it fetches for.
  static constexpr std::uint64_t kPrefetchingQueryBits = std::uint64_t{1} << 23;  // 1 MiB

  // The layout for an error rate: the fewest bits per key under the TLBF's own rate model,
  // averaged over a generation with this filter's headroom (params.hpp, tlbf_fpr()).
  static SliceLayout choose_layout(double error_rate, std::uint32_t max_kl) {
    return choose_tlbf_kl(error_rate, max_kl, kHeadroom);
  }

  explicit TimeLimitedFilter(const FilterConfig& cfg) {
    if (cfg.span <= 0) throw invalid_parameter("span", parameter_value(cfg.span), "must be > 0 ns for tlbf");
    check_capacity(cfg.capacity);
    const SliceLayout layout = detail::resolve_layout(cfg, choose_layout);
    k_ = layout.k;
    l_ = layout.l;
    if (cfg.max_slices < k_ + l_ || cfg.max_slices > detail::kMaxSlicesHard)
      throw invalid_parameter(
          "max_slices", parameter_value(cfg.max_slices),
          "must be in [k + l = " + std::to_string(k_ + l_) + ", " + std::to_string(detail::kMaxSlicesHard) + "]");
    span_ = cfg.span;
    compute_cell();
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
    for (Slice& x : slices_) init_slice(x, bits);
    seq_next_ = slices_.size();
    total_bits_ = bits * slices_.size();
    peak_bits_ = total_bits_;
    gen_left_ = next_generation();
  }

  static std::unique_ptr<TimeLimitedFilter> load(ByteReader& in) { return SavedForm::load<TimeLimitedFilter>(in); }

  bool may_contain(KeyHash h, Time now) const override {
    const Time threshold = query_threshold(now);
    return probes_present(h, threshold, accepted_runs(threshold));
  }
  void insert(KeyHash h, Time now) override { set_probes(h, now); }
  // The program's path. The probe values are made where they are used, one per level
  // (detail::run_probe()): a new key's query stops after a few levels, and the insert's
  // loop makes each of its k values once. The accepted runs are counted from the previous
  // call's count (accepted_runs_from_hint()), not by bisection.
  bool insert_if_absent(KeyHash h, Time now) override {
    const Time threshold = query_threshold(now);
    if (probes_present(h, threshold, accepted_runs_from_hint(threshold))) return false;
    set_probes(h, now);
    return true;
  }
  // Probe 0 of every run accepted at the latest time seen: the query's first level, whose
  // misses are all a new key meets in most runs (slices are about half full).
  void prefetch(const KeyHash& h) const override {
    const std::uint64_t x0 = detail::run_probe0(h);
    const Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::size_t j = accepted_runs(detail::sat_sub(latest_, span_)); j > 0; --j, --s)
      __builtin_prefetch(site(*s, x0).word);
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time now) const override {
    now = std::max(now, latest_);
    FilterStats s;
    s.algorithm = "tlbf";
    s.slices = slices_.size();
    s.k = k_;
    s.l = l_;
    s.slice0_bits = slices_.back().bits;
    s.bits_allocated = total_bits_ + legacy_.bits();
    s.peak_bits_allocated = std::max(peak_bits_, s.bits_allocated);
    s.keys_inserted = keys_inserted_;
    // Every insert counts once in each of k slices; the live slices' counts over k estimate
    // the inserts inside the window (high by up to a generation whose slice is still live).
    const Time threshold = detail::sat_sub(now, span_);
    std::uint64_t live = 0;
    for (std::size_t i = 0; i < slices_.size(); ++i)
      if (stamp_of(i) > threshold) live += inserts_of(i);
    s.live_keys = (live + k_ - 1) / k_;
    s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0.0;
    s.memory_capped = memory_capped_;
    s.cap_evictions = cap_evictions_;
    if (cap_horizon_ != kNever) s.effective_span = std::clamp<Duration>(detail::sat_sub(now, cap_horizon_), 0, span_);
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
  // Length of a grid cell: the longest a generation lasts, and the slack of the window.
  Duration cell() const { return cell_; }
  // Inserts left before the count-triggered shift (g of eq. 5 minus the inserts since).
  std::uint64_t generation_left() const { return gen_left_; }
  // Slices the filter has ever created (sequence numbers handed out).
  std::uint64_t slices_created() const { return seq_next_; }
  // Slices still answering for a format-1 state (0 once they have expired).
  std::size_t legacy_slice_count() const { return legacy_.slices.size(); }
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
    v.ones = detail::count_ones(s.words.data(), s.words.size());
    return v;
  }
  // The words of the slice at a position (0 = newest), read-only and without slice()'s count
  // of ones, for a benchmark that counts the words a query reads (bench/load_floor.hpp). No
  // caller in the library or the program: it changes no decision and costs nothing else.
  struct SliceWords {
    const std::uint64_t* words;
    std::uint64_t bits;
    Time run_last;  // the last insert of the generation that opened it (its run's e_G)
  };
  SliceWords slice_words(std::size_t position) const {
    const Slice& s = slices_.at(slices_.size() - 1 - position);
    return {s.words.data(), s.bits, s.own_last};
  }

 private:
  // 64 bytes apart, so the query finds the slice at a position with a shift.
  struct alignas(64) Slice {
    std::vector<std::uint64_t> words;
    std::uint64_t bits = 0;
    std::uint64_t inserts = 0;
    Time stamp = kNever;     // last update
    Time own_last = kNever;  // last insert of the generation that opened this slice
  };
  static constexpr Time kNever = std::numeric_limits<Time>::min();  // no insert yet: not live
  static constexpr std::uint64_t kMaxInserts = std::uint64_t{1} << 62;
  static constexpr std::uint8_t kFormat = 2;

  friend struct SavedForm;
  TimeLimitedFilter() = default;

  // The saved form, field by field (see the top of the file). Loading checks the parameters
  // before it allocates anything and each slice as it arrives, so damaged state is refused.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    std::uint32_t marker = 0;  // format 1 starts with k (never 0) here
    ar.u32(marker);
    if constexpr (Archive::loading) {
      if (marker != 0) return f.load_format1(marker, ar);
    }
    ar.version(kFormat, "state: tlbf: unknown format version");
    ar.u32(f.k_, f.l_);
    ar.i64(f.span_);
    ar.u64(f.min_bits_, f.max_slice_bits_, f.max_bits_);
    ar.u32(f.max_slices_);
    ar.i64(f.latest_);
    ar.flag(f.started_);
    ar.i64(f.gen_start_, f.gen_end_);
    ar.u64(f.gen_left_, f.gen_inserts_, f.seq_next_, f.keys_inserted_, f.cap_evictions_);
    ar.flag(f.memory_capped_);
    ar.i64(f.cap_horizon_);
    ar.u64(f.peak_bits_);
    std::uint64_t n = f.slices_.size();
    ar.u64(n);
    if constexpr (Archive::loading) f.check_loaded_parameters(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto& s = f.slices_[i];
      // Saved with the current generation's inserts counted (stamp_of(), inserts_of()).
      Time stamp = s.stamp;
      std::uint64_t inserts = s.inserts;
      if constexpr (!Archive::loading) {
        stamp = f.stamp_of(i);
        inserts = f.inserts_of(i);
      }
      ar.i64(stamp, s.own_last);
      ar.u64(inserts);
      ar.words(s.words, f.max_slice_bits_ / 64);
      if constexpr (Archive::loading) {
        s.stamp = stamp;
        s.inserts = inserts;
        f.check_loaded_slice(i);
      }
    }
    if constexpr (Archive::loading) f.gen_counted_ = f.gen_inserts_;  // all counted in the slices
    detail::LegacySlices::visit_fields(f.legacy_, ar, f.max_slice_bits_ / 64, f.k_);
    if constexpr (Archive::loading) f.check_loaded_runs();
  }

  // Format 1 (before generation-keyed probes), whose fields after k are those of format 2
  // without the generation end, the cap horizon, the peak and the per-slice last own insert.
  // Its slices become legacy slices; the filter goes on with empty slices of the same sizes.
  template <class Archive>
  void load_format1(std::uint32_t k, Archive& ar) {
    k_ = k;
    ar.u32(l_);
    ar.i64(span_);
    ar.u64(min_bits_, max_slice_bits_, max_bits_);
    ar.u32(max_slices_);
    ar.i64(latest_);
    ar.flag(started_);
    ar.i64(gen_start_);
    ar.u64(gen_left_, gen_inserts_, seq_next_, keys_inserted_, cap_evictions_);
    ar.flag(memory_capped_);
    std::uint64_t n = 0;
    ar.u64(n);
    check_loaded_parameters(n);
    legacy_.slices.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto& old = legacy_.slices[i];
      std::uint64_t inserts = 0;
      ar.i64(old.age);
      ar.u64(inserts);
      ar.words(old.words, max_slice_bits_ / 64);
      old.hash_index = (seq_next_ - n + i) % k_;  // format 1: slice s used probe hash s mod k
      slices_[i].stamp = kNever;
      slices_[i].inserts = 0;
      slices_[i].words.assign(old.words.size(), 0);
      check_loaded_slice(i);
      if (inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
    }
    // The current generation goes on with fresh slices; its inserts so far are in the legacy
    // ones, so it ends at its own cell's end like any other, and none are owed to the fresh ones.
    gen_end_ = detail::cell_end(gen_start_, cell_);
    gen_counted_ = gen_inserts_;
    peak_bits_ = total_bits_ + legacy_.bits();
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
    compute_cell();
    slices_.resize(n);
  }

  // Slice i (from the oldest) as read: its derived fields, then its bounds.
  void check_loaded_slice(std::size_t i) {
    Slice& s = slices_[i];
    s.bits = s.words.size() * 64;
    if (s.bits < min_bits_) throw state_error("state: tlbf slice smaller than the minimum");
    // A real count stays far below this; refusing more keeps ++inserts from wrapping.
    if (s.inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
    total_bits_ += s.bits;
    if (total_bits_ > max_bits_) throw state_error("state: tlbf slices exceed the memory cap");
  }

  // The query stops at the first run it does not accept, which is right only while the
  // runs' last inserts do not increase with age.
  void check_loaded_runs() const {
    for (std::size_t i = 1; i < slices_.size(); ++i)
      if (slices_[i - 1].own_last > slices_[i].own_last) throw state_error("state: tlbf generations out of order");
  }

  static_assert(detail::kMaxK <= detail::kProbeTable, "run_probe() must cover every k a filter accepts");

  // The runs accepted when a run is accepted iff its last insert is after `threshold`: runs
  // 0..J-1, returned as J. Runs never get newer with age (check_loaded_runs()), so the
  // accepted ones are the first J and J is found by bisection (about log2(l) steps instead
  // of l + 1), in a form the compiler makes branch-free: on a stream about half of the steps
  // go each way.
  std::size_t accepted_runs(Time threshold) const {
    if (slices_.size() < k_) return 0;
    const Slice* top = slices_.data() + (slices_.size() - 1);
    std::size_t first = 0;  // runs before `first` are accepted
    for (std::size_t n = slices_.size() - k_ + 1; n > 1;) {
      const std::size_t half = n / 2;
      first = (top - (first + half))->own_last > threshold ? first + half : first;
      n -= half;
    }
    return first + ((top - first)->own_last > threshold);
  }

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

  // Where probe value x falls in slice s.
  static detail::ProbeSite site(const Slice& s, std::uint64_t x) {
    const std::uint64_t bit = reduce(x, s.bits);
    return {s.words.data() + (bit >> 6), bit & 63};
  }

  // The run query (detail/age_partitioned.hpp), level by level (detail/level_scan.hpp), then
  // the format-1 slices if any. The slice at position j + p of run j reads probe value x_p
  // (detail::run_probe()), the same at every run of a level, so the compiler makes it once
  // per level, outside the loop over the survivors.
  // A run is accepted iff its last insert is after this (the window rule, at the later of
  // now and the latest time seen).
  Time query_threshold(Time now) const { return detail::sat_sub(std::max(now, latest_), span_); }

  // The query at `threshold`, whose accepted runs are runs 0..runs-1.
  bool probes_present(KeyHash h, Time threshold, std::size_t runs) const {
    const Slice* top = slices_.data() + (slices_.size() - 1);
    if (total_bits_ > kPrefetchingQueryBits
            ? detail::any_run_all_hit_prefetching(
                  runs, k_,
                  [&](std::size_t j, std::uint32_t p) { return site(*(top - (j + p)), detail::run_probe(h, p)); })
            : detail::any_run_all_hit(runs, k_, [&](std::size_t j, std::uint32_t p) {
                // site(...).hit() reads the same bit, but splitting the index into word and
                // bit first costs ~74 instructions per record (callgrind, bench/profile.sh).
                const Slice& s = *(top - (j + p));
                return detail::test_bit(s.words.data(), reduce(detail::run_probe(h, p), s.bits));
              }))
      return true;
    return !legacy_.slices.empty() &&
           legacy_.may_contain(h, k_, [&](const detail::LegacySlices::Slice& s) { return s.age > threshold; });
  }
  // Sets run 0's bits: probe value x_p in the slice at position p.
  void set_probes(KeyHash h, Time now) {
    now = std::max(now, latest_);
    latest_ = now;
    if (!started_) {
      started_ = true;
      gen_start_ = now;
      gen_end_ = detail::cell_end(now, cell_);
    } else if (gen_left_ == 0 || now > gen_end_) {
      shift(now);
    }
    Slice* s = slices_.data() + (slices_.size() - 1);
    s->own_last = now;  // also the stamp of positions 0..k-1 (stamp_of())
    for (std::uint32_t p = 0; p < k_; ++p, --s)
      detail::set_bit(s->words.data(), reduce(detail::run_probe(h, p), s->bits));
    if (gen_left_ > 0) --gen_left_;
    ++gen_inserts_;
    ++keys_inserted_;
  }

  // Each insert counts once in each slice at positions 0..k-1 and stamps them with its time;
  // set_probes() leaves both to these, for the inserts of the current generation not yet
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

  void init_slice(Slice& s, std::uint64_t bits) {
    if (s.words.capacity() > 2 * (bits / 64)) s.words = std::vector<std::uint64_t>();  // do not hoard a big buffer
    s.words.assign(bits / 64, 0);  // every word, whatever the buffer held before
    s.bits = bits;
    s.inserts = 0;
    s.stamp = kNever;
    s.own_last = kNever;
  }

  void compute_cell() { cell_ = std::max<Duration>(1, span_ / l_); }

  // The slice at a position (0 = newest).
  Slice& at(std::size_t pos) { return slices_[slices_.size() - 1 - pos]; }
  const Slice& at(std::size_t pos) const { return slices_[slices_.size() - 1 - pos]; }

  // Eq. 4 for the slice at `pos` in 0..k-1, relaxed: the generation may take the slice's
  // remaining capacity less `reserve` inserts for each later generation the slice will
  // receive, when that is more than the even share rem / (k - pos). Never more than rem, so
  // no slice passes half full whatever the later generations take; never negative, never
  // wraps (reserve <= 2^43, k <= 1024).
  std::uint64_t updates_left(std::size_t pos, std::uint64_t reserve) const {
    const Slice& s = at(pos);
    const std::uint64_t cap = detail::half_fill_capacity(s.bits);
    const std::uint64_t rem = s.inserts >= cap ? 0 : cap - s.inserts;
    const std::uint64_t held = (k_ - 1 - pos) * reserve;
    return std::max(rem / (k_ - pos), held < rem ? rem - held : 0);
  }
  // Eq. 5 with the relaxed eq. 4, at least 1. The reserve is the generation slice 0 was
  // sized for (its capacity over k and the headroom): a generation of a steady stream then
  // ends by count only when the inserts of the slice's k generations together pass the
  // headroom, not when one generation passes its even share, so a small headroom keeps the
  // generations ending by time (shift step 1).
  std::uint64_t next_generation() const {
    const auto reserve =
        static_cast<std::uint64_t>(static_cast<double>(detail::half_fill_capacity(at(0).bits)) / (k_ * kHeadroom));
    std::uint64_t g = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t pos = 0; pos < k_; ++pos) g = std::min(g, updates_left(pos, reserve));
    return std::max<std::uint64_t>(g, 1);
  }

  bool live(const Slice& s, Time now) const { return s.stamp > detail::sat_sub(now, span_); }

  // Drops the oldest slice, keeping its buffer for reuse. A live one is a cap binding: the
  // keys of the runs through it, inserted up to its last update, may no longer be found.
  void drop_oldest(std::vector<std::uint64_t>& spare, Time now) {
    Slice& old = slices_.front();
    if (live(old, now)) {
      ++cap_evictions_;
      memory_capped_ = true;
      cap_horizon_ = std::max(cap_horizon_, old.stamp);
      note_cap_bound();
    }
    total_bits_ -= old.bits;
    if (old.words.capacity() > spare.capacity()) spare = std::move(old.words);
    slices_.erase(slices_.begin());
    runs_hint_ = std::min<std::size_t>(runs_hint_, slices_.size() - k_ + 1);  // a drop leaves >= k + l - 1 slices
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

  void shift(Time now) {
    count_generation();
    // 1. Target generation from the observed rate (eq. 6), over at least one cell.
    const RateSample r = recent_rate(now);
    double tg = r.inserts * static_cast<double>(span_) / (static_cast<double>(r.duration) * l_);
    // At a steady rate the k generations of the slice at position k - 1 estimate it about
    // sqrt(k) times more closely: take theirs while it lies within two standard deviations
    // (Poisson) of the ending generation's, its edge otherwise, so a change of rate is still
    // followed from one generation.
    if (const Slice& oldest = at(k_ - 1); oldest.inserts > 0 && at(k_).own_last != kNever) {
      const Duration d = std::max<Duration>(1, detail::sat_sub(now, at(k_).own_last));
      const double band = 2.0 / std::sqrt(std::max(r.inserts, 1.0));
      tg = std::clamp(static_cast<double>(oldest.inserts) * static_cast<double>(span_) / (static_cast<double>(d) * l_),
                      tg * (1.0 - band), tg * (1.0 + band));
    }
    tg = std::min(tg, kMaxGrowth * std::max({r.inserts / r.generations, r.allowed, 1.0})) * kHeadroom;

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
    init_slice(slices_.back(), m0);
    ++seq_next_;
    total_bits_ += m0;
    const Time threshold = detail::sat_sub(now, span_);
    legacy_.retire([&](const detail::LegacySlices::Slice& s) { return s.age <= threshold; });
    peak_bits_ = std::max(peak_bits_, total_bits_ + legacy_.bits());

    // 5. Next generation (eq. 5), to the end of now's cell at most.
    gen_left_ = next_generation();
    gen_inserts_ = 0;
    gen_counted_ = 0;
    gen_start_ = now;
    gen_end_ = detail::cell_end(now, cell_);
  }

  std::uint32_t k_ = 0, l_ = 0;
  Duration span_ = 0;
  Duration cell_ = 1;  // max(1, span / l): the grid generations keep to
  std::uint64_t min_bits_ = 0, max_slice_bits_ = 0, max_bits_ = 0;
  std::uint32_t max_slices_ = 0;
  std::vector<Slice> slices_;  // oldest first; slices_.back() is position 0
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
  // insert_if_absent()'s last count of accepted runs, where its next count starts (never more
  // than the runs there are; not saved: a loaded filter starts from 0).
  std::size_t runs_hint_ = 0;
  detail::LegacySlices legacy_;
};

}  // namespace tlbf
