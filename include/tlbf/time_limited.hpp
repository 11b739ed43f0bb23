// SPDX-License-Identifier: MIT
// Time-limited Bloom filter (Rodrigues, Shtul, Baquero, Almeida 2023, §6): an
// age-partitioned Bloom filter whose window is a time span instead of a count, and whose
// slices grow, shrink and multiply to follow the insertion rate.
//
// Structure. At least k slices; position 0 is the newest. Slice i has m_i bits (a multiple
// of 64), an insert count n_i, a timestamp t_i (the time of its last update) and e_i, the
// time of the last insert of the generation that opened it (while it was position 0).
// Probes are generation-keyed (detail/age_partitioned.hpp): an insert sets, in the slice at
// position p = 0..k-1, the bit of probe hash p, so the k bits of a generation's inserts form
// its run, and two runs never probe a shared slice with the same hash.
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
//  The rule compares stamps only, so it holds in either layout below and across re-layouts.
//
// Layouts (FilterConfig::tlbf_layout).
//  - Bit-sliced, the default (k + l <= 64): the slices are grouped into eras, runs of
//    consecutive slices of one size m, each era stored as detail::RunCells (cell x holds bit
//    x of every slice of the era). A key's probe p lands on cell reduce(x_p, m) of an era
//    whatever the slice, so a query reads k cells per live era and finds every accepted run
//    that holds the key with ANDs and shifts; an era wider than 64 slices is read 64 runs at
//    a time. The newest era takes the new slices (its cells shift up one slot per shift,
//    starting with the k slots of the insert range and doubled in place when full, up to the
//    k + l of a steady stream, then a quarter at a time, or straight to kWideSlots (128:
//    cells of two words) when it takes a burst, narrowed when an eighth stands empty, and
//    to k + l once its slices are back within them); an
//    older era only loses slices as they expire, and is narrowed when half of its slots are
//    empty. The era policy (shift step 3) keeps eras few: at most kMaxEras = 4 live, one on
//    a steady stream.
//    An era's slices are sized with the headroom twice (k tg h / ln 2, tg having one), and
//    generations end by count at the fill the layout was chosen for, 1 - 2^(-1/h), not 1/2
//    (shift step 5): a slice of an era sized for a slower rate fills no further than the
//    rate model assumes.
//  - Slice-major: each slice on its own, sized at its own shift (eqs. 7-8), queried run by
//    run, level by level (detail/level_scan.hpp). The experiments' paper-faithful mode and
//    any k + l > 64. It keeps at least k + l slices, as the paper does; the bit-sliced layout
//    keeps only the k of the insert range and the live ones.
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
//     for an unbounded slice (bit-sliced: 16 times for a rate measured over a cell or more;
//     2 times for one beyond 4 measured over less, a backlog: kMaxGrowthSliced), and raised
//     by 3% of headroom so a steady stream ends its generations by time, keeping k + l
//     slices, rather than by count a little early.
//  2. Slices among the new positions 1..k-1 that have expired are cleared (their keys are all
//     older than the span, and no accepted run includes them).
//  3. New slice size. Slice-major (eqs. 7-8): with u_i = floor((m_i ln2 - n_i)/(k - i))
//     (eq. 4, in signed arithmetic clamped at 0) for the slices that will sit at positions
//     1..k-1, j the position of the smallest u_i and count = m_j ln2 - n_j, the new slice
//     will take c0 = min(count, (k-j) tg) + j tg inserts; m0 = ceil(c0 / ln2), clamped to
//     [min_bits, max_slice_bits]. (The min() is ours: without it an over-sized filter
//     passes its excess on to every new slice; with it, the first shift sizes slice 0 for
//     the observed rate, as in the paper's Figure 2.) Bit-sliced, the era policy: the rate
//     asks for slices of w = k tg h / ln2 bits, the newest era's have m; q = w / m.
//     - q >= 2 (the ending generation, a whole one, ran at twice the era's rate or more):
//       a young era (at most two slices, or the first era within two shifts of the start)
//       is upsampled in place by c = round(q) (RunCells::upsample(): exact, each slice's
//       fill unchanged, so its slices count the inserts that fill stands for at the new
//       size, Slice::upsampled) when the rate was measured over 1/1024 of a cell or more; an
//       era holding k + l slices or more takes the slice while it stays within kWideSlots
//       (and max_slices), its generations ending by count, so a short burst passes in one
//       era; otherwise a new era of w bits starts (a burst inside one clock tick grows by
//       new eras, 4 times per shift at most, as the slice-major layout does; 16 times for a
//       rate measured over a cell or more).
//     - q <= 1/2: the era is folded in place by the largest c <= 1/q whose fold leaves
//       every slice within the layout's fill (RunCells::fold(): exact, fills rise to that of
//       a slice of m / c bits); otherwise a new era starts.
//     - q above the headroom (1.03) or below 1/16 under 1 at every shift for a whole span:
//       a new era starts (a slow drift, or a first size the rate never confirmed). Above,
//       the era's generations would go on ending by count, adding slices; below, its slices
//       would stay emptier than they need be, by up to 1/16 of their bits.
//     - otherwise the new slice joins the newest era at its size m, as it does when the ending
//       generation was followed by a silence of a cell or more (it tells nothing of the rate
//       after the silence).
//     A new era is started only while fewer than kMaxEras are live; past that a newest era
//     of at most k slices whose generation ended by count is upsampled when q >= 2 (to half
//     of max_slice_bits at most), else the slice joins the newest era (its generations then
//     end by count with more slices, or by time with emptier ones; step 5 bounds the rate
//     either way). So live eras <= 4,
//     and a query reads at most 4 k cells for each 64 accepted runs. On a steady stream
//     the policy keeps one era; a burst takes one or two more for a span after it starts
//     and after it ends, a step of the rate one more for a span; an idle gap none
//     (docs/filters.md has the counts measured on each).
//  4. Expired slices beyond the insert range are dropped (slice-major: beyond position
//     k + l - 1); if the oldest is still live, the filter grows by a slice instead. Caps:
//     if a new slice would pass max_slices or max_memory_bytes, the oldest slices are
//     dropped even though live (cap_evictions, memory_capped, WindowFilter::cap_binds()):
//     the window gives up its oldest part, so duplicates older than the retained slices
//     may pass as new (stats().effective_span says how old a key may be and still be
//     found); unique keys are not reported more often than without the cap.
//  5. g = max(1, min u_i over positions 0..k-1) (eq. 5): never 0, so a full slice forces
//     the next shift instead of stopping shifts. Bit-sliced (and slice-major while the
//     memory cap holds slice 0 at its largest size), m_i ln2 in eq. 4 is m_i (-ln(1 - f))
//     for the fill f the layout was chosen for, lowered when more than l + 1 runs are
//     accepted so that their chance bits add up to at most 1.5 times the model's however
//     many pile up (fill_log_for(); for k >= 6, the layouts of -e 0.1 and below): a cap
//     then gives up window, never the rate.
//     Here u_i is eq. 4 relaxed: the larger of
//     the even share and what slice i has left beyond the slice-0 generation (c0 / (k x
//     headroom)) for each later generation it will receive. Either is at most what it has
//     left, so no slice passes half full; but the k generations of a slice share its
//     headroom, so a random stream ends a generation by count only when k of them together
//     pass it (4.4 Poisson standard deviations at 1,000 inserts a second, 60 s, k = 15,
//     l = 42), not when one generation passes its even share (1.1 deviations).
//
// Saved form (after the tag byte), format 3: u32 0, u8 format (3), u8 layout (0 bit-sliced,
// 1 slice-major), u32 k, u32 l, i64 span, u64 min_bits, u64 max_slice_bits, u64 max_bits, u32
// max_slices, i64 latest, u8 started, i64 generation start, i64 generation end (the cell's
// end), u64 generation left, u64 generation inserts, u64 next sequence number, u64 keys
// inserted, u64 cap evictions, u8 memory capped, i64 cap horizon, u64 peak bits, i64 drift
// start, u8 drift side (0 none, 1 over, 2 under), u64 slice count, then per slice from the
// oldest: i64 stamp, i64 last own insert, u64 inserts, u64 bits, and (bit-sliced) u64 inserts
// its fill stands for beyond them since it was upsampled, or (slice-major) its word array; then (bit-sliced) u64 era
// count and per era from the oldest: u64 slices, u32 slots, its cells' word array; then the slices of an older format
// still answering: u64 count and per slice i64 stamp, i64 last own insert, u64 inserts, word array (format 2), then
// detail::LegacySlices (format 1). Format 2 (the same fields up to the peak bits, then the
// slices with their words, slice-major, and the format-1 slices) is still read: with k + l
// <= 64 its slices answer as they are, run by run, until they expire, beside a new
// bit-sliced era that takes the inserts (a filter of the program's, whose state is rewritten
// each run, gets its speed back after one span); otherwise it is loaded slice-major as it
// was. Format 1 (no marker; it starts with k, never 0) is read as before: its slices answer
// with their one hash per slice until they expire, beside fresh slices.
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
  // How fast the fill falls as runs pile up past l + 1 (fill_log_for()): above 1, so that
  // their chance bits add up to a bounded share of the model's rate, half of it at 3; for
  // k >= 6 (excess_runs_exponent()).
  static constexpr double kExcessRunsExponent = 3.0;

  // The layout for an error rate: the fewest bits per key under the TLBF's own rate model,
  // averaged over a generation with this filter's headroom (params.hpp, tlbf_fpr()).
  static SliceLayout choose_layout(double error_rate, std::uint32_t max_kl) {
    return choose_tlbf_kl(error_rate, max_kl, kHeadroom);
  }

  explicit TimeLimitedFilter(const FilterConfig& cfg) {
    const Sizing z = sizing_for(cfg);
    k_ = z.layout.k;
    l_ = z.layout.l;
    sliced_ = z.sliced;
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

  // Bits of slices that cfg.capacity keys per span take once a steady stream has filled the
  // window: k + l slices of the size a filter built for cfg starts with, before any memory cap
  // (compare with cfg.max_memory_bytes to see whether it would bind). Nothing is allocated.
  static std::uint64_t window_bits_for(const FilterConfig& cfg) {
    const Sizing z = sizing_for(cfg);
    return std::max(z.initial_bits, z.floor_bits) * (std::uint64_t{z.layout.k} + z.layout.l);
  }

  static std::unique_ptr<TimeLimitedFilter> load(ByteReader& in) { return SavedForm::load<TimeLimitedFilter>(in); }

  bool may_contain(KeyHash h, Time now) const override {
    const Time threshold = query_threshold(now);
    const std::size_t runs = accepted_runs(threshold);
    if (!sliced_) return slices_hold(slices_, h, runs, total_bits_) || older_formats_hold(h, threshold);
    Probes at;
    locate(h, at);
    return cells_hold(at, runs) || older_formats_hold(h, threshold);
  }
  void insert(KeyHash h, Time now) override {
    if (!sliced_) return insert_slice_major(h, now);
    Probes at;
    locate(h, at);
    add(at, now);
  }
  // The program's path. The accepted runs are counted from the previous call's count
  // (accepted_runs_from_hint()), not by bisection; the bit-sliced layout locates the key's
  // cells once for the query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    if (!sliced_) {
      const Time threshold = query_threshold(now);
      if (slices_hold(slices_, h, accepted_runs_from_hint(threshold), total_bits_) || older_formats_hold(h, threshold))
        return false;
      insert_slice_major(h, now);
      return true;
    }
    Probes at;
    locate(h, at);
    return decide(at, now);
  }
  // insert_if_absent() for keys[0..n) in order, with the contract of tlbf::insert_if_absent_batch()
  // (filter.hpp): fresh[i] as insert_if_absent(keys[i], times[i]) would answer, a key
  // repeated in the batch a duplicate of its earlier copy; it returns after the first key
  // whose insert made cap_binds() grow. Bit-sliced, each key's cells are located and
  // prefetched kPrefetchAhead keys before it is decided, so their cache misses overlap the
  // decisions before it.
  std::size_t insert_if_absent_batch(const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
    if (!sliced_) return detail::insert_if_absent_each(*this, keys, times, n, fresh);
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
  // Nothing while the filter fits the cache (kPrefetchingQueryBits). Bit-sliced: the key's k
  // cells in the newest era and in older ones past that size (a small era stays cached).
  // Slice-major: probe 0 of every run accepted at the latest time seen, the query's first
  // level.
  void prefetch(const KeyHash& h) const override {
    if (total_bits_ <= kPrefetchingQueryBits) return;
    if (sliced_) {
      Probes at;
      locate(h, at);
      prefetch_cells(at);
      return;
    }
    const std::uint64_t x0 = detail::run_probe0(h);
    const Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::size_t j = accepted_runs(detail::sat_sub(latest_, span_)); j > 0; --j, --s)
      detail::prefetch(site(*s, x0).word);
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

  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::tlbf); }

  std::uint32_t k() const { return k_; }
  std::uint32_t l() const { return l_; }
  TlbfLayout layout() const { return sliced_ ? TlbfLayout::bit_sliced : TlbfLayout::slice_major; }
  std::size_t slice_count() const { return slices_.size(); }
  // Bit-sliced: the live eras (0 in the slice-major layout), and era i (0 = the newest): its
  // slices, its cells' slots and each slice's bits. Throws std::out_of_range past the oldest.
  std::size_t era_count() const { return eras_.size(); }
  struct EraView {
    std::uint64_t slices, slots, bits;
  };
  EraView era(std::size_t i) const {
    const Era& e = eras_.at(eras_.size() - 1 - i);
    return {e.slices, e.cells.slots(), e.bits()};
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
    if (sliced_) {
      const EraSlot e = era_slot(position);
      v.ones = eras_[e.era].cells.ones_at(e.slot);
    } else {
      v.ones = detail::count_ones(s.words.data(), s.words.size());
    }
    return v;
  }
  // Whether the slice at a position (0 = newest) has the bit probe value x lands on
  // (reduce(x, its bits)): for tests that check the query against a run-by-run search. Throws
  // std::out_of_range for position >= slice_count().
  bool slice_bit(std::size_t position, std::uint64_t x) const {
    if (position >= slices_.size()) throw std::out_of_range("tlbf: no slice at position " + std::to_string(position));
    if (!sliced_) return site(at(position), x).hit();
    const EraSlot e = era_slot(position);
    const detail::RunCells& c = eras_[e.era].cells;
    return detail::test_bit(c.data(), c.cell_of(x) + e.slot);
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

 private:
  // Slice-major slices own their words; bit-sliced ones live in their era's cells. 64 bytes
  // apart, so the slice-major query finds the slice at a position with a shift.
  struct alignas(64) Slice {
    std::vector<std::uint64_t> words;
    std::uint64_t bits = 0;
    std::uint64_t inserts = 0;
    // Bit-sliced: the inserts an upsampled slice's fill stands for beyond its own. Upsampling
    // by c copies each bit c times, so a slice that held n inserts (n + upsampled before)
    // is as full as one of c times its old size that took c times as many; its capacity
    // left is counted from that (fill_inserts()), or it would end its generations past the
    // layout's fill and raise the false-positive rate. A fold keeps it: n inserts in m / c
    // bits fill them as the folded bits are filled.
    std::uint64_t upsampled = 0;
    Time stamp = kNever;     // last update
    Time own_last = kNever;  // last insert of the generation that opened this slice
  };
  // The slices, oldest first, in one array: dropping the oldest moves the start, and the
  // live ones are moved down only when the dropped ones outnumber them, so a shift does not
  // move every slice (at 10^3 live keys a shift comes every 23 records).
  class SliceList {
   public:
    std::size_t size() const { return v_.size() - head_; }
    bool empty() const { return size() == 0; }
    Slice& operator[](std::size_t i) { return v_[head_ + i]; }
    const Slice& operator[](std::size_t i) const { return v_[head_ + i]; }
    const Slice& at(std::size_t i) const {
      if (i >= size()) throw std::out_of_range("tlbf: no such slice");
      return (*this)[i];
    }
    Slice& front() { return v_[head_]; }
    const Slice& front() const { return v_[head_]; }
    Slice& back() { return v_.back(); }
    const Slice& back() const { return v_.back(); }
    Slice* data() { return v_.data() + head_; }
    const Slice* data() const { return v_.data() + head_; }
    Slice* begin() { return data(); }
    Slice* end() { return v_.data() + v_.size(); }
    const Slice* begin() const { return data(); }
    const Slice* end() const { return v_.data() + v_.size(); }
    void assign(std::size_t n, const Slice& x) {
      v_.assign(n, x);
      head_ = 0;
    }
    void resize(std::size_t n) {
      compact();
      v_.resize(n);
    }
    void emplace_back() {
      if (head_ >= size()) compact();
      v_.emplace_back();
    }
    SliceList& operator=(std::vector<Slice>&& v) {
      v_ = std::move(v);
      head_ = 0;
      return *this;
    }
    // Drops the oldest slice (its words freed: the caller took what it keeps).
    void pop_front() { v_[head_++] = Slice{}; }

   private:
    void compact() {
      v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    std::vector<Slice> v_;
    std::size_t head_ = 0;
  };
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
  static constexpr Time kNever = std::numeric_limits<Time>::min();  // no insert yet: not live
  static constexpr std::uint64_t kMaxInserts = std::uint64_t{1} << 62;
  static constexpr std::uint8_t kFormat = 3;

  friend struct SavedForm;
  TimeLimitedFilter() = default;

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

  // The first slices: bit-sliced, the k slices of the insert range in one era, which widens as
  // slices are added (newest_slots()), so a filter that never fills its window never holds
  // the l slices it did not need; slice-major, k + l slices, as the paper has them.
  void start_slices(std::uint64_t bits) {
    slices_.assign(sliced_ ? k_ : k_ + l_, Slice{});
    for (Slice& x : slices_) init_slice(x, bits);
    if (sliced_) {
      eras_.assign(1, Era{});
      eras_[0].cells.reset(k_, bits, k_ + l_);  // widened in place, its pages taken as written
      eras_[0].slices = k_;
    }
    seq_next_ = std::max<std::uint64_t>(seq_next_, slices_.size());
    total_bits_ = bits * slices_.size();
    ++epoch_;
  }

  // The saved form, field by field (see the top of the file). Loading checks the parameters
  // before it allocates anything and each slice as it arrives, so damaged state is refused.
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    std::uint32_t marker = 0;  // format 1 starts with k (never 0) here
    ar.u32(marker);
    std::uint8_t format = kFormat;
    if constexpr (Archive::loading) {
      if (marker != 0) return f.load_format1(marker, ar);
      ar.u8(format);
      if (format != 2 && format != kFormat) throw state_error("state: tlbf: unknown format version");
    } else {
      ar.u8(format);
    }
    std::uint8_t layout = f.sliced_ ? 0 : 1;
    if (format == kFormat) ar.u8(layout);
    if constexpr (Archive::loading) {
      if (layout > 1) throw state_error("state: tlbf: unknown layout");
    }
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
    if (format == 2) {
      if constexpr (Archive::loading) return f.load_format2(ar);
    }
    ar.i64(f.drift_since_);
    ar.u8(f.drift_side_);
    std::uint64_t n = f.slices_.size();
    ar.u64(n);
    if constexpr (Archive::loading) {
      f.sliced_ = layout == 0;
      if (f.drift_side_ > 2) throw state_error("state: tlbf drift side out of range");
      f.check_loaded_parameters(n);
    }
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
      ar.u64(inserts, s.bits);
      if (f.sliced_) ar.u64(s.upsampled);
      if (!f.sliced_) ar.words(s.words, f.max_slice_bits_ / 64);
      if constexpr (Archive::loading) {
        s.stamp = stamp;
        s.inserts = inserts;
        f.check_loaded_slice(i);
      }
    }
    if (f.sliced_) visit_eras(f, ar);
    if constexpr (Archive::loading) f.gen_counted_ = f.gen_inserts_;  // all counted in the slices
    visit_format2_slices(f, ar);
    detail::LegacySlices::visit_fields(f.legacy_, ar, f.max_slice_bits_ / 64, f.k_);
    if constexpr (Archive::loading) {
      f.check_loaded_runs(f.slices_);
      f.check_loaded_runs(f.format2_);
      ++f.epoch_;
    }
  }

  // The eras: u64 count, then per era from the oldest u64 slices, u32 slots and its cells'
  // words; they must hold the slices, in order, each era's of its size.
  template <class Self, class Archive>
  static void visit_eras(Self& f, Archive& ar) {
    std::uint64_t count = f.eras_.size();
    ar.u64(count);
    if constexpr (Archive::loading) {
      if (count == 0 || count > kMaxEras || count > f.slices_.size())
        throw state_error("state: tlbf era count out of range");
      f.eras_.resize(count);
    }
    std::uint64_t first = 0;  // index (from the oldest) of the era's oldest slice
    for (auto& e : f.eras_) {
      std::uint64_t slices = e.slices;
      std::uint32_t slots = e.cells.slots();
      ar.u64(slices);
      ar.u32(slots);
      if constexpr (Archive::loading) {
        if (slices == 0 || slices > f.slices_.size() - first || slots < slices || slots > f.max_slices_)
          throw state_error("state: tlbf era out of range");
        const std::uint64_t bits = f.slices_[first].bits;
        for (std::uint64_t i = first; i < first + slices; ++i)
          if (f.slices_[i].bits != bits) throw state_error("state: tlbf era slices of different sizes");
        f.era_bits_ += std::uint64_t{slots} * bits;
        if (f.era_bits_ > f.max_bits_) throw state_error("state: tlbf eras exceed the memory cap");
        e.slices = slices;
        e.cells.reset(slots, bits);
      }
      std::uint64_t words = e.cells.word_count();
      ar.word_count(words, e.cells.word_count());
      if (words != e.cells.word_count()) throw state_error("state: tlbf era cells have the wrong length");
      ar.word_data(e.cells.data(), words);
      first += slices;
    }
    if constexpr (Archive::loading) {
      if (first != f.slices_.size()) throw state_error("state: tlbf eras do not hold every slice");
      f.total_bits_ = f.era_bits_;
    }
  }

  // The slices of a format-2 state still answering: u64 count, then per slice from the
  // oldest i64 stamp, i64 last own insert, u64 inserts and its words.
  template <class Self, class Archive>
  static void visit_format2_slices(Self& f, Archive& ar) {
    std::uint64_t n = f.format2_.size();
    ar.u64(n);
    if constexpr (Archive::loading) {
      if (n > f.max_slices_) throw state_error("state: too many format-2 slices");
      f.format2_.resize(n);
    }
    for (auto& s : f.format2_) {
      ar.i64(s.stamp, s.own_last);
      ar.u64(s.inserts);
      ar.words(s.words, f.max_slice_bits_ / 64);
      if constexpr (Archive::loading) {
        s.bits = s.words.size() * 64;
        if (s.words.empty() || s.inserts > kMaxInserts) throw state_error("state: format-2 slice out of range");
        f.format2_bits_ += s.bits;
        if (f.format2_bits_ > f.max_bits_) throw state_error("state: format-2 slices exceed the memory cap");
      }
    }
  }

  // Format 2, after the peak bits: u64 slice count, per slice i64 stamp, i64 last own
  // insert, u64 inserts, words; then the format-1 slices. Bit-sliced (k + l <= 64): those
  // slices answer as they are until they expire, and a new era, sized as the newest of them,
  // takes the inserts, the current generation going on in it (its inserts so far are in the
  // old slices). Otherwise they stay the filter's slices, slice-major.
  template <class Archive>
  void load_format2(Archive& ar) {
    sliced_ = k_ + l_ <= detail::RunCells::kMaxSlices;
    check_loaded_parameters(0);
    std::uint64_t n = 0;
    ar.u64(n);
    if (n < k_ + l_ || n > max_slices_ || seq_next_ < n) throw state_error("state: tlbf slice count out of range");
    std::vector<Slice> old(n);
    std::uint64_t bits = 0;
    for (Slice& s : old) {
      std::uint64_t inserts = 0;
      ar.i64(s.stamp, s.own_last);
      ar.u64(inserts);
      ar.words(s.words, max_slice_bits_ / 64);
      s.inserts = inserts;
      s.bits = s.words.size() * 64;
      if (s.bits < min_bits_) throw state_error("state: tlbf slice smaller than the minimum");
      if (s.inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
      bits += s.bits;
      if (bits > max_bits_) throw state_error("state: tlbf slices exceed the memory cap");
    }
    check_loaded_runs(old);
    detail::LegacySlices::visit_fields(legacy_, ar, max_slice_bits_ / 64, k_);
    gen_counted_ = gen_inserts_;
    if (!sliced_) {
      slices_ = std::move(old);
      total_bits_ = bits;
    } else {
      format2_ = std::move(old);
      format2_bits_ = bits;
      start_slices(format2_.back().bits);
      peak_bits_ = std::max(peak_bits_, total_bits_ + older_format_bits());
    }
    ++epoch_;
  }

  // Format 1 (before generation-keyed probes), whose fields after k are those of format 2
  // without the generation end, the cap horizon, the peak and the per-slice last own insert.
  // Its slices become legacy slices; the filter goes on with empty slices (bit-sliced: one
  // era of the newest one's size; slice-major: of the same sizes).
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
    sliced_ = false;
    std::uint64_t n = 0;
    ar.u64(n);
    if (n < k_ + l_ || n > max_slices_ || seq_next_ < n) throw state_error("state: tlbf slice count out of range");
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
      slices_[i].bits = old.words.size() * 64;
      slices_[i].words.assign(old.words.size(), 0);
      check_loaded_slice(i);
      if (inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
    }
    if (k_ + l_ <= detail::RunCells::kMaxSlices) {
      sliced_ = true;
      start_slices(slices_.back().bits);
    }
    // The current generation goes on with fresh slices; its inserts so far are in the legacy
    // ones, so it ends at its own cell's end like any other, and none are owed to the fresh ones.
    gen_end_ = detail::cell_end(gen_start_, cell_);
    gen_counted_ = gen_inserts_;
    peak_bits_ = total_bits_ + older_format_bits();
  }

  // Every parameter against the others and the hard limits; then room for n slices.
  void check_loaded_parameters(std::uint64_t n) {
    // l bounded first: k + l is taken in 32 bits below, and a sum wrapped to 0 would divide by it.
    if (k_ == 0 || k_ > detail::kMaxK || l_ == 0 || l_ > detail::kMaxSlicesHard)
      throw state_error("state: tlbf k or l out of range");
    if (max_slices_ < k_ + l_ || max_slices_ > detail::kMaxSlicesHard)
      throw state_error("state: tlbf max_slices out of range");
    if (span_ <= 0) throw state_error("state: tlbf span is not positive");
    if (max_bits_ > detail::kMaxTotalBits || min_bits_ < 64 || min_bits_ % 64 || max_slice_bits_ % 64 ||
        max_slice_bits_ < min_bits_ || max_slice_bits_ > max_bits_ / (k_ + l_))
      throw state_error("state: tlbf size limits inconsistent");
    if (sliced_ && k_ + l_ > detail::RunCells::kMaxSlices)
      throw state_error("state: tlbf too many slices to bit-slice");
    if (n != 0 && (n < (sliced_ ? k_ : k_ + l_) || n > max_slices_ || seq_next_ < n))
      throw state_error("state: tlbf slice count out of range");
    compute_cell();
    slices_.resize(n);
  }

  // Slice i (from the oldest) as read: its bounds.
  void check_loaded_slice(std::size_t i) {
    Slice& s = slices_[i];
    if (!sliced_ && s.bits != s.words.size() * 64) throw state_error("state: tlbf slice size and words differ");
    if (s.bits < min_bits_ || s.bits > max_slice_bits_ || s.bits % 64)
      throw state_error("state: tlbf slice size out of range");
    // A real count stays far below this; refusing more keeps ++inserts from wrapping.
    if (s.inserts > kMaxInserts || s.upsampled > kMaxInserts)
      throw state_error("state: tlbf slice insert count out of range");
    // A slice takes about ln 2 inserts a bit at most (capacity()): twice its bits is a
    // hand-made count, which would make the rate estimate grow the slices from a few inserts.
    if (s.inserts + s.upsampled > 2 * s.bits) throw state_error("state: tlbf slice holds more inserts than bits");
    if (!sliced_) {
      total_bits_ += s.bits;
      if (total_bits_ > max_bits_) throw state_error("state: tlbf slices exceed the memory cap");
    }
  }
  // The query stops at the first run it does not accept, which is right only while the
  // runs' last inserts do not increase with age.
  template <class Slices>
  static void check_loaded_runs(const Slices& v) {
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i - 1].own_last > v[i].own_last) throw state_error("state: tlbf generations out of order");
  }

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

  // --- The bit-sliced layout -----------------------------------------------------------

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

  // --- The slice-major layout ----------------------------------------------------------

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
  // The slice-major insert: run 0's bits, probe value x_p in the slice at position p.
  void insert_slice_major(KeyHash h, Time now) {
    now = open_insert(now);
    Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::uint32_t p = 0; p < k_; ++p, --s)
      detail::set_bit(s->words.data(), reduce(detail::run_probe(h, p), s->bits));
    close_insert(now);
  }

  // --- Both layouts --------------------------------------------------------------------

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

  // A slice's metadata, empty; slice-major, its words too (every one, whatever the buffer
  // held before).
  void init_slice(Slice& s, std::uint64_t bits) {
    if (!sliced_) {
      if (s.words.capacity() > 2 * (bits / 64)) s.words = std::vector<std::uint64_t>();  // do not hoard a big buffer
      s.words.assign(bits / 64, 0);
    }
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

  // Drops the oldest slice; slice-major, keeping its buffer for reuse. A live one is a cap
  // binding: the keys of the runs through it, inserted up to its last update, may no longer
  // be found.
  void drop_oldest(std::vector<std::uint64_t>& spare, Time now) {
    Slice& old = slices_.front();
    if (live(old, now)) {
      ++cap_evictions_;
      memory_capped_ = true;
      cap_horizon_ = std::max(cap_horizon_, old.stamp);
      note_cap_bound();
    }
    if (sliced_) {
      // Its slot is the oldest era's top one; an older era left without slices is freed.
      if (--eras_.front().slices == 0 && eras_.size() > 1) {
        total_bits_ -= eras_.front().cells.bits();
        eras_.erase(eras_.begin());
        ++epoch_;
      }
    } else {
      total_bits_ -= old.bits;
      if (old.words.capacity() > spare.capacity()) spare = std::move(old.words);
    }
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
        if (sliced_) {
          const EraSlot e = era_slot(pos);
          eras_[e.era].cells.clear_slot(e.slot);
        } else {
          std::fill(s.words.begin(), s.words.end(), std::uint64_t{0});
        }
        s.inserts = 0;
        s.upsampled = 0;
      }
    }

    // 3-4. The new slice 0, its size and place; retiring and caps.
    if (sliced_)
      add_era_slice(now, tg, measured_over);
    else
      add_own_slice(now, tg);
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

  // Slice-major steps 3-4: eqs. 7-8 size the new slice (old position p becomes p + 1).
  void add_own_slice(Time now, double tg) {
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
    total_bits_ += m0;
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

  // What the era policy does with the new slice (shift step 3).
  struct EraMove {
    enum Kind { join, upsample, fold, start } kind = join;
    std::uint64_t factor = 1;  // upsample, fold
    std::uint64_t bits = 0;    // start: the new era's slice size
    bool burst = false;        // join: an era past k + l slices takes a faster rate's slice
  };
  // Whether every slice of the newest era, folded by c, stays within the fill the layout was
  // chosen for (1 - 2^(-1/h), set_fill_target() with l + 1 runs: not the fill of the moment,
  // which is not saved, so that a loaded filter folds as the one it was saved from).
  bool foldable(std::uint64_t c) const {
    const std::uint64_t m = eras_.back().bits();
    if (m % (64 * c) != 0 || m / c < min_bits_) return false;
    const auto cap = static_cast<std::uint64_t>(std::floor(static_cast<double>(m / c) * detail::kLn2 / kHeadroom));
    for (std::size_t pos = 0; pos < eras_.back().slices; ++pos)
      if (fill_inserts(at(pos)) > cap) return false;
    return true;
  }
  EraMove era_policy(Time now, double tg, Duration measured_over) {
    const Era& newest = eras_.back();
    // Inserts a new era's slices would be sized for: at the layout's fill, or, while more
    // runs than a burst's era holds are accepted and generations still end by count, at the
    // fill lowered for them (fill_log_for()), or the runs would go on piling up.
    const bool short_of_fill = gen_left_ == 0 && accepted_runs(detail::sat_sub(now, span_)) > kWideSlots;
    const double want = k_ * tg * kHeadroom * (short_of_fill ? fill_shortfall(now) : 1.0);
    const double q = want / detail::kLn2 / static_cast<double>(newest.bits());
    const std::uint64_t fresh = detail::slice_bits_for(want, min_bits_, max_slice_bits_);
    const bool room = eras_.size() < kMaxEras && fresh != newest.bits();
    // A generation a silence of a cell or more followed tells nothing of the rate after it:
    // the era is kept, unless the generation's own rate (to the end of its cell, without
    // the silence) was far below the era's (a burst ended, records come a cell apart). Else
    // every slice after a burst would join the burst's era, a pass over its large cells at
    // each shift (each record) and its memory kept for as long as slices come; the new era
    // is young, so a rate that resumes upsamples it.
    if (detail::sat_sub(now, gen_end_) > cell_) {
      const double own = static_cast<double>(gen_inserts_) * static_cast<double>(span_) /
                         ((static_cast<double>(detail::sat_sub(gen_end_, gen_start_)) + 1) * l_);
      const double own_want = k_ * own * kHeadroom;
      if (own_want / detail::kLn2 / static_cast<double>(newest.bits()) > 1 / kEraSilenceStep) return {};
      const std::uint64_t own_fresh = detail::slice_bits_for(own_want, min_bits_, max_slice_bits_);
      return eras_.size() < kMaxEras && own_fresh != newest.bits() ? EraMove{EraMove::start, 1, own_fresh} : EraMove{};
    }
    // A generation its cell ended within 1/1024 of a cell (the stream's first, begun just
    // before a cell's end) measured no rate: the era is kept and the next one measures it.
    // Else a stream starting on a cell's edge set off a ladder of eras, each sized from the
    // short generations of the last, all live for the first window.
    if (gen_left_ > 0 && within_a_tick(measured_over)) return {};
    EraMove move;
    if (q >= kEraStep || q <= 1 / kEraStep) {
      drift_side_ = 0;
      if (q >= kEraStep) {
        // Only a young era is upsampled: one begun at most two shifts ago (the first, sized
        // from the configured capacity, or one sized from part of a step), whose few slices
        // then take what an era of the new size would. An older era's slices are as full
        // after upsampling as before (Slice::upsampled), so they would hold c times their
        // memory for the rest of their span and take no more inserts: a new era starts. Not
        // for a rate measured over less than 1/1024 of a cell either: inserts the clock
        // cannot tell apart (a burst in one tick) start a new era, whose generations the
        // older slices of the insert range keep small, so that it grows 4 times per shift at
        // most, as the slice-major layout does.
        const auto c = static_cast<std::uint64_t>(
            std::min(std::floor(q + 0.5), static_cast<double>(max_slice_bits_ / newest.bits())));
        const bool young = newest.slices <= 2 || (eras_.size() == 1 && seq_next_ <= std::uint64_t{k_} + 2);
        if (c >= 2 && young && !within_a_tick(measured_over)) return {EraMove::upsample, c, 0};
        // An era that holds a whole window's slices (k + l: the rate it was sized for held that
        // long) takes the slices of a faster rate while it stays within kWideSlots: their
        // generations end by count, each slice as full as the layout allows, and a short burst
        // passes without an era of its own (queries read one era, where a new one would stay
        // live for a window after the burst, beside the eras before and after it). A rate
        // that stays up past that starts eras as before. Not inserts the clock cannot tell
        // apart (they would fill the era by count at once), nor past max_slices.
        if (newest.slices >= std::uint64_t{k_} + l_ && newest.slices + 1 <= kWideSlots &&
            slices_.size() + 1 < max_slices_ && !within_a_tick(measured_over)) {
          move.burst = true;
          return move;
        }
        // No era left to start (kMaxEras live): an era of at most k slices whose generation
        // ended by count is upsampled whatever the clock measured, at a cost of at most the k
        // slices of the insert range at the new size. Joined instead, its generations ended
        // by count and the runs piled up (2,000 in a span after a 10^5-fold jump, against
        // l + 1 = 50). To half of max_slice_bits_ at most, so that a window of its slices
        // takes half the memory cap at most. At max_slice_bits_ one era took all of a cap
        // that bound: the k - 1 slices of its insert range, which hold no accepted run yet,
        // took a third of it at k = 21, and no smaller era could start beside it once the
        // rate fell (a 100-fold burst against --max-memory 64K, -w 10s kept 0.97 s at the
        // shortest; 1.1 s now, e2e.cap_agreement).
        const std::uint64_t within_cap = std::min(c, max_slice_bits_ / 2 / newest.bits());
        if (!room && within_cap >= 2 && newest.slices <= k_ && gen_left_ == 0)
          return {EraMove::upsample, within_cap, 0};
      } else {
        const std::uint64_t most = newest.bits() / min_bits_;  // a fold never goes below min_bits_
        for (auto c = std::min(most, static_cast<std::uint64_t>(std::min(1 / q, 1e9))); c >= 2; --c)
          if (foldable(c)) return {EraMove::fold, c, 0};
      }
      if (room) move = {EraMove::start, 1, fresh};
      return move;
    }
    const std::uint8_t side = q > kHeadroom ? 1 : q < 1 / kEraDrift ? 2 : 0;
    // A burst's era full at kWideSlots whose generations still end by count above its rate:
    // the burst outlasted it, and a new era starts as at a step of the rate (the fill of its
    // many runs, fill_log_for(), can hold the ending generation's rate under kEraStep).
    if (side == 1 && gen_left_ == 0 && newest.slices >= std::uint64_t{k_} + l_ && newest.slices + 1 > kWideSlots &&
        room) {
      drift_side_ = 0;
      return {EraMove::start, 1, fresh};
    }
    if (side != drift_side_) {
      drift_side_ = side;
      drift_since_ = now;
    } else if (side != 0 && detail::sat_sub(now, drift_since_) >= span_ && room) {
      drift_side_ = 0;
      move = {EraMove::start, 1, fresh};
    }
    return move;
  }

  // The newest era's slots after this shift's slice: its slices and the new one, doubled when
  // it has to grow, up to the k + l slices a steady stream keeps, and a quarter more past them
  // (an era is laid out anew, a pass over its cells, a few times as it fills, not at each
  // shift; no more than a fifth of its cells stands empty), or straight to kWideSlots when it
  // takes a faster rate's slices (`burst`, era_policy(): one re-layout for the burst);
  // narrowed back to them when it lost slices and an eighth of it stands empty, or to k + l
  // when they are back within k + l. `tight`
  // (under the memory cap): no room beyond the slices.
  std::uint64_t newest_slots(bool lost, bool tight, bool burst) const {
    const Era& e = eras_.back();
    const std::uint64_t need = e.slices + 1, slots = e.cells.slots();
    const std::uint64_t steady = std::uint64_t{k_} + l_;
    if (need > slots) {
      if (tight) return need;
      if (need <= steady) return std::min<std::uint64_t>(std::min(2 * need, steady), max_slices_);
      // Past k + l (a burst's era holds k + l slices or more, era_policy()).
      const std::uint64_t grown = need + need / 4;
      if (need <= kWideSlots)
        return std::min<std::uint64_t>(burst ? kWideSlots : std::min<std::uint64_t>(grown, kWideSlots), max_slices_);
      return std::min<std::uint64_t>(grown, max_slices_);
    }
    // Back within a steady stream's k + l, an era grown past them keeps no slot beyond them:
    // an eighth would leave up to (k + l) / 8 slots empty for as long as the stream stays
    // steady (the first window's transient left 69 slots for 64 slices, 8% of the memory).
    if (lost && !tight && need <= steady && steady < slots && slots < kWideSlots) return steady;
    if ((lost || tight) && slots - need >= std::max<std::uint64_t>(tight ? 1 : 2, need / 8)) {
      // A wide era stays wide while it needs more than 64 slots, then narrows to 64.
      if (!tight && slots == kWideSlots) return need > 64 ? slots : std::max<std::uint64_t>(need, 64);
      return need;
    }
    return slots;
  }
  // The bits the eras would hold after `move` and the new slice.
  std::uint64_t bits_after(const EraMove& move, bool lost, bool tight) const {
    std::uint64_t bits = 0;
    for (std::size_t e = 0; e + 1 < eras_.size(); ++e) bits += eras_[e].cells.bits();
    const Era& newest = eras_.back();
    const std::uint64_t slots = newest_slots(lost, tight, move.burst);
    switch (move.kind) {
      case EraMove::start:
        return bits + newest.cells.bits() + move.bits;
      case EraMove::upsample:
        return bits + (newest.slices + 1) * newest.bits() * move.factor;
      case EraMove::fold:
        return bits + slots * (newest.bits() / move.factor);
      case EraMove::join:
        break;
    }
    return bits + slots * newest.bits();
  }

  // Bit-sliced steps 3-4: the era policy, retiring, the caps, then the new slice in the
  // newest era (its cells move up one slot) or in a new one; older eras with a quarter of
  // their slots empty are narrowed.
  void add_era_slice(Time now, double tg, Duration measured_over) {
    std::vector<std::uint64_t> unused;
    const std::uint64_t newest_before = eras_.back().slices;
    // 4. Expired slices beyond the insert range leave (k - 1 old ones stay, with the new one k).
    while (slices_.size() >= k_ && !live(slices_.front(), now)) drop_oldest(unused, now);
    while (slices_.size() >= max_slices_) drop_oldest(unused, now);
    EraMove move = era_policy(now, tg, measured_over);
    // The memory cap: no growth that passes it, no room to spare, then the oldest slices
    // leave until the new one fits (older eras narrowed to what they still hold).
    bool tight = false;
    auto lost = [&] { return eras_.back().slices < newest_before; };
    while (bits_after(move, lost(), tight) > max_bits_) {
      if (move.kind == EraMove::upsample || move.kind == EraMove::start) {
        move = EraMove{};
      } else if (!tight) {
        tight = true;
        narrow_older_eras(true);
      } else if (slices_.size() < k_) {  // k - 1 old slices and the new one always fit: a hand-made state
        memory_capped_ = true;
        break;
      } else {
        drop_oldest(unused, now);
        narrow_older_eras(true);
      }
    }
    Era* newest = &eras_.back();
    const auto slots = static_cast<std::uint32_t>(newest_slots(lost(), tight, move.burst));
    if (move.kind != EraMove::join || slots != newest->cells.slots()) ++epoch_;
    switch (move.kind) {
      case EraMove::upsample:  // aged first, to its slices: the fewest slots are copied c times
        newest->cells.age_into(static_cast<std::uint32_t>(newest->slices + 1));
        newest->cells.upsample(static_cast<std::uint32_t>(move.factor));
        resize_newest_slices(newest->bits());
        for (std::size_t pos = 0; pos < newest->slices; ++pos) {
          Slice& x = at(pos);
          const std::uint64_t filled = fill_inserts(x);
          const std::uint64_t scaled = filled > kMaxInserts / move.factor ? kMaxInserts : filled * move.factor;
          x.upsampled = scaled > x.inserts ? scaled - x.inserts : 0;
        }
        break;
      case EraMove::fold:
        newest->cells.fold(static_cast<std::uint32_t>(move.factor));
        resize_newest_slices(newest->bits());
        newest->cells.age_into(slots);
        break;
      case EraMove::start:
        // An era left without slices (k = 1 drops every expired one) is reused: an era of
        // no slots behind a newer one would be read past its single guard word.
        if (newest->slices != 0) {
          eras_.emplace_back();
          newest = &eras_.back();
        }
        newest->cells.reset(1, move.bits, k_ + l_);  // it widens in place to the k + l of a steady stream
        break;
      case EraMove::join:
        newest->cells.age_into(slots);
        break;
    }
    ++newest->slices;
    slices_.emplace_back();
    init_slice(slices_.back(), newest->bits());
    narrow_older_eras(false);
    total_bits_ = 0;
    for (const Era& e : eras_) total_bits_ += e.cells.bits();
  }
  // The newest era's slices took a new size (upsample, fold).
  void resize_newest_slices(std::uint64_t bits) {
    for (std::size_t pos = 0; pos < eras_.back().slices; ++pos) at(pos).bits = bits;
  }
  // Older eras only lose slices (from their top slots): each is narrowed to its slices when
  // half of its slots are empty, or whenever one is, under the memory cap (`tight`).
  void narrow_older_eras(bool tight) {
    for (std::size_t e = 0; e + 1 < eras_.size(); ++e) {
      detail::RunCells& c = eras_[e].cells;
      const std::uint64_t empty = c.slots() - eras_[e].slices;
      if (empty == 0 || (!tight && empty * 2 < c.slots())) continue;
      total_bits_ -= c.bits();
      c.resize_slots(static_cast<std::uint32_t>(eras_[e].slices));
      total_bits_ += c.bits();
      ++epoch_;
    }
  }

  std::uint32_t k_ = 0, l_ = 0;
  Duration span_ = 0;
  Duration cell_ = 1;  // max(1, span / l): the grid generations keep to
  std::uint64_t min_bits_ = 0, max_slice_bits_ = 0, max_bits_ = 0;
  std::uint32_t max_slices_ = 0;
  bool sliced_ = true;       // the bit-sliced layout (eras_), else slice-major (words in slices_)
  SliceList slices_;         // oldest first; slices_.back() is position 0
  std::vector<Era> eras_;    // bit-sliced: oldest first, holding slices_ in order
  std::uint64_t epoch_ = 0;  // bit-sliced: changes whenever a key's cells in the newest era may move
  std::uint64_t total_bits_ = 0;
  std::uint64_t era_bits_ = 0;  // while loading: the eras' bits so far
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
  detail::AgeIsa isa_ = detail::best_age_isa();  // for relocate(): the probes four at a time with AVX2
  // insert_if_absent()'s last count of accepted runs, where its next count starts (never more
  // than the runs there are; not saved: a loaded filter starts from 0).
  std::size_t runs_hint_ = 0;
  std::vector<Slice> format2_;  // a format-2 state's slices, answering until they expire
  std::uint64_t format2_bits_ = 0;
  detail::LegacySlices legacy_;
};

}  // namespace tlbf
