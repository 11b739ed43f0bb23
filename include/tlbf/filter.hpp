// SPDX-License-Identifier: MIT
// The one interface every window filter implements, so the program, the experiments, the
// benchmarks and the tests can use any of them interchangeably.
//
// Contract shared by all implementations:
//  - `now` is the caller's clock in nanoseconds. Callers pass a non-decreasing clock; a filter
//    treats an earlier `now` as its latest seen time (time never goes backwards inside it).
//    (The program gives it one from record times by merging its inputs by time and holding
//    records for --lateness; docs/architecture.md, "Time order".)
//    Count-window filters ignore `now`.
//  - may_contain() never mutates the filter (it is const and takes no locks).
//  - No false negatives: a key inserted at time t (or among the last W inserts, for a count
//    window) is reported present by may_contain() while now - t < span.
//  - insert_if_absent() is may_contain() followed, when absent, by insert(); it returns true
//    when the key was absent (the caller should treat the record as new).
//  - prefetch() is a hint only: calling it or not, for any key, changes no answer.
//
// These are the only verbs: the concrete classes are final and add none, so a caller that
// knows the concrete class (visit_filter(), visit.hpp) calls the same functions, resolved at
// compile time and inlined, instead of going through the virtual table per key.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "tlbf/serialize.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

class WindowFilter;
class BitSlicedTimeLimitedFilter;
class SliceMajorTimeLimitedFilter;
class AgePartitionedFilter;
template <class Layout>
class BasicGuardedEpochFilter;
class TimedEpochFilter;
namespace detail {
class SlicedSegments;
template <bool Blocked>
class SeparateSegments;
}  // namespace detail
class ExactWindow;
class TaggedFilter;

// The library's filter classes that visit_filter() (visit.hpp) reaches as themselves: one
// virtual call (WindowFilter::accept), then code compiled for the class. Any other filter, the
// library's or one defined elsewhere, arrives as WindowFilter& and is called through the
// virtual verbs. FilterVisitor and visit_filter() are made from this list, so a class added
// to it needs nothing more, and a filter left off it (a registered one from outside the
// library) needs nothing at all.
template <class... F>
struct FilterClasses {};
using VisitedFilters = FilterClasses<
    BitSlicedTimeLimitedFilter, SliceMajorTimeLimitedFilter, AgePartitionedFilter,
    BasicGuardedEpochFilter<detail::SlicedSegments>, BasicGuardedEpochFilter<detail::SeparateSegments<false>>,
    BasicGuardedEpochFilter<detail::SeparateSegments<true>>, TimedEpochFilter, ExactWindow, TaggedFilter, WindowFilter>;

namespace detail {
template <class F>
class VisitsOne {
 public:
  virtual void visit(F& f) = 0;

 protected:
  ~VisitsOne() = default;
};
template <class List>
class VisitsAll;
template <class... F>
class VisitsAll<FilterClasses<F...>> : public VisitsOne<F>... {
 public:
  using VisitsOne<F>::visit...;

 protected:
  ~VisitsAll() = default;
};
}  // namespace detail

// Double dispatch to a filter's concrete class (WindowFilter::accept()): visit(F&) for each
// class F of VisitedFilters, visit(WindowFilter&) for the rest. Implemented by
// visit_filter(), the way to reach it: a caller's generic lambda keeps compiling whatever
// classes the list holds.
class FilterVisitor : public detail::VisitsAll<VisitedFilters> {
 protected:
  ~FilterVisitor() = default;
};

// insert_if_absent() as may_contain() then insert(), both called on F: direct calls when F is
// a final class, so a class without a fused version still inlines into a caller that knows it.
template <class F>
bool insert_if_absent_in_two_steps(F& f, KeyHash h, Time now) {
  if (f.may_contain(h, now)) return false;
  f.insert(h, now);
  return true;
}

class WindowFilter {
 public:
  virtual ~WindowFilter() = default;

  virtual bool may_contain(KeyHash h, Time now) const = 0;
  virtual void insert(KeyHash h, Time now) = 0;
  virtual bool insert_if_absent(KeyHash h, Time now) { return insert_if_absent_in_two_steps(*this, h, now); }
  virtual FilterStats stats(Time now) const = 0;

  // A hint that `h` is about to be decided: starts fetching the words its query reads first,
  // so that a caller who hashes a few keys ahead overlaps their cache misses. It changes
  // nothing in the filter and no answer; by default it does nothing.
  virtual void prefetch(const KeyHash& h) const { static_cast<void>(h); }

  // Writes the complete state (parameters and data) so that the matching load() rebuilds a
  // filter that answers every query identically. The container (magic, version, checksum)
  // is the caller's business; see serialize.hpp.
  virtual void save(ByteWriter& out) const = 0;

  // Calls v.visit() with this filter as its concrete class.
  virtual void accept(FilterVisitor& v) { v.visit(*this); }

  // How many times a memory or slice cap has made the filter give up window length (dropped
  // data before it expired). Cheap enough to read after every insert, so that the program can
  // say so the moment a cap first binds; stats() gives the details (effective_span/count).
  std::uint64_t cap_binds() const noexcept { return cap_binds_; }

 protected:
  // Called by a filter each time a cap forces it to drop data before expiry.
  void note_cap_bound() noexcept { ++cap_binds_; }

 private:
  std::uint64_t cap_binds_ = 0;
};

// How many keys ahead the batch entry points prefetch: enough to cover a cache miss with the
// decisions of the keys before it, few enough that the prefetched lines are still cached.
inline constexpr std::size_t kPrefetchAhead = 8;

namespace detail {
template <class F, class = void>
struct has_batch : std::false_type {};
template <class F>
struct has_batch<
    F, std::void_t<decltype(std::declval<F&>().insert_if_absent_batch(
           std::declval<const KeyHash*>(), std::declval<const Time*>(), std::size_t{}, std::declval<bool*>()))>>
    : std::true_type {};

// Calls decide(i) for i = 0..n-1 in order, prefetching keys[i + kPrefetchAhead] first; stops
// after the first call that made f.cap_binds() grow. Returns how many were decided.
template <class F, class Decide>
std::size_t each_key(F& f, const KeyHash* keys, std::size_t n, Decide&& decide) {
  const std::uint64_t binds = f.cap_binds();
  for (std::size_t i = 0; i < n && i < kPrefetchAhead; ++i) f.prefetch(keys[i]);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) f.prefetch(keys[i + kPrefetchAhead]);
    decide(i);
    if (f.cap_binds() != binds) return i + 1;
  }
  return n;
}
// insert_if_absent_batch() key by key: the way of a filter without a faster one (and of a
// filter's own batch member where it has none).
template <class F>
std::size_t insert_if_absent_each(F& f, const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
  return each_key(f, keys, n, [&](std::size_t i) { fresh[i] = f.insert_if_absent(keys[i], times[i]); });
}
}  // namespace detail

// Decides n keys in order, exactly as n calls of f.insert_if_absent(keys[i], times[i]) would
// (a key repeated inside the batch is a duplicate of its earlier copy): fresh[i] is true when
// keys[i] was absent. It stops after the first key whose insert made f.cap_binds() grow and
// returns how many it decided (that key included), so the caller can report the bind at that
// record and call again for the rest; otherwise it returns n. A filter class with a faster
// way (its own member insert_if_absent_batch, same contract) is called through it; any other
// is called key by key, prefetching kPrefetchAhead keys ahead.
template <class F>
std::size_t insert_if_absent_batch(F& f, const KeyHash* keys, const Time* times, std::size_t n, bool* fresh) {
  if constexpr (detail::has_batch<F>::value) {
    return f.insert_if_absent_batch(keys, times, n, fresh);
  } else {
    return detail::insert_if_absent_each(f, keys, times, n, fresh);
  }
}

// The same for a caller that renews every key it sees (--refresh): present[i] is what
// f.may_contain(keys[i], times[i]) answered before keys[i] was inserted.
template <class F>
std::size_t contains_then_insert_batch(F& f, const KeyHash* keys, const Time* times, std::size_t n, bool* present) {
  return detail::each_key(f, keys, n, [&](std::size_t i) {
    present[i] = f.may_contain(keys[i], times[i]);
    f.insert(keys[i], times[i]);
  });
}

}  // namespace tlbf
