// The parameters of a filter kept in Redis, the arguments of the TLBF.* commands and of the
// module itself, parsed and validated without any Redis type, so the rules are unit-tested
// (tests/redis-module/).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/config.hpp"

namespace tlbf_redis {

// A command the module refuses: the message is the reply's text after the "ERR " code.
// Parsing and checking throw it; the command layer turns it into one error reply.
class CommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Times on the wire are whole milliseconds; the filter counts nanoseconds. The largest
// accepted time or window keeps every nanosecond value, and their sum, inside int64.
inline constexpr std::int64_t kNanosPerMilli = 1'000'000;
inline constexpr std::int64_t kMaxMillis = (std::int64_t{1} << 62) / kNanosPerMilli;  // ~146,000 years

inline constexpr std::uint64_t kDefaultMaxMemory = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMinMaxMemory = 4096;  // as tlbf-dedup's --max-memory
inline constexpr std::uint64_t kMaxMaxMemory = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kDefaultFilterMemoryLimit = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxCapacity = std::uint64_t{1} << 48;
inline constexpr std::uint32_t kMaxShards = 16384;  // one per cluster hash slot

// Command keywords (TIME, WINDOW, ...) match in any letter case, as Redis's own do.
bool is_keyword(std::string_view arg, std::string_view keyword);

// A whole number in [min, max]: decimal digits only, the whole text. Throws CommandError
// naming `name`, the range in `unit`s and the text given.
std::uint64_t parse_whole_number(std::string_view name, std::string_view text, std::uint64_t min, std::uint64_t max,
                                 std::string_view unit);

// Everything TLBF.RESERVE fixes for the life of a filter. Stored with the filter (RDB, AOF)
// and shown by TLBF.INFO, so every producer of a sharded filter reads the same values.
struct FilterParams {
  tlbf::Algorithm algorithm = tlbf::Algorithm::tlbf;
  std::int64_t window_ms = 0;
  double error_rate = 0;
  std::uint64_t capacity = 0;
  std::uint64_t max_memory = kDefaultMaxMemory;
  std::uint32_t shards = 1;

  friend bool operator==(const FilterParams& a, const FilterParams& b) {
    return a.algorithm == b.algorithm && a.window_ms == b.window_ms && a.error_rate == b.error_rate &&
           a.capacity == b.capacity && a.max_memory == b.max_memory && a.shards == b.shards;
  }
};

// What TLBF.RESERVE asks for: the parameters, whether MAXMEMORY was given (a default one is
// lowered to the memory limit, a given one above it is refused), and the hash seed, which only
// the primary and the AOF send (SEED): a client's filter draws its own.
struct ReserveRequest {
  FilterParams params;
  bool max_memory_given = false;
  std::optional<std::uint64_t> seed;
};

// The options of TLBF.RESERVE after the key: WINDOW ms ERROR rate CAPACITY n, in any order,
// then optionally ALGORITHM tlbf|gebf, MAXMEMORY bytes, SHARDS n, SEED n. Keywords are
// case-insensitive; each may appear once.
ReserveRequest parse_reserve_options(const std::vector<std::string_view>& args);

// The module's own settings: the arguments after its path in `--loadmodule` (or `loadmodule`
// in redis.conf), keyword and value pairs in any letter case.
struct ModuleSettings {
  // MAX_FILTER_MEMORY bytes: the most memory one filter may be reserved with.
  std::uint64_t filter_memory_limit = kDefaultFilterMemoryLimit;
};
ModuleSettings parse_module_args(const std::vector<std::string_view>& args);

// The most memory a filter a client reserves now may have, and what sets it: the module's
// MAX_FILTER_MEMORY, or the server's maxmemory (0: none) when that is lower.
struct MemoryLimit {
  std::uint64_t bytes = kDefaultFilterMemoryLimit;
  bool from_server_maxmemory = false;
};
MemoryLimit memory_limit(const ModuleSettings& settings, std::uint64_t server_maxmemory);
// "N bytes per filter (what sets it)", for messages.
std::string describe(const MemoryLimit& limit);

// A client's RESERVE under the limit: a MAXMEMORY given above it is refused, a default one is
// lowered to it (CommandError when even the smallest filter does not fit).
void apply_memory_limit(ReserveRequest& request, const MemoryLimit& limit);

// Refuses (CommandError) a value whose MAXMEMORY is above the limit: what a client loads with
// TLBF.LOADCHUNK may not ask for more than what it could reserve.
void check_within_limit(const FilterParams& p, const MemoryLimit& limit);

// Throws CommandError naming the first field out of range; used on parsed and loaded values.
void check_params(const FilterParams& p);

tlbf::FilterConfig to_config(const FilterParams& p);

// The TIME argument of TLBF.ADD and TLBF.EXISTS: whole milliseconds >= 0, or "*" for the
// server's clock.
struct TimeArg {
  bool server_clock = false;
  std::int64_t ms = 0;
};
TimeArg parse_time(std::string_view arg);

// TLBF.ADD refuses a time more than one window ahead of the server's clock: such a time
// would carry the filter's clock (which never goes back) into the future, and every later
// insert would be stamped there and outlive its window by as much. Replicated and loaded
// commands are not checked (they carry the primary's decision). Throws CommandError.
void check_not_ahead(std::int64_t time_ms, std::int64_t server_ms, std::int64_t window_ms);

}  // namespace tlbf_redis
