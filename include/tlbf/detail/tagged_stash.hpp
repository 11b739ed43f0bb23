// SPDX-License-Identifier: MIT
// The tagged filter's stash (tagged.hpp): the rare keys whose two blocks were both full of live
// slots when they came, kept exactly, by a 64-bit fingerprint and the epoch of their write, in
// an open-addressed table (linear probing, at most half full) beside the blocks. An entry
// answers while its epoch is live (>= the caller's lo); entries that are not are dropped when
// the table fills and is rebuilt. Fingerprint 0 marks an empty place, so no key has it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tlbf::detail {

class TaggedStash {
 public:
  struct Entry {
    std::uint64_t fingerprint = 0;
    std::int64_t epoch = 0;
  };

  static std::uint64_t fingerprint(std::uint64_t lo, std::uint64_t hi) {
    const std::uint64_t f = lo ^ (hi << 32 | hi >> 32);
    return f == 0 ? 1 : f;
  }

  bool empty() const { return count_ == 0; }
  std::uint64_t size() const { return count_; }  // entries, live or not
  std::uint64_t bytes() const { return places_.size() * sizeof(Entry); }

  // Whether a live entry holds f.
  bool holds(std::uint64_t f, std::int64_t lo) const {
    const Entry* e = find(f);
    return e != nullptr && e->epoch >= lo;
  }
  // Moves a live entry of f to `epoch`; false when there is none.
  bool renew(std::uint64_t f, std::int64_t epoch, std::int64_t lo) {
    Entry* e = const_cast<Entry*>(find(f));
    if (e == nullptr || e->epoch < lo) return false;
    e->epoch = std::max(e->epoch, epoch);
    return true;
  }
  // Adds f at `epoch`, keeping at most `limit` entries: a stash that holds `limit` (or has no
  // room for one more) is rebuilt without the entries below lo, in a table for `limit` that
  // never takes more than `max_bytes`; false, adding nothing, when `limit` live entries fill it.
  bool add(std::uint64_t f, std::int64_t epoch, std::int64_t lo, std::uint64_t limit, std::uint64_t max_bytes) {
    if (count_ >= limit || 2 * (count_ + 1) > places_.size()) {
      std::vector<Entry> live;
      for (const Entry& e : places_)
        if (e.fingerprint != 0 && e.epoch >= lo) live.push_back(e);
      std::uint64_t size = 16;
      while (size < 2 * (limit + 1)) size *= 2;
      if (live.size() >= limit || size * sizeof(Entry) > max_bytes) return false;
      places_.assign(size, Entry{});
      count_ = 0;
      for (const Entry& e : live) put(e);
    }
    put(Entry{f, epoch});
    return true;
  }
  // Live entries.
  std::uint64_t live(std::int64_t lo) const {
    return static_cast<std::uint64_t>(std::count_if(
        places_.begin(), places_.end(), [&](const Entry& e) { return e.fingerprint != 0 && e.epoch >= lo; }));
  }
  // The table as it is, for saving: a loaded stash goes on exactly as the saved one.
  const std::vector<Entry>& places() const { return places_; }
  // The table of a saved stash; false (and empty) unless it is one add() could have made: no
  // places or a power of two of them, at least 16, under half of them used.
  bool restore(std::vector<Entry> places) {
    const std::uint64_t n = places.size();
    const auto used = static_cast<std::uint64_t>(
        std::count_if(places.begin(), places.end(), [](const Entry& e) { return e.fingerprint != 0; }));
    if (n != 0 && (n < 16 || (n & (n - 1)) != 0 || 2 * (used + 1) > n)) {
      *this = TaggedStash{};
      return false;
    }
    places_ = std::move(places);
    count_ = used;
    return true;
  }

 private:
  std::uint64_t home(std::uint64_t f) const { return (f * 0x9E3779B97F4A7C15) >> 32 & (places_.size() - 1); }
  const Entry* find(std::uint64_t f) const {
    if (count_ == 0) return nullptr;
    for (std::uint64_t i = home(f);; i = (i + 1) & (places_.size() - 1)) {
      if (places_[i].fingerprint == f) return &places_[i];
      if (places_[i].fingerprint == 0) return nullptr;
    }
  }
  // Adds e, or moves an entry of its fingerprint to the later epoch; the table has room.
  void put(const Entry& e) {
    for (std::uint64_t i = home(e.fingerprint);; i = (i + 1) & (places_.size() - 1)) {
      Entry& p = places_[i];
      if (p.fingerprint == e.fingerprint) {
        p.epoch = std::max(p.epoch, e.epoch);
        return;
      }
      if (p.fingerprint == 0) {
        p = e;
        ++count_;
        return;
      }
    }
  }

  std::vector<Entry> places_;
  std::uint64_t count_ = 0;
};

}  // namespace tlbf::detail
