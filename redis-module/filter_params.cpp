// Parsing and validation of the TLBF.* command arguments and of the module's own arguments,
// and the memory limit a client's filter is held to.
//
// Invariant: a value is accepted only when its whole text is a number of the expected form
// and it lies inside the documented range; anything else is a CommandError whose message
// names the argument and quotes what was given (cut to a readable length), and nothing has
// been changed by then. Numbers are read with std::from_chars / strtod on a bounded copy: no
// locale, no leading blanks, no "+", no trailing bytes. A client's filter never gets a
// MAXMEMORY above the limit of the moment (the module's MAX_FILTER_MEMORY, or the server's
// maxmemory when lower).
#include "filter_params.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace tlbf_redis {
namespace {

// The text given, cut to a readable length, with every byte outside printable ASCII (and the
// quote and backslash) as \xNN, so a message is one line of text whatever the input held.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string q = "'";
  for (const char c : s.substr(0, kShown)) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && c != '\'' && c != '\\') {
      q += c;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      q += "\\x";
      q += kHex[b >> 4];
      q += kHex[b & 15];
    }
  }
  if (s.size() > kShown) q += "...";
  q += "'";
  return q;
}

}  // namespace

bool is_keyword(std::string_view arg, std::string_view keyword) {
  if (arg.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < arg.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(arg[i])) != std::tolower(static_cast<unsigned char>(keyword[i])))
      return false;
  return true;
}

std::uint64_t parse_whole_number(std::string_view name, std::string_view text, std::uint64_t min, std::uint64_t max,
                                 std::string_view unit) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const bool digits_only = !text.empty() && text[0] != '-';
  if (!digits_only || ec != std::errc() || ptr != end || v < min || v > max)
    throw CommandError(std::string(name) + " must be a whole number of " + std::string(unit) + " in [" +
                       std::to_string(min) + ", " + std::to_string(max) + "], got " + quoted(text));
  return v;
}

namespace {

double rate_in_open_unit_interval(std::string_view name, std::string_view text) {
  const std::string fail =
      std::string(name) + " must be a number between 0 and 1 (exclusive), e.g. 1e-3, got " + quoted(text);
  // strtod needs a terminated string; a rate needs no more than a few dozen characters.
  if (text.empty() || text.size() > 64 || text[0] == '+' || std::isspace(static_cast<unsigned char>(text[0])))
    throw CommandError(fail);
  const std::string copy(text);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !(v > 0.0 && v < 1.0)) throw CommandError(fail);
  return v;
}

}  // namespace

namespace {

// Each keyword at most once.
void once(bool& seen, std::string_view keyword) {
  if (seen) throw CommandError(std::string(keyword) + " given twice");
  seen = true;
}

}  // namespace

ReserveRequest parse_reserve_options(const std::vector<std::string_view>& args) {
  ReserveRequest r;
  FilterParams& p = r.params;
  bool window = false, error = false, capacity = false, algorithm = false, shards = false, seed = false;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string_view keyword = args[i];
    if (i + 1 >= args.size()) throw CommandError("option " + quoted(keyword) + " has no value");
    const std::string_view value = args[i + 1];
    if (is_keyword(keyword, "WINDOW")) {
      once(window, "WINDOW");
      p.window_ms = static_cast<std::int64_t>(parse_whole_number("WINDOW", value, 1, kMaxMillis, "milliseconds"));
    } else if (is_keyword(keyword, "ERROR")) {
      once(error, "ERROR");
      p.error_rate = rate_in_open_unit_interval("ERROR", value);
    } else if (is_keyword(keyword, "CAPACITY")) {
      once(capacity, "CAPACITY");
      p.capacity = parse_whole_number("CAPACITY", value, 1, kMaxCapacity, "keys");
    } else if (is_keyword(keyword, "ALGORITHM")) {
      once(algorithm, "ALGORITHM");
      if (is_keyword(value, "tlbf"))
        p.algorithm = tlbf::Algorithm::tlbf;
      else if (is_keyword(value, "gebf"))
        p.algorithm = tlbf::Algorithm::gebf;
      else
        throw CommandError("ALGORITHM must be tlbf or gebf, got " + quoted(value));
    } else if (is_keyword(keyword, "MAXMEMORY")) {
      once(r.max_memory_given, "MAXMEMORY");
      p.max_memory = parse_whole_number("MAXMEMORY", value, kMinMaxMemory, kMaxMaxMemory, "bytes");
    } else if (is_keyword(keyword, "SHARDS")) {
      once(shards, "SHARDS");
      p.shards = static_cast<std::uint32_t>(parse_whole_number("SHARDS", value, 1, kMaxShards, "shards"));
    } else if (is_keyword(keyword, "SEED")) {
      once(seed, "SEED");
      r.seed = parse_whole_number("SEED", value, 0, std::numeric_limits<std::uint64_t>::max(), "64 bits");
    } else {
      throw CommandError("unknown option " + quoted(keyword) +
                         " (expected WINDOW, ERROR, CAPACITY, ALGORITHM, MAXMEMORY or SHARDS)");
    }
  }
  if (!window || !error || !capacity) throw CommandError("WINDOW, ERROR and CAPACITY are required");
  return r;
}

ModuleSettings parse_module_args(const std::vector<std::string_view>& args) {
  ModuleSettings s;
  bool limit = false;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string_view keyword = args[i];
    if (!is_keyword(keyword, "MAX_FILTER_MEMORY"))
      throw CommandError("unknown module argument " + quoted(keyword) + " (expected MAX_FILTER_MEMORY)");
    if (i + 1 >= args.size()) throw CommandError("module argument " + quoted(keyword) + " has no value");
    once(limit, "MAX_FILTER_MEMORY");
    s.filter_memory_limit = parse_whole_number("MAX_FILTER_MEMORY", args[i + 1], kMinMaxMemory, kMaxMaxMemory, "bytes");
  }
  return s;
}

MemoryLimit memory_limit(const ModuleSettings& settings, std::uint64_t server_maxmemory) {
  if (server_maxmemory != 0 && server_maxmemory < settings.filter_memory_limit) return {server_maxmemory, true};
  return {settings.filter_memory_limit, false};
}

void apply_memory_limit(ReserveRequest& request, const MemoryLimit& limit) {
  FilterParams& p = request.params;
  if (!request.max_memory_given) {
    if (limit.bytes < kMinMaxMemory)
      throw CommandError("the limit of " + describe(limit) + " leaves no room for a filter, which needs at least " +
                         std::to_string(kMinMaxMemory) + " bytes");
    p.max_memory = std::min(kDefaultMaxMemory, limit.bytes);
  }
  check_within_limit(p, limit);
}

void check_within_limit(const FilterParams& p, const MemoryLimit& limit) {
  if (p.max_memory > limit.bytes)
    throw CommandError("MAXMEMORY " + std::to_string(p.max_memory) + " is over the limit of " + describe(limit));
}

std::string describe(const MemoryLimit& limit) {
  return std::to_string(limit.bytes) + " bytes per filter (" +
         (limit.from_server_maxmemory ? "the server's maxmemory" : "the module's MAX_FILTER_MEMORY") + ")";
}

void check_params(const FilterParams& p) {
  if (p.algorithm != tlbf::Algorithm::tlbf && p.algorithm != tlbf::Algorithm::gebf)
    throw CommandError("algorithm must be tlbf or gebf");
  if (p.window_ms < 1 || p.window_ms > kMaxMillis) throw CommandError("window out of range");
  if (!(p.error_rate > 0.0 && p.error_rate < 1.0)) throw CommandError("error rate out of range");
  if (p.capacity < 1 || p.capacity > kMaxCapacity) throw CommandError("capacity out of range");
  if (p.max_memory < kMinMaxMemory || p.max_memory > kMaxMaxMemory) throw CommandError("max memory out of range");
  if (p.shards < 1 || p.shards > kMaxShards) throw CommandError("shard count out of range");
}

tlbf::FilterConfig to_config(const FilterParams& p) {
  tlbf::FilterConfig c;
  c.algorithm = p.algorithm;
  c.span = p.window_ms * kNanosPerMilli;
  c.error_rate = p.error_rate;
  c.capacity = p.capacity;
  c.max_memory_bytes = p.max_memory;
  return c;
}

TimeArg parse_time(std::string_view arg) {
  if (arg == "*") return TimeArg{true, 0};
  return TimeArg{false,
                 static_cast<std::int64_t>(parse_whole_number("TIME", arg, 0, kMaxMillis, "milliseconds (or *)"))};
}

void check_not_ahead(std::int64_t time_ms, std::int64_t server_ms, std::int64_t window_ms) {
  if (time_ms > server_ms && time_ms - server_ms > window_ms)
    throw CommandError("TIME " + std::to_string(time_ms) + " is more than the window (" + std::to_string(window_ms) +
                       " ms) ahead of the server clock (" + std::to_string(server_ms) + ")");
}

}  // namespace tlbf_redis
