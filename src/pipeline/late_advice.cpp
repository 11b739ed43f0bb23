// What to do about late records (late_advice.hpp).
#include "pipeline/late_advice.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/duration.hpp"

namespace tlbf_dedup {
namespace {

constexpr const char* kSavedClock = "the clock was saved by an earlier run (--state) that read later records";

}  // namespace

std::string LateAdvice::advise(const std::string& input, const std::string& before, bool at_saved_clock,
                               std::uint64_t behind, const std::function<std::string()>& sort) {
  if (before.empty() || at_saved_clock) {
    at_saved_clock_ = true;
    return kSavedClock;
  }
  if (!merged_ && before != input) {
    inputs_overlap_ = true;
    return fmt::format(
        "the inputs overlap in time ({} has records older than {}'s) and --no-merge reads them one "
        "after another: leave out --no-merge to merge them by time",
        input, before);
  }
  return fmt::format("{} is not in time order: {}; or {}", input, fix(behind), sort());
}

std::string LateAdvice::fix(std::uint64_t behind) const {
  if (at_saved_clock_) return kSavedClock;
  if (inputs_overlap_) return "leave out --no-merge to merge the inputs by time";
  // The lateness that would have held it: rounded up to the unit of its size.
  const std::uint64_t need = behind + static_cast<std::uint64_t>(lateness_);
  std::uint64_t unit = tlbf::kMillisecond;
  for (const std::uint64_t u :
       {std::uint64_t{tlbf::kSecond}, 60 * std::uint64_t{tlbf::kSecond}, 3600 * std::uint64_t{tlbf::kSecond}})
    if (need >= u) unit = u;
  const std::uint64_t rounded = std::min<std::uint64_t>((need + unit - 1) / unit * unit, kLongestOptionDuration);
  return fmt::format("--lateness {} holds records that long to judge them in time order",
                     format_duration(static_cast<tlbf::Duration>(rounded)));
}

}  // namespace tlbf_dedup
