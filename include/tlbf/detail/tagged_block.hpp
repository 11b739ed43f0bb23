// SPDX-License-Identifier: MIT
// The tagged filter's 64-byte block in format 1 (tagged.hpp), which states saved before format 2
// hold: eight words, each packing `per_word` slots of `width` = floor(64 / per_word) bits, so no
// slot straddles a word and a word is compared with all its slots at once. Such tables only
// answer queries until they drain, so only the reading side is here.
//
// A slot is (remainder << tag_bits) | tag. A stored remainder is never 0 (remainder_of()
// maps 0 to 1), so the all-zero slot is the empty one and no query remainder matches it. The
// tag is an epoch number modulo 2^tag_bits; the table that owns the block keeps `floor`, an
// epoch no slot is older than, with every slot's epoch in [floor, floor + 2^tag_bits), so a
// tag decodes to its epoch as floor + ((tag - floor) mod 2^tag_bits). A slot is live when its
// epoch is at least the caller's lowest live epoch `lo`; in decoded form rel >= threshold,
// threshold = lo - floor clamped to [0, 2^tag_bits] (0: every stored slot is live, 2^tag_bits:
// none is). Every function here reads one block through its LiveView.
#pragma once

#include <cstdint>
#include <cstring>

namespace tlbf::detail {

struct alignas(64) TaggedBlock {
  std::uint64_t w[8] = {};
};
static_assert(sizeof(TaggedBlock) == 64, "a block is one cache line");

// Two words of a block side by side, for the word-wide operations below to take two words an
// instruction (GCC and Clang vector extensions: SSE2 on x86-64, NEON on ARM).
using Words2 = std::uint64_t __attribute__((vector_size(16)));
inline Words2 words2(const TaggedBlock& b, std::uint32_t i) {
  Words2 v;
  std::memcpy(&v, &b.w[i], sizeof v);
  return v;
}

// Where the fields of a slot sit, for one slot width; every mask is built once.
class TaggedLayout {
 public:
  TaggedLayout() = default;
  TaggedLayout(std::uint32_t per_word, std::uint32_t tag_bits)
      : per_word_(per_word), width_(64 / per_word), tag_bits_(tag_bits) {
    field_ = width_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width_) - 1;
    tag_mask_ = (std::uint64_t{1} << tag_bits_) - 1;
    for (std::uint32_t j = 0; j < per_word_; ++j) {
      ones_ |= std::uint64_t{1} << (j * width_);
      low_ |= std::uint64_t{1} << (j * width_ + tag_bits_);
      high_ |= std::uint64_t{1} << (j * width_ + width_ - 1);
      remainders_ |= (field_ & ~tag_mask_) << (j * width_);
    }
  }

  std::uint32_t per_word() const { return per_word_; }
  std::uint32_t width() const { return width_; }
  std::uint32_t tag_bits() const { return tag_bits_; }
  std::uint32_t remainder_bits() const { return width_ - tag_bits_; }
  std::uint32_t slots() const { return 8 * per_word_; }
  std::uint64_t tag_mask() const { return tag_mask_; }
  std::uint64_t ones() const { return ones_; }

  // The remainder of a key from 64 bits of its hash: never 0 (0 marks an empty slot).
  std::uint64_t remainder_of(std::uint64_t bits) const {
    const std::uint64_t r = bits & (field_ >> tag_bits_);
    return r == 0 ? 1 : r;
  }
  // A word with `remainder` in the remainder bits of every slot, for comparing a whole word.
  std::uint64_t spread(std::uint64_t remainder) const { return (remainder << tag_bits_) * ones_; }
  // The slot whose top bit is bit `top` of `word` (as match_marks() marks it).
  std::uint64_t field_below(std::uint64_t word, std::uint32_t top) const {
    return (word >> (top + 1 - width_)) & field_;
  }
  std::uint64_t slot(const TaggedBlock& b, std::uint32_t i) const {
    return (b.w[i / per_word_] >> (i % per_word_ * width_)) & field_;
  }
  void set_slot(TaggedBlock& b, std::uint32_t i, std::uint64_t value) const {
    const std::uint32_t shift = i % per_word_ * width_;
    b.w[i / per_word_] = (b.w[i / per_word_] & ~(field_ << shift)) | (value << shift);
  }
  std::uint64_t make_slot(std::uint64_t remainder, std::int64_t epoch) const {
    return (remainder << tag_bits_) | (static_cast<std::uint64_t>(epoch) & tag_mask_);
  }

  // Marks the top bit of each slot of `word` that may hold `spread_remainder`'s remainder:
  // never misses one that does (the SWAR zero-field test: a borrow leaves a field only out of a
  // zero field, so the lowest zero field is always marked; a higher mark may be false, and is
  // checked slot by slot).
  template <class W>
  W match_marks(W word, std::uint64_t spread_remainder) const {
    const W z = (word ^ spread_remainder) & remainders_;
    return (z - low_) & ~z & high_;
  }

 private:
  std::uint32_t per_word_ = 1;
  std::uint32_t width_ = 64;
  std::uint32_t tag_bits_ = 1;
  std::uint64_t field_ = 0;
  std::uint64_t tag_mask_ = 0;
  std::uint64_t ones_ = 0;        // the lowest bit of each slot
  std::uint64_t low_ = 0;         // the lowest remainder bit of each slot
  std::uint64_t high_ = 0;        // the top bit of each slot
  std::uint64_t remainders_ = 0;  // the remainder bits of every slot
};

// A block as read at one moment: its layout, the owning table's floor, and the threshold
// that decides which slots are live (see the file's opening paragraph).
struct LiveView {
  LiveView(const TaggedLayout* l, std::uint64_t floor, std::uint64_t threshold_)
      : layout(l), floor_tag(floor), threshold(threshold_) {}

  const TaggedLayout* layout;
  std::uint64_t floor_tag;  // floor mod 2^tag_bits
  std::uint64_t threshold;  // lo - floor, clamped to [0, 2^tag_bits]

  bool live(std::uint64_t slot) const {
    if ((slot >> layout->tag_bits()) == 0) return false;  // empty
    return ((slot - floor_tag) & layout->tag_mask()) >= threshold;
  }

  // Index of the first live slot holding `remainder`, or -1: only the slots match_marks()
  // marks are read (it marks every slot that holds it, and a few more).
  int find(const TaggedBlock& b, std::uint64_t remainder, std::uint64_t spread_remainder) const {
    const TaggedLayout& l = *layout;
    for (std::uint32_t i = 0; i < 8; ++i) {
      for (std::uint64_t m = l.match_marks(b.w[i], spread_remainder); m != 0; m &= m - 1) {
        const auto top = static_cast<std::uint32_t>(__builtin_ctzll(m));
        const std::uint64_t v = l.field_below(b.w[i], top);
        if ((v >> l.tag_bits()) == remainder && live(v)) return static_cast<int>(i * l.per_word() + top / l.width());
      }
    }
    return -1;
  }

  // Whether a live slot of block a or b holds the remainder: both blocks' words are compared
  // at once first, without branches (nearly every query of a new key ends there).
  bool either_holds(const TaggedBlock& a, const TaggedBlock& b, std::uint64_t remainder,
                    std::uint64_t spread_remainder) const {
    Words2 any = {0, 0};
    for (std::uint32_t i = 0; i < 8; i += 2)
      any |= layout->match_marks(words2(a, i), spread_remainder) | layout->match_marks(words2(b, i), spread_remainder);
    if ((any[0] | any[1]) == 0) return false;
    return holds(a, remainder, spread_remainder) || holds(b, remainder, spread_remainder);
  }
  bool holds(const TaggedBlock& b, std::uint64_t remainder, std::uint64_t spread_remainder) const {
    return find(b, remainder, spread_remainder) >= 0;
  }
};

}  // namespace tlbf::detail
