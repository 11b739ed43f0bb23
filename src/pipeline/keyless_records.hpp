// Records without a key (not a readable JSON object or table row, or a -k part absent): what the run says
// of them. The record itself is passed, dropped or fatal as --on-error says (side_records.cpp).
//
// Invariant: each kind is warned about once, at its first record, naming its input and number;
// the key check (key_check.hpp) hears of the first record that lacks a key part and of the
// first keyless record of any kind; the totals come once, at the end.
#pragma once

#include <stdexcept>
#include <string>

#include "extract/extract.hpp"
#include "pipeline/key_check.hpp"
#include "pipeline/record_source.hpp"
#include "report/diagnostics.hpp"
#include "report/stats.hpp"

namespace tlbf_dedup {

// What happens to a record whose key cannot be extracted.
enum class OnError { pass, drop, fail };

// What becomes of such records when the run goes on: "passed through" or "dropped".
inline const char* keyless_action(OnError on_error) { return on_error == OnError::pass ? "passed through" : "dropped"; }

// --on-error fail met a record whose key could not be extracted; the message says which.
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KeylessRecords {
 public:
  KeylessRecords(const ExtractConfig& extract, OnError on_error, KeyCheck& keys)
      : extract_(&extract), on_error_(on_error), keys_(&keys) {}

  // What becomes of them: "passed through" or "dropped".
  const char* action() const { return keyless_action(on_error_); }
  // What became of them, as --stats says (`only_dups`: --only-dups writes none of them).
  const char* went(bool only_dups) const {
    return only_dups ? "not written (--only-dups)" : on_error_ == OnError::fail ? "the run stopped" : action();
  }
  // Record `r` of `input` has no key (its records read as `format`): the key check hears of
  // it first.
  void met(const SourceRecord& r, const std::string& input, InputFormat format);
  // --on-error fail: the run's error, at `r`.
  RecordError error(const SourceRecord& r, const std::string& input, InputFormat format) const;
  // Otherwise: counted in `stats`, the first of its kind warned about.
  void count(const SourceRecord& r, const std::string& input, InputFormat format, RunStats& stats,
             Diagnostics& diagnostics) const;
  // At the end, the totals (not those of missing keys when the key check failed: the run's
  // error speaks for them).
  void warn_totals(const RunStats& stats, InputFormat format, Diagnostics& diagnostics) const;

 private:
  // Why `r` has no key.
  std::string why(const SourceRecord& r, InputFormat format) const;

  const ExtractConfig* extract_;
  OnError on_error_;
  KeyCheck* keys_;
};

}  // namespace tlbf_dedup
