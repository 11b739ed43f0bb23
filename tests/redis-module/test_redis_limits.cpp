// The memory a filter in Redis may take: the module's MAX_FILTER_MEMORY argument, the server's
// maxmemory, the RESERVE rules under them, and the sizing the module computes before it
// allocates anything (redis-module/filter_sizing.hpp), checked against what the library
// allocates.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "filter_params.hpp"
#include "filter_sizing.hpp"
#include "filter_value.hpp"
#include "tlbf/hash.hpp"

using tlbf_redis::CommandError;
using tlbf_redis::FilterParams;
using tlbf_redis::FilterValue;
using tlbf_redis::MemoryLimit;
using tlbf_redis::ReserveRequest;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const CommandError& e) {
    return e.what();
  }
  return "accepted";
}

ReserveRequest reserve(std::initializer_list<std::string_view> w) { return tlbf_redis::parse_reserve_options(w); }

FilterParams params(tlbf::Algorithm a, double error, std::uint64_t capacity, std::uint64_t max_memory) {
  FilterParams p;
  p.algorithm = a;
  p.window_ms = 60'000;
  p.error_rate = error;
  p.capacity = capacity;
  p.max_memory = max_memory;
  return p;
}

}  // namespace

TEST_SUITE("redis.limits") {
  TEST_CASE("module arguments: MAX_FILTER_MEMORY in bytes, default 1 GiB, anything else refuses the load") {
    CHECK(tlbf_redis::parse_module_args({}).filter_memory_limit == std::uint64_t{1} << 30);
    CHECK(tlbf_redis::parse_module_args({"max_filter_memory", "65536"}).filter_memory_limit == 65536);
    const std::vector<std::pair<std::vector<std::string_view>, std::string>> bad = {
        {{"MAX_FILTER_MEMORY"}, "has no value"},
        {{"MAX_FILTER_MEMORY", "4095"}, "MAX_FILTER_MEMORY must be a whole number of bytes in [4096, 1099511627776]"},
        {{"MAX_FILTER_MEMORY", "1gb"}, "got '1gb'"},
        {{"MAX_FILTER_MEMORY", "4096", "MAX_FILTER_MEMORY", "8192"}, "given twice"},
        {{"COLOR", "red"}, "unknown module argument 'COLOR'"},
    };
    for (const auto& [args, mentions] : bad) {
      CAPTURE(mentions);
      CHECK(refusal([&] { tlbf_redis::parse_module_args(args); }).find(mentions) != std::string::npos);
    }
  }

  TEST_CASE("the limit is MAX_FILTER_MEMORY, or the server's maxmemory when it is set and lower") {
    tlbf_redis::ModuleSettings s;
    s.filter_memory_limit = 64 * kMiB;
    CHECK(tlbf_redis::memory_limit(s, 0).bytes == 64 * kMiB);
    CHECK_FALSE(tlbf_redis::memory_limit(s, 0).from_server_maxmemory);
    CHECK(tlbf_redis::memory_limit(s, 128 * kMiB).bytes == 64 * kMiB);
    CHECK(tlbf_redis::memory_limit(s, 32 * kMiB).bytes == 32 * kMiB);
    CHECK(tlbf_redis::memory_limit(s, 32 * kMiB).from_server_maxmemory);
  }

  TEST_CASE("RESERVE: a MAXMEMORY over the limit is refused naming it, a default one is lowered to it") {
    ReserveRequest r =
        reserve({"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "281474976710656", "MAXMEMORY", "1099511627776"});
    CHECK(r.max_memory_given);
    CHECK(refusal([&] {
            tlbf_redis::apply_memory_limit(r, MemoryLimit{std::uint64_t{1} << 30, false});
          }) ==
          "MAXMEMORY 1099511627776 is over the limit of 1073741824 bytes per filter (the module's MAX_FILTER_MEMORY)");
    CHECK(refusal([&] {
            tlbf_redis::apply_memory_limit(r, MemoryLimit{32 * kMiB, true});
          }) == "MAXMEMORY 1099511627776 is over the limit of 33554432 bytes per filter (the server's maxmemory)");

    ReserveRequest d = reserve({"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10"});
    CHECK_FALSE(d.max_memory_given);
    tlbf_redis::apply_memory_limit(d, MemoryLimit{32 * kMiB, true});
    CHECK(d.params.max_memory == 32 * kMiB);
    ReserveRequest big = reserve({"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10"});
    tlbf_redis::apply_memory_limit(big, MemoryLimit{std::uint64_t{1} << 40, false});
    CHECK(big.params.max_memory == tlbf_redis::kDefaultMaxMemory);  // the default, under a higher limit

    ReserveRequest at = reserve({"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "MAXMEMORY", "33554432"});
    CHECK_NOTHROW(tlbf_redis::apply_memory_limit(at, MemoryLimit{32 * kMiB, true}));  // at the limit is within it
    ReserveRequest tiny = reserve({"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10"});
    CHECK(refusal([&] {
            tlbf_redis::apply_memory_limit(tiny, MemoryLimit{1000, true});
          }).find("leaves no room for a filter") != std::string::npos);
  }

  TEST_CASE("a loaded value over the limit is refused") {
    const FilterParams p = params(tlbf::Algorithm::tlbf, 0.01, 10, 64 * kMiB);
    CHECK_NOTHROW(tlbf_redis::check_within_limit(p, MemoryLimit{64 * kMiB, false}));
    CHECK(refusal([&] {
            tlbf_redis::check_within_limit(p, MemoryLimit{kMiB, false});
          }).find("over the limit") != std::string::npos);
  }

  TEST_CASE("a value whose filter could grow past its MAXMEMORY is refused") {
    // A TLBF's byte form holds its own cap (u64 max_slice_bits, then u64 max_bits, at these
    // offsets in the library's bytes: tag, marker, format, k, l, span, min_bits); raised to
    // 1 TiB, the value would pass the limit check on MAXMEMORY and then grow with its inserts.
    FilterValue v(params(tlbf::Algorithm::tlbf, 0.5, 1, 4096), 1);
    std::string bytes = v.encode();
    const std::size_t library = 16 + 53, max_slice_bits = library + 1 + 4 + 1 + 4 + 4 + 8 + 8;
    auto put = [&](std::size_t at, std::uint64_t x) {
      for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(x >> (8 * i));
    };
    put(max_slice_bits, (std::uint64_t{1} << 43) / 4);
    put(max_slice_bits + 8, std::uint64_t{1} << 43);
    bytes.resize(bytes.size() - 8);
    const std::uint64_t sum = XXH3_64bits(bytes.data() + 16, bytes.size() - 16);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(sum >> (8 * i)));
    std::string message;
    try {
      FilterValue::decode(bytes);
    } catch (const tlbf::state_error& e) {
      message = e.what();
    }
    CHECK(message == "corrupted (the filter may grow beyond its MAXMEMORY)");
  }

  TEST_CASE("a CAPACITY far beyond MAXMEMORY is refused before anything is allocated") {
    // Built whole, this filter would take 70 TB; capped, 1 MiB; refused, nothing.
    const FilterParams p = params(tlbf::Algorithm::tlbf, 0.01, std::uint64_t{1} << 48, kMiB);
    CHECK(tlbf_redis::bytes_for_capacity(p, p.capacity) == 70'368'744'177'664);
    CHECK(refusal([&] { FilterValue(p, 1); }) ==
          "CAPACITY 281474976710656 needs more than MAXMEMORY 1048576 bytes (70368744177664 bytes); raise MAXMEMORY or "
          "lower CAPACITY");
    const FilterParams g = params(tlbf::Algorithm::gebf, 0.01, std::uint64_t{1} << 48, kMiB);
    CHECK(refusal([&] { FilterValue(g, 1); }).find("needs more than MAXMEMORY") != std::string::npos);
  }
}

TEST_SUITE("redis.sizing") {
  TEST_CASE("bytes_for_capacity is what the library allocates for that capacity") {
    for (double error : {0.5, 0.1, 1e-2, 1e-3, 1e-5}) {
      for (std::uint64_t capacity : {1ull, 7ull, 1000ull, 123'457ull, 1'000'000ull}) {
        CAPTURE(error);
        CAPTURE(capacity);
        const FilterParams p = params(tlbf::Algorithm::tlbf, error, capacity, std::uint64_t{1} << 30);
        REQUIRE(tlbf_redis::start_capacity(p) == capacity);  // all under kStartBytes: built whole
        const FilterValue v(p, 1);
        // Built with the k slices of the insert range, each of the size the window needs.
        const tlbf::FilterStats s = v.filter().stats(0);
        CHECK(s.bits_allocated * (s.k + s.l) == tlbf_redis::bytes_for_capacity(p, capacity) * 8 * s.k);

        const FilterParams g = params(tlbf::Algorithm::gebf, error, capacity, std::uint64_t{1} << 30);
        FilterValue w(g, 1);
        CHECK(w.filter().stats(0).bits_allocated == 0);  // nothing before the first insert
        w.insert_if_absent("first", 1000);
        CHECK(w.filter().stats(0).bits_allocated * (tlbf::kGebfTimeDefaultR + 1) ==
              tlbf_redis::bytes_for_capacity(g, capacity) * 8);
      }
    }
  }

  TEST_CASE("a large CAPACITY starts at most max(8 MiB, 1/64 of its size) and the largest capacity within that") {
    for (tlbf::Algorithm a : {tlbf::Algorithm::tlbf, tlbf::Algorithm::gebf}) {
      for (std::uint64_t capacity : {10'000'000ull, 100'000'000ull, 1'000'000'000ull}) {
        CAPTURE(capacity);
        const FilterParams p = params(a, 0.01, capacity, std::uint64_t{1} << 40);
        const std::uint64_t whole = tlbf_redis::bytes_for_capacity(p, capacity);
        const std::uint64_t budget = std::max(tlbf_redis::kStartBytes, whole / tlbf_redis::kStartFraction);
        const std::uint64_t start = tlbf_redis::start_capacity(p);
        CHECK(start < capacity);
        CHECK(tlbf_redis::bytes_for_capacity(p, start) <= budget);
        CHECK(tlbf_redis::bytes_for_capacity(p, start + 1) > budget);
      }
    }
    // The second case: CAPACITY 10^9 at 1e-2 needs 2.83 GB (the bit-sliced slices are
    // sized with the headroom twice: tlbf::TimeLimitedFilter::window_bits_for()) and starts
    // at 1/64 of it.
    const FilterParams p = params(tlbf::Algorithm::tlbf, 0.01, 1'000'000'000, std::uint64_t{4} << 30);
    CHECK(tlbf_redis::bytes_for_capacity(p, p.capacity) == 2'825'640'448);
    const std::uint64_t start = tlbf_redis::bytes_for_capacity(p, tlbf_redis::start_capacity(p));
    CHECK(start <= 2'825'640'448 / 64);
    CHECK(start > 2'825'640'448 / 65);
  }

  TEST_CASE("a filter reserved large allocates its start size, and grows with the items that arrive") {
    const FilterParams p = params(tlbf::Algorithm::tlbf, 0.01, 100'000'000, std::uint64_t{1} << 30);
    FilterValue v(p, 1);
    // The start capacity's k first slices: k / (k + l) of what its window takes.
    const tlbf::FilterStats first = v.filter().stats(0);
    const std::uint64_t start = first.bits_allocated / 8;
    CHECK(start * (first.k + first.l) <= tlbf_redis::kStartBytes * first.k);
    CHECK(start * (first.k + first.l) > tlbf_redis::kStartBytes / 2 * first.k);
    // 3.5 million items in the first sixteenth of the window: more than the start size holds
    // at its error rate (3.1 million), so the filter grows rather than losing them.
    const int n = 3'500'000;
    int duplicates = 0;
    std::string item;
    for (int i = 0; i < n; ++i) {
      item = "item-" + std::to_string(i);
      duplicates += v.insert_if_absent(item, 1 + i / 1000) ? 0 : 1;
    }
    const tlbf::FilterStats s = v.filter().stats(v.clock_ms() * 1'000'000);
    CHECK(s.bits_allocated / 8 > start);
    CHECK_FALSE(s.memory_capped);
    CHECK(duplicates < n * 0.01 * 1.2);  // false positives at the error rate, not more
    for (int i = 0; i < n; i += 997) REQUIRE(v.may_contain("item-" + std::to_string(i), v.clock_ms()));
  }
}
