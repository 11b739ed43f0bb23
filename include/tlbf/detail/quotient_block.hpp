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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tlbf/detail/endian.hpp"
#include "tlbf/detail/tagged_block.hpp"

namespace tlbf::detail {

inline std::uint32_t popcount64(std::uint64_t x) {
#if defined(__POPCNT__)
  return static_cast<std::uint32_t>(__builtin_popcountll(x));
#else
  x -= (x >> 1) & 0x5555555555555555;
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F;
  return static_cast<std::uint32_t>((x * 0x0101010101010101) >> 56);
#endif
}

// Where the k-th set bit of a byte is, for every byte and k < 8 (8 when it has fewer).
inline constexpr std::array<std::uint8_t, 2048> kSelectInByte = [] {
  std::array<std::uint8_t, 2048> t{};
  for (std::uint32_t k = 0; k < 8; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t seen = 0, at = 8;
      for (std::uint32_t i = 0; i < 8; ++i)
        if ((b >> i & 1) && seen++ == k) {
          at = i;
          break;
        }
      t[k * 256 + b] = static_cast<std::uint8_t>(at);
    }
  }
  return t;
}();

// The position of the k-th (from 0) set bit of x, which has more than k (broadword select:
// Vigna, "Broadword implementation of rank/select queries", 2008).
inline std::uint32_t select64(std::uint64_t x, std::uint32_t k) {
#if defined(__BMI2__)
  return static_cast<std::uint32_t>(__builtin_ctzll(__builtin_ia32_pdep_di(std::uint64_t{1} << k, x)));
#else
  constexpr std::uint64_t kOnes8 = 0x0101010101010101, kHigh8 = 0x8080808080808080;
  std::uint64_t s = x - ((x >> 1) & 0x5555555555555555);
  s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333);
  s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0F) * kOnes8;  // byte j: set bits in bytes 0..j
  // Byte j's top bit: its running count passed k (counts are below 128, so no borrow).
  const std::uint64_t past = ((s | kHigh8) - kOnes8 * (k + 1)) & kHigh8;
  const auto place = static_cast<std::uint32_t>(__builtin_ctzll(past)) - 7;
  const auto before = static_cast<std::uint32_t>(((s << 8) >> place) & 0xFF);
  return place + kSelectInByte[(k - before) * 256 + ((x >> place) & 0xFF)];
#endif
}

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

// Moves every bit at or above `from` up by 16 (the top 16 bits go); [from, from + 16) is left
// with what was below it. Only the words from `from` on are touched.
inline void lanes_up(TaggedBlock& b, std::uint32_t from) {
  const std::uint32_t first = from / 64;
  const std::uint64_t keep = (std::uint64_t{1} << (from % 64)) - 1, w = b.w[first];
  std::uint64_t carry = w >> 48;
  b.w[first] = (w & keep) | ((w << 16) & ~keep);
  for (std::uint32_t j = first + 1; j < 8; ++j) {
    const std::uint64_t next = b.w[j];
    b.w[j] = (next << 16) | carry;
    carry = next >> 48;
  }
}
// A block's geometry: S slots, B buckets, t tag bits, x tail bits; every mask built once.
class QuotientLayout {
 public:
  QuotientLayout() = default;
  QuotientLayout(std::uint32_t slots, std::uint32_t buckets, std::uint32_t tag_bits, std::uint32_t tail_bits)
      : slots_(slots), buckets_(buckets), tag_bits_(tag_bits), tail_bits_(tail_bits) {
    runs_ = slots + buckets >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (slots + buckets)) - 1;
    heads_ = 512 - 16 * slots;
    first_word_ = heads_ / 64;
    for (std::uint32_t j = 0; j < 8; ++j) lanes_[j] = word_range(j, heads_, 512);
    const std::uint32_t at = slots + buckets, len = tail_bits * slots;
    tails_word_ = at / 64;
    tails_shift_ = at % 64;
    tails_mask_ = len >= 128 ? ~Bits128{0} : (Bits128{1} << len) - 1;
    for (std::uint32_t q = 0; q < 3; ++q)
      tails_field_[q] = tails_word_ + q < 8 ? word_range(tails_word_ + q, at, std::min(at + len, 512u)) : 0;
    constexpr std::uint64_t ones16 = 0x0001000100010001;
    ones_ = ones16;
    tags_ = ((std::uint64_t{1} << tag_bits) - 1) * ones16;
    guard_ = (std::uint64_t{1} << tag_bits) * ones16;
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
  std::uint32_t stored(const TaggedBlock& b) const { return popcount64(runs(b)); }
  std::uint32_t head_pos(std::uint32_t i) const { return heads_ + 16 * i; }
  std::uint32_t tail_pos(std::uint32_t i) const { return slots_ + buckets_ + tail_bits_ * i; }
  // A head is two bytes of the block where words are little-endian: read and written as such
  // (a word read right after narrower stores would wait for them).
  std::uint64_t head(const TaggedBlock& b, std::uint32_t i) const {
    const std::uint32_t p = head_pos(i);
    if constexpr (kLittleEndian) {
      std::uint16_t v;
      std::memcpy(&v, reinterpret_cast<const unsigned char*>(b.w) + p / 8, sizeof v);
      return v;
    }
    return (b.w[p / 64] >> (p % 64)) & 0xFFFF;
  }
  void set_head(TaggedBlock& b, std::uint32_t i, std::uint64_t value) const {
    const std::uint32_t p = head_pos(i);
    if constexpr (kLittleEndian) {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(reinterpret_cast<unsigned char*>(b.w) + p / 8, &v, sizeof v);
      return;
    }
    b.w[p / 64] = (b.w[p / 64] & ~(std::uint64_t{0xFFFF} << (p % 64))) | (value << (p % 64));
  }
  std::uint64_t tail(const TaggedBlock& b, std::uint32_t i) const {
    return tail_bits_ == 0 ? 0 : get_bits(b, tail_pos(i), tail_bits_);
  }

  // The slots of bucket q: [first, first + count).
  struct Run {
    std::uint32_t first, count;
  };
  Run run(const TaggedBlock& b, std::uint32_t q) const {
    const std::uint64_t ends = ~runs(b);  // a 0 of the runs closes a bucket
    const std::uint32_t end = select64(ends, q);
    // The bucket's slots are the 1s just below `end`, back to the 0 before them (or bit 0).
    const std::uint64_t below = ends & ((std::uint64_t{1} << end) - 1);
    const std::uint32_t start = below == 0 ? 0 : 64 - static_cast<std::uint32_t>(__builtin_clzll(below));
    return Run{start - q, end - start};
  }

  // Adds a slot at the end of bucket k.bucket's run; the block holds fewer than S.
  void insert(TaggedBlock& b, const Key& k, std::uint64_t tag) const {
    insert(b, k, tag, select64(~runs(b), k.bucket), stored(b));
  }
  // The same where `end` is the bucket's closing 0 in the runs and n the slots stored.
  void insert(TaggedBlock& b, const Key& k, std::uint64_t tag, std::uint32_t end, std::uint32_t n) const {
    const std::uint32_t i = end - k.bucket;  // the slot's index: the slots before `end`
    const std::uint64_t r = runs(b), below = (std::uint64_t{1} << end) - 1;
    b.w[0] = (b.w[0] & ~runs_) | (((r & below) | ((r & ~below) << 1) | (std::uint64_t{1} << end)) & runs_);
    if (i < n) lanes_up(b, head_pos(i));
    set_head(b, i, k.head | tag);
    if (tail_bits_ == 0) return;
    if (tail_bits_ * slots_ <= 128) {  // the tails as one number: room at i, the new tail in it
      const std::uint32_t cut = tail_bits_ * i;
      const Bits128 t = tails(b), before = (Bits128{1} << cut) - 1;
      set_tails(b, ((t & before) | ((t & ~before) << tail_bits_) | (Bits128{k.tail} << cut)) & tails_mask_);
      return;
    }
    if (i < n) open_gap(b, tail_pos(i), tail_pos(n), tail_bits_);
    set_bits(b, tail_pos(i), tail_bits_, k.tail);
  }

  // The tails of all slots as one number, slot i's at bit x i (x S <= 128).
  Bits128 tails(const TaggedBlock& b) const {
    const std::uint32_t j = tails_word_, s = tails_shift_;
    const std::uint64_t w0 = b.w[j], w1 = j < 7 ? b.w[j + 1] : 0, w2 = j < 6 ? b.w[j + 2] : 0;
    const std::uint64_t lo = s == 0 ? w0 : (w0 >> s) | (w1 << (64 - s));
    const std::uint64_t hi = s == 0 ? w1 : (w1 >> s) | (w2 << (64 - s));
    return (static_cast<Bits128>(hi) << 64 | lo) & tails_mask_;
  }
  void set_tails(TaggedBlock& b, Bits128 v) const {
    const std::uint32_t j = tails_word_, s = tails_shift_;
    const auto lo = static_cast<std::uint64_t>(v), hi = static_cast<std::uint64_t>(v >> 64);
    const std::uint64_t parts[3] = {lo << s, s == 0 ? hi : (hi << s) | (lo >> (64 - s)), s == 0 ? 0 : hi >> (64 - s)};
    for (std::uint32_t q = 0; q < 3; ++q)
      if (tails_field_[q] != 0) b.w[j + q] = (b.w[j + q] & ~tails_field_[q]) | (parts[q] & tails_field_[q]);
  }

  std::uint32_t first_word() const { return first_word_; }
  std::uint64_t lanes(std::uint32_t j) const { return lanes_[j]; }  // the head lanes' bits of word j
  // The head lanes' bytes of the block, a bit each (as a byte mask over the 64 bytes).
  std::uint64_t head_bytes() const { return ~std::uint64_t{0} << (heads_ / 8); }
  std::uint64_t ones() const { return ones_; }
  std::uint64_t tags() const { return tags_; }
  std::uint64_t guard() const { return guard_; }
  std::uint64_t remainders() const { return 0xFFFF * ones_ & ~tags_; }  // each lane's remainder bits
  std::uint64_t high() const { return 0x8000 * ones_; }                 // each lane's top bit
  std::uint32_t heads() const { return heads_; }

 private:
  std::uint32_t slots_ = 1, buckets_ = 1, tag_bits_ = 1, tail_bits_ = 0;
  std::uint64_t runs_ = 0;
  std::uint32_t heads_ = 496, first_word_ = 7;
  std::uint64_t lanes_[8] = {};  // the head lanes' bits of each word
  // The tails region, read as one number when it is at most 128 bits: from bit tails_shift_
  // of word tails_word_, the bits of it in that word and the next two.
  std::uint32_t tails_word_ = 0, tails_shift_ = 0;
  Bits128 tails_mask_ = 0;
  std::uint64_t tails_field_[3] = {};
  std::uint64_t ones_ = 0, tags_ = 0, guard_ = 0;  // per 16-bit lane: bit 0, the tag, bit t
};

// A block as read at one moment: the layout, the owning table's floor and the threshold for
// liveness (tagged_block.hpp's LiveView, for this format).
struct QuotientView {
  QuotientView(const QuotientLayout* l, std::uint64_t floor, std::uint64_t threshold_)
      : layout(l),
        floor_tag(floor),
        threshold(threshold_),
        spread_floor(floor * l->ones()),
        spread_threshold(threshold_ * l->ones()),
        empty_live(live_tag(0)) {}

  const QuotientLayout* layout;
  std::uint64_t floor_tag;
  std::uint64_t threshold;
  std::uint64_t spread_floor, spread_threshold;
  bool empty_live;  // whether a lane of no slot (all 0) reads as live

  bool live_tag(std::uint64_t head) const { return ((head - floor_tag) & layout->tag_mask()) >= threshold; }

  // What a query and an insert need of one block, from one pass over its words.
  struct Probe {
    int found = -1;          // a live slot of the key's bucket holding its remainder, or -1
    std::uint32_t live = 0;  // live slots
    std::uint32_t stored = 0;
  };
  Probe probe(const TaggedBlock& b, const QuotientLayout::Key& k) const {
    const QuotientLayout& l = *layout;
    Probe p;
    p.stored = l.stored(b);
    std::uint32_t all = 0;  // live lanes, those of no slot too
    std::uint64_t marks = 0;
#if defined(__SSE2__)
    // The 32 lanes of the block, eight a vector; a byte mask has two bits a lane.
    const __m128i remainders = _mm_set1_epi16(static_cast<short>(0xFFFF & ~l.tag_mask()));
    const __m128i head = _mm_set1_epi16(static_cast<short>(k.head));
    const __m128i tags = _mm_set1_epi16(static_cast<short>(l.tag_mask()));
    const __m128i floor = _mm_set1_epi16(static_cast<short>(floor_tag));
    const __m128i below = _mm_set1_epi16(static_cast<short>(threshold) - 1);  // rel > below: rel >= threshold
    std::uint64_t young = 0;
    for (std::uint32_t q = 0; q < 4; ++q) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(b.w) + q);
      const __m128i eq = _mm_cmpeq_epi16(_mm_and_si128(v, remainders), head);
      const __m128i rel = _mm_and_si128(_mm_sub_epi16(_mm_and_si128(v, tags), floor), tags);
      marks |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))) << (16 * q);
      young |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(rel, below))))
               << (16 * q);
    }
    all = popcount64(young & l.head_bytes() & 0x5555555555555555);
#else
    std::uint64_t sum = 0;  // each lane's live count in its low bits: at most 8 a lane
    for (std::uint32_t j = 0; j < 8; ++j) {
      sum += (young(b, j) & l.lanes(j)) >> l.tag_bits();
      marks |= spread_lanes(match_lanes(b.w[j], k.head)) << (8 * j);
    }
    all = static_cast<std::uint32_t>((sum * l.ones()) >> 48);
#endif
    p.live = empty_live ? all - (l.slots() - p.stored) : all;
    p.found = confirm(b, k, marks);
    return p;
  }
  // Index of the live slot of bucket k.bucket holding the key's remainder, or -1.
  int find(const TaggedBlock& b, const QuotientLayout::Key& k) const {
    std::uint64_t marks = 0;
#if defined(__SSE2__)
    const __m128i remainders = _mm_set1_epi16(static_cast<short>(0xFFFF & ~layout->tag_mask()));
    const __m128i head = _mm_set1_epi16(static_cast<short>(k.head));
    for (std::uint32_t q = 0; q < 4; ++q) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(b.w) + q);
      const __m128i eq = _mm_cmpeq_epi16(_mm_and_si128(v, remainders), head);
      marks |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))) << (16 * q);
    }
#else
    for (std::uint32_t j = 0; j < 8; ++j) marks |= spread_lanes(match_lanes(b.w[j], k.head)) << (8 * j);
#endif
    return confirm(b, k, marks);
  }
  // Four lane bits as bits 0, 2, 4, 6: two bits a lane, as a byte mask has them.
  static std::uint64_t spread_lanes(std::uint32_t four) {
    return (four & 1) | (four & 2) << 1 | (four & 4) << 2 | (four & 8) << 3;
  }
  // A bit for each lane of word w (of the block's 32) that may hold the remainder bits of
  // `head`, never missing one that does (the SWAR zero-field test: a borrow leaves a lane only
  // out of a zero field, so a false mark sits above a true one; confirm() reads the slot).
  std::uint32_t match_lanes(std::uint64_t w, std::uint64_t head) const {
    const QuotientLayout& l = *layout;
    const std::uint64_t z = (w ^ head * l.ones()) & l.remainders();
    const std::uint64_t marks = ((z - l.guard()) & ~z & l.high()) >> 15;  // bits 0, 16, 32, 48
    return static_cast<std::uint32_t>((marks * 0x0001000200040008) >> 48) & 0xF;
  }
  // The slot of the key's bucket among the marked lanes (bit 2L for lane L) that is live and
  // holds the whole remainder, or -1. Nearly every absent key has no mark among the heads.
  int confirm(const TaggedBlock& b, const QuotientLayout::Key& k, std::uint64_t marks) const {
    const QuotientLayout& l = *layout;
    if ((marks & l.head_bytes()) == 0) return -1;
    const QuotientLayout::Run run = l.run(b, k.bucket);
    const std::uint32_t from = 2 * (l.heads() / 16 + run.first);  // 64 for a bucket past the last slot
    std::uint64_t candidates =
        from >= 64 ? 0 : (marks >> from) & ((std::uint64_t{1} << (2 * run.count)) - 1) & 0x5555555555555555;
    const std::uint64_t mask = ~l.tag_mask() & 0xFFFF;
    for (; candidates != 0; candidates &= candidates - 1) {
      const auto i = run.first + static_cast<std::uint32_t>(__builtin_ctzll(candidates)) / 2;
      const std::uint64_t h = l.head(b, i);
      if ((h & mask) == k.head && live_tag(h) && l.tail(b, i) == k.tail) return static_cast<int>(i);
    }
    return -1;
  }

  // Live slots of a block: the head lanes' tags compared four a word, the lanes of slots
  // below n = stored() only (bits [heads, heads + 16 n) of the block).
  // Every lane is counted, then the lanes of no slot (all 0) taken back if 0 reads as live.
  std::uint32_t live(const TaggedBlock& b) const {
    const QuotientLayout& l = *layout;
    std::uint64_t sum = 0;  // each lane's count in its low bits: at most 8 a lane
    for (std::uint32_t j = 0; j < 8; ++j) sum += (young(b, j) & l.lanes(j)) >> l.tag_bits();
    const auto all = static_cast<std::uint32_t>((sum * l.ones()) >> 48);
    return empty_live ? all - (l.slots() - l.stored(b)) : all;
  }
  // Bit t of each head lane of word j whose tag is live (lanes of no slot too).
  std::uint64_t young(const TaggedBlock& b, std::uint32_t j) const {
    const QuotientLayout& l = *layout;
    const std::uint64_t rel = (((b.w[j] & l.tags()) | l.guard()) - spread_floor) & l.tags();
    return ((rel | l.guard()) - spread_threshold) & l.guard();
  }
  // Drops the slots that are not live, keeping the others in order; returns how many went.
  std::uint32_t purge(TaggedBlock& b) const {
    const QuotientLayout& l = *layout;
    const std::uint64_t runs = l.runs(b);
    const std::uint32_t n = popcount64(runs);
    const std::uint32_t x = l.tail_bits(), first_lane = l.heads() / 16;
    const std::uint64_t kept_slots = live_slots(b, n);  // bit i: slot i is kept
    // The run bits of the kept slots, each moved down past the dropped slots before it.
    std::uint64_t new_runs = 0;
    std::uint32_t i = 0, dropped = 0;
    for (std::uint64_t m = runs; m != 0; m &= m - 1, ++i) {
      const std::uint64_t keep = kept_slots >> i & 1;
      new_runs |= keep << (static_cast<std::uint32_t>(__builtin_ctzll(m)) - dropped);
      dropped += static_cast<std::uint32_t>(1 - keep);
    }
    // The kept heads, four a word (whole-word stores only: a word read back from narrower
    // stores would wait for them), and their tails, from the region's first bit.
    std::uint64_t heads[8] = {}, word = 0, tails[3] = {};
    const bool tails_fit = x * l.slots() <= 128;
    TaggedBlock kept;  // all zero; the tails go here when they do not fit in `tails`
    std::uint32_t k = 0;
    for (std::uint64_t m = kept_slots; m != 0; m &= m - 1, ++k) {
      const auto slot = static_cast<std::uint32_t>(__builtin_ctzll(m));
      const std::uint32_t lane = first_lane + k;
      word = (lane % 4 == 0 ? 0 : word) | l.head(b, slot) << (16 * (lane % 4));
      heads[lane / 4] = word;
      if (x == 0) continue;
      const std::uint64_t t = l.tail(b, slot);
      if (tails_fit) {
        const std::uint32_t at = x * k;
        tails[at / 64] |= t << (at % 64);
        tails[at / 64 + 1] |= (t >> 1) >> (63 - at % 64);  // the part past the word, if any
      } else {
        set_bits(kept, l.tail_pos(k), x, t);
      }
    }
    for (std::uint32_t j = 0; j < 8; ++j) kept.w[j] |= heads[j] & l.lanes(j);
    kept.w[0] |= new_runs;
    if (x > 0 && tails_fit) l.set_tails(kept, static_cast<Bits128>(tails[1]) << 64 | tails[0]);
    b = kept;
    return n - k;
  }
  // A bit for each of the n stored slots that is live.
  std::uint64_t live_slots(const TaggedBlock& b, std::uint32_t n) const {
    const QuotientLayout& l = *layout;
    std::uint64_t lanes = 0;  // bit L: lane L of the block (of 32) is live
#if defined(__SSE2__)
    const __m128i tags = _mm_set1_epi16(static_cast<short>(l.tag_mask()));
    const __m128i floor = _mm_set1_epi16(static_cast<short>(floor_tag));
    const __m128i below = _mm_set1_epi16(static_cast<short>(threshold) - 1);
    std::uint64_t young = 0;  // two bits a lane
    for (std::uint32_t q = 0; q < 4; ++q) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(b.w) + q);
      const __m128i rel = _mm_and_si128(_mm_sub_epi16(_mm_and_si128(v, tags), floor), tags);
      young |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(rel, below))))
               << (16 * q);
    }
    // Every other bit, gathered: bit 2L to bit L.
    young &= 0x5555555555555555;
    young = (young | young >> 1) & 0x3333333333333333;
    young = (young | young >> 2) & 0x0F0F0F0F0F0F0F0F;
    young = (young | young >> 4) & 0x00FF00FF00FF00FF;
    young = (young | young >> 8) & 0x0000FFFF0000FFFF;
    lanes = (young | young >> 16) & 0xFFFFFFFF;
#else
    for (std::uint32_t i = 0; i < n; ++i) lanes |= std::uint64_t{live_tag(l.head(b, i))} << (l.heads() / 16 + i);
#endif
    return (lanes >> (l.heads() / 16)) & ((std::uint64_t{1} << n) - 1);
  }
};

}  // namespace tlbf::detail
