// The GEBF paper's two baselines (Alpay & Sarioglu 2026, §6), at the same memory budget of
// bits per live item, for Table 1.
//
// CountingWindowBloom: 4-bit counters (16 per word) with an exact deletion queue of the last
// W inserted keys; the insert that pushes the queue past W decrements the oldest key's
// counters. Counters saturate at 15 and a saturated counter is never decremented (the usual
// rule; it can only cause stale positives). The queue is the exact bookkeeping the paper
// charges this design with and is not counted in its bits.
//
// StableBloom (Deng & Rafiei 2006): m cells of d bits; each insert first decrements P
// cells chosen at random, then sets the key's k cells to Max = 2^d − 1. A key is positive
// while all its cells are non-zero, so random decay can drop live keys (false negatives).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "tlbf/hash.hpp"

namespace tlbf_experiments {

class CountingWindowBloom {
 public:
  CountingWindowBloom(std::uint64_t window, double bits_per_item, std::uint32_t k)
      : window_(window), k_(k), cells_(static_cast<std::uint64_t>(bits_per_item * static_cast<double>(window)) / 4) {
    words_.assign((cells_ + 15) / 16, 0);
  }

  bool may_contain(tlbf::KeyHash h) const {
    for (std::uint32_t i = 0; i < k_; ++i)
      if (get(cell(h, i)) == 0) return false;
    return true;
  }

  void insert(tlbf::KeyHash h) {
    for (std::uint32_t i = 0; i < k_; ++i) {
      std::uint64_t c = cell(h, i);
      if (get(c) < 15) add(c, +1);
    }
    queue_.push_back(h);
    if (queue_.size() > window_) {
      tlbf::KeyHash old = queue_.front();
      queue_.pop_front();
      for (std::uint32_t i = 0; i < k_; ++i) {
        std::uint64_t c = cell(old, i);
        std::uint64_t v = get(c);
        if (v > 0 && v < 15) add(c, -1);
      }
    }
  }

  std::uint64_t bits() const { return cells_ * 4; }

 private:
  std::uint64_t cell(tlbf::KeyHash h, std::uint32_t i) const { return tlbf::reduce(tlbf::probe_hash(h, i), cells_); }
  std::uint64_t get(std::uint64_t c) const { return (words_[c / 16] >> (4 * (c % 16))) & 15; }
  void add(std::uint64_t c, int delta) {
    std::uint64_t unit = std::uint64_t{1} << (4 * (c % 16));
    if (delta > 0)
      words_[c / 16] += unit;
    else
      words_[c / 16] -= unit;
  }

  std::uint64_t window_;
  std::uint32_t k_;
  std::uint64_t cells_;
  std::vector<std::uint64_t> words_;
  std::deque<tlbf::KeyHash> queue_;
};

class StableBloom {
 public:
  // P is chosen so that a cell set to Max decays to zero after about `window` inserts on
  // average (Max·m/P = window): the random-decay analogue of a W-item window.
  StableBloom(std::uint64_t window, double bits_per_item, std::uint32_t k, std::uint32_t cell_bits, std::uint64_t seed)
      : k_(k),
        max_(static_cast<std::uint8_t>((1u << cell_bits) - 1)),
        cells_(static_cast<std::uint64_t>(bits_per_item * static_cast<double>(window)) / cell_bits),
        cell_bits_(cell_bits),
        rng_(seed) {
    p_ = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(
               static_cast<double>(max_) * static_cast<double>(cells_) / static_cast<double>(window) + 0.5));
    cell_.assign(cells_, 0);
  }

  bool may_contain(tlbf::KeyHash h) const {
    for (std::uint32_t i = 0; i < k_; ++i)
      if (cell_[tlbf::reduce(tlbf::probe_hash(h, i), cells_)] == 0) return false;
    return true;
  }

  void insert(tlbf::KeyHash h) {
    // P consecutive cells from a random start, as in Deng & Rafiei's implementation note.
    std::uint64_t start = rng_() % cells_;
    for (std::uint64_t j = 0; j < p_; ++j) {
      std::uint8_t& c = cell_[(start + j) % cells_];
      if (c > 0) --c;
    }
    for (std::uint32_t i = 0; i < k_; ++i) cell_[tlbf::reduce(tlbf::probe_hash(h, i), cells_)] = max_;
  }

  std::uint64_t bits() const { return cells_ * cell_bits_; }
  std::uint64_t decrements() const { return p_; }

 private:
  std::uint32_t k_;
  std::uint8_t max_;
  std::uint64_t cells_;
  std::uint32_t cell_bits_;
  std::uint64_t p_ = 1;
  std::mt19937_64 rng_;
  std::vector<std::uint8_t> cell_;  // one byte per cell in RAM; bits() counts cell_bits each
};

}  // namespace tlbf_experiments
