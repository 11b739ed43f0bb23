// SPDX-License-Identifier: MIT
// The tagged filter's tables as the rate changes and under the memory cap (TaggedFilter's
// members, declared in tagged.hpp, which includes this file after the class).
//
// Tables. The newest table takes the inserts; older ones only answer queries and are dropped
// once their newest slot is dead (one window and one epoch after their last insert). A table
// opens with room for capacity keys (FilterConfig::capacity, a starting size only); when an
// insert finds both blocks full it opens a table sized for the rate the full one saw (its
// live slots extrapolated to a window, at target_load(); a rate over 4 times the table's, a
// burst until it lasts, to half a window), at least 1.125 and at most 256 times its size. A
// newest table whose last epoch's rate would fill under half of it in a window (a burst has
// passed) is replaced at once by one sized for that rate, or back to the table it grew from;
// one that has held a window with its live slots under 3/4 of its target is replaced by one
// sized for them. Block indexes are multiply-shift reductions, so a table has any number of
// blocks.
//
// Memory cap (max_memory_bytes): the tables together never hold more. When an insert finds
// no room and no larger table fits, the filter forgets its oldest live epoch (every slot of
// it, in every table: the cap floor), dropping the tables left with nothing live, until the
// key's blocks have room. That is a cap bind (cap_binds(), cap_evictions counts the epochs
// forgotten); every key younger than the cap floor is kept, so the window has effectively
// shrunk to effective_span. When only the current epoch is left and both blocks are full of
// it (a cap below about two epochs of keys), the key is not kept (a bind too, effective_span
// 1 ns). The remainders and the slots a block holds do not change, so the false-positive
// bound holds under the cap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tlbf/tagged.hpp"

namespace tlbf {

inline double TaggedFilter::peak_live(const Table& t, std::int64_t cur) const {
  const std::int64_t lo = lowest_live(cur);
  const auto length = static_cast<double>(epoch_len_);
  const double held = static_cast<double>(epochs_ + 1) * length;
  const double from = std::max(static_cast<double>(t.opened), static_cast<double>(lo) * length);
  const double start = static_cast<double>(cur) * length;
  const double latest = static_cast<double>(latest_);
  if (start - from < length) return static_cast<double>(t.live(lo, cur)) * held / std::max(latest - from, length / 16);
  const double whole = static_cast<double>(t.live(lo, cur - 1)) * held / (start - from);
  const double now =
      static_cast<double>(t.live(cur, cur)) * held / std::max(latest - std::max(from, start), length / 16);
  // A rate more than kBurst times the table's is taken for a burst until it lasts: half a
  // window of it (a table that fills at it grows again, then by the whole epochs' rate).
  return now > kBurst * whole ? std::max(whole, now / 2) : std::max(whole, now);
}

inline bool TaggedFilter::grow(std::int64_t cur) {
  const Table& t = tables_.back();
  const std::uint64_t n = t.blocks.size();
  double want = std::ceil(peak_live(t, cur) / (layout_.slots() * target_load()));
  want =
      std::clamp(want, static_cast<double>(n + std::max<std::uint64_t>(1, n / 8)), static_cast<double>(n) * kMaxGrowth);
  return open_new(static_cast<std::uint64_t>(want), n + 1, cur);
}

inline void TaggedFilter::right_size(std::int64_t cur) {
  const Table& t = tables_.back();
  const std::uint64_t n = t.blocks.size();
  if (tables_.size() != 1 || n <= kMinBlocks ||
      distance(t.opened, latest_) < static_cast<std::uint64_t>(span_ + 2 * epoch_len_))
    return;
  const double live = peak_live(t, cur);
  const double target = layout_.slots() * target_load();
  if (live >= kRightSize * static_cast<double>(n) * target) return;
  open_new(static_cast<std::uint64_t>(std::ceil(live / target)), 0, cur);
}

inline void TaggedFilter::shrink_after_drop(std::int64_t cur) {
  const Table& t = tables_.back();
  const std::uint64_t n = t.blocks.size();
  if (tables_.size() > 2 || n <= kMinBlocks || distance(t.opened, latest_) < 2 * static_cast<std::uint64_t>(epoch_len_))
    return;
  const double target = layout_.slots() * target_load();
  const double recent = static_cast<double>(t.live(cur - 1, cur - 1)) * (epochs_ + 1);
  if (recent >= kShrink * static_cast<double>(n) * target) return;
  // A table that grew from one under half its size (a burst) goes back to no smaller than
  // that one, which held the rate before: keys of that rate coming back (repeats of the
  // burst's keys are found until they expire) would make a smaller one grow again at once.
  const std::uint64_t before = tables_.size() > 1 ? tables_[tables_.size() - 2].blocks.size() : 0;
  const auto want = static_cast<std::uint64_t>(std::ceil(recent / target));
  open_new(before <= n / 2 ? std::max(want, before) : want, 0, cur);
}

inline bool TaggedFilter::open_new(std::uint64_t blocks, std::uint64_t least, std::int64_t cur) {
  const std::uint64_t held = held_bytes();
  const std::uint64_t room = cap_bytes_ > held ? (cap_bytes_ - held) / 64 : 0;
  blocks = std::min(std::max(blocks, kMinBlocks), room);
  if (blocks < std::max(least, kMinBlocks)) return false;
  tables_.emplace_back();
  tables_.back().blocks.resize(blocks);
  open_table(tables_.back(), cur);
  peak_bytes_ = std::max(peak_bytes_, held_bytes());
  return true;
}

inline bool TaggedFilter::forget_oldest(std::int64_t cur) {
  const std::int64_t lo = lowest_live(cur);
  std::int64_t oldest = cur;
  for (const Table& t : tables_)
    for (const EpochCount& c : t.ring)
      if (c.n > 0 && c.epoch >= lo && c.epoch < oldest) oldest = c.epoch;
  if (oldest >= cur) return false;
  min_epoch_ = oldest + 1;
  count_live(cur);
  tables_.erase(
      std::remove_if(tables_.begin(), tables_.end() - 1, [&](const Table& t) { return t.newest < min_epoch_; }),
      tables_.end() - 1);
  ++cap_evictions_;
  shortest_ = std::min(shortest_, std::max<Time>(1, latest_ - min_epoch_ * epoch_len_));
  note_cap_bound();
  return true;
}

}  // namespace tlbf
