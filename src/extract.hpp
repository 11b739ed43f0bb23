// Extraction of a record's key and time: from lines (field lists, a delimiter, a regular
// expression) or from JSON objects (dotted paths or JSON pointers, read with simdjson
// On-Demand).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "record_reader.hpp"
#include "timestamp.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

enum class ExtractStatus : std::uint8_t {
  ok,
  malformed,    // JSON mode: not a JSON object, or broken JSON where the paths are read
  missing_key,  // a key field/path is absent, or the key regex does not match
};

struct Extracted {
  ExtractStatus status = ExtractStatus::ok;
  // The key's bytes (valid until the next extract()). A composite key (several -k) is the
  // parts each prefixed by its 4-byte length, so ("ab","c") and ("a","bc") differ.
  std::string_view key;
  // The record's time. nullopt with `time_wanted`: missing or unparseable ("untimed").
  std::optional<tlbf::Time> time;
};

struct ExtractConfig {
  std::vector<std::string> keys;  // -k, in order; empty = the whole record
  int delimiter = -1;             // -d; -1 = runs of blanks
  std::string key_regex;          // --key-regex
  bool ignore_case = false;       // -i
  std::string time;               // -t; empty = no record time
};

// A key or time specification that cannot work (bad field list, bad regex). The message
// names the option and the value; the program reports it as a usage error.
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  // `record.data + record.size` must be followed by RecordReader::kTailPadding readable bytes.
  virtual Extracted extract(const Record& record) = 0;
  // -t was given: a record's time comes from the record, not the wall clock.
  bool wants_time() const { return wants_time_; }

 protected:
  bool wants_time_ = false;
};

std::unique_ptr<Extractor> make_line_extractor(const ExtractConfig& cfg, TimeParser time_parser);
std::unique_ptr<Extractor> make_json_extractor(const ExtractConfig& cfg, TimeParser time_parser);

// Lower-cases ASCII letters of `in` into `out` (other bytes unchanged).
void ascii_fold(std::string_view in, std::string& out);

// Appends the 4-byte little-endian length of `part` and the part to `out`, the part with ASCII
// letters lower-cased when `fold` (folding after joining would also fold length bytes that
// happen to be letters, e.g. a 84-byte part's 'T').
void append_key_part(std::string& out, std::string_view part, bool fold);

}  // namespace tlbf_dedup
