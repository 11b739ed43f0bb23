// Records waiting for the answers of a decider that answers later (--redis), in input order,
// with the records written whatever the filter says queued behind them. They are copies: the
// reader moves on while they wait. With a decider that answers at once nothing waits here.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

#include "output/record_sink.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

class HeldRecords {
 public:
  // What a held record waits for, or how it goes out whatever the answers are.
  enum class Waits : unsigned char {
    answer,
    undecided,  // --on-error pass
    passed,     // not selected by --where: written untouched
    blank,      // a blank line between JSON records
  };
  struct Held {
    OutRecord record;  // not borrowable: the bytes are the copy held here
    Waits waits;
    std::string_view key;  // with an answer awaited
    tlbf::KeyHash hash;
    tlbf::Time at;  // the time it is judged at
  };

  bool empty() const { return held_.empty(); }
  // Holds a copy of `r`, which awaits its answer, and of its `key` at the back.
  void hold(const OutRecord& r, std::string_view key, tlbf::KeyHash hash, tlbf::Time at) {
    bytes_.append(r.bytes);
    bytes_.append(key);
    held_.push_back(Entry{r.bytes.size(), r.text_size, key.size(), hash, at, r.format, Waits::answer});
  }
  // Holds a copy of `r`, written whatever the answers are, at the back.
  void hold(const OutRecord& r, Waits waits) {
    bytes_.append(r.bytes);
    held_.push_back(Entry{r.bytes.size(), r.text_size, 0, {}, 0, r.format, waits});
  }
  // The record at the front; its views stay valid until compact().
  Held front() const {
    const Entry& e = held_.front();
    const char* at = bytes_.data() + start_;
    return Held{
        OutRecord{{at, e.size}, e.text_size, e.format, false}, e.waits, {at + e.size, e.key_size}, e.hash, e.at};
  }
  void pop() {
    start_ += held_.front().size + held_.front().key_size;
    held_.pop_front();
  }
  // The bytes of records popped go once they are half the buffer (amortised O(1) each).
  void compact() {
    if (held_.empty()) {
      bytes_.clear();
      start_ = 0;
    } else if (start_ > bytes_.size() / 2) {
      bytes_.erase(0, start_);
      start_ = 0;
    }
  }

 private:
  struct Entry {
    std::size_t size, text_size, key_size;
    tlbf::KeyHash hash;
    tlbf::Time at;
    InputFormat format;
    Waits waits;
  };
  std::deque<Entry> held_;
  std::string bytes_;  // the held records, each followed by its kept key, from start_ on
  std::size_t start_ = 0;
};

}  // namespace tlbf_dedup
