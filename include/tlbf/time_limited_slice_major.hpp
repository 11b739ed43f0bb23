// SPDX-License-Identifier: MIT
// The slice-major layout of the time-limited Bloom filter (time_limited.hpp), the paper's
// (Rodrigues et al. 2023, §6.3): each slice on its own words, sized at its own shift (eqs.
// 7-8), queried run by run, level by level (detail/level_scan.hpp). The experiments'
// paper-faithful mode, and the layout of any k + l > 64. It keeps at least k + l slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/time_limited_base.hpp"

namespace tlbf {

class SliceMajorTimeLimitedFilter final : public TimeLimitedFilter {
 public:
  static constexpr bool kSliced = false;

  // Whatever cfg.tlbf_layout says. Throws invalid_parameter naming the first bad field.
  explicit SliceMajorTimeLimitedFilter(const FilterConfig& cfg) : TimeLimitedFilter(false) {
    configure(in_layout(cfg, TlbfLayout::slice_major));
  }

  bool may_contain(KeyHash h, Time now) const override {
    const Time threshold = query_threshold(now);
    return slices_hold(slices_, h, accepted_runs(threshold), total_bits_) || older_formats_hold(h, threshold);
  }
  void insert(KeyHash h, Time now) override { insert_slice_major(h, now); }
  // The program's path: the accepted runs are counted from the previous call's count
  // (accepted_runs_from_hint()), not by bisection.
  bool insert_if_absent(KeyHash h, Time now) override {
    const Time threshold = query_threshold(now);
    if (slices_hold(slices_, h, accepted_runs_from_hint(threshold), total_bits_) || older_formats_hold(h, threshold))
      return false;
    insert_slice_major(h, now);
    return true;
  }
  // Nothing while the filter fits the cache (kPrefetchingQueryBits); else probe 0 of every run
  // accepted at the latest time seen, the query's first level.
  void prefetch(const KeyHash& h) const override {
    if (total_bits_ <= kPrefetchingQueryBits) return;
    const std::uint64_t x0 = detail::run_probe0(h);
    const Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::size_t j = accepted_runs(detail::sat_sub(latest_, span_)); j > 0; --j, --s)
      detail::prefetch(site(*s, x0).word);
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }
  void save(ByteWriter& out) const override { SavedForm::save(*this, out, Algorithm::tlbf); }

 private:
  friend class TimeLimitedFilter;
  friend struct SavedForm;
  SliceMajorTimeLimitedFilter() : TimeLimitedFilter(false) {}

  std::uint64_t ones_at(std::size_t position) const override {
    const Slice& s = at(position);
    return detail::count_ones(s.words.data(), s.words.size());
  }
  bool bit_at(std::size_t position, std::uint64_t x) const override { return site(at(position), x).hit(); }
  // The first slices: k + l, as the paper has them.
  void start_slices(std::uint64_t bits) override {
    slices_.assign(k_ + l_, Slice{});
    for (Slice& x : slices_) init_slice(x, bits);
    seq_next_ = std::max<std::uint64_t>(seq_next_, slices_.size());
    total_bits_ = bits * slices_.size();
  }
  void clear_bits(std::size_t position) override {
    Slice& s = at(position);
    std::fill(s.words.begin(), s.words.end(), std::uint64_t{0});
  }
  // A slice, empty, its words too (every one, whatever the buffer held before).
  static void init_slice(Slice& s, std::uint64_t bits) {
    if (s.words.capacity() > 2 * (bits / 64)) s.words = std::vector<std::uint64_t>();  // do not hoard a big buffer
    s.words.assign(bits / 64, 0);
    reset_slice(s, bits);
  }
  // Drops the oldest slice, keeping its buffer for reuse.
  void drop_oldest(std::vector<std::uint64_t>& spare, Time now) {
    Slice& old = slices_.front();
    count_drop(old, now);
    total_bits_ -= old.bits;
    if (old.words.capacity() > spare.capacity()) spare = std::move(old.words);
    pop_oldest();
  }

  // The slice-major insert: run 0's bits, probe value x_p in the slice at position p.
  void insert_slice_major(KeyHash h, Time now) {
    now = open_insert(now);
    Slice* s = slices_.data() + (slices_.size() - 1);
    for (std::uint32_t p = 0; p < k_; ++p, --s)
      detail::set_bit(s->words.data(), reduce(detail::run_probe(h, p), s->bits));
    close_insert(now);
  }

  // Steps 3-4: eqs. 7-8 size the new slice (old position p becomes p + 1).
  void add_slice(Time now, double tg, Duration) override {
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
};

}  // namespace tlbf
