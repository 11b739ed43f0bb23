// SPDX-License-Identifier: MIT
// Probe positions of one GEBF segment: a plain Bloom filter over `bits` bits, or the blocked
// layout where the key's first hash picks one 512-bit block and all k probes stay inside it
// (Alpay & Sarioglu 2026, §5: one cache line per segment per query).
//
// Positions depend only on the key, k and the segment size, never on the contents, so the
// count-window filter computes them once per query and tests every segment with them. A
// probe is (word index, bit mask); the word index is relative to the segment's first word.
//
// Plain positions come from ProbeScheme::multiply: probe i is the high bits of
// (h1·M_i + h2)·m, with M_i fixed odd 64-bit constants, so each probe depends on all 128 bits
// of the key's hash. Enhanced double hashing (h1 + i·h2 + (i³−i)/6, the scheme of states saved
// before it, still read) reduces to the top log2(m) bits of h1 and h2 plus carries: in a small
// segment few distinct probe sequences exist, keys share most positions, and the rate stalls
// far above the formula's (a 64-bit segment with 2 keys answered yes to 0.2% of fresh keys
// whatever k, which put -n 10 at 1.7% lost lines for any -e).
//
// SlicedCells stores r+1 plain segments transposed: position p of every segment is one
// (r+1)-bit cell, so one load tests a position in all segments at once and a query is k
// loads ANDed instead of up to r+1 probe loops that each end on an unpredictable branch.
// The cells are packed with no padding (the same bits as r+1 separate segments). Invariant:
// bit p·c + s of the string (c = r+1 cell bits) is bit p of segment s, and the word after
// the last is a pad that only unaligned cell loads read (never saved).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

namespace tlbf::detail {

// Saved-form tags and limits shared by the two GEBF filters.
inline constexpr std::uint8_t kGebfCount = 1;
inline constexpr std::uint8_t kGebfTimed = 2;
inline constexpr std::uint8_t kGebfTimedFormat = 2;  // 2: right-closed epochs with their last insert time, probe scheme
inline constexpr std::uint8_t kGebfCountFormat = 3;  // 2: the plain layout is bit-sliced; 3: probe scheme byte
inline constexpr std::uint32_t kGebfMaxR = 65535;
inline constexpr std::uint64_t kGebfMaxBits = std::uint64_t{1} << 43;  // 1 TiB: beyond any sane state

// How plain probe positions are derived from a key's hash (see the top of the file).
enum class ProbeScheme : std::uint8_t { double_hashing = 1, multiply = 2 };

inline void check_probe_scheme(std::uint8_t v) {
  if (v != static_cast<std::uint8_t>(ProbeScheme::double_hashing) &&
      v != static_cast<std::uint8_t>(ProbeScheme::multiply))
    throw state_error("state: gebf: unknown probe scheme");
}

// The odd multipliers M_i, from SplitMix64's sequence.
struct ProbeMultipliers {
  std::uint64_t m[kGebfMaxK];
};
inline constexpr ProbeMultipliers make_probe_multipliers() {
  ProbeMultipliers t{};
  std::uint64_t x = 0x243F6A8885A308D3ULL;
  for (std::uint32_t i = 0; i < kGebfMaxK; ++i) {
    x += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    t.m[i] = (z ^ (z >> 31)) | 1;
  }
  return t;
}
inline constexpr ProbeMultipliers kProbeMultipliers = make_probe_multipliers();

// The i-th plain probe hash of a key under ProbeScheme::multiply.
inline std::uint64_t multiply_probe_hash(KeyHash h, std::uint32_t i) { return h.lo * kProbeMultipliers.m[i] + h.hi; }

inline void check_gebf_r(std::uint32_t r) {
  if (r < 1 || r > kGebfMaxR) throw invalid_parameter("gebf_r", parameter_value(r), "must be in [1, 65535]");
}
inline std::uint64_t unit_bits(bool blocked) { return blocked ? kGebfBlockBits : 64; }

struct Probe {
  std::uint64_t word;
  std::uint64_t mask;
};

// SplitMix64's finaliser: a bijection whose output bits all depend on every input bit.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Fills probes[0..k) for a key. probes must hold k entries (k <= kGebfMaxK). `scheme` applies
// to the plain layout only.
// Blocked: the block comes from the high bits of h.hi and the in-block positions from 9-bit
// chunks of mix64(h.lo + c), so they are independent. (Deriving both from the same double
// hash made keys that share a block share most of their in-block positions too, and the
// measured rate came out 1.5-6x the formula's.)
inline void gebf_probes(KeyHash h, std::uint32_t k, std::uint64_t bits, bool blocked, ProbeScheme scheme,
                        Probe* probes) {
  if (blocked) {
    std::uint64_t base = reduce(h.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    std::uint64_t z = 0;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (i % 7 == 0) z = mix64(h.lo + (i / 7 + 1) * 0x9E3779B97F4A7C15ULL);
      std::uint64_t pos = z & (kGebfBlockBits - 1);
      z >>= 9;
      probes[i] = Probe{base + (pos >> 6), std::uint64_t{1} << (pos & 63)};
    }
  } else {
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::uint64_t x = scheme == ProbeScheme::multiply ? multiply_probe_hash(h, i) : probe_hash(h, i);
      const std::uint64_t pos = reduce(x, bits);
      probes[i] = Probe{pos >> 6, std::uint64_t{1} << (pos & 63)};
    }
  }
}

// A key's probes for many segments of different sizes and k (the time-window filter's
// blocks): the base hashes (plain) or in-block positions (blocked) depend only on the key,
// so they are computed once, lazily up to the highest probe asked, and each segment only
// reduces them to its size. Same positions as gebf_probes(). The caller asks probe i of a
// segment only after probe i - 1 of some segment (the level-by-level search of
// level_scan.hpp does), so a query that every segment refutes early computes few of them.
template <bool Blocked>
class KeyProbes {
 public:
  KeyProbes(KeyHash h, ProbeScheme scheme) : h_(h), x_(h.lo), d_(h.hi), scheme_(scheme) {}

  // Whether probe i (i < kGebfMaxK) is set in the segment of `bits` bits at `words`.
  bool hits(const std::uint64_t* words, std::uint64_t bits, std::uint32_t i) {
    if constexpr (Blocked) words += reduce(h_.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    while (i >= n_) extend();
    const std::uint64_t pos = Blocked ? v_[i] : reduce(v_[i], bits);
    return (words[pos >> 6] >> (pos & 63)) & 1u;
  }
  // Fetches the word hits(words, bits, i) will read (a hint).
  void prefetch(const std::uint64_t* words, std::uint64_t bits, std::uint32_t i) {
    if constexpr (Blocked) words += reduce(h_.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    while (i >= n_) extend();
    const std::uint64_t pos = Blocked ? v_[i] : reduce(v_[i], bits);
    detail::prefetch(words + (pos >> 6));
  }
  // Sets probes 0..k-1 (k <= kGebfMaxK) in the segment of `bits` bits at `words`: the insert
  // that follows a query reuses the probe hashes the query computed.
  void set(std::uint64_t* words, std::uint64_t bits, std::uint32_t k) {
    if constexpr (Blocked) words += reduce(h_.hi, bits / kGebfBlockBits) * (kGebfBlockBits / 64);
    while (k > n_) extend();
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::uint64_t pos = Blocked ? v_[i] : reduce(v_[i], bits);
      words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
    }
  }

 private:
  // Plain: the n-th probe hash (double hashing by forward differences); blocked: the n-th
  // 9-bit in-block position.
  void extend() {
    if constexpr (Blocked) {
      if (n_ % 7 == 0) z_ = mix64(h_.lo + (n_ / 7 + 1) * 0x9E3779B97F4A7C15ULL);
      v_[n_] = z_ & (kGebfBlockBits - 1);
      z_ >>= 9;
    } else if (scheme_ == ProbeScheme::multiply) {
      v_[n_] = multiply_probe_hash(h_, n_);
    } else {
      v_[n_] = x_;
      x_ += d_;
      d_ += n_ + 1;
    }
    ++n_;
  }

  KeyHash h_;
  std::uint32_t n_ = 0;
  std::uint64_t x_, d_, z_ = 0;
  ProbeScheme scheme_;
  std::uint64_t v_[kGebfMaxK];
};

inline bool all_set(const std::uint64_t* words, const Probe* probes, std::uint32_t k) {
  for (std::uint32_t i = 0; i < k; ++i)
    if ((words[probes[i].word] & probes[i].mask) == 0) return false;
  return true;
}

inline void set_all(std::uint64_t* words, const Probe* probes, std::uint32_t k) {
  for (std::uint32_t i = 0; i < k; ++i) words[probes[i].word] |= probes[i].mask;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "SlicedCells reads cells with little-endian unaligned loads"
#endif

// A cell is read with one unaligned 8-byte load at its first byte: its offset in that byte
// (<= 7) plus its width must fit in 64 bits.
inline constexpr std::uint32_t kMaxCellBits = 57;

class SlicedCells {
 public:
  SlicedCells() = default;
  // `positions` must be a multiple of 64, so the string is whole words and 64 cells make
  // exactly cell_bits words (the period of a segment's bits, used by clear()).
  SlicedCells(std::uint32_t cell_bits, std::uint64_t positions)
      : cell_bits_(cell_bits), words_(positions / 64 * cell_bits + 1, 0) {}

  // Bits [p·c, p·c + 64 − (p·c mod 8)) of the string, low bit first: the cell of position p
  // in the low c bits, whatever follows above them (callers mask).
  std::uint64_t cell(std::uint64_t p) const {
    const std::uint64_t bit = p * cell_bits_;
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(words_.data()) + (bit >> 3), sizeof v);
    return v >> (bit & 7);
  }

  // Fetches the first byte cell(p) reads (a hint).
  void prefetch(std::uint64_t p) const {
    detail::prefetch(reinterpret_cast<const unsigned char*>(words_.data()) + ((p * cell_bits_) >> 3));
  }

  void set(std::uint64_t p, std::uint32_t segment) {
    const std::uint64_t bit = p * cell_bits_ + segment;
    words_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }

  // Clears one segment: its bits repeat with a period of c words (64 cells), so the pass is
  // an AND with a c-word mask, which the compiler vectorises.
  void clear(std::uint32_t segment) {
    std::uint64_t keep[kMaxCellBits];
    for (std::uint32_t j = 0; j < cell_bits_; ++j) keep[j] = ~std::uint64_t{0};
    for (std::uint64_t bit = segment; bit < 64 * std::uint64_t{cell_bits_}; bit += cell_bits_)
      keep[bit >> 6] &= ~(std::uint64_t{1} << (bit & 63));
    const std::size_t n = size();
    std::uint64_t* w = words_.data();
    for (std::size_t base = 0; base < n; base += cell_bits_)
      for (std::uint32_t j = 0; j < cell_bits_; ++j) w[base + j] &= keep[j];
  }

  // The string without the pad word: what save() writes and load() reads back.
  std::size_t size() const { return words_.empty() ? 0 : words_.size() - 1; }
  const std::uint64_t* data() const { return words_.data(); }
  std::uint64_t* data() { return words_.data(); }

 private:
  std::uint32_t cell_bits_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace tlbf::detail
