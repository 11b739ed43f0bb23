// Fuzzes the time zone readers (src/extract/time_zone.hpp) with the input as a TZif file and
// as a POSIX TZ rule (a TZif file's footer), the two forms of untrusted zone data.
//
// Invariants checked: a zone read from either has offsets within 26 hours; offset_at and
// span_of_local agree: the span of a local time contains it, and outside the windows of a
// change of offset the local time of an instant reads back as that
// instant (spans longer than any change of offset, 52 hours); abbreviations have offsets
// within 26 hours too.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "extract/time_zone.hpp"

namespace {

constexpr std::int64_t kMostOffset = 26 * 3600;

[[noreturn]] void broken(const char* what, std::int64_t t) {
  std::fprintf(stderr, "fuzz_time_zone: invariant broken: %s (at %" PRId64 ")\n", what, t);
  std::abort();
}

void check(const tlbf_dedup::TimeZone& z) {
  // Instants from 1677 to 2262, and the edges of the 64-bit range of seconds.
  for (std::int64_t t = -9223372036LL; t < 9223372036LL; t += 86400LL * 397 + 3607) {
    const std::int32_t off = z.offset_at(t);
    if (off <= -kMostOffset || off >= kMostOffset) broken("an offset beyond 26 hours", t);
    const std::int64_t local = t + off;
    const tlbf_dedup::TimeZone::Span s = z.span_of_local(local);
    if (!s.contains(local)) broken("a local time outside its own span", local);
    if (s.offset <= -kMostOffset || s.offset >= kMostOffset) broken("a span's offset beyond 26 hours", local);
    // An unbounded end first: the width of a span that has one does not fit an int64.
    const bool wide =
        s.local_to == INT64_MAX || s.local_from == INT64_MIN || s.local_to - s.local_from > 2 * kMostOffset;
    if (wide && z.utc_of_local(local) != t) broken("a local time away from a change that does not read back", t);
  }
  for (std::int64_t local : {INT64_MIN / 2, std::int64_t{0}, INT64_MAX / 2})
    if (!z.span_of_local(local).contains(local)) broken("a far local time outside its span", local);
  for (const char* name : {"UTC", "CET", "CEST", "EST", "LMT", "+03"})
    if (auto off = z.offset_of_abbreviation(name); off && (*off <= -kMostOffset || *off >= kMostOffset))
      broken("an abbreviation's offset beyond 26 hours", *off);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  if (auto z = tlbf_dedup::TimeZone::from_tzif(bytes, "fuzz", &error))
    check(*z);
  else if (error.empty())
    broken("a refused TZif file says why", 0);
  error.clear();
  if (size <= 256) {
    if (auto z = tlbf_dedup::TimeZone::from_posix_rule(bytes, &error))
      check(*z);
    else if (error.empty())
      broken("a refused rule says why", 0);
  }
  return 0;
}
