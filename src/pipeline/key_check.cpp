// The check of the first records' keys (key_check.hpp): the warning when most had none, the
// error when none had one.
#include "pipeline/key_check.hpp"

#include <fmt/format.h>

#include "pipeline/decision_clock.hpp"

namespace tlbf_dedup {

void KeyCheck::first_absent(std::string what, InputFormat format) {
  first_absent_ = std::move(what);
  if (format == InputFormat::json) kinds_ = std::make_unique<KindTally>();
}

void KeyCheck::tally(const RecordBatch& b, std::size_t from, std::size_t end) {
  if (!kinds_ || !pending_) return;
  for (std::size_t i = from; i < end; ++i) {
    const SourceRecord& r = b[i];
    if (r.keyed || r.status == ExtractStatus::missing_key) kinds_->add(r.bytes.substr(0, r.text_size()), r.keyed);
  }
}

void KeyCheck::check(const RunStats& stats, const char* action, Diagnostics& diagnostics) {
  pending_ = false;
  const std::uint64_t keyless = stats.malformed + stats.missing_key;
  const std::uint64_t judged = stats.records - stats.unmatched;
  if (stats.selecting && judged == 0 && stats.records > 0)
    diagnostics.warning(Warning{WarningKind::missing_key, "", 0, stats.records,
                                fmt::format("--where selected none of the first {} records, so none was "
                                            "deduplicated (every record passed untouched)",
                                            stats.records)});
  const std::string kind = kinds_ ? kinds_->where_advice() : std::string();
  kinds_.reset();
  if (keyless == 0 || keyless * 2 <= judged || failed_) return;
  diagnostics.warning(Warning{
      WarningKind::missing_key, "", 0, keyless,
      fmt::format("{} of the first {} records{} have no key, so they are {} without being deduplicated{} ({})", keyless,
                  stats.records, stats.unmatched ? fmt::format(" ({} selected by --where)", judged) : std::string(),
                  action,
                  kind.empty() ? std::string()
                               : fmt::format("; {} deduplicates only the kind of record that has the key and passes "
                                             "the others untouched",
                                             kind),
                  first_keyless_)});
}

KeylessInput KeyCheck::error(const RunStats& stats, bool written_while_checking) const {
  const std::uint64_t judged = stats.records - stats.unmatched;
  return KeylessInput(fmt::format(
      "none of the {}{} records{} has a key ({}); or give --on-error pass to pass records without a key through "
      "untouched. {}{}",
      stats.records >= ClockPolicy::kUntimedProbe ? "first " : "", judged,
      stats.unmatched ? fmt::format(" selected by --where (of {} read)", stats.records) : std::string(), first_absent_,
      written_while_checking
          ? fmt::format("The {} records read were written as they came (the input paused before a key was found)",
                        stats.records)
          : fmt::format("Nothing was written (the {} records read were held back)", stats.records),
      stats.records >= ClockPolicy::kUntimedProbe ? "; the rest of the input was not read" : ""));
}

}  // namespace tlbf_dedup
