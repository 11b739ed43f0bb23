// SPDX-License-Identifier: MIT
// Age-partitioned Bloom filter over a count window (Shtul, Baquero, Almeida 2020; summarised
// in Rodrigues et al. 2023, §5): reports a key while it is among the last `window_count`
// inserts, and at most one generation longer.
//
// Structure: k + l slices of m bits each. Probes are generation-keyed
// (detail/age_partitioned.hpp): an insert sets, in the slice at position p = 0..k-1, the
// bit of probe hash p, so the k bits of one generation form its run and no two runs probe a
// shared slice with the same hash. The slices form a ring of physical slices (`head_` is the
// one at position 0, the newest); each keeps `last_`, the number (counted from 1) of the
// last insert of the generation that opened it.
//
// Layout. With k + l <= 64 (what choose_kl() picks at its default max_kl) the bits are
// bit-sliced (detail::RunCells): cell x, k + l bits, holds bit x of every slice in position
// order, so a query reads the k cells of its probes and finds every accepted run that holds
// it with k shifts and ANDs; a shift moves every cell up one bit. The cells are packed, so
// the memory is the same (k + l) m bits as slice by slice (one guard word more), and
// stats() reports it unchanged. With more slices they are kept slice by slice in one word
// array, in physical order, and a query scans the accepted runs level by level (one load per
// accepted run at least). Both layouts make the same decisions.
//
// Insert: after a generation of g = ceil(window_count / l) inserts, the next insert first
// shifts: the oldest slice (position k + l - 1) is cleared in full and becomes position 0.
// Slices have m = ceil(g k / ln 2) bits rounded up to whole words, so each reaches fill 1/2
// after the k generations it takes inserts from.
//
// Window rule (query): after c inserts, run j is accepted iff its last insert number L
// satisfies L + window_count > c. A key is reported iff an accepted run holds all its bits.
//  - No false negatives: a key inserted as number i <= L is among the last window_count
//    inserts iff c - i < window_count, which implies the rule. Its run is still there: a run
//    leaves at the (l + 1)-th shift after its generation, after at least l g >=
//    window_count further inserts.
//  - Tight: L < i + g, so once c - i >= window_count + g - 1 (the key has window_count +
//    g - 1 later inserts... counted with itself, c - i) the run is refused; any other run
//    holds the key only by chance (k bits at other hashes). So a key is never reported,
//    beyond the false-positive rate, after window_count + g - 1 later inserts.
//
// Memory cap. When k + l slices of m bits do not fit in max_memory_bytes, the slices get
// what fits (and g what fills them to one half): the window gives up its oldest part, to
// l g inserts (stats().effective_count), instead of raising the false-positive rate. Each
// shift that clears a generation still inside the configured window counts as a cap binding
// (cap_evictions, WindowFilter::cap_binds()).
//
// Saved form (after the tag byte), format 2: u32 0, u8 format (2), u32 k, u32 l, u64
// window_count, u64 slice bits m, u64 inserts per generation g, u64 inserts in the current
// generation, u32 head, u64 keys inserted, u64 cap evictions, word array (the slices one
// after the other in physical order, whichever layout is in memory: the bit-sliced one is
// transposed on save and load), then per physical slice its u64 last insert number, then
// the format-1 slices still answering (detail::LegacySlices). Format 1 (no marker; it starts with k, never 0) is still
// read: its slices become legacy slices, queried with their one hash per slice for one more window (until window_count
// further inserts), beside fresh slices that take the inserts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/detail/run_cells.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/slice_view.hpp"

namespace tlbf {

class AgePartitionedFilter final : public WindowFilter {
 public:
  explicit AgePartitionedFilter(const FilterConfig& cfg) {
    if (cfg.window_count == 0) throw invalid_parameter("window_count", "0", "must be > 0 for apbf");
    if (cfg.window_count > kMaxWindow)  // as load() refuses it
      throw invalid_parameter("window_count", parameter_value(cfg.window_count),
                              "is too large for apbf (at most 2^62)");
    const SliceLayout layout = detail::resolve_layout(cfg);
    k_ = layout.k;
    l_ = layout.l;
    window_ = cfg.window_count;
    const std::uint64_t max_bits = detail::memory_cap_bits(cfg);
    const std::uint64_t slice_cap = max_bits / (k_ + l_) / 64 * 64;
    const std::uint64_t gen = window_ / l_ + (window_ % l_ != 0);
    const double want = static_cast<double>(gen) * k_;  // g k, which may not fit in 64 bits
    std::uint64_t bits = detail::slice_bits_for(want, 64, detail::kMaxTotalBits);
    // ceil() in floating point may land a hair low; the half fill needs m ln2 >= g k. A slice
    // at the largest size stops the search: the cap then binds (below).
    while (bits < detail::kMaxTotalBits && static_cast<double>(detail::half_fill_capacity(bits)) < want) bits += 64;
    generation_ = gen;
    if (bits > slice_cap) {
      // The cap binds: what fits, and the generation that fills it to one half.
      bits = slice_cap;
      generation_ = detail::half_fill_capacity(bits) / k_;
      capped_ = true;
      if (bits == 0 || generation_ == 0)
        throw invalid_parameter("max_memory_bytes", parameter_value(cfg.max_memory_bytes),
                                "is too small for an apbf with k = " + std::to_string(k_) +
                                    ", l = " + std::to_string(l_) + ": " + std::to_string(k_ + l_) + " slices of " +
                                    std::to_string(detail::slice_bits_for(k_, 64, detail::kMaxTotalBits)) +
                                    " bits are needed at least");
    }
    set_layout(bits);
    allocate_slices();
    last_.assign(slices(), 0);
  }

  static std::unique_ptr<AgePartitionedFilter> load(ByteReader& in) {
    return SavedForm::load<AgePartitionedFilter>(in);
  }

  bool may_contain(KeyHash h, Time /*now*/) const override {
    if (sliced_) {
      detail::RunCells::Key at;
      cells_.locate(h, k_, at);
      return cells_.any_run_holds(at, k_, runs_) || legacy_may_contain(h);
    }
    const auto x = probes(h);
    return detail::any_run_hit(
               slices(), k_, [&](std::size_t j) { return accepted(last_[physical(j)]); },
               [&](std::size_t pos, std::uint32_t p) {
                 return detail::test_bit(slice_words(physical(pos)), reduce(x[p], bits_));
               },
               [&](std::size_t pos, std::uint32_t p) {
                 detail::prefetch(slice_words(physical(pos)) + (reduce(x[p], bits_) >> 6));
               }) ||
           legacy_may_contain(h);
  }
  void insert(KeyHash h, Time /*now*/) override {
    const bool shifted = open_insert();
    if (sliced_) {
      detail::RunCells::Key at;
      cells_.locate(h, k_, at);
      cells_.set_newest_run(at, k_);
    } else {
      const auto x = probes(h);
      for (std::uint32_t p = 0; p < k_; ++p) detail::set_bit(slice_words(physical(p)), reduce(x[p], bits_));
    }
    close_insert(shifted);
  }
  // The bit-sliced layout locates the key's cells once for the query and the insert.
  bool insert_if_absent(KeyHash h, Time now) override {
    if (!sliced_ || !legacy_.slices.empty()) return insert_if_absent_in_two_steps(*this, h, now);
    detail::RunCells::Key at;
    cells_.locate(h, k_, at);
    if (cells_.any_run_holds(at, k_, runs_)) return false;
    const bool shifted = open_insert();
    cells_.set_newest_run(at, k_);
    close_insert(shifted);
    return true;
  }
  // Nothing while the slices fit the cache (detail::kPrefetchFromBits). Bit-sliced: the key's
  // k cells. Slice by slice: probe 0 of every accepted run, the query's first level.
  void prefetch(const KeyHash& h) const override {
    if (bits_ * slices() <= detail::kPrefetchFromBits) return;
    if (sliced_) {
      detail::RunCells::Key at;
      cells_.locate(h, k_, at);
      for (std::uint32_t p = 0; p < k_; ++p) cells_.prefetch(at, p);
      return;
    }
    const std::uint64_t x0 = detail::run_probe0(h);
    for (std::uint32_t j = 0; j + k_ <= slices() && accepted(last_[physical(j)]); ++j)
      detail::prefetch(slice_words(physical(j)) + (reduce(x0, bits_) >> 6));
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time /*now*/) const override {
    FilterStats s;
    s.algorithm = "apbf";
    s.slices = slices();
    s.k = k_;
    s.l = l_;
    s.slice0_bits = bits_;
    s.bits_allocated = bits_ * slices() + legacy_.bits();
    s.peak_bits_allocated = std::max(peak_bits_, s.bits_allocated);
    s.keys_inserted = keys_inserted_;
    // In a count window exactly the last window_count inserts are inside it.
    s.live_keys = std::min(keys_inserted_, window_);
    s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0.0;
    s.memory_capped = capped_;
    s.cap_evictions = cap_evictions_;
    if (capped_) s.effective_count = std::min(window_, l_ * generation_);
    return s;
  }

  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::apbf); }

  std::uint32_t k() const { return k_; }
  std::uint32_t l() const { return l_; }
  std::uint32_t slices() const { return k_ + l_; }
  // Inserts per generation, g.
  std::uint64_t generation() const { return generation_; }
  // Slices still answering for a format-1 state (0 once they have retired).
  std::size_t legacy_slice_count() const { return legacy_.slices.size(); }
  // Position 0 is the newest slice. Throws std::out_of_range for position >= slices().
  SliceView slice(std::size_t position) const {
    if (position >= slices()) throw std::out_of_range("apbf: no slice at position " + std::to_string(position));
    const std::uint32_t j = physical(static_cast<std::uint32_t>(position));
    SliceView v;
    v.bits = bits_;
    v.inserts = position == 0 ? gen_count_ : 0;
    v.run_last = static_cast<std::int64_t>(last_[j]);
    v.ones = sliced_ ? cells_.ones_at(static_cast<std::uint32_t>(position))
                     : detail::count_ones(slice_words(j), words_per_slice_);
    return v;
  }

 private:
  static constexpr std::uint8_t kFormat = 2;
  static constexpr std::uint64_t kMaxWindow = std::uint64_t{1} << 62;  // window_count, built or loaded
  friend struct SavedForm;
  AgePartitionedFilter() = default;

  // The saved form, field by field (see the top of the file).
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    std::uint32_t marker = 0;  // format 1 starts with k (never 0) here
    ar.u32(marker);
    if constexpr (Archive::loading) {
      if (marker != 0) return f.load_format1(marker, ar);
    }
    ar.version(kFormat, "state: apbf: unknown format version");
    ar.u32(f.k_, f.l_);
    ar.u64(f.window_, f.bits_, f.generation_, f.gen_count_);
    ar.u32(f.head_);
    ar.u64(f.keys_inserted_, f.cap_evictions_);
    if constexpr (Archive::loading) f.check_loaded_parameters();
    visit_slices(f, ar);
    if constexpr (Archive::loading) f.last_.assign(f.slices(), 0);
    for (std::uint32_t j = 0; j < f.slices(); ++j) ar.u64(f.last_[j]);
    detail::LegacySlices::visit_fields(f.legacy_, ar, f.words_per_slice_, f.slices());
    if constexpr (Archive::loading) {
      f.check_loaded_runs();
      f.count_runs();
    }
  }

  // The slices as saved, in either layout: slice by slice in physical order (the ring), m /
  // 64 words each, one word count before them. The bit-sliced layout is transposed
  // kSlicesPerPass slices at a time (physical order) through a buffer of that many slices:
  // each pass reads every cell once, and the buffer stays a quarter of the filter at most
  // (S = 64), where all slices at once would double the memory a save or load holds.
  static constexpr std::uint32_t kSlicesPerPass = 16;
  template <class Self, class Archive>
  static void visit_slices(Self& f, Archive& ar) {
    const std::uint64_t expect = std::uint64_t{f.slices()} * f.words_per_slice_;
    std::uint64_t n = expect;
    ar.word_count(n, expect);
    if (n != expect) throw state_error("state: apbf bit array has the wrong length");
    if constexpr (Archive::loading) f.allocate_slices();
    if (!f.sliced_) return ar.word_data(f.words_.data(), n);
    const std::uint32_t group = std::min(f.slices(), kSlicesPerPass);
    std::vector<std::uint64_t> buffer(std::size_t{group} * f.words_per_slice_);
    std::uint32_t pos[kSlicesPerPass];
    for (std::uint32_t j0 = 0; j0 < f.slices(); j0 += group) {
      const std::uint32_t count = std::min(group, f.slices() - j0);
      for (std::uint32_t i = 0; i < count; ++i) pos[i] = f.position(j0 + i);
      if constexpr (!Archive::loading) f.cells_.copy_slices_out(pos, count, buffer.data());
      ar.word_data(buffer.data(), std::uint64_t{count} * f.words_per_slice_);
      if constexpr (Archive::loading) f.cells_.copy_slices_in(pos, count, buffer.data());
    }
  }

  // Format 1: u32 k, u32 l, u64 window_count, u64 slice bits, u64 inserts in the current
  // generation, u32 head, u64 keys inserted, word array; slice j used probe hash j. Its
  // slices answer as legacy slices until window_count further inserts; the filter goes on
  // with empty slices of the same size, and its current generation goes on where it was.
  template <class Archive>
  void load_format1(std::uint32_t k, Archive& ar) {
    k_ = k;
    ar.u32(l_);
    ar.u64(window_, bits_, gen_count_);
    ar.u32(head_);
    ar.u64(keys_inserted_);
    generation_ = 0;  // format 1's generation: derived from the slice size below
    if (bits_ > 0 && bits_ % 64 == 0 && k_ <= detail::kMaxK && k_ > 0)
      generation_ = detail::half_fill_capacity(bits_) / k_;
    check_loaded_parameters();
    const std::uint64_t expect = std::uint64_t{slices()} * words_per_slice_;
    std::vector<std::uint64_t> old;
    ar.words(old, expect);
    if (old.size() != expect) throw state_error("state: apbf bit array has the wrong length");
    legacy_.slices.resize(slices());
    for (std::uint32_t pos = slices(); pos-- > 0;) {  // oldest first
      auto& s = legacy_.slices[slices() - 1 - pos];
      const std::uint32_t j = physical(pos);
      s.words.assign(old.begin() + static_cast<std::ptrdiff_t>(std::size_t{j} * words_per_slice_),
                     old.begin() + static_cast<std::ptrdiff_t>(std::size_t{j + 1} * words_per_slice_));
      s.hash_index = j;
      s.age = static_cast<std::int64_t>(keys_inserted_ + window_);  // retired at this insert count
    }
    allocate_slices();
    last_.assign(slices(), 0);
    runs_ = 0;
  }

  void check_loaded_parameters() {
    if (k_ == 0 || k_ > detail::kMaxK || l_ == 0 || std::uint64_t{k_} + l_ > detail::kMaxSlicesHard)
      throw state_error("state: apbf k or l out of range");
    if (window_ == 0 || window_ > kMaxWindow) throw state_error("state: apbf window_count out of range");
    if (bits_ == 0 || bits_ % 64 != 0 || bits_ > detail::kMaxTotalBits / slices())
      throw state_error("state: apbf slice size out of range");
    set_layout(bits_);
    if (generation_ == 0 || generation_ * k_ > detail::half_fill_capacity(bits_))
      throw state_error("state: apbf generation does not fit its slices");
    if (keys_inserted_ > (std::uint64_t{1} << 62)) throw state_error("state: apbf insert count out of range");
    capped_ = l_ * generation_ < window_;
    if (gen_count_ > generation_ || head_ >= slices()) throw state_error("state: apbf counters inconsistent");
  }

  // Runs must not get newer with age (the query stops at the first refused one), and no
  // insert number may lie in the future.
  void check_loaded_runs() const {
    for (std::uint32_t pos = 0; pos + 1 < slices(); ++pos)
      if (last_[physical(pos + 1)] > last_[physical(pos)]) throw state_error("state: apbf generations out of order");
    if (last_[head_] > keys_inserted_) throw state_error("state: apbf insert numbers out of range");
  }

  void set_layout(std::uint64_t bits) {
    bits_ = bits;
    words_per_slice_ = bits / 64;
    peak_bits_ = bits_ * slices();
    sliced_ = slices() <= detail::RunCells::kMaxSlices;
  }
  // Empty slices in the layout set_layout() chose: k + l <= 64 slices bit-sliced, more slice
  // by slice.
  void allocate_slices() {
    if (sliced_) {
      words_ = {};
      cells_.reset(slices(), bits_);
    } else {
      words_.assign(std::size_t{slices()} * words_per_slice_, 0);
    }
  }

  // runs_: the accepted runs, positions 0..runs_-1 (the run rule is monotone in age).
  void drop_refused_runs() {
    while (runs_ > 0 && !accepted(last_[physical(runs_ - 1)])) --runs_;
  }
  void count_runs() {
    runs_ = l_ + 1;
    drop_refused_runs();
  }

  // Run rule: its last insert is among the last window_count (0: the slice opened no run).
  bool accepted(std::uint64_t last) const { return last != 0 && last + window_ > keys_inserted_; }

  struct ProbeArray {
    std::uint64_t v[detail::kMaxK];
    std::uint64_t operator[](std::uint32_t p) const { return v[p]; }
  };
  ProbeArray probes(KeyHash h) const {
    ProbeArray x;
    detail::run_probes(h, k_, x.v);
    return x;
  }
  bool legacy_may_contain(KeyHash h) const {
    return !legacy_.slices.empty() &&
           legacy_.may_contain(h, k_, [](const detail::LegacySlices::Slice&) { return true; });
  }

  // An insert: a shift first when the generation is full (returns whether it shifted), then
  // the caller sets the key's bits in the newest run, then close_insert() counts it.
  bool open_insert() {
    const bool shifted = gen_count_ >= generation_;
    if (shifted) shift();
    return shifted;
  }
  void close_insert(bool shifted) {
    ++gen_count_;
    ++keys_inserted_;
    last_[head_] = keys_inserted_;
    // Only the newest run gains acceptance (it now holds this insert); after a shift the
    // runs that were accepted are one position older; then the oldest ones may have left.
    runs_ = std::min(shifted ? runs_ + 1 : std::max(runs_, 1u), l_ + 1);
    drop_refused_runs();
  }

  std::uint64_t* slice_words(std::uint32_t j) { return &words_[std::size_t{j} * words_per_slice_]; }
  const std::uint64_t* slice_words(std::uint32_t j) const { return &words_[std::size_t{j} * words_per_slice_]; }

  // Position 0 is the newest slice; positions grow with age. No division: pos < slices().
  std::uint32_t physical(std::size_t pos) const {
    std::size_t j = head_ + pos;
    if (j >= slices()) j -= slices();
    return static_cast<std::uint32_t>(j);
  }
  // The position of physical slice j.
  std::uint32_t position(std::uint32_t j) const { return j >= head_ ? j - head_ : j + slices() - head_; }

  // The oldest slice becomes the newest: clear all of it (not just part, bug e of the
  // reference implementation) before it takes inserts again. Clearing the run of a
  // generation still inside the configured window is the cap giving up window length.
  void shift() {
    // The run at position l loses its oldest slice now; its newest key is still inside the
    // window at the next query (after one more insert) only when the cap shortened it.
    const std::uint64_t lost = last_[physical(l_)];
    if (lost != 0 && lost + window_ > keys_inserted_ + 1) {
      ++cap_evictions_;
      note_cap_bound();
    }
    head_ = head_ == 0 ? slices() - 1 : head_ - 1;
    if (sliced_)
      cells_.age();
    else
      std::fill_n(words_.begin() + static_cast<std::ptrdiff_t>(std::size_t{head_} * words_per_slice_), words_per_slice_,
                  std::uint64_t{0});
    last_[head_] = 0;
    gen_count_ = 0;
    const auto done = static_cast<std::int64_t>(keys_inserted_);
    legacy_.retire([&](const detail::LegacySlices::Slice& s) { return s.age <= done; });
  }

  std::uint32_t k_ = 0, l_ = 0;
  std::uint64_t window_ = 0;
  std::uint64_t bits_ = 0;  // per slice, a multiple of 64
  std::uint64_t words_per_slice_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t gen_count_ = 0;
  std::uint32_t head_ = 0;
  std::uint64_t keys_inserted_ = 0;
  std::uint64_t cap_evictions_ = 0;
  std::uint64_t peak_bits_ = 0;
  bool capped_ = false;
  bool sliced_ = false;  // k + l <= 64: the slices live in cells_, else in words_
  std::uint32_t runs_ = 0;
  std::vector<std::uint64_t> words_;  // slice by slice, in physical order
  detail::RunCells cells_;
  std::vector<std::uint64_t> last_;  // per physical slice
  detail::LegacySlices legacy_;
};

}  // namespace tlbf
