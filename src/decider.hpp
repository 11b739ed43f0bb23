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
#pragma once

#include <cstdint>
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
  Decider(F& filter, Refresh refresh, std::uint64_t hash_seed) : filter_(filter), refresh_(refresh), hash_seed_(hash_seed) {}

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

// Calls fn(Decider<F>&) with F the filter's concrete class.
template <class Fn>
void with_decider(tlbf::WindowFilter& filter, Refresh refresh, std::uint64_t hash_seed, Fn&& fn) {
  tlbf::visit_filter(filter, [&](auto& concrete) {
    Decider<std::remove_reference_t<decltype(concrete)>> decider(concrete, refresh, hash_seed);
    fn(decider);
  });
}

}  // namespace tlbf_dedup
