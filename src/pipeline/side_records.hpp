// The records beside the decisions: one without a key (--on-error), one --where did not
// select, a blank line of JSON input or a table's header; and, with --explain, the line about
// each record written instead of it.
//
// Invariant: none of these records is inserted into the filter or held; each is written as
// read or not at all, in its place among the decided records. With --explain every record
// judged, keyed or not, gets one line and nothing else is written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "extract/extract.hpp"
#include "output/record_sink.hpp"
#include "pipeline/decision_clock.hpp"
#include "pipeline/keyless_records.hpp"
#include "pipeline/record_source.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"

namespace tlbf_dedup {

struct SideConfig {
  const ExtractConfig* extract;
  OnError on_error = OnError::pass;
  bool only_dups = false;  // --only-dups: none of these records is written
  bool explain = false;    // --explain
};

class SideRecords {
 public:
  // Everything passed in must outlive the room.
  SideRecords(SideConfig cfg, KeyCheck& keys, RecordSink& sink, const DecisionClock& clock, RunStats& stats,
              Diagnostics& diagnostics)
      : cfg_(cfg),
        keyless_(*cfg.extract, cfg.on_error, keys),
        sink_(&sink),
        clock_(&clock),
        stats_(&stats),
        diagnostics_(&diagnostics) {}

  const KeylessRecords& keyless() const { return keyless_; }

  // A record without a key, record `r` of `input`: with --on-error fail, the run's error
  // (the caller writes what came before it, then throws it); else none.
  std::optional<RecordError> fatal(const SourceRecord& r, const std::string& input, InputFormat format);
  // Otherwise: counted, warned about once, written or dropped as --on-error says; true when
  // it was written.
  bool unkeyed(const SourceRecord& r, const std::string& input, InputFormat format);
  // A record --where did not select: written as read (not with --only-dups), counted as
  // passed; true when it was written.
  bool unmatched(const SourceRecord& r, const std::string& input, InputFormat format);
  // A blank line of JSON input or a table's header (ExtractStatus::blank): written as read
  // where the output is the input's records in order.
  void blank(const SourceRecord& r, InputFormat format);
  // --explain: the line for a keyed record judged `dup` with the clock's `verdict`.
  void explain_keyed(const SourceRecord& r, const std::string& input, std::string_view key, bool dup,
                     TimeVerdict verdict, InputFormat format);

  static OutRecord out_record(const SourceRecord& r, InputFormat format) {
    return OutRecord{r.bytes, r.text_size(), format, !r.replayed};
  }

 private:
  void explain(const SourceRecord& r, const std::string& input, const std::string_view* key, const char* decision,
               InputFormat format);

  SideConfig cfg_;
  KeylessRecords keyless_;
  RecordSink* sink_;
  const DecisionClock* clock_;
  RunStats* stats_;
  Diagnostics* diagnostics_;
};

}  // namespace tlbf_dedup
