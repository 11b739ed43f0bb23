// SPDX-License-Identifier: MIT
// The bit-sliced layout of the age-partitioned filters (APBF in apbf.hpp, TLBF in
// time_limited.hpp): slices of one size m stored so that cell x holds bit x of every slice.
//
// Layout. S slots (one per slice), m cells (m a multiple of 64). Cell x is S bits wide, slot
// s of cell x being bit x of the slice in slot s, and the cells are packed one after the
// other (cell x at bit x S of the word array), so S m bits take S m / 64 words, exactly what
// S slices of m bits took slice by slice. One guard word follows, so that reading 64 bits
// from any bit of the array reads two whole words. Slot 0 is the newest slice; aging moves
// every slice up one slot.
//
// Why. A generation-keyed run j (detail/age_partitioned.hpp) is slots j..j+k-1 probed with
// hashes 0..k-1, and a key's probe p lands on the same cell c_p = reduce(x_p, m) in every
// slice. So the 64 bits read from bit c_p S + p, call them R_p, hold at bit j the key's bit
// in slot j + p: AND_p R_p has bit j set iff run j holds all its bits. k loads answer every
// run (S <= 64: 64 runs a read; wider cells are read 64 runs at a time), where the slices one
// after the other took about two loads per accepted run.
//
// Invariant: the word array holds S m slice bits and nothing else (S m is a multiple of 64),
// and the guard word after it stays 0. Every re-layout (width, cell count) keeps the bit of
// each (slot, key) pair that the new layout can hold: upsample() and fold() keep every
// answer (see there), resize_slots() keeps the slots below the new width.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/large_pages.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TLBF_AGE_AVX2 1
#endif

namespace tlbf::detail {

// One generation's aging of cells 64 or 128 slots wide (RunCells::age()), a pass over the
// whole array, in the instruction sets a processor may have: the build targets baseline
// x86-64 (SSE2), so AVX2, twice as wide, is chosen at run time. Each variant leaves the
// words exactly as `portable` does (the tests compare them).
enum class AgeIsa { portable, sse2, avx2 };

// The widest variant this processor runs.
inline AgeIsa best_age_isa() {
#if defined(TLBF_AGE_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return AgeIsa::avx2;
#endif
#if defined(__SSE2__)
  return AgeIsa::sse2;
#else
  return AgeIsa::portable;
#endif
}

#if defined(TLBF_AGE_AVX2)
// Words w[0..n) each shifted up one bit, eight at a time.
[[gnu::target("avx2")]] inline std::uint64_t age_words_64_avx2(std::uint64_t* w, std::uint64_t n) {
  std::uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    auto* v = reinterpret_cast<__m256i*>(w + i);
    const __m256i a = _mm256_loadu_si256(v), b = _mm256_loadu_si256(v + 1);
    _mm256_storeu_si256(v, _mm256_slli_epi64(a, 1));
    _mm256_storeu_si256(v + 1, _mm256_slli_epi64(b, 1));
  }
  return i;
}
// Cells of two words [low, high] -> [low << 1, high << 1 | low >> 63], two a register (each
// 128-bit lane a cell, so the byte shift that brings low under high stays within its cell).
[[gnu::target("avx2")]] inline std::uint64_t age_cells_128_avx2(std::uint64_t* w, std::uint64_t n) {
  std::uint64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    auto* v = reinterpret_cast<__m256i*>(w + i);
    const __m256i a = _mm256_loadu_si256(v);
    _mm256_storeu_si256(v, _mm256_or_si256(_mm256_slli_epi64(a, 1), _mm256_srli_epi64(_mm256_slli_si256(a, 8), 63)));
  }
  return i;
}
#endif

// Every word of w[0..n) shifted up one bit: 64-slot cells (a cell a word) aged.
inline void age_words_64(std::uint64_t* w, std::uint64_t n, AgeIsa isa) {
  std::uint64_t i = 0;
#if defined(TLBF_AGE_AVX2)
  if (isa == AgeIsa::avx2) i = age_words_64_avx2(w, n);
#endif
#if defined(__SSE2__)
  if (isa != AgeIsa::portable) {
    for (; i + 2 <= n; i += 2) {
      auto* v = reinterpret_cast<__m128i*>(w + i);
      _mm_storeu_si128(v, _mm_slli_epi64(_mm_loadu_si128(v), 1));
    }
  }
#endif
  for (; i < n; ++i) w[i] <<= 1;
}
// 128-slot cells, two words each, in w[0..n) (n even) aged: the low word's top slot moves
// into the high word.
inline void age_cells_128(std::uint64_t* w, std::uint64_t n, AgeIsa isa) {
  std::uint64_t i = 0;
#if defined(TLBF_AGE_AVX2)
  if (isa == AgeIsa::avx2) i = age_cells_128_avx2(w, n);
#endif
#if defined(__SSE2__)
  if (isa != AgeIsa::portable) {
    for (; i + 2 <= n; i += 2) {
      auto* cell = reinterpret_cast<__m128i*>(w + i);
      const __m128i v = _mm_loadu_si128(cell);
      _mm_storeu_si128(cell, _mm_or_si128(_mm_slli_epi64(v, 1), _mm_srli_epi64(_mm_slli_si128(v, 8), 63)));
    }
  }
#endif
  for (; i < n; i += 2) {
    const std::uint64_t low = w[i];
    w[i + 1] = (w[i + 1] << 1) | (low >> 63);
    w[i] = low << 1;
  }
}

// A key's k probe values x_p = mix_probe(h.lo + p h.hi + kCubic[p]) (run_probe()) and their
// cells reduce(x_p, cells), into x[0..k) (unless null) and cell[0..k). With AVX2 and cells
// below 2^32, four probes at a time: the 64-bit products from 32-bit ones, exact (the tests
// compare both with run_probe()), about 8 ns less a key at k = 21 than one at a time. Both
// arrays need room for k rounded up to 4, and k + 3 < kProbeTable.
#if defined(TLBF_AGE_AVX2)
template <bool kWithX>
[[gnu::target("avx2")]] inline void probe_cells_avx2(KeyHash h, std::uint32_t k, std::uint64_t cells, std::uint64_t* x,
                                                     std::uint64_t* cell) {
  const __m256i mul_lo = _mm256_set1_epi64x(0x6659fd93), mul_hi = _mm256_set1_epi64x(0xd6e8feb8);  // mix_probe()'s
  const __m256i n = _mm256_set1_epi64x(static_cast<long long>(cells));
  const std::uint64_t lo = h.lo, step = h.hi;
  __m256i base = _mm256_set_epi64x(static_cast<long long>(lo + 3 * step), static_cast<long long>(lo + 2 * step),
                                   static_cast<long long>(lo + step), static_cast<long long>(lo));
  const __m256i step4 = _mm256_set1_epi64x(static_cast<long long>(4 * step));
  for (std::uint32_t p = 0; p < k; p += 4) {
    __m256i v = _mm256_add_epi64(base, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kCubic.v + p)));
    base = _mm256_add_epi64(base, step4);
    v = _mm256_xor_si256(v, _mm256_srli_epi64(v, 32));
    // v * mul mod 2^64 = lo(v) lo(mul) + ((hi(v) lo(mul) + lo(v) hi(mul)) << 32)
    const __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(v, 32), mul_lo), _mm256_mul_epu32(v, mul_hi));
    const __m256i y = _mm256_add_epi64(_mm256_mul_epu32(v, mul_lo), _mm256_slli_epi64(cross, 32));
    // (y cells) >> 64 = (hi(y) cells + (lo(y) cells >> 32)) >> 32 for cells < 2^32
    const __m256i t =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(y, 32), n), _mm256_srli_epi64(_mm256_mul_epu32(y, n), 32));
    if (kWithX) _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + p), y);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(cell + p), _mm256_srli_epi64(t, 32));
  }
}
#endif
inline void probe_cells(KeyHash h, std::uint32_t k, std::uint64_t cells, std::uint64_t* x, std::uint64_t* cell,
                        AgeIsa isa) {
#if defined(TLBF_AGE_AVX2)
  if (isa == AgeIsa::avx2 && cells >> 32 == 0) {
    if (x != nullptr) return probe_cells_avx2<true>(h, k, cells, x, cell);
    return probe_cells_avx2<false>(h, k, cells, x, cell);
  }
#endif
  for (std::uint32_t p = 0; p < k; ++p) {
    const std::uint64_t y = run_probe(h, p);
    if (x != nullptr) x[p] = y;
    cell[p] = reduce(y, cells);
  }
}

class RunCells {
 public:
  // The most slices the APBF keeps bit-sliced (k + l <= 64): one 64-bit read per probe holds
  // every run. The TLBF's eras may grow wider.
  static constexpr std::uint32_t kMaxSlices = 64;

  // Where a key's k probes land: the first bit of each probe's cell (the APBF's key).
  struct Key {
    std::uint64_t bit[kMaxSlices];
  };

  // Empty cells, `slots` wide, with room for `reserve` slots (reserve_slots()) taken first:
  // the zeros are written once, where the cells stay (a page fault each page).
  void reset(std::uint32_t slots, std::uint64_t cells, std::uint32_t reserve = 0) {
    reserved_ = reserve;
    slots_ = slots;
    cells_ = cells;
    Words().swap(words_);
    words_.reserve(words_to_reserve(slots_, cells_));
    words_.assign(word_count() + 1, 0);
    build_keep();
  }
  std::uint32_t slots() const { return slots_; }
  std::uint64_t cells() const { return cells_; }
  std::uint64_t word_count() const { return std::uint64_t{slots_} * cells_ / 64; }
  // Room for cells `slots` wide without moving them: the memory is the system's to hand out
  // as the cells widen into it (pages never written are not resident). At most
  // kMaxReserveBytes, so that a large cap does not ask the system for address space it may
  // refuse (ulimit -v, strict overcommit) before the stream needs it; past that the cells
  // grow as a vector does. Kept through re-layouts (upsample(), fold()).
  static constexpr std::uint64_t kMaxReserveBytes = std::uint64_t{256} << 20;
  void reserve_slots(std::uint32_t slots) {
    reserved_ = slots;
    words_.reserve(words_to_reserve(slots_, cells_));
  }
  std::uint64_t bits() const { return std::uint64_t{slots_} * cells_; }
  // The memory taken from the system for the cells (what they use and what is reserved).
  std::uint64_t reserved_bytes() const { return words_.capacity() * sizeof(std::uint64_t); }
  const std::uint64_t* data() const { return words_.data(); }
  std::uint64_t* data() { return words_.data(); }

  // The first bit of the cell probe value x lands on.
  std::uint64_t cell_of(std::uint64_t x) const { return reduce(x, cells_) * slots_; }
  // 64 bits of the array from bit `at` (below S m): bits past the cell belong to the next
  // cells, past the array to the guard word.
  std::uint64_t bits64(std::uint64_t at) const {
    const std::uint64_t* w = &words_[at >> 6];
    const unsigned s = at & 63;
    return (w[0] >> s) | ((w[1] << 1) << (63 - s));
  }
  void set(std::uint64_t at) { set_bit(words_.data(), at); }
  void prefetch_bit(std::uint64_t at) const { detail::prefetch(&words_[at >> 6]); }

  // The APBF's verbs, for S <= 64: the generation-keyed probes of run_probes(), whether one of
  // runs 0..runs-1 holds all k bits (bits a read takes from the next cell land at j >= S -
  // p >= l + 1 >= runs after the shift by p, outside the mask), and run 0 taking the key.
  void locate(KeyHash h, std::uint32_t k, Key& at) const {
    probe_cells(h, k, cells_, nullptr, at.bit, best_age_isa());  // k < S <= 64: room for k rounded up to 4
    for (std::uint32_t p = 0; p < k; ++p) at.bit[p] *= slots_;
  }
  bool any_run_holds(const Key& at, std::uint32_t k, std::uint32_t runs) const {
    if (runs == 0) return false;
    std::uint64_t all = ~std::uint64_t{0};
    for (std::uint32_t p = 0; p < k; ++p) all &= bits64(at.bit[p]) >> p;
    return (all & (~std::uint64_t{0} >> (64 - runs))) != 0;
  }
  void set_newest_run(const Key& at, std::uint32_t k) {
    for (std::uint32_t p = 0; p < k; ++p) set(at.bit[p] + p);
  }
  void prefetch(const Key& at, std::uint32_t p) const { prefetch_bit(at.bit[p]); }

  // Every slice moves up one slot; the one in the top slot is dropped, slot 0 is empty. From
  // the top down, so that word q - 1 is still the old one when word q takes its top bit; two
  // words at a time (a pass over the whole array per generation: k / ln 2 words per insert
  // for S = 64). Cells of 64 and 128 slots hold no slot across them: age_words_64(),
  // age_cells_128().
  void age() {
    std::uint64_t* w = words_.data();
    if (slots_ == 64) return age_words_64(w, word_count(), best_age_isa());  // no slot crosses into the next cell
    if (slots_ == 128) return age_cells_128(w, word_count(), best_age_isa());
    const std::size_t period = keep_.size();  // even
    std::size_t q = word_count();             // words q.. are done
    auto one = [&](std::size_t i) { w[i] = ((w[i] << 1) | (w[i - 1] >> 63)) & keep_[i % period]; };
    if (q % 2 != 0 && q > 1) one(--q);  // one word (S m = 64) is aged below
    using Pair = std::uint64_t __attribute__((vector_size(16)));
    for (std::size_t r = q % period; q > 2;) {
      q -= 2;
      r = r == 0 ? period - 2 : r - 2;
      Pair v, below, keep;
      std::memcpy(&v, w + q, sizeof v);
      std::memcpy(&below, w + q - 1, sizeof below);
      std::memcpy(&keep, &keep_[r], sizeof keep);
      v = ((v << 1) | (below >> 63)) & keep;
      std::memcpy(w + q, &v, sizeof v);
    }
    if (q == 2) one(1);
    w[0] = (w[0] << 1) & keep_[0];
  }
  // age() into cells `slots` wide: slots 1..slots-1 of the result are the old slots
  // 0..slots-2 (older ones are dropped), slot 0 empty. One pass into new cells.
  void age_into(std::uint32_t slots) {
    if (slots == slots_) return age();
    repack(slots, 1);
  }
  // Cells `slots` wide, keeping slots 0..min(S, slots)-1 of every cell.
  void resize_slots(std::uint32_t slots) {
    if (slots != slots_) repack(slots, 0);
  }
  // c times as many cells, cell x of the result a copy of old cell x / c. Exact: reduce(v, c
  // m) / c == reduce(v, m) (floor(floor(y c) / c) = floor(y)), so every probe finds the bit
  // it found before, and each slot's fill is unchanged.
  void upsample(std::uint32_t c) {
    relayout(slots_, cells_ * c, [&](Words& out) {
      for (std::uint64_t x = 0; x < cells_; ++x)
        for (std::uint32_t i = 0; i < c; ++i) copy_bits(out, (x * c + i) * slots_, x * slots_, slots_);
    });
  }
  // 1/c as many cells (m / c a multiple of 64), cell x of the result the OR of old cells c x ..
  // c x + c - 1. No bit is lost (the same identity as upsample()); a slot of fill f becomes
  // about 1 - (1 - f)^c full, which the caller checks its slices can take.
  void fold(std::uint32_t c) {
    relayout(slots_, cells_ / c, [&](Words& out) {
      for (std::uint64_t x = 0; x < cells_; ++x) copy_bits(out, (x / c) * slots_, x * slots_, slots_);
    });
  }
  // Slot s of every cell set to 0 (a pass over the array).
  void clear_slot(std::uint32_t s) {
    const std::vector<std::uint64_t> keep = slot_pattern(s);
    for (std::uint64_t i = 0; i < word_count(); ++i) words_[i] &= keep[i % keep.size()];
  }

  std::uint64_t ones_at(std::uint32_t pos) const {
    std::uint64_t c = 0;
    for (std::uint64_t i = 0; i < cells_; ++i) c += test_bit(words_.data(), i * slots_ + pos);
    return c;
  }

  // The APBF's saved form (S <= 64): the slices at positions pos[0..n) as m / 64 words each,
  // slice i at out + i m / 64 (bit x of a slice's words = bit `pos` of cell x), and back. 64
  // cells take exactly S words, so each block of 64 cells is read as 64 rows of S bits,
  // transposed as a 64 x 64 bit matrix, and row p of the result is word b of the slice at
  // position p: a few thousand instructions per S words, where bit by bit took one test per
  // bit. An empty block is not transposed. copy_slices_in() ORs into the cells, so the slices
  // may come in any groups, each position once, into cells that start empty.
  void copy_slices_out(const std::uint32_t* pos, std::uint32_t n, std::uint64_t* out) const {
    const std::uint64_t words = cells_ / 64;
    std::uint64_t rows[64];
    for (std::uint64_t b = 0; b < words; ++b) {
      std::uint64_t any = 0;
      for (std::uint32_t i = 0; i < 64; ++i) any |= rows[i] = bits64((b * 64 + i) * slots_) & cell_mask();
      if (any != 0) transpose_bits(rows);
      for (std::uint32_t i = 0; i < n; ++i) out[i * words + b] = rows[pos[i]];
    }
  }
  // A block whose slices hold at most this many bits in total is set bit by bit (a few
  // instructions a bit) rather than transposed (a few thousand a block), so that a young or
  // lightly used filter does not pay a transpose for every block.
  static constexpr std::uint32_t kSparseBlockBits = 128;
  void copy_slices_in(const std::uint32_t* pos, std::uint32_t n, const std::uint64_t* in) {
    const std::uint64_t words = cells_ / 64;
    std::uint64_t rows[64];
    for (std::uint64_t b = 0; b < words; ++b) {
      std::uint32_t ones = 0;
      for (std::uint32_t i = 0; i < n; ++i) ones += static_cast<std::uint32_t>(__builtin_popcountll(in[i * words + b]));
      if (ones <= kSparseBlockBits) {
        for (std::uint32_t i = 0; i < n; ++i)
          for (std::uint64_t v = in [i * words + b]; v != 0; v &= v - 1)
            set_bit(words_.data(), (b * 64 + static_cast<unsigned>(__builtin_ctzll(v))) * slots_ + pos[i]);
        continue;
      }
      std::fill_n(rows, 64, std::uint64_t{0});
      for (std::uint32_t i = 0; i < n; ++i) rows[pos[i]] = in[i * words + b];
      transpose_bits(rows);
      for (std::uint32_t i = 0; i < 64; ++i) or_bits(words_, (b * 64 + i) * slots_, rows[i], slots_);
    }
  }

  // A 64 x 64 bit matrix transposed in place: bit c of row r trades places with bit r of row
  // c. Six rounds, each swapping the off-diagonal blocks of every 2j x 2j block (Warren,
  // Hacker's Delight, 2nd ed., section 7-3).
  static void transpose_bits(std::uint64_t rows[64]) {
    std::uint64_t m = 0x00000000FFFFFFFFu;
    for (std::uint32_t j = 32; j != 0; j >>= 1, m ^= m << j) {
      for (std::uint32_t r = 0; r < 64; r = (r + j + 1) & ~j) {
        const std::uint64_t t = ((rows[r] >> j) ^ rows[r + j]) & m;
        rows[r] ^= t << j;
        rows[r + j] ^= t;
      }
    }
  }

 private:
  // The cells' words: large arrays on huge pages where the system has them (large_pages.hpp).
  using Words = std::vector<std::uint64_t, LargePageAllocator<std::uint64_t>>;

  std::uint64_t cell_mask() const { return slots_ >= 64 ? ~std::uint64_t{0} : ~std::uint64_t{0} >> (64 - slots_); }

  // ORs the low `len` (<= 64) bits of v into `out` from bit `at`.
  static void or_bits(Words& out, std::uint64_t at, std::uint64_t v, std::uint32_t len) {
    if (len < 64) v &= (std::uint64_t{1} << len) - 1;
    std::uint64_t* w = &out[at >> 6];
    const unsigned s = at & 63;
    w[0] |= v << s;
    if (s + len > 64) w[1] |= v >> (64 - s);
  }
  // ORs `len` bits of this array from bit `from` into `out` from bit `to`, 64 at a time.
  void copy_bits(Words& out, std::uint64_t to, std::uint64_t from, std::uint32_t len) const {
    for (std::uint32_t done = 0; done < len; done += 64)
      or_bits(out, to + done, bits64(from + done), std::min<std::uint32_t>(64, len - done));
  }
  // The words (guard included) for `cells` cells of the reserved width, within
  // kMaxReserveBytes, and at least `slots` wide.
  std::uint64_t words_to_reserve(std::uint32_t slots, std::uint64_t cells) const {
    const std::uint64_t affordable = kMaxReserveBytes * 8 / std::max<std::uint64_t>(cells, 1);
    return std::max<std::uint64_t>(slots, std::min<std::uint64_t>(reserved_, affordable)) * cells / 64 + 1;
  }
  // New cells (`slots` wide, `cells` of them) filled by `fill` from the old ones, which it
  // reads while they are still in place; then they replace the old ones.
  template <class Fill>
  void relayout(std::uint32_t slots, std::uint64_t cells, Fill&& fill) {
    Words out;
    out.reserve(words_to_reserve(slots, cells));
    out.assign(std::uint64_t{slots} * cells / 64 + 1, 0);
    fill(out);
    words_ = std::move(out);
    slots_ = slots;
    cells_ = cells;
    build_keep();
  }
  // Cells `slots` wide holding the old slots moved up by `up` (0 or 1), as many as fit. Cells
  // of at most 64 slots are moved in place (from the last when they widen, from the first
  // when they narrow: no cell is written over before it is read), so that widening holds no
  // second copy of the cells, and takes no new memory at all within reserve_slots().
  void repack(std::uint32_t slots, std::uint32_t up) {
    const std::uint32_t keep = std::min(slots_, slots - up);
    if (is_power_of_two(slots) && is_power_of_two(slots_) && slots <= 64 && slots_ <= 64 && cells_ % 64 == 0)
      return repack_whole_words(slots, up, keep);
    if (slots % 64 == 0 && slots_ % 64 == 0 && slots_ / 64 <= kMaxWordCell) return repack_word_cells(slots, up);
    if (slots > 64 || slots_ > 64) {
      relayout(slots, cells_, [&](Words& out) {
        for (std::uint64_t x = 0; x < cells_; ++x) copy_bits(out, x * slots + up, x * slots_, keep);
      });
      return;
    }
    const std::uint64_t mask = keep == 0 ? 0 : ~std::uint64_t{0} >> (64 - keep);
    move_in_place(slots, cells_,
                  [&](std::uint64_t x) { put_bits(x * slots, (bits64(x * slots_) & mask) << up, slots); });
  }
  // The in-place re-layouts' common frame: move(i) for every i < units (cells or words, as the
  // caller moves them), from the last when the cells widen and from the first when they
  // narrow, so that nothing is written over before it is read; then the array takes its new
  // length (within reserve_slots() when widening), its guard word and the new width.
  template <class Move>
  void move_in_place(std::uint32_t slots, std::uint64_t units, Move&& move) {
    const std::uint64_t words = std::uint64_t{slots} * cells_ / 64;
    if (slots > slots_) {
      words_.resize(words + 1);
      for (std::uint64_t i = units; i-- > 0;) move(i);
    } else {
      for (std::uint64_t i = 0; i < units; ++i) move(i);
      words_.resize(words + 1);
      Words::allocator_type::release_unused(words_);  // no second copy of the cells
    }
    words_[words] = 0;
    slots_ = slots;
    build_keep();
  }
  static bool is_power_of_two(std::uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }
  // repack() between widths that are powers of two (an older era that reached 64 slots is
  // halved through them as it empties, and a new era widens from 1 slot to 4): no cell
  // straddles a word, so the cells move a word at a time, each by a shift and a mask, in the
  // order repack() keeps (from the last word when they widen, from the first when they
  // narrow). A cell at a time, read and written across word edges, took ~40 instructions a
  // cell.
  void repack_whole_words(std::uint32_t slots, std::uint32_t up, std::uint32_t keep) {
    const std::uint32_t from = slots_;
    const std::uint64_t mask = keep == 0 ? 0 : ~std::uint64_t{0} >> (64 - keep);
    const std::uint64_t words = std::uint64_t{slots} * cells_ / 64;
    auto cell = [&](std::uint64_t v, std::uint32_t i) { return ((v >> (i * from)) & mask) << up; };
    if (slots > from) {  // word i in makes words i ratio .. i ratio + ratio - 1
      const std::uint32_t ratio = slots / from, per_out = 64 / slots;  // words out per word in, cells a word out
      move_in_place(slots, std::uint64_t{from} * cells_ / 64, [&](std::uint64_t i) {
        const std::uint64_t v = words_[i];
        for (std::uint32_t t = ratio; t-- > 0;) {
          std::uint64_t out = 0;
          for (std::uint32_t c = 0; c < per_out; ++c) out |= cell(v, t * per_out + c) << (c * slots);
          words_[i * ratio + t] = out;
        }
      });
    } else {  // word o out is made of words o ratio .. o ratio + ratio - 1
      const std::uint32_t ratio = from / slots, per_in = 64 / from;  // words in per word out, cells a word in
      move_in_place(slots, words, [&](std::uint64_t o) {
        std::uint64_t out = 0;
        for (std::uint32_t t = 0; t < ratio; ++t) {
          const std::uint64_t v = words_[o * ratio + t];
          for (std::uint32_t c = 0; c < per_in; ++c) out |= cell(v, c) << ((t * per_in + c) * slots);
        }
        words_[o] = out;
      });
    }
  }
  // repack() between widths that are multiples of 64 (64 and an era's wide 128): a cell is
  // whole words, moved by word copies and the one-bit shift of `up`, in repack()'s order
  // (from the last cell when they widen, from the first when they narrow), each cell read
  // before it is written over.
  static constexpr std::uint32_t kMaxWordCell = 8;  // words of the widest cell moved this way
  void repack_word_cells(std::uint32_t slots, std::uint32_t up) {
    const std::uint32_t from = slots_ / 64, to = slots / 64;
    move_in_place(slots, cells_, [&](std::uint64_t x) {
      std::uint64_t old[kMaxWordCell];
      std::copy_n(&words_[x * from], from, old);
      std::uint64_t* out = &words_[x * to];
      for (std::uint32_t j = 0; j < to; ++j) {
        const std::uint64_t here = j < from ? old[j] : 0, below = j > 0 && j - 1 < from ? old[j - 1] : 0;
        out[j] = up == 0 ? here : (here << 1) | (below >> 63);
      }
    });
  }
  // Writes the low `len` (<= 64) bits of v (v has no others) over the array's bits from `at`.
  void put_bits(std::uint64_t at, std::uint64_t v, std::uint32_t len) {
    std::uint64_t* w = &words_[at >> 6];
    const unsigned s = at & 63;
    const std::uint64_t mask = len >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    w[0] = (w[0] & ~(mask << s)) | (v << s);
    if (s + len > 64) w[1] = (w[1] & ~(mask >> (64 - s))) | (v >> (64 - s));
  }

  // Per word, mod the pattern's period (S / gcd(S, 64) words, taken twice when odd so that
  // age() reads it in pairs of words): every bit but slot s of each cell.
  std::vector<std::uint64_t> slot_pattern(std::uint32_t s) const {
    std::uint32_t period = slots_ / std::gcd(slots_, 64u);
    if (period % 2 != 0) period *= 2;
    std::vector<std::uint64_t> keep(period, ~std::uint64_t{0});
    for (std::uint64_t bit = s; bit < std::uint64_t{period} * 64; bit += slots_)
      keep[bit >> 6] &= ~(std::uint64_t{1} << (bit & 63));
    return keep;
  }
  // Aging clears slot 0 of every cell.
  void build_keep() { keep_ = slot_pattern(0); }

  std::uint32_t slots_ = 0;
  std::uint32_t reserved_ = 0;  // reserve_slots()
  std::uint64_t cells_ = 0;
  Words words_;
  std::vector<std::uint64_t> keep_;  // per word, mod the period: all bits but slot 0 of a cell
};

}  // namespace tlbf::detail
