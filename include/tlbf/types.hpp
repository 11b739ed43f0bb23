// SPDX-License-Identifier: MIT
// Vocabulary shared by every filter: time, key hashes, statistics, and the one exception
// type the library throws for bad parameters or bad serialized state.
//
// Time is an integer count of nanoseconds from an origin the caller chooses (the Unix epoch
// in the program, zero in tests). The library never reads a clock: every call that depends
// on time takes `now`, so tests drive time by hand and never sleep.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace tlbf {

using Time = std::int64_t;      // nanoseconds
using Duration = std::int64_t;  // nanoseconds

inline constexpr Duration kNanosecond = 1;
inline constexpr Duration kMicrosecond = 1000;
inline constexpr Duration kMillisecond = 1000 * kMicrosecond;
inline constexpr Duration kSecond = 1000 * kMillisecond;

// 128 bits of a key's hash. `lo` and `hi` feed enhanced double hashing (hash.hpp); the exact
// filter stores `lo` as the key's fingerprint.
struct KeyHash {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  friend bool operator==(KeyHash a, KeyHash b) { return a.lo == b.lo && a.hi == b.hi; }
};

// A parameter the filter cannot work with (zero span, error rate outside (0,1), ...).
// parameter() is the FilterConfig field it is about ("error_rate"), value() its value as the
// library writes it, problem() what is wrong ("must be between 0 and 1 (exclusive)");
// what() says all three: "error_rate 1.5: must be between 0 and 1 (exclusive)". A program
// can so report the problem under its own name for the field (an option, a setting).
class invalid_parameter : public std::invalid_argument {
 public:
  invalid_parameter(const std::string& parameter, const std::string& value, const std::string& problem)
      : std::invalid_argument(parameter + " " + value + ": " + problem),
        parts_(std::make_shared<const Parts>(Parts{parameter, value, problem})) {}

  const std::string& parameter() const noexcept { return parts_->parameter; }
  const std::string& value() const noexcept { return parts_->value; }
  const std::string& problem() const noexcept { return parts_->problem; }

 private:
  // Shared, so that copying the exception cannot throw.
  struct Parts {
    std::string parameter, value, problem;
  };
  std::shared_ptr<const Parts> parts_;
};

// Serialized state that cannot be loaded: truncated, corrupted, foreign, or from a newer
// format version. The message says which.
class state_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What every filter reports about itself. Fields a filter has no notion of stay zero.
struct FilterStats {
  std::string algorithm;                  // "tlbf", "apbf", "gebf", "gebf-blocked", "exact"
  std::uint64_t slices = 0;               // slices (TLBF/APBF), segments (GEBF), 0 for exact
  std::uint32_t k = 0;                    // hash functions / slices a key is set in
  std::uint32_t l = 0;                    // APBF/TLBF: extra slices beyond k
  std::uint64_t slice0_bits = 0;          // size of the newest slice/segment
  std::uint64_t bits_allocated = 0;       // all memory the filter holds for its data, in bits
  std::uint64_t keys_inserted = 0;        // inserts since creation
  std::uint64_t live_keys = 0;            // estimate of inserts still inside the window
  double bits_per_live_key = 0;           // bits_allocated / live_keys (0 when live_keys is 0)
  std::uint64_t peak_bits_allocated = 0;  // the most bits_allocated has been since creation
  bool memory_capped = false;             // the max_memory / max_slices cap has bound at least once
  std::uint64_t cap_evictions = 0;        // slices/segments dropped before expiry because of the cap
  // What the window has effectively shrunk to while a cap binds: the age (time window) or the
  // number of later inserts (count window) a key is still guaranteed to be reported for.
  // 0 when the cap has never bound (the full configured window holds).
  Time effective_span = 0;
  std::uint64_t effective_count = 0;
  // The tagged filter: slots in all tables, the newest table's live load, tables live, and
  // how far past the window a key may still be reported.
  std::uint64_t slots = 0;
  double load = 0;
  Duration slack = 0;
};

}  // namespace tlbf
