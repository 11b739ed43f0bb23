// Parsers for the quantities users type on the command line: durations ("250ms", "5m", a
// bare number of seconds) and byte sizes ("512M", "2G"). Both are pure functions that
// return nullopt for anything they do not fully understand, so the option layer can name
// the offending value in one usage error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

// Units: ns, us, ms, s, m or min, h, d; a bare number means seconds. A fraction is allowed
// ("1.5s"). Terms add up, longest unit first: "1h30m", "2m30.5s" (a fraction only in the
// last term; "30m1h" and "1h30" are refused). The result is > 0 unless the text says 0.
std::optional<tlbf::Duration> parse_duration(std::string_view text);

// The longest duration an option takes: 36500 days (100 years), so that a time plus a window,
// or a hundred windows (the jump threshold), stays inside 64-bit nanoseconds.
constexpr tlbf::Duration kLongestOptionDuration = 36500LL * 86400 * tlbf::kSecond;
// A duration well formed but longer than kLongestOptionDuration (also one longer than a
// Duration holds): what a message says instead of "not a duration".
bool is_duration_too_long(std::string_view text);
std::string longest_duration();  // kLongestOptionDuration spelled: "36500d"

// The shortest exact spelling parse_duration() reads back: "5m", "250ms", "1500us".
std::string format_duration(tlbf::Duration d);

// A duration as people read it, to two units at most, rounded down: 18h22m, 3d4h, 7m32s,
// 12.5s, 250ms; "centuries" beyond what a Duration holds.
std::string readable_duration(std::uint64_t ns);

// A byte count with an optional binary suffix K, M, G, T (powers of 1024, an optional
// trailing "B" or "iB" is accepted).
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace tlbf_dedup
