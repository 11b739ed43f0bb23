// The decision for one record: is its key a duplicate within the window?
//
// Decider<F> calls the filter as F. with_decider() picks F once per run (one virtual call,
// tlbf::visit_filter): the filter's own final class, so its query and insert are direct calls
// that inline into the record loop (the TLBF's share the key's probe hashes); a filter from
// outside the library arrives as tlbf::WindowFilter and is called through the virtual table.
// Every F makes the same decisions; only the calls differ.
//
// Keys are hashed with the filter's secret seed (see docs/filters.md): without it, whoever
// writes input lines could search offline for keys that collide or that set chosen bits.
//
// DeferredDecider is the other kind: a filter elsewhere (redis_backend.hpp) that answers
// later and in batches. The pipeline holds each record until its answer comes back, so the
// output order is the input order whichever kind decides.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/visit.hpp"

namespace tlbf_dedup {

enum class Refresh { no, yes };

// Without refresh the window runs from the last emitted copy: only new keys are inserted,
// so a duplicate does not extend its key's life. With refresh every occurrence renews it.
template <class F>
class Decider {
 public:
  static constexpr bool answers_later = false;

  Decider(F& filter, Refresh refresh, std::uint64_t hash_seed)
      : filter_(filter), refresh_(refresh), hash_seed_(hash_seed) {}

  bool is_duplicate(std::string_view key, tlbf::Time now) { return is_duplicate(tlbf::hash_key(key, hash_seed_), now); }
  bool is_duplicate(tlbf::KeyHash h, tlbf::Time now) {
    if (refresh_ == Refresh::no) return !filter_.insert_if_absent(h, now);
    const bool present = filter_.may_contain(h, now);
    filter_.insert(h, now);
    return present;
  }

 private:
  F& filter_;
  Refresh refresh_;
  std::uint64_t hash_seed_;
};

// The remote filter can no longer answer (its server is gone, or it refused a batch). The
// answers already received stay available (has_answer), so the records they decide can be
// written before the run stops; the message names the server.
class DecisionsLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A decider whose answers come later: submit() queues a key judged at `now` (and may send a
// batch or read answers); the answers come out of take_answer() in submit order, true for a
// duplicate. flush() sends what is queued and waits until every key submitted has its answer.
// submit() and flush() throw DecisionsLost when the answers of submitted keys cannot come.
class DeferredDecider {
 public:
  static constexpr bool answers_later = true;

  virtual ~DeferredDecider() = default;
  virtual void submit(std::string_view key, tlbf::Time now) = 0;
  virtual void flush() = 0;
  virtual bool has_answer() const = 0;
  virtual bool take_answer() = 0;
  // The statistics of the filter that answers, at `now`; call after flush().
  virtual tlbf::FilterStats stats(tlbf::Time now) = 0;
};

// Calls fn(Decider<F>&) with F the filter's concrete class.
template <class Fn>
void with_decider(tlbf::WindowFilter& filter, Refresh refresh, std::uint64_t hash_seed, Fn&& fn) {
  tlbf::visit_filter(filter, [&](auto& concrete) {
    Decider<std::remove_reference_t<decltype(concrete)>> decider(concrete, refresh, hash_seed);
    fn(decider);
  });
}

}  // namespace tlbf_dedup
