// The records --lateness holds (input_merge.hpp), earliest first, in memory taken in
// chunks: each record's bytes copied once, its description packed into one cache line.
//
// Invariants:
//  - pop() gives the held records in order of time, ties in order of arrival (push()'s seq).
//  - A record stays where it was copied until its chunk is unpinned for it: batches point
//    into the chunks, so its bytes are not copied again on the way out.
//  - Memory: the chunks of records held or pinned, and a few spare ones; nothing per record.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

#include "extract/extract.hpp"
#include "input/record_reader.hpp"
#include "pipeline/record_source.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// A record on its way through the merge (input_merge.cpp): where its parts are, whoever
// holds them.
struct MergeItem {
  std::string_view bytes;
  // Its key (empty unless `keyed`), time, status and absent part, as the extractor returned
  // them: made here in place, so that nothing reads them back whole while the extractor's
  // stores are still on their way (a load that spans several pending stores waits for all).
  Extracted x;
  std::uint64_t number = 0;
  std::uint32_t input = 0;  // the index of its input's name in the merge's names
  std::uint8_t term_len = 0;
  bool keyed = false;
  bool continues = false;
};

// A held record in the queue: where it goes in time, and where it is (a Stored in a chunk).
struct HeldRef {
  tlbf::Time order = 0;
  std::uint64_t seq = 0;  // its arrival
  const void* stored = nullptr;
  std::uint64_t size = 0;  // the bytes it takes in its chunk

  bool operator>(const HeldRef& o) const { return order != o.order ? order > o.order : seq > o.seq; }
};

// Held records, earliest first: those that arrived in order in a queue, the others in a heap,
// both of small entries. A record itself (its MergeItem, then its bytes, key and time text) is
// copied once, into a chunk taken in turn, and stays there until the batch it went out in is
// handed back: batches point into the chunks, so the bytes are not copied again. A chunk is
// given back once every record in it went out in a batch handed back (records go out mostly
// in the order they came), so holding allocates nothing per record.
class HeldQueue {
 public:
  // `v` lies within `in` (and is not empty).
  static bool inside(std::string_view v, std::string_view in) {
    return !v.empty() && v.data() >= in.data() && v.data() + v.size() <= in.data() + in.size();
  }
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  // What a chunk holds of a record: its Item packed into one cache line, its views as
  // offsets (from its bytes, or past the Stored for a key or time text copied there).
  struct alignas(64) Stored {
    tlbf::Time time;
    std::uint64_t number;
    const char* bytes;
    std::uint32_t size;   // of its bytes
    std::uint32_t chunk;  // its chunk's number, modulo 2^32 (far fewer are ever in use at once)
    std::uint32_t key_at, key_size, text_at, text_size;
    std::uint32_t input, absent_part;
    ExtractStatus status;
    std::uint8_t term_len;
    std::uint8_t flags;       // kKeyed..kTextOutside
    std::uint8_t time_flags;  // TimeReading's, one bit each (pack_time())
  };
  static_assert(sizeof(Stored) == 64, "a held record's Stored is one cache line");
  static_assert(sizeof(HeldRef) == 32, "two held entries a cache line");
  // Asks for the line of a stored record.
  static void fetch(const void* stored) { tlbf::detail::prefetch(stored); }

  bool empty() const { return queue_.empty() && heap_.empty(); }
  std::size_t size() const { return queue_.size() + heap_.size(); }
  std::uint64_t bytes() const { return bytes_; }
  tlbf::Time earliest() const { return (from_queue() ? queue_.front() : heap_.front()).order; }

  // A first-in first-out queue in one growing array, so that its records are read in memory
  // order.
  class Ring {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    const HeldRef& front() const { return slots_[head_]; }
    // The entry `n` after the front, or null.
    const HeldRef* ahead(std::size_t n) const {
      return n < size_ ? &slots_[(head_ + n) & (slots_.size() - 1)] : nullptr;
    }
    const HeldRef& back() const { return slots_[(head_ + size_ - 1) & (slots_.size() - 1)]; }
    // The slots ahead of both ends are asked for: a lateness of records apart, the ring is
    // larger than the cache.
    // (Member by member: an entry made whole on the stack and copied in stalled its copy's
    // loads on the stores just made.)
    void push_back(tlbf::Time order, std::uint64_t seq, const void* stored, std::uint64_t size) {
      if (size_ == slots_.size()) grow();
      const std::size_t mask = slots_.size() - 1;
      prefetch_to_write(&slots_[(head_ + size_ + kAhead) & mask]);
      HeldRef& h = slots_[(head_ + size_++) & mask];
      h.order = order;
      h.seq = seq;
      h.stored = stored;
      h.size = size;
    }
    void pop_front() {
      head_ = (head_ + 1) & (slots_.size() - 1);
      --size_;
      tlbf::detail::prefetch(&slots_[(head_ + kAhead) & (slots_.size() - 1)]);
    }

   private:
    void grow() {
      std::vector<HeldRef> more(std::max<std::size_t>(64, slots_.size() * 2));
      for (std::size_t i = 0; i < size_; ++i) more[i] = slots_[(head_ + i) & (slots_.size() - 1)];
      slots_.swap(more);
      head_ = 0;
    }
    static constexpr std::size_t kAhead = 16;
    std::vector<HeldRef> slots_;  // a power of two of them
    std::size_t head_ = 0, size_ = 0;
  };

  void push(tlbf::Time order, std::uint64_t seq, const MergeItem& i) {
    const bool key_in = inside(i.x.key, i.bytes), text_in = inside(i.x.time.text, i.bytes);
    const std::size_t meta =
        aligned(sizeof(Stored) + (key_in ? 0 : i.x.key.size()) + (text_in ? 0 : i.x.time.text.size()));
    std::uint32_t chunk = 0;
    char* data = nullptr;
    char* const start = room(i.bytes.size(), meta, chunk, data);
    std::copy(i.bytes.begin(), i.bytes.end(), data);
    Stored* s = new (start) Stored;
    s->time = i.x.time.time;
    s->number = i.number;
    s->bytes = data;
    s->size = static_cast<std::uint32_t>(i.bytes.size());
    s->chunk = chunk;
    s->input = i.input;
    s->absent_part = i.x.absent_part;
    s->status = i.x.status;
    s->term_len = i.term_len;
    s->time_flags = pack_time(i.x.time);
    char* to = start + sizeof(Stored);
    // A view as an offset from the record's bytes, or from past the Stored where it is copied.
    const auto place = [&](std::string_view v, bool in, std::uint32_t& at, std::uint32_t& size) {
      size = static_cast<std::uint32_t>(v.size());
      if (in) {
        at = static_cast<std::uint32_t>(v.data() - i.bytes.data());
      } else {
        at = static_cast<std::uint32_t>(to - start - sizeof(Stored));
        to = std::copy(v.begin(), v.end(), to);
      }
    };
    place(i.x.key, key_in, s->key_at, s->key_size);
    place(i.x.time.text, text_in, s->text_at, s->text_size);
    s->flags = static_cast<std::uint8_t>((i.keyed ? kKeyed : 0) | (i.continues ? kContinues : 0) |
                                         (key_in ? 0 : kKeyOutside) | (text_in ? 0 : kTextOutside));
    bytes_ += meta + i.bytes.size();
    // (seq only grows: the queue's last is later unless its time is.)
    if (queue_.empty() || queue_.back().order <= order) {
      queue_.push_back(order, seq, s, meta + i.bytes.size());
    } else {
      heap_.push_back(HeldRef{order, seq, s, meta + i.bytes.size()});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
  }
  // The earliest record, taken out of the queue when its time is at most `through` (false
  // when none is); it stays in its chunk until unpin().
  bool pop_through(tlbf::Time through, HeldRef& h) {
    const bool in_queue = from_queue();
    if (!in_queue && heap_.empty()) return false;
    if (in_queue) {
      if (queue_.front().order > through) return false;
      h = queue_.front();
      queue_.pop_front();
      // The records written a lateness ago are out of the cache by now: the next few are asked for.
      if (const HeldRef* next = queue_.ahead(kFetchAhead)) fetch(next->stored);
    } else {
      if (heap_.front().order > through) return false;
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      h = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) fetch(heap_.front().stored);  // (the next out of order, asked for)
    }
    bytes_ -= h.size;
    return true;
  }
  // `records` of chunk `chunk` went out in a batch that was handed back.
  void unpin(std::uint32_t chunk, std::uint32_t records) {
    chunks_[static_cast<std::uint32_t>(chunk - first_chunk_)].records -= records;
    while (chunks_.size() > 1 && chunks_.front().records == 0) {  // (the last is being filled)
      spare_.push_back(std::move(chunks_.front()));
      chunks_.pop_front();
      ++first_chunk_;
    }
  }

  enum : std::uint8_t { kKeyed = 1, kContinues = 2, kKeyOutside = 4, kTextOutside = 8 };
  static_assert(offsetof(TimeReading, zone_cut) == offsetof(TimeReading, parsed) + 7 &&
                    sizeof(TimeReading) == sizeof(tlbf::Time) + 8 + sizeof(std::string_view),
                "TimeReading's eight flags are the eight bytes after its time: pack_time() keeps each");
  // The eight flags as one byte, flag i in bit i (each flag's byte is 0 or 1: the multiply
  // gathers the low bits into the top byte without carries).
  static std::uint8_t pack_time(const TimeReading& t) {
    std::uint64_t b;
    std::memcpy(&b, &t.parsed, sizeof b);
    return static_cast<std::uint8_t>((b * 0x0102040810204080u) >> 56);
  }
  // pack_time() undone into `t`'s flags: the byte copied into each byte, bit i kept in byte i,
  // and each byte made 0 or 1.
  static void unpack_time(std::uint8_t f, TimeReading& t) {
    const std::uint64_t kept = (f * 0x0101010101010101u) & 0x8040201008040201u;
    const std::uint64_t b = ((kept + 0x7f7f7f7f7f7f7f7fu) & 0x8080808080808080u) >> 7;
    std::memcpy(&t.parsed, &b, sizeof b);
  }
  // A held record as the batch's record `r` (its views into its chunk; `at` is the batch's).
  static void unpack(const Stored& s, SourceRecord& r) {
    const char* outside = reinterpret_cast<const char*>(&s) + sizeof(Stored);
    r.time.time = s.time;
    unpack_time(s.time_flags, r.time);
    r.time.text = {((s.flags & kTextOutside) ? outside : s.bytes) + s.text_at, s.text_size};
    r.number = s.number;
    r.input = s.input;
    r.absent_part = s.absent_part;
    r.status = s.status;
    r.term_len = s.term_len;
    r.keyed = s.flags & kKeyed;
    r.continues = s.flags & kContinues;
    r.replayed = false;
  }
  static std::string_view bytes(const Stored& s) { return {s.bytes, s.size}; }
  static std::string_view key(const Stored& s) {
    const char* outside = reinterpret_cast<const char*>(&s) + sizeof(Stored);
    return {((s.flags & kKeyOutside) ? outside : s.bytes) + s.key_at, s.key_size};
  }

 private:
  // Records' bytes are appended from its start, one after another, so that those of records
  // that go out in the order they came are adjacent (the output sends a run of them as one
  // piece); their MergeItems (with keys and time texts copied) from its end down.
  struct AlignedDelete {
    void operator()(char* p) const { ::operator delete[](p, std::align_val_t{alignof(Stored)}); }
  };
  struct Chunk {
    std::unique_ptr<char[], AlignedDelete> data;
    std::size_t size = 0, used = 0, back = 0, records = 0;  // [used, back) is free
  };
  static std::size_t aligned(std::size_t n) { return (n + alignof(Stored) - 1) & ~(alignof(Stored) - 1); }
  // Room for `bytes` bytes and a Stored of `meta` bytes in the last chunk, or a new one:
  // returns where the Stored goes; `data` learns where the bytes go, `chunk` which chunk.
  [[gnu::always_inline]] char* room(std::size_t bytes, std::size_t meta, std::uint32_t& chunk, char*& data) {
    const std::size_t size = bytes + meta + alignof(Stored);  // (with room to align the Stored)
    if (chunks_.empty() || chunks_.back().back - chunks_.back().used < size) {
      Chunk c;
      if (!spare_.empty() && spare_.back().size >= size) {
        c = std::move(spare_.back());
        spare_.pop_back();
      } else {
        c.size = std::max(kChunkBytes, size);
        c.data.reset(static_cast<char*>(::operator new[](c.size, std::align_val_t{alignof(Stored)})));
      }
      c.used = c.records = 0;
      c.back = c.size & ~(alignof(Stored) - 1);
      chunks_.push_back(std::move(c));
      // A few kept for reuse (the records of the batches in flight point into some), the rest
      // freed.
      if (spare_.size() > kSpareChunks) spare_.resize(kSpareChunks);
    }
    Chunk& c = chunks_.back();
    chunk = static_cast<std::uint32_t>(first_chunk_ + chunks_.size() - 1);
    char* const base = c.data.get();
    data = base + c.used;
    c.used += bytes;
    c.back = (c.back - meta) & ~(alignof(Stored) - 1);
    // The judging thread read these lines when the chunk was last used: taken back early.
    if (c.used + kWriteAhead < c.back) prefetch_to_write(base + c.used + kWriteAhead);
    if (c.back > c.used + kWriteAhead) prefetch_to_write(base + c.back - kWriteAhead);
    ++c.records;
    return base + c.back;
  }
  bool from_queue() const { return !queue_.empty() && (heap_.empty() || heap_.front() > queue_.front()); }

  static constexpr std::size_t kSpareChunks = 8;
  static constexpr std::size_t kFetchAhead = 8;
  static constexpr std::size_t kWriteAhead = 1024;
  Ring queue_;
  std::vector<HeldRef> heap_;
  std::deque<Chunk> chunks_;
  std::vector<Chunk> spare_;
  std::uint32_t first_chunk_ = 0;  // the number of chunks_.front(), modulo 2^32
  std::uint64_t bytes_ = 0;
};

}  // namespace tlbf_dedup
