// The records --count and --keep last hold: an exact table of the window's keys (a key is its
// 128-bit hash and its bytes, so two keys are one entry only when their bytes are equal), each
// entry with the copy it keeps, in the order their windows close, and the memory all of it
// takes.
//
// Invariants: the entries are linked in the order of their close times (a new or renewed entry
// goes to the tail, which holds because every close time given is at least the one given
// before it); bytes() is the memory of the entries' array, the index and every entry's
// bytes, as the allocator hands them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "output/count_format.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// One held record. Its bytes are kept in one string: the key, the first copy's time text,
// the record, the last copy's time text (the times only with --count).
struct HeldEntry {
  tlbf::KeyHash hash;
  tlbf::Time close = 0;     // when its window closes: a time, or an insert number (-n)
  tlbf::Time first_at = 0;  // the times its first and last copy were judged at
  tlbf::Time last_at = 0;
  std::uint64_t count = 0;  // copies so far, the first included
  std::uint32_t prev = 0, next = 0;
  std::size_t key_size = 0, first_size = 0, record_size = 0;
  std::uint8_t term_len = 0;  // the record's terminator, at its end
  SeenForm first_form = SeenForm::clock, last_form = SeenForm::clock;
  InputFormat format = InputFormat::lines;
  std::string data;

  std::string_view key() const { return {data.data(), key_size}; }
  std::string_view first_text() const { return {data.data() + key_size, first_size}; }
  std::string_view record() const { return {data.data() + key_size + first_size, record_size}; }
  std::string_view last_text() const {
    const std::size_t at = key_size + first_size + record_size;
    return {data.data() + at, data.size() - at};
  }
};

class HeldTable {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint64_t bytes() const { return bytes_; }
  // The memory one more entry of `data_bytes` would bring the table to, its arrays' growth
  // included.
  std::uint64_t bytes_with(std::size_t data_bytes) const;

  // The entry of the key, or kNone.
  std::uint32_t find(tlbf::KeyHash hash, std::string_view key) const;
  // A new entry at the tail, closing at `close`, whose data is `parts` one after another, the
  // first of them its key; the caller sets its other fields.
  std::uint32_t add(tlbf::KeyHash hash, tlbf::Time close, std::initializer_list<std::string_view> parts);
  HeldEntry& operator[](std::uint32_t i) { return entries_[i]; }
  const HeldEntry& operator[](std::uint32_t i) const { return entries_[i]; }
  // Entry i's window now closes at `close` (not before any close given so far): to the tail.
  void renew(std::uint32_t i, tlbf::Time close);
  // The entry whose window closes first (kNone when empty), and the one after entry i.
  std::uint32_t head() const { return head_; }
  std::uint32_t next(std::uint32_t i) const { return entries_[i].next; }
  // Forgets entry i and frees its bytes.
  void remove(std::uint32_t i);

  // Entry i's bytes from `keep` on are replaced by `parts`, one after another.
  void rewrite(std::uint32_t i, std::size_t keep, std::initializer_list<std::string_view> parts);

 private:
  // What the allocator takes for a string of `capacity` (its own buffer beyond 15 bytes).
  static std::uint64_t heap(std::size_t capacity) {
    return capacity > 15 ? (capacity + 1 + 8 + 15) & ~std::size_t{15} : 0;
  }
  std::size_t slot_of(tlbf::KeyHash hash) const { return static_cast<std::uint32_t>(hash.lo) & mask_; }
  void grow_index();
  void place(std::uint64_t item);
  void link_tail(std::uint32_t i);
  void unlink(std::uint32_t i);
  void recount();

  std::vector<HeldEntry> entries_;
  std::vector<std::uint32_t> free_;  // entries not in use
  // Open addressing with linear probing: (low 32 bits of the hash << 32) | (entry + 1); 0 empty.
  std::vector<std::uint64_t> index_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  std::uint32_t head_ = kNone, tail_ = kNone;
  std::uint64_t data_bytes_ = 0;  // the entries' strings, as heap() counts them
  std::uint64_t bytes_ = 0;
};

}  // namespace tlbf_dedup
