// The records beside the decisions, and --explain's lines (side_records.hpp).
#include "pipeline/side_records.hpp"

#include "extract/extract_table.hpp"

namespace tlbf_dedup {

std::optional<RecordError> SideRecords::fatal(const SourceRecord& r, const std::string& input, InputFormat format) {
  keyless_.met(r, input, format);
  if (cfg_.on_error != OnError::fail) return std::nullopt;
  return keyless_.error(r, input, format);
}

bool SideRecords::unkeyed(const SourceRecord& r, const std::string& input, InputFormat format) {
  keyless_.count(r, input, format, *stats_, *diagnostics_);
  if (cfg_.explain) {
    explain(r, input, nullptr, "error", format);
    return false;
  }
  if (cfg_.on_error != OnError::pass || cfg_.only_dups) return false;
  sink_->undecided(out_record(r, format), &r.time, clock_->now());
  return true;
}

bool SideRecords::unmatched(const SourceRecord& r, const std::string& input, InputFormat format) {
  ++stats_->unmatched;
  if (cfg_.explain) {
    explain(r, input, nullptr, "unmatched", format);
    return false;
  }
  if (cfg_.only_dups) return false;
  sink_->passed(out_record(r, format));
  return true;
}

void SideRecords::blank(const SourceRecord& r, InputFormat format) {
  // --only-dups and --explain write records of another kind, in which a blank line has no
  // place (nor among held records); a table's header is written with --only-dups too: the
  // output is a table.
  if ((cfg_.only_dups && !is_table(format)) || cfg_.explain) return;
  sink_->blank(out_record(r, format));
}

void SideRecords::explain_keyed(const SourceRecord& r, const std::string& input, std::string_view key, bool dup,
                                TimeVerdict verdict, InputFormat format) {
  static constexpr const char* kDecisions[2][4] = {{"new", "new late", "new untimed", "new future"},
                                                   {"dup", "dup late", "dup untimed", "dup future"}};
  explain(r, input, &key, kDecisions[dup][static_cast<int>(verdict)], format);
}

void SideRecords::explain(const SourceRecord& r, const std::string& input, const std::string_view* key,
                          const char* decision, InputFormat format) {
  const ExtractConfig& x = *cfg_.extract;
  sink_->explain(ExplainLine{input, r.number, key, has_composite_key(x), x.time.empty() ? nullptr : &r.time,
                             clock_->now(), decision, format});
}

}  // namespace tlbf_dedup
