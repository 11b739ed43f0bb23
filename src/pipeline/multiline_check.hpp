// --multiline's pattern against the first lines of a run: a record starts only at a matching
// line, so a pattern that matches no line makes each input one record, silently. When no line
// of the first kLines lines (or kBytes bytes) starts a record, the run says so, naming the
// pattern and the first line, and the shape a pattern for that line would have.
//
// Invariant: the check is decided once, by the records in input order: it passes at the first
// record whose first line matches, and fails when the records before any such one (each
// input's lines before its first match) reach kLines lines or kBytes, or the input ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "input/record_reader.hpp"
#include "pipeline/record_source.hpp"
#include "report/diagnostics.hpp"

namespace tlbf_dedup {

class MultilineCheck {
 public:
  static constexpr std::uint64_t kLines = 1000;
  static constexpr std::uint64_t kBytes = std::uint64_t{1} << 20;

  // `pattern` is --multiline's (it compiles: the options checked it); `terminator` ends lines.
  MultilineCheck(const std::string& pattern, char terminator);

  // The next record's bytes (`continues`: lines that continue the record before); the
  // warning's text when the check failed with it (then it is decided).
  std::optional<std::string> look(std::string_view bytes, bool continues);
  // The input ended undecided: the warning's text when any line was read.
  std::optional<std::string> at_end();
  bool decided() const { return decided_; }
  // The records of the batch `b` in order, until the check is decided (`b` null: the run
  // ended, its last record read from `last_input`); a failure is warned about, naming its
  // input. True once decided.
  bool check(const RecordBatch* b, const std::string& last_input, Diagnostics& diagnostics);

 private:
  std::string failed();

  std::string text_;  // the pattern as given
  LineStartPattern pattern_;
  char terminator_;
  bool decided_ = false;
  std::uint64_t lines_ = 0, bytes_ = 0;
  std::string first_line_;
};

// A --multiline pattern that matches `line`: its first word's shape (digits as \d{n}, other
// characters as themselves), anchored; empty when that word has no digit or does not match.
std::string pattern_for_line(std::string_view line);

}  // namespace tlbf_dedup
