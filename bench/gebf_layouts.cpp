// Query cost of memory layouts for the count-window guarded epoch Bloom filter (Alpay &
// Sarioglu 2026), measured in the paper's set-up: W = 20,000, r = 8, 14 bits per live item,
// 120,000 inserts, then 20,000 live, 20,000 fresh and 20,000 expired queries, shuffled.
//
// The paper's layout (detail::SeparateSegments, gebf_layouts.hpp) keeps r+1 separate segments and tests them one
// after the other (§3), so a query runs up to r+1 probe loops, each ending on an
// unpredictable branch. Two layouts that give the same answers with less work are built
// here as WindowFilters, so they pay the same virtual call and XXH3 hashing as the library
// and run the same stream:
//  - bit-sliced: position p of all r+1 segments is one (r+1)-bit cell, so a probe is one
//    load that tests every segment at once (alive &= cell[p]); the query stops when no
//    segment is left, usually after a few probes. Rotation clears one bit of every cell.
//    Same bits, same k, same positions as the paper's plain layout, hence the same FPR.
//  - blocked, interleaved: the blocked variant (§5) with the block index shared by all
//    segments and block b of every segment stored side by side, so a query builds the key's
//    512-bit mask once and tests r+1 adjacent cache lines without a branch per segment.
// A first row with no filter at all shows the floor: the call, the hashing and the loop.
// Invariant checked on every run: no live key is reported absent (live FN = 0), and the
// measured FPR is printed beside the library's, so a faster layout cannot hide a worse rate.
// These are measurements to choose a layout by, not a second implementation to ship.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "tlbf/config.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"

#include "common.hpp"

namespace {

using tlbf::KeyHash;
using tlbf::Time;

constexpr std::uint64_t kW = 20'000;
constexpr std::uint32_t kR = 8;
constexpr double kBitsPerKey = 14;
constexpr std::uint64_t kInserts = 120'000;
constexpr std::uint64_t kEll = (kW + kR - 1) / kR;

// Count-window rotation shared by both layouts: the insert that finds the active segment
// holding ℓ keys first clears the next segment (the library's lazy rotation).
class Rotation {
 public:
  // Returns the segment to insert into; calls clear(segment) when it rotates.
  template <class Clear>
  std::uint32_t next(Clear&& clear) {
    if (in_active_ == kEll) {
      active_ = (active_ + 1) % (kR + 1);
      clear(active_);
      in_active_ = 0;
    }
    ++in_active_;
    return active_;
  }

 private:
  std::uint32_t active_ = 0;
  std::uint64_t in_active_ = 0;
};

class PrototypeBase : public tlbf::WindowFilter {
 public:
  tlbf::FilterStats stats(Time) const override {
    tlbf::FilterStats s;
    s.bits_allocated = bits_;
    return s;
  }
  void save(tlbf::ByteWriter&) const override { throw std::logic_error("a layout prototype is not saved"); }

 protected:
  std::uint64_t bits_ = 0;
};

// The floor: what the virtual call, the hashing and the loop cost with no filter at all.
class NoFilter final : public PrototypeBase {
 public:
  bool may_contain(KeyHash h, Time) const override { return (h.lo & 1) != 0; }
  void insert(KeyHash h, Time) override { last_ ^= h.hi; }

 private:
  std::uint64_t last_ = 0;
};

// Position p of segment s is bit p·(r+1) + s of one byte string. With Exit::early the query
// stops as soon as no segment is left (fewer probes, one hard-to-predict branch each);
// with Exit::none it ANDs all k cells and branches once; Exit::none_k9 does the same with k
// fixed at compile time (9, what this set-up needs), so the loop unrolls.
// Probes::chunks takes the positions from 21-bit pieces of the 128-bit hash (and of one
// remix of it) instead of enhanced double hashing: three shifts and a 32-bit multiply per
// probe instead of a cubic term and a 128-bit multiply.
enum class Exit { early, none, none_k9 };
enum class Probes { double_hashing, chunks };
template <Exit exit, Probes probes = Probes::double_hashing>
class BitSlicedGebf final : public PrototypeBase {
 public:
  BitSlicedGebf() {
    seg_bits_ = static_cast<std::uint64_t>(kBitsPerKey * kW / (kR + 1) / 64) * 64;  // as the library sizes it
    k_ = tlbf::best_k(false, static_cast<double>(kEll), static_cast<double>(seg_bits_));
    if (probes == Probes::chunks && k_ > 9) throw std::logic_error("21-bit probes give at most 9 positions");
    if (exit == Exit::none_k9 && k_ != 9) throw std::logic_error("this set-up was expected to need k = 9");
    bits_ = seg_bits_ * (kR + 1);
    bytes_.assign(bits_ / 8 + 16, 0);  // +8 so a cell is read with one unaligned 8-byte load
  }
  bool may_contain(KeyHash h, Time) const override {
    std::uint64_t alive = (std::uint64_t{1} << (kR + 1)) - 1;
    if constexpr (exit == Exit::early) {
      for (std::uint32_t i = 0; i < k_ && alive; ++i) alive &= cell(position(h, i));
    } else if constexpr (exit == Exit::none) {
      for (std::uint32_t i = 0; i < k_; ++i) alive &= cell(position(h, i));
    } else {
#pragma GCC unroll 9
      for (std::uint32_t i = 0; i < 9; ++i) alive &= cell(position(h, i));
    }
    return alive != 0;
  }
  void insert(KeyHash h, Time) override {
    std::uint32_t s = rot_.next([&](std::uint32_t seg) {
      for (std::uint64_t p = 0; p < seg_bits_; ++p) clear_bit(p * (kR + 1) + seg);
    });
    for (std::uint32_t i = 0; i < k_; ++i) set_bit(position(h, i) * (kR + 1) + s);
  }

 private:
  std::uint64_t position(KeyHash h, std::uint32_t i) const {
    if constexpr (probes == Probes::double_hashing) {
      return tlbf::reduce(tlbf::probe_hash(h, i), seg_bits_);
    } else {
      std::uint64_t word = i < 3 ? h.lo : i < 6 ? h.hi : tlbf::detail::mix64(h.lo ^ h.hi);
      std::uint64_t piece = (word >> (21 * (i % 3))) & ((1u << 21) - 1);
      return (piece * seg_bits_) >> 21;
    }
  }

  std::uint64_t cell(std::uint64_t p) const {
    std::uint64_t bit = p * (kR + 1), v;
    std::memcpy(&v, bytes_.data() + (bit >> 3), sizeof v);
    return (v >> (bit & 7)) & ((std::uint64_t{1} << (kR + 1)) - 1);
  }
  void set_bit(std::uint64_t b) { bytes_[b >> 3] = static_cast<std::uint8_t>(bytes_[b >> 3] | (1u << (b & 7))); }
  void clear_bit(std::uint64_t b) { bytes_[b >> 3] = static_cast<std::uint8_t>(bytes_[b >> 3] & ~(1u << (b & 7))); }

  std::uint64_t seg_bits_;
  std::uint32_t k_;
  std::vector<std::uint8_t> bytes_;
  Rotation rot_;
};

// Block b of segment s is words [(b·(r+1) + s)·8, +8).
class InterleavedBlockedGebf final : public PrototypeBase {
 public:
  InterleavedBlockedGebf() {
    const std::uint64_t seg_bits =
        static_cast<std::uint64_t>(kBitsPerKey * kW / (kR + 1) / tlbf::kGebfBlockBits) * tlbf::kGebfBlockBits;
    blocks_ = seg_bits / tlbf::kGebfBlockBits;
    k_ = tlbf::best_k(true, static_cast<double>(kEll), static_cast<double>(seg_bits));
    bits_ = seg_bits * (kR + 1);
    words_.assign(bits_ / 64, 0);
  }
  bool may_contain(KeyHash h, Time) const override {
    std::uint64_t mask[8];
    const std::uint64_t* block = words_.data() + key_mask(h, mask) * (kR + 1) * 8;
    bool found = false;
    for (std::uint32_t s = 0; s <= kR; ++s, block += 8) {
      std::uint64_t miss = 0;
      for (int w = 0; w < 8; ++w) miss |= mask[w] & ~block[w];
      found |= miss == 0;
    }
    return found;
  }
  void insert(KeyHash h, Time) override {
    std::uint32_t s = rot_.next([&](std::uint32_t seg) {
      for (std::uint64_t b = 0; b < blocks_; ++b)
        std::fill_n(words_.begin() + static_cast<std::ptrdiff_t>((b * (kR + 1) + seg) * 8), 8, 0);
    });
    std::uint64_t mask[8];
    std::uint64_t* block = words_.data() + (key_mask(h, mask) * (kR + 1) + s) * 8;
    for (int w = 0; w < 8; ++w) block[w] |= mask[w];
  }

 private:
  // Fills the key's 512-bit mask (the library's blocked probe positions); returns its block.
  std::uint64_t key_mask(KeyHash h, std::uint64_t* mask) const {
    tlbf::detail::Probe probes[tlbf::kGebfMaxK];
    tlbf::detail::gebf_probes(h, k_, blocks_ * tlbf::kGebfBlockBits, true, tlbf::detail::ProbeScheme::multiply, probes);
    std::fill_n(mask, 8, 0);
    const std::uint64_t base = tlbf::reduce(h.hi, blocks_) * 8;  // as gebf_probes() picks the block
    for (std::uint32_t i = 0; i < k_; ++i) mask[probes[i].word - base] |= probes[i].mask;
    return base / 8;
  }

  std::uint64_t blocks_;
  std::uint32_t k_;
  std::vector<std::uint64_t> words_;
  Rotation rot_;
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::mt19937_64 rng(42);
  const std::vector<std::uint64_t> queries = tlbf_bench::paper_queries(kInserts, kW, rng);
  constexpr int kPasses = 10;

  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::gebf;
  cfg.window_count = kW;
  cfg.gebf_r = kR;
  cfg.gebf_bits_per_key = kBitsPerKey;
  struct Row {
    const char* name;
    std::function<std::unique_ptr<tlbf::WindowFilter>()> make;
  };
  const Row rows[] = {
      {"no filter (hash + call)", [] { return std::make_unique<NoFilter>(); }},
      {"library gebf (segments)", [&] { return tlbf::make_filter(cfg); }},
      {"bit-sliced, early exit", [] { return std::make_unique<BitSlicedGebf<Exit::early>>(); }},
      {"bit-sliced, branch-free", [] { return std::make_unique<BitSlicedGebf<Exit::none>>(); }},
      {"bit-sliced, k=9 unrolled", [] { return std::make_unique<BitSlicedGebf<Exit::none_k9>>(); }},
      {"bit-sliced, 21-bit probes", [] { return std::make_unique<BitSlicedGebf<Exit::none, Probes::chunks>>(); }},
      {"library gebf-blocked",
       [&] {
         tlbf::FilterConfig b = cfg;
         b.gebf_blocked = true;
         return tlbf::make_filter(b);
       }},
      {"blocked, interleaved", [] { return std::make_unique<InterleavedBlockedGebf>(); }},
  };

  fmt::print("GEBF layouts, W = {}, r = {}, {} bits per item, {} inserts; median of {}\n", kW, kR, kBitsPerKey,
             kInserts, reps);
  fmt::print("{:<26} {:>8} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "layout", "bits/key", "insert M/s", "query M/s", "FPR",
             "stale", "live FN");
  for (const Row& row : rows) {
    std::vector<double> ins, qry;
    tlbf_bench::PaperRound round;
    for (int rep = 0; rep < reps; ++rep) {
      auto f = row.make();
      round = tlbf_bench::paper_round(*f, kInserts, kW, queries, kPasses, [](std::uint64_t) { return Time{0}; });
      ins.push_back(round.insert_mops);
      qry.push_back(round.query_mops);
    }
    fmt::print("{:<26} {:>8.1f} {:>10.1f} {:>10.1f} {:>9.4f} {:>9.4f} {:>7}\n", row.name,
               static_cast<double>(round.bits) / kW, tlbf_bench::median(ins), tlbf_bench::median(qry),
               static_cast<double>(round.errors.fp) / kW, static_cast<double>(round.errors.stale) / kW,
               round.errors.fn);
  }
  return 0;
}
