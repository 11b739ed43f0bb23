// The decision for each record: is its key a duplicate within the window? One interface for
// every kind of filter: a local one answers at once, a remote one (--redis,
// redis/redis_backend.hpp) later; either way the answers come back in submit order, so the
// caller writes records in input order whichever decides.
//
// Keys are submitted in batches, hashed and with their times: a local filter decides a batch
// through the library's batch entry points on its concrete class (local_decider.cpp), so a
// filter with a faster batch verb of its own gets used with no change here, and the program
// makes one virtual call per batch, not per record. The decider owns the hash seed and
// hands out the hasher (key_hasher.hpp) the records are hashed with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "decide/key_hasher.hpp"
#include "tlbf/filter.hpp"

namespace tlbf_dedup {

// Without refresh the window runs from the last emitted copy: only new keys are inserted,
// so a duplicate does not extend its key's life. With refresh every occurrence renews it.
enum class Refresh { no, yes };

// The remote filter can no longer answer (its server is gone, or it refused a batch). The
// answers received before stay in the caller's Answers, so the records they decide can be
// written before the run stops; the message names the server.
class DecisionsLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Answers in submit order, true for a duplicate: a decider appends, the caller takes them
// from the front.
class Answers {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  bool take() { return buf_[head_++]; }
  // Room for `n` more answers at the end, filled by the caller, then made answers by commit().
  bool* reserve(std::size_t n) {
    if (head_ == tail_) head_ = tail_ = 0;
    if (tail_ + n > cap_) {  // the live answers move to the front, into a larger buffer if need be
      const std::size_t live = tail_ - head_;
      if (live + n > cap_) {
        const std::size_t cap = std::max(2 * cap_, live + n);
        std::unique_ptr<bool[]> bigger(new bool[cap]);
        std::copy(buf_.get() + head_, buf_.get() + tail_, bigger.get());
        buf_ = std::move(bigger);
        cap_ = cap;
      } else {
        std::copy(buf_.get() + head_, buf_.get() + tail_, buf_.get());
      }
      head_ = 0;
      tail_ = live;
    }
    return buf_.get() + tail_;
  }
  void commit(std::size_t n) { tail_ += n; }
  void push(bool dup) {
    *reserve(1) = dup;
    commit(1);
  }

 private:
  std::unique_ptr<bool[]> buf_;
  std::size_t cap_ = 0, head_ = 0, tail_ = 0;
};

// Keys to decide, in input order: their hashes (KeyHasher), the times they are judged at, and
// their bytes, for a decider that answers later (which hashes them elsewhere, as the Redis
// module does); one that answers at once decides by the hashes and may be given empty bytes.
struct KeyBatch {
  const tlbf::KeyHash* hashes;
  const tlbf::Time* times;
  const std::string_view* keys;
  std::size_t size;
};

class Decider {
 public:
  virtual ~Decider() = default;

  const KeyHasher& hasher() const { return hasher_; }
  // True when answers come after submit() returns (the caller holds the records until
  // then); false when each submitted key is answered within submit().
  bool answers_later() const { return answers_later_; }

  // Takes the keys in order and appends to `answers` every answer that has come (for keys
  // submitted before, then these). Returns how many keys it took: all of them, or, for a
  // filter whose memory cap made it drop keys still inside the window (cap_binds() grew),
  // those up to and including the key whose decision did that, so the caller can report
  // the bind at that record and submit the rest again. Throws DecisionsLost when the answers
  // of submitted keys cannot come.
  virtual std::size_t submit(const KeyBatch& keys, Answers& answers) = 0;
  // Waits until every key submitted has its answer, and appends them.
  virtual void flush(Answers& answers) = 0;
  // How many times the filter's memory cap made it give up window length (a local filter's
  // WindowFilter::cap_binds(); 0 when the filter is elsewhere).
  virtual std::uint64_t cap_binds() const = 0;
  // The statistics of the filter that answers, at `now`; call after flush().
  virtual tlbf::FilterStats stats(tlbf::Time now) = 0;

 protected:
  Decider(std::uint64_t hash_seed, bool answers_later) : hasher_(hash_seed), answers_later_(answers_later) {}

 private:
  KeyHasher hasher_;
  bool answers_later_;
};

// A decider over `filter`, which must outlive it: each batch is decided on the filter's
// concrete class (one virtual call to choose it, made here once).
std::unique_ptr<Decider> make_local_decider(tlbf::WindowFilter& filter, Refresh refresh, std::uint64_t hash_seed);

// A decider that asks no filter and answers every key new, hashing with `hash_seed`: for a
// run whose sink decides by itself, exactly (the holding stage of --count and --keep last).
std::unique_ptr<Decider> make_unasked_decider(std::uint64_t hash_seed);

}  // namespace tlbf_dedup
