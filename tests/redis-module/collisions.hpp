// The attack a filter's secret seed defends against, as a search anyone could run offline:
// given a TLBF's parameters and an item someone else will send (the victim), find an item of
// one's own that, inserted first, sets every bit the victim's query reads, so the victim is
// judged a duplicate. Under seed 0 the probe positions follow from the item's bytes alone;
// under a secret seed they cannot be computed. Used by the unit tests and by
// tlbf_redis_collide (collide.cpp), the e2e tests' helper.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "filter_value.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf_redis::testing {

// An item that, inserted into a fresh filter of parameters `p` and seed `seed`, makes the
// victim reported at the same time; tries "<prefix>0", "<prefix>1", ... up to `tries`
// candidates. Each candidate is compared by the probe positions of run 0 (probe i in the
// slice at position i, detail/age_partitioned.hpp); the one found is checked on a real value.
inline std::optional<std::string> find_cover(const FilterParams& p, std::uint64_t seed, std::string_view victim,
                                             std::string_view prefix, std::uint64_t tries) {
  const FilterValue fresh(p, seed);
  const auto* filter = dynamic_cast<const tlbf::TimeLimitedFilter*>(&fresh.filter());
  if (filter == nullptr) return std::nullopt;
  const std::uint32_t k = filter->k();
  std::vector<std::uint64_t> bits(k), wanted(k);
  for (std::uint32_t i = 0; i < k; ++i) bits[i] = filter->slice(i).bits;
  auto covers = [&](std::string_view item, bool record) {
    const tlbf::KeyHash h = tlbf::hash_key(item, seed);
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::uint64_t bit = tlbf::reduce(tlbf::detail::run_probe(h, i), bits[i]);
      if (record) wanted[i] = bit;
      if (bit != wanted[i]) return false;
    }
    return true;
  };
  covers(victim, true);
  std::string candidate(prefix);
  for (std::uint64_t n = 0; n < tries; ++n) {
    candidate.resize(prefix.size());
    candidate += std::to_string(n);
    if (candidate == victim || !covers(candidate, false)) continue;
    FilterValue check(p, seed);
    const std::int64_t now = 1000;
    if (check.may_contain(victim, now) || !check.insert_if_absent(candidate, now) || !check.may_contain(victim, now))
      continue;  // not a cover on the real filter: the probe rule above is out of date
    return candidate;
  }
  return std::nullopt;
}

}  // namespace tlbf_redis::testing
