// SPDX-License-Identifier: MIT
// The tagged filter's saved form, one description for save and load (SavedForm,
// serialize.hpp), and the loading of format 1 (TaggedFilter's members, declared in
// tagged.hpp, which includes this file after the class).
//
// Saved form (after the state tag kTaggedStateTag): a format byte (2; 1 still loads), then the
// fields in visit_fields()'s order, each table's blocks as a counted word vector (format 2:
// after a byte saying whether the table is of format 1), then the stash's table (format 2).
// Loading checks the fields against each other and throws state_error on any mismatch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tlbf/tagged.hpp"

namespace tlbf {

inline void TaggedFilter::take_over_format1() {
  const std::uint64_t blocks = tables_.back().blocks.size();
  if (started_ && open_new(blocks, 0, cur_)) return;
  tables_.assign(1, Table{});
  tables_.back().blocks.resize(blocks);
  if (!started_) return;
  open_table(tables_.back(), cur_);
  ++cap_evictions_;
  shortest_ = 1;
  note_cap_bound();
}

template <class Self, class Archive>
void TaggedFilter::visit_fields(Self& f, Archive& ar) {
  std::uint8_t format = kFormat;
  ar.u8(format);
  if (format != kFormat && format != 1) throw state_error("state: tagged: unknown format version");
  ar.i64(f.span_);
  ar.u32(f.epochs_);
  ar.f64(f.error_rate_);
  ar.u64(f.cap_bytes_, f.peak_bytes_, f.cap_evictions_, f.keys_inserted_);
  ar.i64(f.shortest_, f.latest_, f.cur_, f.min_epoch_, f.next_sweep_);  // any next_sweep_ is safe
  ar.flag(f.started_);
  if constexpr (Archive::loading) {
    if (f.span_ <= 0 || f.span_ > kMaxSpan || f.epochs_ < 2 || f.epochs_ > kMaxEpochs ||
        !(f.error_rate_ > 0 && f.error_rate_ < 1) || f.cap_bytes_ < kMinBytes || f.shortest_ <= 0 ||
        f.shortest_ > f.span_)
      throw state_error("state: tagged: bad parameters");
    f.derive();
    if (f.started_ && (f.cur_ != f.epoch_of(f.latest_) ||
                       (f.min_epoch_ != std::numeric_limits<std::int64_t>::min() && f.min_epoch_ > f.cur_)))
      throw state_error("state: tagged: clock and epoch differ");
    if (f.started_) f.set_epoch(f.cur_);
  }
  std::uint64_t tables = f.tables_.size();
  ar.u64(tables);
  if constexpr (Archive::loading) {
    if (tables == 0 || tables > 4096 || (!f.started_ && tables != 1))
      throw state_error("state: tagged: table count out of range");
    f.tables_.resize(tables);
  }
  std::uint64_t total = 0;
  for (auto& t : f.tables_) {
    if constexpr (Archive::loading) t.format1 = format == 1;  // a filter saves format 2
    if (format != 1) ar.flag(t.format1);
    ar.i64(t.floor, t.newest, t.opened, t.pass_epoch, t.pass_lo, t.pass_time);
    ar.u64(t.swept);
    for (auto& c : t.ring) {
      ar.i64(c.epoch);
      ar.u64(c.n);
    }
    std::uint64_t words = 8 * t.blocks.size();
    ar.word_count(words, f.cap_bytes_ / 8);
    if constexpr (Archive::loading) {
      // Every epoch written decodes against the floor, none is ahead of the clock, and the
      // table is at most a few windows old (older ones are dropped at the next epoch).
      if (words == 0 || words % 8 != 0 || t.swept > words / 8 || t.newest < t.floor ||
          distance(t.floor, t.newest) > f.layout_.tag_mask() ||
          (f.started_ && (t.newest > f.cur_ || distance(t.floor, f.cur_) > 4 * (f.layout_.tag_mask() + 1) ||
                          t.pass_time > f.latest_ || t.opened > f.latest_)))
        throw state_error("state: tagged: bad table");
      t.blocks.resize(words / 8);
      f.set_max_live(t);
      total += words * 8;
    }
    ar.word_data(t.blocks.data()->w, words);
    if constexpr (Archive::loading) {
      // A block of more slots than it has room for would send an index past its end.
      if (!t.format1 && std::any_of(t.blocks.begin(), t.blocks.end(), [&](const detail::TaggedBlock& b) {
            return f.layout_.stored(b) > f.layout_.slots();
          }))
        throw state_error("state: tagged: a block holds more slots than it has");
    }
  }
  // The stash (format 2): its table, each place a fingerprint (0: empty) and an epoch.
  std::vector<detail::TaggedStash::Entry> stash;
  if constexpr (!Archive::loading) stash = f.stash_.places();
  if (format != 1) {
    std::uint64_t n = stash.size();
    ar.u64(n);
    if constexpr (Archive::loading) {
      if (n > f.cap_bytes_ / sizeof(detail::TaggedStash::Entry) || (!f.started_ && n != 0))
        throw state_error("state: tagged: stash size out of range");
      stash.resize(n);
    }
    for (auto& e : stash) {
      ar.u64(e.fingerprint);
      ar.i64(e.epoch);
      if constexpr (Archive::loading)
        if (e.epoch > f.cur_ || (e.fingerprint == 0 && e.epoch != 0))
          throw state_error("state: tagged: bad stash entry");
    }
    if constexpr (Archive::loading)
      if (!f.stash_.restore(std::move(stash))) throw state_error("state: tagged: bad stash table");
  }
  if constexpr (Archive::loading) {
    if (f.started_ && distance(f.tables_.back().floor, f.cur_) > f.layout_.tag_mask())
      throw state_error("state: tagged: the newest table's floor is too old");
    total += f.stash_.bytes();
    if (total > f.cap_bytes_) throw state_error("state: tagged: tables exceed the memory cap");
    f.peak_bytes_ = std::max(f.peak_bytes_, total);
    if (f.tables_.back().format1) f.take_over_format1();
    if (f.started_) f.count_live(f.cur_);
  }
}

}  // namespace tlbf
