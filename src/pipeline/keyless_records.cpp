// Records without a key: what the run says of them (keyless_records.hpp).
#include "pipeline/keyless_records.hpp"

#include <fmt/format.h>

#include "extract/advice.hpp"
#include "extract/extract_table.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

}  // namespace

std::string KeylessRecords::why(const SourceRecord& r, InputFormat format) const {
  const std::string_view text = r.bytes.substr(0, r.text_size());
  if (r.status == ExtractStatus::malformed)
    return is_table(format) ? describe_malformed_row(text) : describe_malformed_json(text);
  Extracted x;
  x.status = r.status;
  x.absent_part = r.absent_part;
  x.time = r.time;
  return describe_missing_key(*extract_, x, format, text);
}

void KeylessRecords::met(const SourceRecord& r, const std::string& input, InputFormat format) {
  // Advice for the end of the key check: a key no record has stops the run; a kind of record
  // that lacks it may be left out with --where. (A blank line lacks every field: it says
  // nothing of the key.)
  const std::string_view text = r.bytes.substr(0, r.text_size());
  if (r.status == ExtractStatus::missing_key && !is_blank(text) && keys_->absent())
    keys_->first_absent(fmt::format("the first, record {} of {}: {}; {}", r.number, input, why(r, format),
                                    missing_key_advice(*extract_, text, format, r.absent_part)),
                        format);
}

RecordError KeylessRecords::error(const SourceRecord& r, const std::string& input, InputFormat format) const {
  return RecordError(fmt::format("{}: record {}: {} (--on-error fail)", input, r.number, why(r, format)));
}

void KeylessRecords::count(const SourceRecord& r, const std::string& input, InputFormat format, RunStats& stats,
                           Diagnostics& diagnostics) const {
  const bool malformed = r.status == ExtractStatus::malformed;
  std::uint64_t& count = malformed ? stats.malformed : stats.missing_key;
  std::string what;
  if (count++ == 0) {
    what = why(r, format);
    diagnostics.warning(Warning{malformed ? WarningKind::malformed_record : WarningKind::missing_key, input, r.number,
                                1,
                                fmt::format("{}: record {}: {} ({}; further ones are counted, see the summary at exit)",
                                            input, r.number, what, action())});
  }
  if (!keys_->wants_first_keyless()) return;
  if (what.empty()) what = why(r, format);
  std::string first = fmt::format("the first, record {} of {}: {}", r.number, input, what);
  // (a path that stops at a scalar or an array has said where; the members would not help)
  if (!malformed && extract_->key_regex.empty() && what.find("--missing null") == std::string::npos &&
      what.find(" cannot be read: ") == std::string::npos)
    first += "; " + describe_fields(r.bytes.substr(0, r.text_size()), format, extract_->delimiter,
                                    extract_->keys.empty() ? "" : extract_->keys.front());
  keys_->first_keyless(std::move(first));
}

void KeylessRecords::warn_totals(const RunStats& stats, InputFormat format, Diagnostics& diagnostics) const {
  if (stats.malformed)
    diagnostics.warning(Warning{WarningKind::malformed_record, "", 0, stats.malformed,
                                fmt::format("{} record(s) were not readable {} ({})", stats.malformed,
                                            is_table(format) ? "rows" : "JSON objects", action())});
  if (stats.missing_key && !keys_->failed())
    diagnostics.warning(Warning{WarningKind::missing_key, "", 0, stats.missing_key,
                                fmt::format("{} record(s) had no key ({})", stats.missing_key, action())});
}

}  // namespace tlbf_dedup
