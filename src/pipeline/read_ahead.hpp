// Read-ahead between two threads: a producer fills batches (the record source's, records with
// their key and time) while the consumer decides and writes the batch before. The batches are
// a fixed pool, recycled: the producer takes a free one, fills it and publishes it; the
// consumer takes published ones in order and hands each back once nothing points into it any
// more.
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
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

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

}  // namespace tlbf_dedup
