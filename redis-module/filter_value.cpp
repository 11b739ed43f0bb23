// A filter as a Redis value, and its portable byte form.
//
// Invariant: encode() followed by decode() gives a value that answers every query and every
// TLBF.INFO field identically, on any machine; decode() accepts nothing else. The byte form
// (every integer little-endian through tlbf::ByteWriter, doubles as their IEEE-754 bits) is
//     magic "TLBFREDS" | u32 format version | u32 flags | payload | u64 XXH3-64 of payload
// and the payload is the reserved parameters, the clock and (from format version 2) the hash
// seed (payload_fields(), the one list both directions use), followed by the library's own
// save() bytes up to the checksum. Values are written in version 2; version 1, written before
// filters had seeds, is read with seed 0, which is how its items were hashed. A newer format
// version or an unknown flag is refused by name rather than misread; the checksum refuses any
// damaged byte before the library parses anything; only the reserved algorithm's loader
// reads the filter's bytes; a TLBF whose own memory cap is over the value's MAXMEMORY is
// refused.
#include "filter_value.hpp"

#include <algorithm>
#include <cstdint>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "filter_sizing.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/time_limited.hpp"
#include "tlbf/visit.hpp"

namespace tlbf_redis {
namespace {

constexpr std::string_view kMagic{"TLBFREDS", 8};
constexpr std::uint32_t kFormatVersion = 2;  // 2: the seed after the clock
constexpr std::uint32_t kKnownFlags = 0;     // no version defines any
constexpr std::size_t kHeaderSize = 8 + 4 + 4;
constexpr std::size_t kChecksumSize = 8;

struct Writing {
  tlbf::ByteWriter& out;
  void algorithm(tlbf::Algorithm& a) { out.u8(static_cast<std::uint8_t>(a)); }
  void i64(std::int64_t& v) { out.i64(v); }
  void u64(std::uint64_t& v) { out.u64(v); }
  void u32(std::uint32_t& v) { out.u32(v); }
  void f64(double& v) { out.f64(v); }
};

struct Reading {
  tlbf::ByteReader& in;
  void algorithm(tlbf::Algorithm& a) { a = static_cast<tlbf::Algorithm>(in.u8()); }
  void i64(std::int64_t& v) { v = in.i64(); }
  void u64(std::uint64_t& v) { v = in.u64(); }
  void u32(std::uint32_t& v) { v = in.u32(); }
  void f64(double& v) { v = in.f64(); }
};

// The payload's fields before the filter's bytes, in order, for a format version.
template <class Io>
void payload_fields(Io& io, std::uint32_t version, FilterParams& p, std::int64_t& clock_ms, std::uint64_t& seed) {
  io.algorithm(p.algorithm);
  io.i64(p.window_ms);
  io.f64(p.error_rate);
  io.u64(p.capacity);
  io.u64(p.max_memory);
  io.u32(p.shards);
  io.i64(clock_ms);
  if (version >= 2) io.u64(seed);
}

std::uint64_t read_u64_le(std::string_view s) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
  return v;
}

std::uint32_t read_u32_le(std::string_view s) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(s[i])} << (8 * i);
  return v;
}

// Only the reserved algorithm's loader (for gebf, the time-window one) may read the filter's
// bytes.
void check_filter_kind(tlbf::ByteReader peek, tlbf::Algorithm a) {
  if (peek.u8() != static_cast<std::uint8_t>(a))
    throw tlbf::state_error("corrupted (the filter is not the reserved algorithm)");
  if (a == tlbf::Algorithm::gebf && peek.u8() != tlbf::detail::kGebfTimed)
    throw tlbf::state_error("corrupted (not a time-window gebf)");
}

bool algorithm_matches(tlbf::Algorithm a, const std::string& stats_name) {
  if (a == tlbf::Algorithm::tlbf) return stats_name == "tlbf";
  return stats_name.rfind("gebf", 0) == 0;  // "gebf" or "gebf-blocked"
}

tlbf::Time to_nanos(std::int64_t ms) { return ms * kNanosPerMilli; }

}  // namespace

FilterValue::FilterValue(const FilterParams& params, std::uint64_t seed) : params_(params), seed_(seed) {
  check_params(params_);
  try {
    check_capacity_fits(params_);
    tlbf::FilterConfig config = to_config(params_);
    config.capacity = start_capacity(params_);
    filter_ = tlbf::make_filter(config);
  } catch (const tlbf::invalid_parameter& e) {  // an error rate no layout reaches, a MAXMEMORY too small
    throw CommandError(e.what());
  }
}

FilterValue::FilterValue(const FilterParams& params, std::int64_t clock_ms, std::uint64_t seed,
                         std::unique_ptr<tlbf::WindowFilter> filter)
    : params_(params), clock_ms_(clock_ms), seed_(seed), filter_(std::move(filter)) {}

bool FilterValue::insert_if_absent(std::string_view item, std::int64_t time_ms) {
  if (!filter_->insert_if_absent(tlbf::hash_key(item, seed_), to_nanos(time_ms))) return false;
  clock_ms_ = std::max(clock_ms_, time_ms);
  return true;
}

void FilterValue::insert_if_absent_batch(const std::string_view* items, std::size_t n, std::int64_t time_ms,
                                         bool* fresh) {
  std::fill_n(fresh, n, false);
  std::vector<tlbf::KeyHash> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = tlbf::hash_key(items[i], seed_);
  const std::vector<tlbf::Time> times(n, to_nanos(time_ms));
  // The batch returns early after a key whose insert made a cap bind; the rest go on.
  auto advance_clock = [&] {
    if (std::find(fresh, fresh + n, true) != fresh + n) clock_ms_ = std::max(clock_ms_, time_ms);
  };
  try {
    tlbf::visit_filter(*filter_, [&](auto& f) {
      for (std::size_t done = 0; done < n;)
        done += tlbf::insert_if_absent_batch(f, keys.data() + done, times.data() + done, n - done, fresh + done);
    });
  } catch (...) {
    advance_clock();
    throw;
  }
  advance_clock();
}

bool FilterValue::may_contain(std::string_view item, std::int64_t time_ms) const {
  return filter_->may_contain(tlbf::hash_key(item, seed_), to_nanos(time_ms));
}

std::vector<InfoField> FilterValue::info() const {
  const tlbf::FilterStats s = filter_->stats(to_nanos(std::max<std::int64_t>(clock_ms_, 0)));
  auto n = [](auto v) { return static_cast<long long>(v); };
  return {
      {"algorithm", s.algorithm},
      {"window_ms", n(params_.window_ms)},
      {"error_rate", params_.error_rate},
      {"capacity", n(params_.capacity)},
      {"max_memory", n(params_.max_memory)},
      {"shards", n(params_.shards)},
      {"clock_ms", n(clock_ms_)},
      {"k", n(s.k)},
      {"l", n(s.l)},
      {"slices", n(s.slices)},
      {"slice0_bits", n(s.slice0_bits)},
      {"bits_allocated", n(s.bits_allocated)},
      {"peak_bits_allocated", n(std::max(s.peak_bits_allocated, s.bits_allocated))},
      {"keys_inserted", n(s.keys_inserted)},
      {"live_keys", n(s.live_keys)},
      {"bits_per_key", s.bits_per_live_key},
      {"memory_capped", n(s.memory_capped ? 1 : 0)},
      {"cap_evictions", n(s.cap_evictions)},
  };
}

std::size_t FilterValue::memory_bytes() const {
  return sizeof(*this) +
         static_cast<std::size_t>(filter_->stats(to_nanos(std::max<std::int64_t>(clock_ms_, 0))).bits_allocated / 8);
}

std::string FilterValue::encode() const {
  tlbf::ByteWriter w;
  for (char c : kMagic) w.u8(static_cast<std::uint8_t>(c));
  w.u32(kFormatVersion);
  w.u32(kKnownFlags);
  FilterParams p = params_;
  std::int64_t clock = clock_ms_;
  std::uint64_t seed = seed_;
  Writing io{w};
  payload_fields(io, kFormatVersion, p, clock, seed);
  filter_->save(w);
  std::string bytes = w.take();
  const std::uint64_t sum = XXH3_64bits(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(sum >> (8 * i)));
  return bytes;
}

std::unique_ptr<FilterValue> FilterValue::decode(std::string_view bytes) {
  if (bytes.size() < kHeaderSize + kChecksumSize) throw tlbf::state_error("truncated (shorter than its header)");
  if (bytes.substr(0, kMagic.size()) != kMagic) throw tlbf::state_error("not a TLBF value (wrong magic bytes)");
  const std::uint32_t version = read_u32_le(bytes.substr(8));
  if (version > kFormatVersion)
    throw tlbf::state_error("written by a newer tlbf_redis (format version " + std::to_string(version) +
                            "; this one reads up to " + std::to_string(kFormatVersion) + ")");
  if (version == 0) throw tlbf::state_error("corrupted (format version 0)");
  if ((read_u32_le(bytes.substr(12)) & ~kKnownFlags) != 0) throw tlbf::state_error("corrupted (unknown flags)");
  const std::string_view payload = bytes.substr(kHeaderSize, bytes.size() - kHeaderSize - kChecksumSize);
  if (XXH3_64bits(payload.data(), payload.size()) != read_u64_le(bytes.substr(bytes.size() - kChecksumSize)))
    throw tlbf::state_error("corrupted (checksum mismatch)");

  tlbf::ByteReader in(payload);
  FilterParams p;
  std::int64_t clock = 0;
  std::uint64_t seed = 0;
  Reading io{in};
  payload_fields(io, version, p, clock, seed);
  try {
    check_params(p);
  } catch (const CommandError& e) {
    throw tlbf::state_error(std::string("corrupted (") + e.what() + ")");
  }
  if (clock < -1 || clock > kMaxMillis) throw tlbf::state_error("corrupted (clock out of range)");
  check_filter_kind(in, p.algorithm);
  std::unique_ptr<tlbf::WindowFilter> filter = tlbf::load_filter(in);
  if (!in.at_end()) throw tlbf::state_error("corrupted (bytes after the filter)");
  if (!algorithm_matches(p.algorithm, filter->stats(0).algorithm))
    throw tlbf::state_error("corrupted (the filter is not the reserved algorithm)");
  // The library grows a TLBF up to its own cap, saved in its bytes: a value whose cap is over
  // its MAXMEMORY would grow past the limit it was checked against.
  if (const auto* t = dynamic_cast<const tlbf::TimeLimitedFilter*>(filter.get()))
    if (t->max_slice_bits() / 8 > p.max_memory / (std::uint64_t{t->k()} + t->l()))
      throw tlbf::state_error("corrupted (the filter may grow beyond its MAXMEMORY)");
  return std::unique_ptr<FilterValue>(new FilterValue(p, clock, seed, std::move(filter)));
}

}  // namespace tlbf_redis
