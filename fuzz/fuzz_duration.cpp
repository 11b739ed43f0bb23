// Fuzzes the command-line quantity parsers (src/base/duration.hpp): parse_duration and
// parse_byte_size, with the input as the option value.
//
// Invariants checked: an accepted duration is >= 0 and round-trips through its spelling in
// nanoseconds; an accepted byte size round-trips through its spelling in bytes; a bare whole
// number of seconds is exact; and a value is accepted only when the whole text is understood
// (appending a byte that no unit contains makes it unparseable).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/duration.hpp"

namespace {

void require(bool ok, const char* what, std::string_view input) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_duration: invariant broken: %s (input \"%.*s\")\n", what, static_cast<int>(input.size()),
                 input.data());
    std::abort();
  }
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string extended = std::string(text) + '\x01';

  if (auto d = tlbf_dedup::parse_duration(text)) {
    require(*d >= 0, "a duration is never negative", text);
    auto again = tlbf_dedup::parse_duration(std::to_string(*d) + "ns");
    require(again && *again == *d, "a duration round-trips through nanoseconds", text);
    if (all_digits(text)) require(*d == std::stoll(std::string(text)) * 1000000000LL, "bare seconds are exact", text);
  }
  require(!tlbf_dedup::parse_duration(extended), "trailing garbage is refused (duration)", text);

  if (auto b = tlbf_dedup::parse_byte_size(text)) {
    auto again = tlbf_dedup::parse_byte_size(std::to_string(*b));
    require(again && *again == *b, "a byte size round-trips through bytes", text);
    if (all_digits(text)) require(*b == std::stoull(std::string(text)), "a bare number is bytes", text);
  }
  require(!tlbf_dedup::parse_byte_size(extended), "trailing garbage is refused (byte size)", text);
  return 0;
}
