// The Space-Saving sketch behind --top.
//
// Invariants (Metwally et al. 2005, Lemmas 3.3-3.5 and Theorem 3.5):
//  - At most `capacity_` counters exist, each holding at most kMaxKeyBytes of key text: the
//    memory is bounded by the number of counters, whatever the stream.
//  - A tracked key's count is never below its true count, and exceeds it by at most the
//    counter's `overestimate`, the count of the counter it took over (0 for a counter
//    never taken over). The counts sum to the number of keys added, so the smallest count,
//    and with it every overestimate, is at most added / capacity.
//  - A key added more than added / capacity times holds a counter: it cannot have been
//    replaced after its count passed the smallest.
//  - heap_ is a min-heap by count, and where_ maps each tracked key's hash to its position
//    in it; both change together, in swap_counters().
#include "report/top_keys.hpp"

#include <algorithm>

#include "extract/extract.hpp"

namespace tlbf_dedup {

TopKeys::TopKeys(std::size_t counters) : capacity_(std::max<std::size_t>(counters, 1)) {
  heap_.reserve(capacity_);
  where_.reserve(capacity_);
}

void TopKeys::set_text(Counter& c, std::string_view key) {
  c.truncated = key.size() > kMaxKeyBytes;
  c.text.assign(key.data(), std::min(key.size(), kMaxKeyBytes));
}

void TopKeys::add(std::string_view key, tlbf::KeyHash id) {
  ++added_;
  if (auto it = where_.find(id); it != where_.end()) {
    ++heap_[it->second].count;
    sift_down(it->second);
    return;
  }
  if (heap_.size() < capacity_) {
    Counter c;
    c.id = id;
    c.count = 1;
    set_text(c, key);
    heap_.push_back(std::move(c));
    where_[id] = static_cast<std::uint32_t>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
    return;
  }
  // The key takes over the smallest counter, and inherits its count as possible error.
  Counter& least = heap_[0];
  where_.erase(least.id);
  least.id = id;
  least.overestimate = least.count;
  ++least.count;
  set_text(least, key);
  where_[id] = 0;
  sift_down(0);
}

void TopKeys::swap_counters(std::size_t a, std::size_t b) {
  std::swap(heap_[a], heap_[b]);
  where_[heap_[a].id] = static_cast<std::uint32_t>(a);
  where_[heap_[b].id] = static_cast<std::uint32_t>(b);
}

void TopKeys::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  while (true) {
    std::size_t least = i;
    const std::size_t l = 2 * i + 1, r = l + 1;
    if (l < n && heap_[l].count < heap_[least].count) least = l;
    if (r < n && heap_[r].count < heap_[least].count) least = r;
    if (least == i) return;
    swap_counters(i, least);
    i = least;
  }
}

void TopKeys::sift_up(std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (heap_[parent].count <= heap_[i].count) return;
    swap_counters(i, parent);
    i = parent;
  }
}

TopReport TopKeys::report(std::size_t n, bool composite) const {
  std::vector<const Counter*> order;
  order.reserve(heap_.size());
  for (const Counter& c : heap_) order.push_back(&c);
  std::sort(order.begin(), order.end(), [](const Counter* a, const Counter* b) {
    return a->count != b->count ? a->count > b->count : a->text < b->text;
  });
  TopReport r;
  r.counters = capacity_;
  r.added = added_;
  // The smallest count bounds every overestimate; until the counters fill, nothing was replaced.
  r.bound = heap_.size() < capacity_ || heap_.empty() ? 0 : heap_[0].count;
  for (std::size_t i = 0; i < std::min(n, order.size()); ++i)
    r.keys.push_back(TopKey{describe_key_parts(order[i]->text, composite), order[i]->count, order[i]->overestimate,
                            order[i]->truncated});
  return r;
}

}  // namespace tlbf_dedup
