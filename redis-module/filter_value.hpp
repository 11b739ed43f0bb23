// The value a TLBF key holds in Redis: the filter, the parameters it was reserved with, its
// clock and the secret seed its items are hashed with; and the portable, versioned byte form
// that RDB, AOF rewrite and DEBUG DIGEST use (docs/redis.md has the layout).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "filter_params.hpp"
#include "tlbf/filter.hpp"

namespace tlbf_redis {

// One TLBF.INFO field: an integer, a real number or a word.
struct InfoField {
  std::string name;
  std::variant<long long, double, std::string> value;
};

class FilterValue {
 public:
  // Throws CommandError when the library refuses the parameters, or when CAPACITY needs
  // more memory than MAXMEMORY allows (the filter would start out capped). Allocates at most
  // what filter_sizing.hpp says: the filter starts at start_capacity(params).
  FilterValue(const FilterParams& params, std::uint64_t seed);

  // Inserts the item unless present at time_ms; true when it was new. The clock advances to
  // time_ms only with an insert (a duplicate changes nothing), and never back.
  bool insert_if_absent(std::string_view item, std::int64_t time_ms);
  // insert_if_absent() of items[0..n) at one time, in order (an item repeated among them is a
  // duplicate of its earlier copy): fresh[i] is what the i-th call would have answered. The
  // filter decides them through its batch entry point, which fetches the cells of the items
  // ahead while it decides the one at hand. If the filter throws, fresh[] holds true for each
  // item inserted before, false for the rest.
  void insert_if_absent_batch(const std::string_view* items, std::size_t n, std::int64_t time_ms, bool* fresh);
  bool may_contain(std::string_view item, std::int64_t time_ms) const;

  const FilterParams& params() const { return params_; }
  // The latest time of an insert, in ms; -1 before the first.
  std::int64_t clock_ms() const { return clock_ms_; }
  // Items are hashed with tlbf::hash_key(item, seed): drawn from the OS at TLBF.RESERVE, 0 for
  // a value written before seeds (format version 1). Never shown in info().
  std::uint64_t seed() const { return seed_; }
  const tlbf::WindowFilter& filter() const { return *filter_; }

  // The parameters, then the filter's statistics at its clock under the names of
  // `tlbf-dedup --stats` (src/report/stats.cpp).
  std::vector<InfoField> info() const;
  // What the value holds in memory, for MEMORY USAGE.
  std::size_t memory_bytes() const;

  std::string encode() const;
  // Throws tlbf::state_error naming the problem when the bytes are not a value this
  // module wrote (wrong magic, newer format version, checksum, bad field). Reads format
  // versions 1 (no seed: seed 0) and 2.
  static std::unique_ptr<FilterValue> decode(std::string_view bytes);

 private:
  FilterValue(const FilterParams& params, std::int64_t clock_ms, std::uint64_t seed,
              std::unique_ptr<tlbf::WindowFilter> filter);

  FilterParams params_;
  std::int64_t clock_ms_ = -1;
  std::uint64_t seed_ = 0;
  std::unique_ptr<tlbf::WindowFilter> filter_;
};

}  // namespace tlbf_redis
