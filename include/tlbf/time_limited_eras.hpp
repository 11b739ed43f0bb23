// SPDX-License-Identifier: MIT
// The bit-sliced TLBF's era policy (shift steps 3-4, docs/filters.md): whether the new slice
// joins the newest era, upsamples or folds it, or starts an era of its own; how many slots
// the newest era keeps; the memory cap, which gives up the oldest slices rather than growth;
// older eras narrowed as their slices expire. Live eras stay at most kMaxEras.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tlbf/time_limited_sliced.hpp"

namespace tlbf {

// Whether every slice of the newest era, folded by c, stays within the fill the layout was
// chosen for (1 - 2^(-1/h), set_fill_target() with l + 1 runs: not the fill of the moment,
// which is not saved, so that a loaded filter folds as the one it was saved from).
inline bool BitSlicedTimeLimitedFilter::foldable(std::uint64_t c) const {
  const std::uint64_t m = eras_.back().bits();
  if (m % (64 * c) != 0 || m / c < min_bits_) return false;
  const auto cap = static_cast<std::uint64_t>(std::floor(static_cast<double>(m / c) * detail::kLn2 / kHeadroom));
  for (std::size_t pos = 0; pos < eras_.back().slices; ++pos)
    if (fill_inserts(at(pos)) > cap) return false;
  return true;
}
inline BitSlicedTimeLimitedFilter::EraMove BitSlicedTimeLimitedFilter::era_policy(Time now, double tg,
                                                                                  Duration measured_over) {
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
      if (!room && within_cap >= 2 && newest.slices <= k_ && gen_left_ == 0) return {EraMove::upsample, within_cap, 0};
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
inline std::uint64_t BitSlicedTimeLimitedFilter::newest_slots(bool lost, bool tight, bool burst) const {
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
inline std::uint64_t BitSlicedTimeLimitedFilter::bits_after(const EraMove& move, bool lost, bool tight) const {
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

// Steps 3-4 (add_slice()): the era policy, retiring, the caps, then the new slice in the
// newest era (its cells move up one slot) or in a new one; older eras with a quarter of
// their slots empty are narrowed.
inline void BitSlicedTimeLimitedFilter::add_slice(Time now, double tg, Duration measured_over) {
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
  reset_slice(slices_.back(), newest->bits());
  narrow_older_eras(false);
  total_bits_ = 0;
  for (const Era& e : eras_) total_bits_ += e.cells.bits();
}
// The newest era's slices took a new size (upsample, fold).
inline void BitSlicedTimeLimitedFilter::resize_newest_slices(std::uint64_t bits) {
  for (std::size_t pos = 0; pos < eras_.back().slices; ++pos) at(pos).bits = bits;
}
// Older eras only lose slices (from their top slots): each is narrowed to its slices when
// half of its slots are empty, or whenever one is, under the memory cap (`tight`).
inline void BitSlicedTimeLimitedFilter::narrow_older_eras(bool tight) {
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

}  // namespace tlbf
