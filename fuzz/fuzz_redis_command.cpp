// Fuzzes what the Redis module takes from its clients and files (redis-module/): the TLBF.*
// argument rules, the memory limit and sizing of TLBF.RESERVE, the module's own arguments, and
// the value decoder that TLBF.LOADCHUNK, RESTORE and every RDB load go through.
//
// Input: one mode byte, then the data. Argument modes split the data at '\n' into an argument
// vector (arguments may hold any other byte, NUL included):
//   0, 1  TLBF.RESERVE's options, under a limit of 1 MiB (mode 1: a server maxmemory of 64 KiB)
//   2     TLBF.ADD / TLBF.EXISTS after the key: TIME ms|* item..., judged at a server clock
//   3     the module's arguments (--loadmodule tlbf_redis.so ARGS)
//   4     a value's bytes as they are
//   5, 6  a value's payload behind a valid header (mode 5: format version 1, 6: version 2) and
//         checksum, so mutations reach the parameters and the library's loader
// Invariants checked: every refusal is a CommandError (state_error for values) with a message
// of printable one-line text; nothing else escapes; an accepted RESERVE keeps its MAXMEMORY
// under the limit and allocates no more than filter_sizing.hpp predicts; a decoded value
// re-encodes to bytes that decode to the same value (the same bytes again, the same clock,
// seed and answers), and a version-2 value re-encodes to exactly its input unless its filter
// was saved in an older format of the library (then its header and parameters stay).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "filter_params.hpp"
#include "filter_sizing.hpp"
#include "filter_value.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/types.hpp"

namespace {

using tlbf_redis::CommandError;
using tlbf_redis::FilterValue;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_redis_command: invariant broken: %s\n", what);
    std::abort();
  }
}

// An error reply's text: not empty, one line of printable ASCII.
void check_message(const char* message) {
  const std::string_view m(message);
  require(!m.empty(), "a refusal says why");
  for (const char c : m) require(c >= 0x20 && c < 0x7f, "a refusal is one line of printable text");
}

std::vector<std::string_view> split_args(std::string_view data) {
  std::vector<std::string_view> args;
  if (data.empty()) return args;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= data.size(); ++i) {
    if (i == data.size() || data[i] == '\n') {
      args.push_back(data.substr(start, i - start));
      start = i + 1;
    }
  }
  return args;
}

const char* const kItems[] = {"", "a", "item-1", "item-2", "\x00\xff", "GET /index.html"};

// A value in use: items in and out, statistics, at times near its clock.
void exercise(FilterValue& v) {
  const std::int64_t base = v.clock_ms() < 0 ? 0 : v.clock_ms();
  for (std::int64_t i = 0; i < 6; ++i) {
    const std::int64_t t = base > tlbf_redis::kMaxMillis - 6 ? base : base + i;
    const std::string_view item(kItems[i], i == 4 ? 2 : std::char_traits<char>::length(kItems[i]));
    const bool fresh = v.insert_if_absent(item, t);
    require(v.may_contain(item, t), "an item just added is present");
    require(!fresh || v.clock_ms() >= t, "an insert moves the clock to its time at least");
  }
  (void)v.info();
}

void fuzz_reserve(std::string_view data, bool server_maxmemory) {
  tlbf_redis::ModuleSettings settings;
  settings.filter_memory_limit = std::uint64_t{1} << 20;
  const tlbf_redis::MemoryLimit limit =
      tlbf_redis::memory_limit(settings, server_maxmemory ? std::uint64_t{64} << 10 : 0);
  std::unique_ptr<FilterValue> v;
  try {
    tlbf_redis::ReserveRequest r = tlbf_redis::parse_reserve_options(split_args(data));
    tlbf_redis::apply_memory_limit(r, limit);
    require(r.params.max_memory <= limit.bytes, "a client's filter stays under the limit");
    v = std::make_unique<FilterValue>(r.params, r.seed.value_or(7));
  } catch (const CommandError& e) {
    check_message(e.what());
    return;
  }
  const std::uint64_t start = tlbf_redis::bytes_for_capacity(v->params(), tlbf_redis::start_capacity(v->params()));
  const tlbf::FilterStats s = v->filter().stats(0);
  require(s.bits_allocated / 8 <= v->params().max_memory, "a new filter holds no more than its MAXMEMORY");
  // A TLBF starts with the k slices of its insert range, of the size the window needs.
  if (v->params().algorithm == tlbf::Algorithm::tlbf)
    require(s.bits_allocated * (s.k + s.l) == start * 8 * s.k, "a new TLBF allocates what the sizing predicts");
  else
    require(s.bits_allocated == 0, "a new GEBF allocates nothing before its first insert");
  exercise(*v);
  const std::string bytes = v->encode();
  require(FilterValue::decode(bytes)->encode() == bytes, "a reserved filter survives a round trip");
}

void fuzz_time(std::string_view data) {
  const std::vector<std::string_view> args = split_args(data);
  try {
    if (args.size() < 3) throw CommandError("expected: key TIME ms|* item [item ...]");
    if (!tlbf_redis::is_keyword(args[0], "TIME")) throw CommandError("expected TIME after the key");
    const tlbf_redis::TimeArg t = tlbf_redis::parse_time(args[1]);
    require(t.server_clock || (t.ms >= 0 && t.ms <= tlbf_redis::kMaxMillis), "a time is in range");
    const std::int64_t server = static_cast<std::int64_t>(args.size()) * 1'000'000'007;
    tlbf_redis::check_not_ahead(t.server_clock ? server : t.ms, server, 60'000);
    require(t.server_clock || t.ms - server <= 60'000, "an accepted time is at most a window ahead");
  } catch (const CommandError& e) {
    check_message(e.what());
  }
}

void fuzz_module_args(std::string_view data) {
  try {
    const tlbf_redis::ModuleSettings s = tlbf_redis::parse_module_args(split_args(data));
    require(s.filter_memory_limit >= tlbf_redis::kMinMaxMemory && s.filter_memory_limit <= tlbf_redis::kMaxMaxMemory,
            "MAX_FILTER_MEMORY is in range");
  } catch (const CommandError& e) {
    check_message(e.what());
  }
}

void fuzz_value(std::string_view bytes) {
  std::unique_ptr<FilterValue> v;
  try {
    v = FilterValue::decode(bytes);
  } catch (const tlbf::state_error& e) {
    check_message(e.what());
    return;
  }
  require(v != nullptr, "a successful decode returns a value");
  const std::string again = v->encode();
  if (bytes.size() > 8 && bytes[8] == 2) {
    // The header, parameters, clock and seed come back as they were; the library's bytes too,
    // unless they were in an older format of the filter, which is written in the current one.
    tlbf::ByteWriter filter;
    v->filter().save(filter);
    const std::size_t before_filter = again.size() - filter.data().size() - 8;
    require(again.compare(0, before_filter, bytes.substr(0, before_filter)) == 0,
            "a version-2 value re-encodes to its header and parameters");
    // The filter's first bytes: its tag, then (TLBF) the format-1 marker and the format byte.
    const std::size_t format_bytes = 6;
    const bool older_format = bytes.size() < before_filter + format_bytes ||
                              again.compare(before_filter, format_bytes, bytes, before_filter, format_bytes) != 0;
    require(again == bytes || older_format, "a version-2 value in the current filter format re-encodes to its bytes");
  }
  std::unique_ptr<FilterValue> w;
  try {
    w = FilterValue::decode(again);
  } catch (const tlbf::state_error& e) {
    std::fprintf(stderr, "fuzz_redis_command: a decoded value does not decode after encoding: %s\n", e.what());
    std::abort();
  }
  require(w->encode() == again, "encoding a re-decoded value gives the same bytes");
  require(w->params() == v->params() && w->clock_ms() == v->clock_ms() && w->seed() == v->seed(),
          "parameters, clock and seed survive a round trip");
  for (const char* item : kItems)
    require(w->may_contain(item, v->clock_ms()) == v->may_contain(item, v->clock_ms()),
            "a re-decoded value answers as the decoded one");
  // A value may grow to its MAXMEMORY, up to the module's limit (1 GiB by default): allowed,
  // but past this fuzzer's malloc limit of the same size, so only smaller ones are grown.
  if (v->params().max_memory > (std::uint64_t{256} << 20)) return;
  exercise(*v);
}

// The payload behind the header of a format version and its checksum.
std::string framed(std::string_view payload, std::uint32_t version) {
  tlbf::ByteWriter w;
  for (const char c : std::string_view("TLBFREDS")) w.u8(static_cast<std::uint8_t>(c));
  w.u32(version);
  w.u32(0);
  std::string bytes = w.take();
  bytes.append(payload);
  const std::uint64_t sum = XXH3_64bits(payload.data(), payload.size());
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(sum >> (8 * i)));
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 7) {
    case 0:
    case 1:
      fuzz_reserve(rest, data[0] % 7 == 1);
      break;
    case 2:
      fuzz_time(rest);
      break;
    case 3:
      fuzz_module_args(rest);
      break;
    case 4:
      fuzz_value(rest);
      break;
    default:
      fuzz_value(framed(rest, data[0] % 7 == 5 ? 1 : 2));
      break;
  }
  return 0;
}
