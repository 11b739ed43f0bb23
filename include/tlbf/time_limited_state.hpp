// SPDX-License-Identifier: MIT
// The TLBF's saved form, one description for save and load (SavedForm, serialize.hpp), and
// the loading of the formats before it. load() chooses the layout class from the payload's
// first fields; loading checks the parameters before it allocates anything and each slice as
// it arrives, so damaged state is refused.
//
// Saved form (after the tag byte), format 3: u32 0, u8 format (3), u8 layout (0 bit-sliced,
// 1 slice-major), u32 k, u32 l, i64 span, u64 min_bits, u64 max_slice_bits, u64 max_bits, u32
// max_slices, i64 latest, u8 started, i64 generation start, i64 generation end (the cell's
// end), u64 generation left, u64 generation inserts, u64 next sequence number, u64 keys
// inserted, u64 cap evictions, u8 memory capped, i64 cap horizon, u64 peak bits, i64 drift
// start, u8 drift side (0 none, 1 over, 2 under), u64 slice count, then per slice from the
// oldest: i64 stamp, i64 last own insert, u64 inserts, u64 bits, and (bit-sliced) u64 inserts
// its fill stands for beyond them since it was upsampled, or (slice-major) its word array;
// then (bit-sliced) u64 era count and per era from the oldest: u64 slices, u32 slots, its
// cells' word array; then the slices of an older format still answering: u64 count and per
// slice i64 stamp, i64 last own insert, u64 inserts, word array (format 2), then
// detail::LegacySlices (format 1).
//
// Format 2 (the same fields up to the peak bits, then the slices with their words,
// slice-major, and the format-1 slices) is still read: with k + l <= 64 its slices answer as
// they are, run by run, until they expire, beside a new bit-sliced era that takes the inserts
// (a filter of the program's, whose state is rewritten each run, gets its speed back after
// one span); otherwise it is loaded slice-major as it was. Format 1 (no marker; it starts
// with k, never 0) is read as before: its slices answer with their one hash per slice until
// they expire, beside fresh slices (bit-sliced when k + l <= 64).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlbf/serialize.hpp"
#include "tlbf/time_limited_base.hpp"
#include "tlbf/time_limited_slice_major.hpp"
#include "tlbf/time_limited_sliced.hpp"

namespace tlbf {

// The saved form, field by field (the top of this file). Loading checks the parameters
// before it allocates anything and each slice as it arrives, so damaged state is refused.
template <class Self, class Archive>
void TimeLimitedFilter::visit_fields(Self& f, Archive& ar) {
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
    if ((layout == 0) != f.sliced_) throw state_error("state: tlbf: not the layout load() chose");
    if (f.drift_side_ > 2) throw state_error("state: tlbf drift side out of range");
    f.check_loaded_parameters(n, f.sliced_);
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
      f.check_loaded_slice(i, f.sliced_);
    }
  }
  if constexpr (std::remove_const_t<Self>::kSliced) BitSlicedTimeLimitedFilter::visit_eras(f, ar);
  if constexpr (Archive::loading) f.gen_counted_ = f.gen_inserts_;  // all counted in the slices
  visit_format2_slices(f, ar);
  detail::LegacySlices::visit_fields(f.legacy_, ar, f.max_slice_bits_ / 64, f.k_);
  if constexpr (Archive::loading) {
    f.check_loaded_runs(f.slices_);
    f.check_loaded_runs(f.format2_);
    if constexpr (std::remove_const_t<Self>::kSliced) ++f.epoch_;
  }
}

// The eras: u64 count, then per era from the oldest u64 slices, u32 slots and its cells'
// words; they must hold the slices, in order, each era's of its size.
template <class Self, class Archive>
void BitSlicedTimeLimitedFilter::visit_eras(Self& f, Archive& ar) {
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
void TimeLimitedFilter::visit_format2_slices(Self& f, Archive& ar) {
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
void TimeLimitedFilter::load_format2(Archive& ar) {
  if (sliced_ != (k_ + l_ <= detail::RunCells::kMaxSlices))
    throw state_error("state: tlbf: not the layout load() chose");
  check_loaded_parameters(0, sliced_);
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
}

// Format 1 (before generation-keyed probes), whose fields after k are those of format 2
// without the generation end, the cap horizon, the peak and the per-slice last own insert.
// Its slices become legacy slices; the filter goes on with empty slices (bit-sliced: one
// era of the newest one's size; slice-major: of the same sizes).
template <class Archive>
void TimeLimitedFilter::load_format1(std::uint32_t k, Archive& ar) {
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
  if (n < k_ + l_ || n > max_slices_ || seq_next_ < n) throw state_error("state: tlbf slice count out of range");
  check_loaded_parameters(n, false);  // slice-major while the format-1 slices are read
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
    check_loaded_slice(i, false);
    if (inserts > kMaxInserts) throw state_error("state: tlbf slice insert count out of range");
  }
  if (sliced_ != (k_ + l_ <= detail::RunCells::kMaxSlices))
    throw state_error("state: tlbf: not the layout load() chose");
  if (sliced_) start_slices(slices_.back().bits);
  // The current generation goes on with fresh slices; its inserts so far are in the legacy
  // ones, so it ends at its own cell's end like any other, and none are owed to the fresh ones.
  gen_end_ = detail::cell_end(gen_start_, cell_);
  gen_counted_ = gen_inserts_;
  peak_bits_ = total_bits_ + older_format_bits();
}

// Every parameter against the others and the hard limits; then room for n slices.
inline void TimeLimitedFilter::check_loaded_parameters(std::uint64_t n, bool sliced) {
  // l bounded first: k + l is taken in 32 bits below, and a sum wrapped to 0 would divide by it.
  if (k_ == 0 || k_ > detail::kMaxK || l_ == 0 || l_ > detail::kMaxSlicesHard)
    throw state_error("state: tlbf k or l out of range");
  if (max_slices_ < k_ + l_ || max_slices_ > detail::kMaxSlicesHard)
    throw state_error("state: tlbf max_slices out of range");
  if (span_ <= 0) throw state_error("state: tlbf span is not positive");
  if (max_bits_ > detail::kMaxTotalBits || min_bits_ < 64 || min_bits_ % 64 || max_slice_bits_ % 64 ||
      max_slice_bits_ < min_bits_ || max_slice_bits_ > max_bits_ / (k_ + l_))
    throw state_error("state: tlbf size limits inconsistent");
  if (sliced && k_ + l_ > detail::RunCells::kMaxSlices) throw state_error("state: tlbf too many slices to bit-slice");
  if (n != 0 && (n < (sliced ? k_ : k_ + l_) || n > max_slices_ || seq_next_ < n))
    throw state_error("state: tlbf slice count out of range");
  compute_cell();
  slices_.resize(n);
}

// Slice i (from the oldest) as read: its bounds.
inline void TimeLimitedFilter::check_loaded_slice(std::size_t i, bool sliced) {
  Slice& s = slices_[i];
  if (!sliced && s.bits != s.words.size() * 64) throw state_error("state: tlbf slice size and words differ");
  if (s.bits < min_bits_ || s.bits > max_slice_bits_ || s.bits % 64)
    throw state_error("state: tlbf slice size out of range");
  // A real count stays far below this; refusing more keeps ++inserts from wrapping.
  if (s.inserts > kMaxInserts || s.upsampled > kMaxInserts)
    throw state_error("state: tlbf slice insert count out of range");
  // A slice takes about ln 2 inserts a bit at most (capacity()): twice its bits is a
  // hand-made count, which would make the rate estimate grow the slices from a few inserts.
  if (s.inserts + s.upsampled > 2 * s.bits) throw state_error("state: tlbf slice holds more inserts than bits");
  if (!sliced) {
    total_bits_ += s.bits;
    if (total_bits_ > max_bits_) throw state_error("state: tlbf slices exceed the memory cap");
  }
}
// The query stops at the first run it does not accept, which is right only while the
// runs' last inserts do not increase with age.
template <class Slices>
void TimeLimitedFilter::check_loaded_runs(const Slices& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i - 1].own_last > v[i].own_last) throw state_error("state: tlbf generations out of order");
}

// The layout of format 3 is its layout byte; of format 2 and 1, bit-sliced iff k + l <= 64
// (in the 32 bits their loaders sum them in). The fields are read in the loaders' order, so
// a payload too short for them fails here as it would there.
inline bool TimeLimitedFilter::loads_bit_sliced(ByteReader in) {
  const std::uint32_t marker = in.u32();
  if (marker != 0) return marker + in.u32() <= detail::RunCells::kMaxSlices;  // format 1: k, then l
  const std::uint8_t format = in.u8();
  if (format == kFormat) return in.u8() == 0;
  if (format != 2) return false;  // refused by the loader
  const std::uint32_t k = in.u32(), l = in.u32();
  return k + l <= detail::RunCells::kMaxSlices;
}

inline std::unique_ptr<TimeLimitedFilter> TimeLimitedFilter::load(ByteReader& in) {
  if (loads_bit_sliced(in)) return SavedForm::load<BitSlicedTimeLimitedFilter>(in);
  return SavedForm::load<SliceMajorTimeLimitedFilter>(in);
}

}  // namespace tlbf
