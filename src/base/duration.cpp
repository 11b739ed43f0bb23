// Durations and byte sizes from their command-line spelling.
//
// Invariant: a value is accepted only when the whole text is consumed and the result fits
// in the target type; anything else is nullopt, never a silently truncated number. The
// number part is parsed as decimal digits with an optional fraction by hand (no locale,
// no floating-point rounding for whole numbers).
#include "base/duration.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

namespace tlbf_dedup {
namespace {

struct Decimal {
  std::uint64_t whole = 0;
  double fraction = 0;  // in [0, 1)
  std::size_t length = 0;
  bool point = false;     // written with a '.'
  bool overflow = false;  // the whole part is past UINT64_MAX (`whole` is not it)
};

// Parses "123" or "1.25" at the start of `s`; nullopt when there is no digit at all. A whole
// part past UINT64_MAX is read to its end and marked `overflow`.
std::optional<Decimal> leading_decimal(std::string_view s) {
  Decimal d;
  std::size_t i = 0;
  bool any = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (d.whole > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) d.overflow = true;
    d.whole = d.whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
    any = true;
  }
  if (i < s.size() && s[i] == '.') {
    d.point = true;
    ++i;
    double scale = 0.1;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      d.fraction += scale * (s[i] - '0');
      scale /= 10;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  d.length = i;
  return d;
}

std::optional<std::uint64_t> scale(const Decimal& d, std::uint64_t unit) {
  if (d.overflow) return std::nullopt;
  if (unit != 0 && d.whole > std::numeric_limits<std::uint64_t>::max() / unit) return std::nullopt;
  double frac = std::floor(d.fraction * static_cast<double>(unit) + 0.5);
  std::uint64_t v = d.whole * unit;
  if (static_cast<double>(std::numeric_limits<std::uint64_t>::max() - v) < frac) return std::nullopt;
  return v + static_cast<std::uint64_t>(frac);
}

// Nanoseconds per unit; nullopt for an unknown unit. A bare number means seconds.
std::optional<std::uint64_t> nanoseconds_per(std::string_view unit) {
  if (unit.empty() || unit == "s") return 1000000000ULL;
  if (unit == "ns") return 1;
  if (unit == "us") return 1000ULL;
  if (unit == "ms") return 1000000ULL;
  if (unit == "m" || unit == "min") return 60ULL * 1000000000ULL;
  if (unit == "h") return 3600ULL * 1000000000ULL;
  if (unit == "d") return 86400ULL * 1000000000ULL;
  return std::nullopt;
}

// The duration `text` spells, in nanoseconds, saturated at UINT64_MAX (so that a well-formed
// but too long value is known as such); nullopt when it spells none. A bare number is
// seconds; otherwise terms of a number and a unit ("1h30m", "1.5s", "5min"), the units
// getting shorter from term to term, a fraction only in the last term.
std::optional<std::uint64_t> read_duration(std::string_view text) {
  std::uint64_t total = 0, previous_unit = std::numeric_limits<std::uint64_t>::max();
  bool bare = true, fraction_seen = false;
  for (std::size_t i = 0; i < text.size() || bare;) {
    const std::optional<Decimal> d = leading_decimal(text.substr(i));
    if (!d || fraction_seen) return std::nullopt;
    i += d->length;
    std::size_t letters = 0;
    while (i + letters < text.size() && text[i + letters] >= 'a' && text[i + letters] <= 'z') ++letters;
    if (letters == 0 && !(bare && i == text.size())) return std::nullopt;  // a unit, but for a bare number
    const std::optional<std::uint64_t> unit = nanoseconds_per(text.substr(i, letters));
    if (!unit || *unit >= previous_unit) return std::nullopt;
    i += letters;
    bare = false;
    previous_unit = *unit;
    fraction_seen = d->point;
    const std::optional<std::uint64_t> v = scale(*d, *unit);
    if (!v || __builtin_add_overflow(total, *v, &total)) total = std::numeric_limits<std::uint64_t>::max();
  }
  return total;
}

}  // namespace

std::optional<tlbf::Duration> parse_duration(std::string_view text) {
  const std::optional<std::uint64_t> v = read_duration(text);
  if (!v || *v > static_cast<std::uint64_t>(std::numeric_limits<tlbf::Duration>::max())) return std::nullopt;
  return static_cast<tlbf::Duration>(*v);
}

bool is_duration_too_long(std::string_view text) {
  const std::optional<std::uint64_t> v = read_duration(text);
  return v && *v > static_cast<std::uint64_t>(kLongestOptionDuration);
}

std::string longest_duration() { return format_duration(kLongestOptionDuration); }

std::string format_duration(tlbf::Duration d) {
  static constexpr std::pair<tlbf::Duration, const char*> kUnits[] = {
      {86400 * tlbf::kSecond, "d"}, {3600 * tlbf::kSecond, "h"}, {60 * tlbf::kSecond, "m"},
      {tlbf::kSecond, "s"},         {tlbf::kMillisecond, "ms"},  {tlbf::kMicrosecond, "us"}};
  if (d == 0) return "0s";
  for (const auto& [unit, name] : kUnits)
    if (d % unit == 0) return std::to_string(d / unit) + name;
  return std::to_string(d) + "ns";
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  auto d = leading_decimal(text);
  if (!d) return std::nullopt;
  std::string_view unit = text.substr(d->length);
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "iB")
    unit.remove_suffix(2);
  else if (unit.size() >= 2 && (unit.back() == 'B' || unit.back() == 'b'))
    unit.remove_suffix(1);
  std::uint64_t mult;
  if (unit.empty() || unit == "B" || unit == "b")
    mult = 1;
  else if (unit == "K" || unit == "k")
    mult = 1ULL << 10;
  else if (unit == "M" || unit == "m")
    mult = 1ULL << 20;
  else if (unit == "G" || unit == "g")
    mult = 1ULL << 30;
  else if (unit == "T" || unit == "t")
    mult = 1ULL << 40;
  else
    return std::nullopt;
  return scale(*d, mult);
}

std::string readable_duration(std::uint64_t ns) {
  if (ns > static_cast<std::uint64_t>(std::numeric_limits<tlbf::Duration>::max())) return "centuries";
  constexpr std::uint64_t kS = tlbf::kSecond, kMin = 60 * kS, kH = 60 * kMin, kD = 24 * kH;
  auto two = [&](std::uint64_t big, const char* a, std::uint64_t small, const char* b) {
    const std::uint64_t rest = ns % big / small;
    return rest ? fmt::format("{}{}{}{}", ns / big, a, rest, b) : fmt::format("{}{}", ns / big, a);
  };
  if (ns >= 100 * kD) return fmt::format("{}d", ns / kD);
  if (ns >= kD) return two(kD, "d", kH, "h");
  if (ns >= kH) return two(kH, "h", kMin, "m");
  if (ns >= kMin) return two(kMin, "m", kS, "s");
  if (ns >= kS)
    return ns % kS < kS / 10 ? fmt::format("{}s", ns / kS) : fmt::format("{}.{}s", ns / kS, ns % kS / (kS / 10));
  if (ns >= tlbf::kMillisecond) return fmt::format("{}ms", ns / tlbf::kMillisecond);
  if (ns >= tlbf::kMicrosecond) return fmt::format("{}us", ns / tlbf::kMicrosecond);
  return fmt::format("{}ns", ns);
}

}  // namespace tlbf_dedup
