// Read-ahead between two threads: a producer fills batches (records framed and their key and
// time extracted) while the consumer decides and writes the batch before. The batches are a
// fixed pool, recycled: the producer takes a free one, fills it and publishes it; the consumer
// takes published ones in order and hands each back once nothing points into it any more.
//
// Invariants:
//  - Batches reach the consumer in the order they were published, each exactly once.
//  - Memory is bounded by the pool: at most `pool` batches exist, and the producer waits
//    for a free one rather than allocating.
//  - stop() wakes both sides for good: the producer's acquire() returns null and the
//    consumer's take() returns null once nothing published is left, so a thread that
//    stops either side can always join the other.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "extract/extract.hpp"
#include "extract/timestamp.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// A fixed pool of T passed from one producer thread to one consumer thread in order.
template <class T>
class ReadAheadQueue {
 public:
  explicit ReadAheadQueue(std::size_t pool) {
    for (std::size_t i = 0; i < pool; ++i) {
      owned_.push_back(std::make_unique<T>());
      free_.push_back(owned_.back().get());
    }
  }
  ReadAheadQueue(const ReadAheadQueue&) = delete;
  ReadAheadQueue& operator=(const ReadAheadQueue&) = delete;

  // Producer: a free batch to fill, waiting for one; null once stopped.
  T* acquire() { return pop(free_, freed_, false); }
  // Producer: hands a filled batch to the consumer.
  void publish(T* t) { push(published_, filled_, t); }
  // Consumer: the next published batch, waiting for it; null when stopped and none is left.
  T* take() { return pop(published_, filled_, true); }
  // Consumer: a batch it is done with goes back to the pool.
  void recycle(T* t) { push(free_, freed_, t); }
  // Either side: no more batches are handed out to the producer; the consumer gets what was
  // published, then null.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    freed_.notify_all();
    filled_.notify_all();
  }
  bool stopped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopped_;
  }

 private:
  // The front of `from`, waiting on `cv` until there is one or the queue is stopped; once
  // stopped, null, or with `drain_after_stop` what is left first.
  T* pop(std::deque<T*>& from, std::condition_variable& cv, bool drain_after_stop) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv.wait(lock, [&] { return stopped_ || !from.empty(); });
    if (from.empty() || (stopped_ && !drain_after_stop)) return nullptr;
    T* t = from.front();
    from.pop_front();
    return t;
  }
  void push(std::deque<T*>& to, std::condition_variable& cv, T* t) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      to.push_back(t);
    }
    cv.notify_one();
  }

  mutable std::mutex mutex_;
  std::condition_variable freed_, filled_;
  std::vector<std::unique_ptr<T>> owned_;
  std::deque<T*> free_, published_;
  bool stopped_ = false;
};

// Records read ahead, with what the extractor made of each: their bytes are copied into the
// batch (so they stay valid however far the reader has moved on), a key or time text that
// pointed into the record points into the copy, and a key comes with its hash.
struct RecordBatch {
  // A batch is full at kBytes of records or kItems records, whichever comes first (short
  // records: each item takes some 140 bytes besides its record). A longer record still goes
  // in whole (the batch grows to it and is shrunk back when it is filled next).
  static constexpr std::size_t kBytes = std::size_t{512} << 10;
  static constexpr std::size_t kItems = 4096;

  struct Item {
    std::size_t offset;  // into bytes: the record as read, terminator included
    std::size_t size;    // without the terminator
    std::uint32_t term_len;
    bool continues;        // Record::continues
    std::uint64_t record;  // its number in its input
    std::size_t input;     // its input's number (RecordReader::input_number())
    ExtractStatus status;
    std::uint32_t absent_part;
    // With status ok: the key hashed by the decider's hasher (KeyHasher, with the run's
    // seed), so the consumer decides without hashing.
    tlbf::KeyHash hash;
    // Where the key and the time text are: in the record (kInRecord) or in `side`.
    bool key_in_record, time_in_record;
    std::size_t key_offset, key_size, time_offset, time_size;
    TimeReading time;  // text left empty; see time_text()
  };

  std::string bytes;  // the records, one after the other
  std::string side;   // keys and time texts that were not inside their record
  std::vector<Item> items;
  std::vector<std::pair<std::size_t, std::string>> names;  // the inputs the items name: number, name
  std::uint64_t in_bytes = 0;  // bytes of records with content, as counted by RunStats::bytes_in
  // Set on the last batch: an error of the reader (after the items), or the end of the input.
  std::exception_ptr error;
  bool end = false;
  std::string end_name;  // with `end`: the reader's current name at its end

  void clear() {
    if (bytes.capacity() > 2 * kBytes) std::string().swap(bytes);
    bytes.clear();
    side.clear();
    items.clear();
    names.clear();
    in_bytes = 0;
    error = nullptr;
    end = false;
    end_name.clear();
  }
  std::string_view record_bytes(const Item& i) const { return {bytes.data() + i.offset, i.size + i.term_len}; }
  std::string_view key(const Item& i) const {
    return {(i.key_in_record ? bytes.data() + i.offset : side.data()) + i.key_offset, i.key_size};
  }
  std::string_view time_text(const Item& i) const {
    return {(i.time_in_record ? bytes.data() + i.offset : side.data()) + i.time_offset, i.time_size};
  }
};

}  // namespace tlbf_dedup
