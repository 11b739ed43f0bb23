// The one interface every window filter implements, so the program, the experiments, the
// benchmarks and the tests can use any of them interchangeably.
//
// Contract shared by all implementations:
//  - `now` is the caller's clock in nanoseconds. Callers pass a non-decreasing clock; a filter
//    treats an earlier `now` as its latest seen time (time never goes backwards inside it).
//    Count-window filters ignore `now`.
//  - may_contain() never mutates the filter (it is const and takes no locks).
//  - No false negatives: a key inserted at time t (or among the last W inserts, for a count
//    window) is reported present by may_contain() while now - t < span.
//  - insert_if_absent() is may_contain() followed, when absent, by insert(); it returns true
//    when the key was absent (the caller should treat the record as new).
#pragma once

#include <memory>
#include <string>

#include "tlbf/serialize.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

class WindowFilter {
 public:
  virtual ~WindowFilter() = default;

  virtual bool may_contain(KeyHash h, Time now) const = 0;
  virtual void insert(KeyHash h, Time now) = 0;
  virtual bool insert_if_absent(KeyHash h, Time now) {
    if (may_contain(h, now)) return false;
    insert(h, now);
    return true;
  }
  virtual FilterStats stats(Time now) const = 0;

  // Writes the complete state (parameters and data) so that the matching load() rebuilds a
  // filter that answers every query identically. The container (magic, version, checksum)
  // is the caller's business; see serialize.hpp.
  virtual void save(ByteWriter& out) const = 0;
};

}  // namespace tlbf
