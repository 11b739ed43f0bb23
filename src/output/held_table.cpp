// The held records' table (held_table.hpp).
//
// Invariant: every entry in use is in the index exactly once and in the close-order list
// exactly once; the index has no tombstones (backward-shift deletion) and is at most half
// full, so a lookup probes few slots; an index slot carries the low 32 bits of its key's hash,
// so a probe reads an entry only when those bits match.
#include "output/held_table.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::size_t kFirstEntries = 64;
constexpr std::size_t kFirstSlots = 128;

std::uint32_t tag_of(std::uint64_t item) { return static_cast<std::uint32_t>(item >> 32); }
std::uint32_t entry_of(std::uint64_t item) { return static_cast<std::uint32_t>(item) - 1; }

}  // namespace

std::uint64_t HeldTable::bytes_with(std::size_t data_bytes) const {
  std::uint64_t more = heap(data_bytes);
  if (free_.empty() && entries_.size() == entries_.capacity())
    more += (entries_.empty() ? kFirstEntries : entries_.capacity()) * sizeof(HeldEntry);
  if ((size_ + 1) * 2 > index_.size()) more += (index_.empty() ? kFirstSlots : index_.size()) * sizeof(std::uint64_t);
  return bytes_ + more;
}

std::uint32_t HeldTable::find(tlbf::KeyHash hash, std::string_view key) const {
  if (index_.empty()) return kNone;
  const std::uint32_t tag = static_cast<std::uint32_t>(hash.lo);
  for (std::size_t s = slot_of(hash);; s = (s + 1) & mask_) {
    const std::uint64_t item = index_[s];
    if (item == 0) return kNone;
    if (tag_of(item) != tag) continue;
    const HeldEntry& e = entries_[entry_of(item)];
    if (e.hash == hash && e.key() == key) return entry_of(item);
  }
}

std::uint32_t HeldTable::add(tlbf::KeyHash hash, tlbf::Time close, std::initializer_list<std::string_view> parts) {
  if ((size_ + 1) * 2 > index_.size()) grow_index();
  std::uint32_t i;
  if (!free_.empty()) {
    i = free_.back();
    free_.pop_back();
  } else {
    if (entries_.size() == entries_.capacity())
      entries_.reserve(entries_.empty() ? kFirstEntries : 2 * entries_.size());
    i = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  HeldEntry& e = entries_[i];
  e = HeldEntry{};
  e.hash = hash;
  e.close = close;
  e.key_size = parts.begin()->size();
  std::size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  e.data.reserve(total);
  for (std::string_view p : parts) e.data.append(p);
  data_bytes_ += heap(e.data.capacity());
  place((std::uint64_t{static_cast<std::uint32_t>(hash.lo)} << 32) | (std::uint64_t{i} + 1));
  ++size_;
  link_tail(i);
  recount();
  return i;
}

void HeldTable::renew(std::uint32_t i, tlbf::Time close) {
  entries_[i].close = close;
  if (tail_ == i) return;
  unlink(i);
  link_tail(i);
}

void HeldTable::remove(std::uint32_t i) {
  HeldEntry& e = entries_[i];
  // The index: backward-shift deletion from the entry's slot.
  std::size_t s = slot_of(e.hash);
  while (entry_of(index_[s]) != i) s = (s + 1) & mask_;
  for (std::size_t j = (s + 1) & mask_; index_[j] != 0; j = (j + 1) & mask_) {
    const std::size_t home = tag_of(index_[j]) & mask_;
    if (((j - home) & mask_) >= ((j - s) & mask_)) {
      index_[s] = index_[j];
      s = j;
    }
  }
  index_[s] = 0;
  unlink(i);
  data_bytes_ -= heap(e.data.capacity());
  std::string().swap(e.data);
  free_.push_back(i);
  --size_;
  recount();
}

void HeldTable::rewrite(std::uint32_t i, std::size_t keep, std::initializer_list<std::string_view> parts) {
  std::string& d = entries_[i].data;
  const std::uint64_t before = heap(d.capacity());
  d.resize(keep);
  for (std::string_view p : parts) d.append(p);
  data_bytes_ += heap(d.capacity()) - before;
  recount();
}

void HeldTable::grow_index() {
  std::vector<std::uint64_t> old = std::move(index_);
  index_.assign(old.empty() ? kFirstSlots : 2 * old.size(), 0);
  mask_ = index_.size() - 1;
  for (std::uint64_t item : old)
    if (item != 0) place(item);
}

void HeldTable::place(std::uint64_t item) {
  std::size_t s = tag_of(item) & mask_;
  while (index_[s] != 0) s = (s + 1) & mask_;
  index_[s] = item;
}

void HeldTable::link_tail(std::uint32_t i) {
  HeldEntry& e = entries_[i];
  e.prev = tail_;
  e.next = kNone;
  if (tail_ == kNone)
    head_ = i;
  else
    entries_[tail_].next = i;
  tail_ = i;
}

void HeldTable::unlink(std::uint32_t i) {
  HeldEntry& e = entries_[i];
  if (e.prev == kNone)
    head_ = e.next;
  else
    entries_[e.prev].next = e.next;
  if (e.next == kNone)
    tail_ = e.prev;
  else
    entries_[e.next].prev = e.prev;
}

void HeldTable::recount() {
  bytes_ = entries_.capacity() * sizeof(HeldEntry) + index_.size() * sizeof(std::uint64_t) +
           free_.capacity() * sizeof(std::uint32_t) + data_bytes_;
}

}  // namespace tlbf_dedup
