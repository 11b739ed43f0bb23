// Age-partitioned Bloom filter over a count window (Shtul, Baquero, Almeida 2020; summarised
// in Rodrigues et al. 2023, §5): remembers at least the last `window_count` inserts.
//
// Structure: k + l slices of m bits each, kept as one contiguous word array used as a ring
// (`head_` is the physical slice at position 0, the newest). Slice at physical index j uses
// probe hash j (probe_hash(h, j), k + l distinct hashes as in the APBF paper), so a slice
// keeps its hash as it ages.
//
// Insert sets one bit in each of positions 0..k-1. After a generation of g = floor(m ln2 / k)
// inserts, the next insert first shifts: the oldest slice (position k + l - 1) is cleared
// in full and becomes position 0. Query is the jump-back scan (detail::jump_back_query):
// present iff some k consecutive slices all hold the key's bit.
//
// Window guarantee (the invariant the sizing keeps): a key leaves the filter only at the
// (l + 1)-th shift after its own generation, and at least l generations of g inserts follow
// it before that shift, so a key is reported while it is among the last l*g + 1 inserts.
// The constructor picks g = ceil(window_count / l), hence l*g >= window_count, and
// m = ceil(g k / ln 2) rounded up to whole words (which can only raise g).
//
// Saved form (after the tag byte): u32 k, u32 l, u64 window_count, u64 slice bits m,
// u64 inserts in the current generation, u32 head, u64 keys inserted, word array.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/params.hpp"
#include "tlbf/slice_view.hpp"

namespace tlbf {

class AgePartitionedFilter final : public WindowFilter {
 public:
  explicit AgePartitionedFilter(const FilterConfig& cfg) {
    if (cfg.window_count == 0) throw invalid_parameter("window_count", "0", "must be > 0 for apbf");
    const SliceLayout layout = detail::resolve_layout(cfg);
    k_ = layout.k;
    l_ = layout.l;
    window_ = cfg.window_count;
    const std::uint64_t max_bits = detail::memory_cap_bits(cfg);
    const std::uint64_t slice_cap = max_bits / (k_ + l_) / 64 * 64;
    const std::uint64_t gen = window_ / l_ + (window_ % l_ != 0);
    const std::uint64_t bits = detail::slice_bits_for(static_cast<double>(gen) * k_, 64, slice_cap + 64);
    if (slice_cap < 64 || bits > slice_cap)
      throw invalid_parameter("max_memory_bytes", parameter_value(cfg.max_memory_bytes),
                              "is too small for an apbf of window_count " + std::to_string(window_) + " with k = " +
                                  std::to_string(k_) + ", l = " + std::to_string(l_));
    set_layout(bits);
    // ceil() in floating point may land a hair low; the window guarantee needs g >= gen.
    while (generation_ < gen) set_layout(bits_ + 64);
    if (bits_ > slice_cap)
      throw invalid_parameter("max_memory_bytes", parameter_value(cfg.max_memory_bytes),
                              "is too small for window_count " + std::to_string(window_));
    words_.assign(std::size_t{slices()} * words_per_slice_, 0);
  }

  static std::unique_ptr<AgePartitionedFilter> load(ByteReader& in) { return SavedForm::load<AgePartitionedFilter>(in); }

  bool may_contain(KeyHash h, Time /*now*/) const override {
    return detail::jump_back_query(slices(), k_, [&](std::size_t pos) {
      const std::uint32_t j = physical(pos);
      return detail::test_bit(&words_[std::size_t{j} * words_per_slice_], reduce(probe_hash(h, j), bits_));
    });
  }
  void insert(KeyHash h, Time /*now*/) override {
    if (gen_count_ >= generation_) shift();
    for (std::uint32_t pos = 0; pos < k_; ++pos) {
      const std::uint32_t j = physical(pos);
      detail::set_bit(&words_[std::size_t{j} * words_per_slice_], reduce(probe_hash(h, j), bits_));
    }
    ++gen_count_;
    ++keys_inserted_;
  }
  bool insert_if_absent(KeyHash h, Time now) override { return insert_if_absent_in_two_steps(*this, h, now); }
  void accept(FilterVisitor& v) override { v.visit(*this); }

  FilterStats stats(Time /*now*/) const override {
    FilterStats s;
    s.algorithm = "apbf";
    s.slices = slices();
    s.k = k_;
    s.l = l_;
    s.slice0_bits = bits_;
    s.bits_allocated = bits_ * slices();
    s.keys_inserted = keys_inserted_;
    // In a count window exactly the last window_count inserts are inside it.
    s.live_keys = std::min(keys_inserted_, window_);
    s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0.0;
    return s;
  }

  void save(ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(Algorithm::apbf));
    SavedForm::save(*this, out);
  }

  std::uint32_t k() const { return k_; }
  std::uint32_t l() const { return l_; }
  std::uint32_t slices() const { return k_ + l_; }
  // Inserts per generation, g = floor(m ln2 / k).
  std::uint64_t generation() const { return generation_; }
  // Position 0 is the newest slice. Throws std::out_of_range for position >= slices().
  SliceView slice(std::size_t position) const {
    if (position >= slices()) throw std::out_of_range("apbf: no slice at position " + std::to_string(position));
    const std::uint32_t j = physical(static_cast<std::uint32_t>(position));
    SliceView v;
    v.bits = bits_;
    v.inserts = position == 0 ? gen_count_ : 0;
    v.hash_index = j;
    v.ones = detail::count_ones(&words_[std::size_t{j} * words_per_slice_], words_per_slice_);
    return v;
  }

 private:
  friend struct SavedForm;
  AgePartitionedFilter() = default;

  // The saved form, field by field (see the top of the file).
  template <class Self, class Archive>
  static void visit_fields(Self& f, Archive& ar) {
    ar.u32(f.k_, f.l_);
    ar.u64(f.window_, f.bits_, f.gen_count_);
    ar.u32(f.head_);
    ar.u64(f.keys_inserted_);
    if constexpr (Archive::loading) f.check_loaded_parameters();
    const std::uint64_t expect = std::uint64_t{f.slices()} * f.words_per_slice_;
    ar.words(f.words_, expect);
    if (f.words_.size() != expect) throw state_error("state: apbf bit array has the wrong length");
  }

  void check_loaded_parameters() {
    if (k_ == 0 || k_ > detail::kMaxK || l_ == 0 || std::uint64_t{k_} + l_ > detail::kMaxSlicesHard)
      throw state_error("state: apbf k or l out of range");
    if (window_ == 0) throw state_error("state: apbf window_count is 0");
    if (bits_ == 0 || bits_ % 64 != 0 || bits_ > detail::kMaxTotalBits / slices())
      throw state_error("state: apbf slice size out of range");
    set_layout(bits_);
    if (generation_ == 0 || generation_ < window_ / l_ + (window_ % l_ != 0))
      throw state_error("state: apbf slices too small for its window");
    if (gen_count_ > generation_ || head_ >= slices()) throw state_error("state: apbf counters inconsistent");
  }

  void set_layout(std::uint64_t bits) {
    bits_ = bits;
    words_per_slice_ = bits / 64;
    generation_ = static_cast<std::uint64_t>(static_cast<double>(bits) * detail::kLn2 / k_);
  }

  // Position 0 is the newest slice; positions grow with age. No division: pos < slices().
  std::uint32_t physical(std::size_t pos) const {
    std::size_t j = head_ + pos;
    if (j >= slices()) j -= slices();
    return static_cast<std::uint32_t>(j);
  }

  // The oldest slice becomes the newest: clear all of it (not just part, bug e of the
  // reference implementation) before it takes inserts again.
  void shift() {
    head_ = head_ == 0 ? slices() - 1 : head_ - 1;
    std::fill_n(words_.begin() + static_cast<std::ptrdiff_t>(std::size_t{head_} * words_per_slice_), words_per_slice_,
                std::uint64_t{0});
    gen_count_ = 0;
  }

  std::uint32_t k_ = 0, l_ = 0;
  std::uint64_t window_ = 0;
  std::uint64_t bits_ = 0;  // per slice, a multiple of 64
  std::uint64_t words_per_slice_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t gen_count_ = 0;
  std::uint32_t head_ = 0;
  std::uint64_t keys_inserted_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace tlbf
