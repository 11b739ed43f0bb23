// SPDX-License-Identifier: MIT
// The tagged filter's block in format 2 (tagged.hpp): a quotient filter in one cache line, as
// the vector quotient filter lays one out. A key has a bucket q < B of the block and an r-bit
// remainder; the block holds up to S slots sorted by bucket, and a string of S + B run bits
// saying which slots belong to which bucket, so a remainder needs no bits for the bucket and
// a query compares only the few slots of its own bucket.
//
// Bit k of the block is bit k % 64 of word k / 64:
// - [0, S + B): the runs. Read upwards, a 1 is a slot and a 0 closes a bucket: bucket q's
//   slots are the 1s between the (q-1)th and the qth 0. The bits above the last slot are 0,
//   so the all-zero block is empty, and a block holds n = popcount(runs) slots.
// - [S + B, S + B + x S): slot i's tail, the remainder's high x bits (x may be 0), at
//   S + B + x i.
// - [512 - 16 S, 512): slot i's head, a 16-bit lane at 512 - 16 S + 16 i: the epoch tag in its
//   low t bits and the remainder's low 16 - t bits above them. No lane straddles a word.
// Bits of slots i >= n are 0. A slot is live as in format 1 (tagged_block.hpp): when
// (tag - floor) mod 2^t >= threshold, the view's two numbers.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "tlbf/detail/bit_ops.hpp"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if TLBF_HAS_AVX512_KERNEL
#include <immintrin.h>
#endif

#include "tlbf/detail/endian.hpp"
#include "tlbf/detail/tagged_block.hpp"

namespace tlbf::detail {

// Bits [lo, hi) of word j of a block, lo <= hi <= 512.
inline std::uint64_t word_range(std::uint32_t j, std::uint32_t lo, std::uint32_t hi) {
  const auto clamp = [j](std::uint32_t bit) { return bit <= 64 * j ? 0u : bit >= 64 * j + 64 ? 64u : bit - 64 * j; };
  const auto below = [](std::uint32_t n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; };
  return below(clamp(hi)) & ~below(clamp(lo));
}
// Bits [pos, pos + width) of a block as a number (width <= 57; pos + width <= 512).
inline std::uint64_t get_bits(const TaggedBlock& b, std::uint32_t pos, std::uint32_t width) {
  const std::uint32_t j = pos / 64, sh = pos % 64;
  std::uint64_t v = b.w[j] >> sh;
  if (sh + width > 64) v |= b.w[j + 1] << (64 - sh);
  return v & ((std::uint64_t{1} << width) - 1);
}
// Sets bits [pos, pos + width) of a block to `value` (< 2^width).
inline void set_bits(TaggedBlock& b, std::uint32_t pos, std::uint32_t width, std::uint64_t value) {
  const std::uint32_t j = pos / 64, sh = pos % 64;
  const std::uint64_t field = (std::uint64_t{1} << width) - 1;
  b.w[j] = (b.w[j] & ~(field << sh)) | (value << sh);
  if (sh + width > 64) {
    const std::uint32_t done = 64 - sh;
    b.w[j + 1] = (b.w[j + 1] & ~(field >> done)) | (value >> done);
  }
}
// Moves bits [from, to) up by k (1 <= k < 64, from < to, to + k <= 512) and clears
// [from, from + k): only the words the bits cross are read.
inline void open_gap(TaggedBlock& b, std::uint32_t from, std::uint32_t to, std::uint32_t k) {
  if (k % 8 == 0 && from % 8 == 0 && to % 8 == 0 && kLittleEndian) {
    auto* bytes = reinterpret_cast<unsigned char*>(b.w);  // bit k of the block is bit k % 8 of byte k / 8
    std::memmove(bytes + (from + k) / 8, bytes + from / 8, (to - from) / 8);
    std::memset(bytes + from / 8, 0, k / 8);
    return;
  }
  for (std::uint32_t j = (to + k - 1) / 64 + 1; j-- > from / 64;) {
    const std::uint64_t shifted = (b.w[j] << k) | (j > 0 ? b.w[j - 1] >> (64 - k) : 0);
    const std::uint64_t moved = word_range(j, from + k, to + k);
    b.w[j] = (b.w[j] & ~moved & ~word_range(j, from, from + k)) | (shifted & moved);
  }
}

__extension__ using Bits128 = unsigned __int128;

// Moves bits [from, to) down by k (1 <= k < 64, from + k < to <= 512) and clears [to - k, to).
inline void close_gap(TaggedBlock& b, std::uint32_t from, std::uint32_t to, std::uint32_t k) {
  for (std::uint32_t j = from / 64; j <= (to - 1) / 64; ++j) {
    const std::uint64_t shifted = (b.w[j] >> k) | (j < 7 ? b.w[j + 1] << (64 - k) : 0);
    const std::uint64_t moved = word_range(j, from, to - k);
    b.w[j] = (b.w[j] & ~moved & ~word_range(j, to - k, to)) | (shifted & moved);
  }
}

// The 16-bit lanes of a block, bit L of a mask for lane L (of 32): lane L is bits
// [16 L, 16 L + 16). These move whole lanes, without branches where SSE2 is there.
//
// Lanes L and up move one up (lane 31's content goes) and lane L becomes `value`.
inline void lanes_insert(TaggedBlock& b, std::uint32_t lane, std::uint64_t value) {
#if defined(__SSE2__)
  auto* v = reinterpret_cast<__m128i*>(b.w);
  const __m128i at = _mm_set1_epi16(static_cast<short>(lane)), put = _mm_set1_epi16(static_cast<short>(value));
  const __m128i w0 = _mm_load_si128(v), w1 = _mm_load_si128(v + 1), w2 = _mm_load_si128(v + 2),
                w3 = _mm_load_si128(v + 3);
  const auto step = [&](const __m128i old, const __m128i below, const __m128i index) {
    const __m128i up = _mm_or_si128(_mm_slli_si128(old, 2), _mm_srli_si128(below, 14));  // lane l gets l - 1
    const __m128i above = _mm_cmpgt_epi16(index, at), here = _mm_cmpeq_epi16(index, at);
    const __m128i kept = _mm_andnot_si128(_mm_or_si128(above, here), old);
    return _mm_or_si128(kept, _mm_or_si128(_mm_and_si128(above, up), _mm_and_si128(here, put)));
  };
  _mm_store_si128(v, step(w0, _mm_setzero_si128(), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7)));
  _mm_store_si128(v + 1, step(w1, w0, _mm_setr_epi16(8, 9, 10, 11, 12, 13, 14, 15)));
  _mm_store_si128(v + 2, step(w2, w1, _mm_setr_epi16(16, 17, 18, 19, 20, 21, 22, 23)));
  _mm_store_si128(v + 3, step(w3, w2, _mm_setr_epi16(24, 25, 26, 27, 28, 29, 30, 31)));
#else
  const std::uint32_t first = lane / 4;
  const std::uint64_t keep = (std::uint64_t{1} << (16 * (lane % 4))) - 1, w = b.w[first];
  std::uint64_t carry = w >> 48;
  b.w[first] = (w & keep) | ((w << 16) & ~keep & ~(0xFFFF * (keep + 1))) | (value << (16 * (lane % 4)));
  for (std::uint32_t j = first + 1; j < 8; ++j) {
    const std::uint64_t next = b.w[j];
    b.w[j] = (next << 16) | carry;
    carry = next >> 48;
  }
#endif
}
// Lanes above L move one down over it, and lane 31 becomes 0.
inline void lanes_erase(TaggedBlock& b, std::uint32_t lane) {
#if defined(__SSE2__)
  auto* v = reinterpret_cast<__m128i*>(b.w);
  const __m128i from = _mm_set1_epi16(static_cast<short>(lane) - 1);
  const __m128i w0 = _mm_load_si128(v), w1 = _mm_load_si128(v + 1), w2 = _mm_load_si128(v + 2),
                w3 = _mm_load_si128(v + 3);
  const auto step = [&](const __m128i old, const __m128i above, const __m128i index) {
    const __m128i down = _mm_or_si128(_mm_srli_si128(old, 2), _mm_slli_si128(above, 14));  // lane l gets l + 1
    const __m128i moved = _mm_cmpgt_epi16(index, from);
    return _mm_or_si128(_mm_andnot_si128(moved, old), _mm_and_si128(moved, down));
  };
  _mm_store_si128(v, step(w0, w1, _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7)));
  _mm_store_si128(v + 1, step(w1, w2, _mm_setr_epi16(8, 9, 10, 11, 12, 13, 14, 15)));
  _mm_store_si128(v + 2, step(w2, w3, _mm_setr_epi16(16, 17, 18, 19, 20, 21, 22, 23)));
  _mm_store_si128(v + 3, step(w3, _mm_setzero_si128(), _mm_setr_epi16(24, 25, 26, 27, 28, 29, 30, 31)));
#else
  const std::uint32_t first = lane / 4;
  const std::uint64_t keep = (std::uint64_t{1} << (16 * (lane % 4))) - 1;
  for (std::uint32_t j = first; j < 8; ++j) {
    const std::uint64_t shifted = (b.w[j] >> 16) | (j < 7 ? b.w[j + 1] << 48 : 0);
    b.w[j] = j == first ? (b.w[j] & keep) | (shifted & ~keep) : shifted;
  }
#endif
}

// Two lane masks of a block (bit L for lane L): lanes whose remainder bits are a key's, and
// lanes whose tag is live.
struct LaneMasks {
  std::uint32_t match, young;
};

#if TLBF_HAS_AVX512_KERNEL
// The AVX-512 kernel's lane work, a whole block in one register (bit_ops.hpp says how these
// are called). The masks of QuotientView::lanes(): `tags` selects a lane's tag bits and the
// rest are its remainder bits; a lane matches when those are `head`'s, and is young when
// (tag - floor) mod 2^t >= threshold.
TLBF_AVX512_TARGET inline LaneMasks lanes_avx512(const TaggedBlock& b, std::uint64_t head, std::uint64_t tags,
                                                 std::uint64_t floor, std::uint64_t threshold) {
  const __m512i w = _mm512_load_si512(b.w);
  const __m512i rel = _mm512_and_si512(_mm512_sub_epi16(w, _mm512_set1_epi16(static_cast<short>(floor))),
                                       _mm512_set1_epi16(static_cast<short>(tags)));
  return LaneMasks{_mm512_cmpeq_epi16_mask(_mm512_and_si512(w, _mm512_set1_epi16(static_cast<short>(0xFFFF & ~tags))),
                                           _mm512_set1_epi16(static_cast<short>(head))),
                   _mm512_cmpge_epu16_mask(rel, _mm512_set1_epi16(static_cast<short>(threshold)))};
}
// The lanes of `keep` move down in order over the others (the top ones become 0); then, unless
// `lane` is 32 or more, lanes `lane` and up move one up and lane `lane` becomes `value`.
TLBF_AVX512_TARGET inline void lanes_move_avx512(TaggedBlock& b, std::uint32_t keep, std::uint32_t lane,
                                                 std::uint64_t value) {
  __m512i w = _mm512_load_si512(b.w);
  if (keep != ~std::uint32_t{0}) w = _mm512_maskz_compress_epi16(keep, w);
  if (lane < 32)
    w = _mm512_mask_expand_epi16(_mm512_set1_epi16(static_cast<short>(value)), ~(std::uint32_t{1} << lane), w);
  _mm512_store_si512(b.w, w);
}
#endif

// A block's geometry: S slots, B buckets, t tag bits, x tail bits; every mask built once.
class QuotientLayout {
 public:
  QuotientLayout() = default;
  QuotientLayout(std::uint32_t slots, std::uint32_t buckets, std::uint32_t tag_bits, std::uint32_t tail_bits)
      : slots_(slots), buckets_(buckets), tag_bits_(tag_bits), tail_bits_(tail_bits) {
    runs_ = slots + buckets >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (slots + buckets)) - 1;
    first_lane_ = 32 - slots;
    const std::uint32_t at = slots + buckets, len = tail_bits * slots;
    tails_word_ = at / 64;
    tails_shift_ = at % 64;
    tails_fit_ = len <= 128;
    tails_mask_ = len >= 128 ? ~Bits128{0} : (Bits128{1} << len) - 1;
    for (std::uint32_t q = 0; q < 3; ++q)
      tails_field_[q] = tails_word_ + q < 8 ? word_range(tails_word_ + q, at, std::min(at + len, 512u)) : 0;
    tails_in_low_words_ = tails_fit_ && tails_word_ == 0 && tails_shift_ > 0;
  }

  // Whether the fields fit a block: the runs in one word, below the tails, below the heads.
  static bool fits(std::uint32_t slots, std::uint32_t buckets, std::uint32_t tag_bits, std::uint32_t tail_bits) {
    return slots >= 1 && buckets >= 1 && slots + buckets <= 64 && tag_bits < 16 && tail_bits <= 42 &&
           slots + buckets + tail_bits * slots + 16 * slots <= 512;
  }

  std::uint32_t slots() const { return slots_; }
  std::uint32_t buckets() const { return buckets_; }
  std::uint32_t tag_bits() const { return tag_bits_; }
  std::uint32_t tail_bits() const { return tail_bits_; }
  std::uint32_t remainder_bits() const { return 16 - tag_bits_ + tail_bits_; }
  std::uint64_t tag_mask() const { return (std::uint64_t{1} << tag_bits_) - 1; }

  // A key as the block sees it: its bucket, its head without the tag, its tail.
  struct Key {
    std::uint32_t bucket;
    std::uint64_t head;  // the remainder's low 16 - t bits, shifted above the tag
    std::uint64_t tail;
  };
  // From a remainder of remainder_bits() bits and 32 bits for the bucket.
  Key key(std::uint64_t remainder, std::uint32_t bucket_bits) const {
    const std::uint32_t low = 16 - tag_bits_;
    return Key{static_cast<std::uint32_t>((std::uint64_t{bucket_bits} * buckets_) >> 32),
               (remainder & ((std::uint64_t{1} << low) - 1)) << tag_bits_, remainder >> low};
  }

  std::uint64_t runs(const TaggedBlock& b) const { return b.w[0] & runs_; }
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] std::uint32_t stored(const TaggedBlock& b) const {
    return popcount64<kK>(runs(b));
  }
  // Slot i's head is lane first_lane() + i.
  std::uint32_t first_lane() const { return first_lane_; }
  // The lanes of slots [0, n), as a lane mask.
  std::uint32_t slot_lanes(std::uint32_t n) const {
    return static_cast<std::uint32_t>(((std::uint64_t{1} << n) - 1) << first_lane_);
  }
  std::uint32_t tail_pos(std::uint32_t i) const { return slots_ + buckets_ + tail_bits_ * i; }
  // A head is two bytes of the block where words are little-endian: read and written as such.
  std::uint64_t head(const TaggedBlock& b, std::uint32_t i) const {
    const std::uint32_t lane = first_lane_ + i;
    if constexpr (kLittleEndian) {
      std::uint16_t v;
      std::memcpy(&v, reinterpret_cast<const unsigned char*>(b.w) + 2 * lane, sizeof v);
      return v;
    }
    return (b.w[lane / 4] >> (16 * (lane % 4))) & 0xFFFF;
  }
  void set_head(TaggedBlock& b, std::uint32_t i, std::uint64_t value) const {
    const std::uint32_t lane = first_lane_ + i;
    if constexpr (kLittleEndian) {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(reinterpret_cast<unsigned char*>(b.w) + 2 * lane, &v, sizeof v);
      return;
    }
    const std::uint32_t shift = 16 * (lane % 4);
    b.w[lane / 4] = (b.w[lane / 4] & ~(std::uint64_t{0xFFFF} << shift)) | (value << shift);
  }
  std::uint64_t tail(const TaggedBlock& b, std::uint32_t i) const {
    if (tail_bits_ == 0) return 0;
    if (tails_fit_)
      return static_cast<std::uint64_t>(tails(b) >> (tail_bits_ * i)) & ((std::uint64_t{1} << tail_bits_) - 1);
    return get_bits(b, tail_pos(i), tail_bits_);
  }

  // The slots of bucket q: [first, first + count).
  struct Run {
    std::uint32_t first, count;
  };
  template <Kernel kK = Kernel::portable>
  Run run(const TaggedBlock& b, std::uint32_t q) const {
    const std::uint64_t ends = ~runs(b);  // a 0 of the runs closes a bucket
    const std::uint32_t end = select64<kK>(ends, q);
    // The bucket's slots are the 1s just below `end`, back to the 0 before them (or bit 0).
    const std::uint64_t below = ends & ((std::uint64_t{1} << end) - 1);
    const std::uint32_t start = below == 0 ? 0 : 64 - static_cast<std::uint32_t>(__builtin_clzll(below));
    return Run{start - q, end - start};
  }

  // Adds a slot at the end of bucket k.bucket's run; the block holds fewer than S.
  void insert(TaggedBlock& b, const Key& k, std::uint64_t tag) const { insert(b, k, tag, stored(b)); }
  // The same where n is the slots stored, after taking out the slots of `dead` (erase()) when
  // it is not 0 (and then the block may be full): the AVX-512 kernel moves the lanes for both
  // in one pass.
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] void insert(TaggedBlock& b, const Key& k, std::uint64_t tag, std::uint32_t n,
                                     std::uint32_t dead = 0) const {
    if (kK != Kernel::avx512 || !tails_fit_) {
      if (dead != 0) {
        erase<kK>(b, dead, n);
        n -= popcount64<kK>(dead);
      }
      dead = 0;
    }
    // Runs and tails are read before the lanes move and written after: the lanes' wide load
    // follows no narrow store into the block (it would wait for them to reach the cache).
    std::uint64_t r = runs(b);
    Bits128 t = tails_fit_ && tail_bits_ > 0 ? tails(b) : 0;
    if (dead != 0) {
      r = drop_runs<kK>(r, dead);
      t = drop_tails(t, dead);
    }
    const std::uint32_t end = select64<kK>(~r, k.bucket);  // the bucket's closing 0
    const std::uint32_t i = end - k.bucket;                // the slot's index: the slots before `end`
#if TLBF_HAS_AVX512_KERNEL
    if constexpr (kK == Kernel::avx512) {
      lanes_move_avx512(b, ~(dead << first_lane_), first_lane_ + i, k.head | tag);
    } else {
      lanes_insert(b, first_lane_ + i, k.head | tag);
    }
#else
    lanes_insert(b, first_lane_ + i, k.head | tag);
#endif
    const std::uint64_t below = (std::uint64_t{1} << end) - 1;
    b.w[0] = (b.w[0] & ~runs_) | (((r & below) | ((r & ~below) << 1) | (below + 1)) & runs_);
    if (tail_bits_ == 0) return;
    if (tails_fit_) {  // the tails as one number: room at i, the new tail in it
      const Bits128 before = (Bits128{1} << (tail_bits_ * i)) - 1;
      set_tails(b, (t & before) | ((t & ~before) << tail_bits_) | (Bits128{k.tail} << (tail_bits_ * i)));
      return;
    }
    if (i < n) open_gap(b, tail_pos(i), tail_pos(n), tail_bits_);
    set_bits(b, tail_pos(i), tail_bits_, k.tail);
  }
  // Takes out the slots of `dead` (bit i: slot i), of the n stored, keeping the others in order.
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] void erase(TaggedBlock& b, std::uint32_t dead, std::uint32_t n) const {
#if TLBF_HAS_AVX512_KERNEL
    if constexpr (kK == Kernel::avx512) {
      lanes_move_avx512(b, ~(dead << first_lane_), 32, 0);
    } else {
      for (std::uint32_t d = dead; d != 0; d &= ~highest(d)) lanes_erase(b, first_lane_ + index_of(highest(d)));
    }
#else
    for (std::uint32_t d = dead; d != 0; d &= ~highest(d)) lanes_erase(b, first_lane_ + index_of(highest(d)));
#endif
    b.w[0] = (b.w[0] & ~runs_) | drop_runs<kK>(runs(b), dead);
    if (tail_bits_ == 0) return;
    if (tails_fit_) {
      set_tails(b, drop_tails(tails(b), dead));
      return;
    }
    for (std::uint32_t d = dead; d != 0; d &= ~highest(d), --n)  // the highest first
      close_gap(b, tail_pos(index_of(highest(d))), tail_pos(n), tail_bits_);
  }

  // The tails of all slots as one number, slot i's at bit x i (x S <= 128).
  [[gnu::always_inline]] Bits128 tails(const TaggedBlock& b) const {
    const std::uint32_t s = tails_shift_;
    if (tails_in_low_words_) {
      const std::uint64_t lo = (b.w[0] >> s) | (b.w[1] << (64 - s)), hi = (b.w[1] >> s) | (b.w[2] << (64 - s));
      return (static_cast<Bits128>(hi) << 64 | lo) & tails_mask_;
    }
    const std::uint32_t j = tails_word_;
    const std::uint64_t w0 = b.w[j], w1 = j < 7 ? b.w[j + 1] : 0, w2 = j < 6 ? b.w[j + 2] : 0;
    const std::uint64_t lo = s == 0 ? w0 : (w0 >> s) | (w1 << (64 - s));
    const std::uint64_t hi = s == 0 ? w1 : (w1 >> s) | (w2 << (64 - s));
    return (static_cast<Bits128>(hi) << 64 | lo) & tails_mask_;
  }

  [[gnu::always_inline]] void set_tails(TaggedBlock& b, Bits128 v) const {
    const std::uint32_t s = tails_shift_;
    const auto lo = static_cast<std::uint64_t>(v), hi = static_cast<std::uint64_t>(v >> 64);
    if (tails_in_low_words_) {  // (the fields clip v to the tails' length)
      const std::uint64_t* f = tails_field_;
      b.w[0] = (b.w[0] & ~f[0]) | ((lo << s) & f[0]);
      b.w[1] = (b.w[1] & ~f[1]) | (((hi << s) | (lo >> (64 - s))) & f[1]);
      b.w[2] = (b.w[2] & ~f[2]) | ((hi >> (64 - s)) & f[2]);
      return;
    }
    v &= tails_mask_;
    const std::uint32_t j = tails_word_;
    const std::uint64_t parts[3] = {lo << s, s == 0 ? hi : (hi << s) | (lo >> (64 - s)), s == 0 ? 0 : hi >> (64 - s)};
    for (std::uint32_t q = 0; q < 3; ++q)
      if (tails_field_[q] != 0) b.w[j + q] = (b.w[j + q] & ~tails_field_[q]) | (parts[q] & tails_field_[q]);
  }

 private:
  static std::uint32_t highest(std::uint32_t x) { return std::uint32_t{1} << (31 - __builtin_clz(x)); }
  static std::uint32_t index_of(std::uint32_t bit) { return static_cast<std::uint32_t>(__builtin_ctz(bit)); }
  // The runs `r` without the 1s of the slots of `dead`.
  template <Kernel kK>
  [[gnu::always_inline]] static std::uint64_t drop_runs(std::uint64_t r, std::uint32_t dead) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (kK != Kernel::portable) return drop_bits_pext(r, select_bits_pdep(r, dead));
#endif
    for (; dead != 0; dead &= ~highest(dead)) {  // the highest first
      const std::uint64_t below = (std::uint64_t{1} << select64<kK>(r, index_of(highest(dead)))) - 1;
      r = (r & below) | ((r >> 1) & ~below);
    }
    return r;
  }
  // The tails `t` (tails()) without those of the slots of `dead`.
  Bits128 drop_tails(Bits128 t, std::uint32_t dead) const {
    for (; dead != 0; dead &= ~highest(dead)) {  // the highest first
      const Bits128 kept = (Bits128{1} << (tail_bits_ * index_of(highest(dead)))) - 1;
      t = (t & kept) | ((t >> tail_bits_) & ~kept);
    }
    return t;
  }

  std::uint32_t slots_ = 1, buckets_ = 1, tag_bits_ = 1, tail_bits_ = 0;
  std::uint64_t runs_ = 0;
  std::uint32_t first_lane_ = 31;
  // The tails region, read as one number when it is at most 128 bits (tails_fit_): from bit
  // tails_shift_ of word tails_word_, the bits of it in that word and the next two.
  std::uint32_t tails_word_ = 0, tails_shift_ = 0;
  bool tails_fit_ = true;
  bool tails_in_low_words_ = false;  // tails_fit_, from a bit inside word 0: the usual case, in fewer steps
  Bits128 tails_mask_ = 0;
  std::uint64_t tails_field_[3] = {};
};

// A block as read at one moment: the layout, the owning table's floor and the threshold for
// liveness (tagged_block.hpp's LiveView, for this format).
struct QuotientView {
  QuotientView(const QuotientLayout* l, std::uint64_t floor, std::uint64_t threshold_)
      : layout(l), floor_tag(floor), threshold(threshold_) {}

  const QuotientLayout* layout;
  std::uint64_t floor_tag;
  std::uint64_t threshold;

  bool live_tag(std::uint64_t head) const { return ((head - floor_tag) & layout->tag_mask()) >= threshold; }

  // Two lane masks of a block from one pass over it: the lanes whose remainder bits are
  // `head`'s, and the lanes whose tag is live. Lanes that are no head are in them too.
  using Lanes = LaneMasks;
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] Lanes lanes(const TaggedBlock& b, std::uint64_t head) const {
    const std::uint64_t tags = layout->tag_mask();
#if TLBF_HAS_AVX512_KERNEL
    if constexpr (kK == Kernel::avx512) return lanes_avx512(b, head, tags, floor_tag, threshold);
#endif
#if defined(__SSE2__)
    const __m128i remainders = _mm_set1_epi16(static_cast<short>(0xFFFF & ~tags));
    const __m128i want = _mm_set1_epi16(static_cast<short>(head));
    const __m128i tag = _mm_set1_epi16(static_cast<short>(tags));
    const __m128i floor = _mm_set1_epi16(static_cast<short>(floor_tag));
    const __m128i below = _mm_set1_epi16(static_cast<short>(threshold) - 1);  // rel > below: rel >= threshold
    const auto* v = reinterpret_cast<const __m128i*>(b.w);
    const auto match = [&](const __m128i w) { return _mm_cmpeq_epi16(_mm_and_si128(w, remainders), want); };
    // The tag's distance above the floor: the low t bits of the lane minus the floor.
    const auto young = [&](const __m128i w) {
      return _mm_cmpgt_epi16(_mm_and_si128(_mm_sub_epi16(w, floor), tag), below);
    };
    // Packed to a byte a lane (0 and -1 stay so), then a bit a lane.
    const auto bits = [](const __m128i a, const __m128i c) {
      return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(a, c)));
    };
    const __m128i v0 = _mm_load_si128(v), v1 = _mm_load_si128(v + 1), v2 = _mm_load_si128(v + 2),
                  v3 = _mm_load_si128(v + 3);
    return Lanes{bits(match(v0), match(v1)) | bits(match(v2), match(v3)) << 16,
                 bits(young(v0), young(v1)) | bits(young(v2), young(v3)) << 16};
#else
    constexpr std::uint64_t ones = 0x0001000100010001;
    const std::uint64_t remainders = (0xFFFF & ~tags) * ones, want = head * ones;
    const std::uint64_t guard = (tags + 1) * ones, high = 0x8000 * ones;
    Lanes out{0, 0};
    for (std::uint32_t j = 0; j < 8; ++j) {
      // The SWAR zero-field test: a borrow leaves a lane only out of a zero field, so a false
      // mark sits above a true one; confirm() reads the slot.
      const std::uint64_t z = (b.w[j] ^ want) & remainders;
      const std::uint64_t zero = ((z - guard) & ~z & high) >> 15;  // bits 0, 16, 32, 48
      const std::uint64_t rel = (((b.w[j] & tags * ones) | guard) - floor_tag * ones) & tags * ones;
      const std::uint64_t live = (((rel | guard) - threshold * ones) & guard) >> layout->tag_bits();
      out.match |= gather4(zero) << (4 * j);
      out.young |= gather4(live) << (4 * j);
    }
    return out;
#endif
  }
#if !defined(__SSE2__)
  // Bits 0, 16, 32 and 48 as bits 0 to 3.
  static std::uint32_t gather4(std::uint64_t x) {
    return static_cast<std::uint32_t>((x * 0x0001000200040008) >> 48) & 0xF;
  }
#endif

  // What a query and an insert need of one block, from one pass over its words.
  struct Probe {
    int found = -1;          // a live slot of the key's bucket holding its remainder, or -1
    std::uint32_t live = 0;  // live slots
    std::uint32_t stored = 0;
    std::uint32_t dead = 0;  // bit i: slot i is stored and not live
  };
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] Probe probe(const TaggedBlock& b, const QuotientLayout::Key& k) const {
    const QuotientLayout& l = *layout;
    Probe p;
    p.stored = l.stored<kK>(b);
    const std::uint32_t slots = l.slot_lanes(p.stored);
    const Lanes m = lanes<kK>(b, k.head);
    p.live = popcount64<kK>(m.young & slots);
    p.dead = (~m.young & slots) >> l.first_lane();
    p.found = confirm<kK>(b, k, m.match & slots);
    return p;
  }
  // Index of the live slot of bucket k.bucket holding the key's remainder, or -1.
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] int find(const TaggedBlock& b, const QuotientLayout::Key& k) const {
    return confirm<kK>(b, k, lanes<kK>(b, k.head).match & layout->slot_lanes(layout->stored<kK>(b)));
  }
  // The slot of the key's bucket among the lanes of `marks` (slots whose remainder bits in the
  // head match) that is live and holds the whole remainder, or -1. Nearly every absent key has
  // no mark.
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] int confirm(const TaggedBlock& b, const QuotientLayout::Key& k, std::uint32_t marks) const {
    return marks == 0 ? -1 : read_marked<kK>(b, k, marks);
  }
  template <Kernel kK>
  int read_marked(const TaggedBlock& b, const QuotientLayout::Key& k, std::uint32_t marks) const {
    const QuotientLayout& l = *layout;
    const QuotientLayout::Run run = l.run<kK>(b, k.bucket);
    std::uint64_t candidates =
        (std::uint64_t{marks} >> (l.first_lane() + run.first)) & ((std::uint64_t{1} << run.count) - 1);
    for (; candidates != 0; candidates &= candidates - 1) {
      const auto i = run.first + static_cast<std::uint32_t>(__builtin_ctzll(candidates));
      if (live_tag(l.head(b, i)) && l.tail(b, i) == k.tail) return static_cast<int>(i);
    }
    return -1;
  }

  // Live slots of a block.
  std::uint32_t live(const TaggedBlock& b) const {
    return popcount64(lanes(b, 0).young & layout->slot_lanes(layout->stored(b)));
  }
  // Drops the slots that are not live, keeping the others in order; returns how many went.
  template <Kernel kK = Kernel::portable>
  [[gnu::always_inline]] std::uint32_t purge(TaggedBlock& b) const {
    const QuotientLayout& l = *layout;
    const std::uint32_t n = l.stored<kK>(b);
    const std::uint32_t dead = (~lanes<kK>(b, 0).young & l.slot_lanes(n)) >> l.first_lane();
    if (dead != 0) l.erase<kK>(b, dead, n);
    return popcount64<kK>(dead);
  }
};

}  // namespace tlbf::detail
