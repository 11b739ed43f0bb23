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

#include "extract/key_mask.hpp"
#include "extract/timestamp.hpp"
#include "extract/where.hpp"
#include "input/input_format.hpp"
#include "input/record_reader.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// Arrays and objects nested deeper than this inside a JSON key part make the record keyless
// (ExtractStatus::too_deep): the key encoder recurses once per level, so the input must not
// choose how deep. simdjson's DOM parser stops at the same depth.
inline constexpr unsigned kMaxKeyDepth = 1024;

enum class ExtractStatus : std::uint8_t {
  ok,
  malformed,    // JSON mode: not a JSON object, broken JSON where the paths are read, a NUL byte
  missing_key,  // a key field/path is absent, or the key regex does not match
  // JSON mode: a key part's value nests arrays and objects deeper than kMaxKeyDepth; no key,
  // as for missing_key (counted and warned as one), with describe_missing_key() saying why.
  too_deep,
  // JSON mode: a record of blanks only (an empty line of NDJSON) is no record: written as
  // read, neither judged nor counted nor warned about. Tables: so are a header and an empty
  // line (extract_table.hpp).
  blank,
  // A record --where or --where-regex does not select: written as read, never judged, and
  // counted as passed; neither its key nor its time is read.
  unmatched,
};

struct Extracted {
  ExtractStatus status = ExtractStatus::ok;
  // missing_key from -k: the 1-based -k that was absent (0: every part, or --key-regex);
  // too_deep: the -k whose value nests too deep.
  std::uint32_t absent_part = 0;
  // The key's bytes (valid until the next extract()). A composite key (several -k) is the
  // parts each prefixed by its 4-byte length, so ("ab","c") and ("a","bc") differ.
  std::string_view key;
  // The record's time, with the text it was read from: not `parsed` when the extractor
  // wants a time and the field is absent (not `present`) or unreadable ("untimed").
  TimeReading time;
};

// What an absent -k part of a JSON record means (--missing).
enum class MissingMember : std::uint8_t {
  error,  // the record has no key (--on-error decides)
  null,   // the part is JSON null; a record where every part is absent still has no key
};

struct ExtractConfig {
  std::vector<std::string> keys;  // -k, in order; empty = the whole record
  // --key-except (JSON): the key is the whole record without these members (paths a.b),
  // canonical as a -k part of an object is; empty with empty `keys`: the record's text.
  std::vector<std::string> key_except;
  int delimiter = -1;        // -d; -1 = runs of blanks
  int comment = -1;          // --comment (lines): a line starting with this byte is no record (ExtractStatus::blank)
  std::string key_regex;     // --key-regex; 2+ groups: a composite key
  bool ignore_case = false;  // -i
  std::string time;          // -t; empty = no record time
  MissingMember missing = MissingMember::error;  // --missing
  // --mask: applied to each key part before parts are joined or case-folded; for JSON to
  // string values only (key_mask.hpp).
  KeyMask mask;
  // --where and --where-regex: only the records that meet every condition are judged.
  std::vector<WhereCondition> where;
  std::vector<std::string> where_regex;
};

// Whether keys have several length-prefixed parts: several -k, or a --key-regex with two or
// more groups (how --explain and --top show them).
bool has_composite_key(const ExtractConfig& cfg);

// Why a record has no key, for warnings: names the -k part that was absent (or too deep).
// For a JSON record (json), a part written in the syntax of lines (-k 3, -k a,b) gets a hint,
// and a part of a composite key the way out, --missing null; given the record's text, where
// the part's path stops when it is not for want of a member ("a.b.c is the number 1, not an
// object": json_path_stop() in advice.hpp).
std::string describe_missing_key(const ExtractConfig& cfg, const Extracted& x, InputFormat format = InputFormat::lines,
                                 std::string_view record = {});

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
  // A new input starts (a CSV or TSV input's first record is its header).
  virtual void start_input() {}

 protected:
  bool wants_time_ = false;
};

std::unique_ptr<Extractor> make_line_extractor(const ExtractConfig& cfg, TimeParser time_parser);
std::unique_ptr<Extractor> make_json_extractor(const ExtractConfig& cfg, TimeParser time_parser);
// csv, tsv or zeek records, by the header's column names (extract_table.cpp).
std::unique_ptr<Extractor> make_table_extractor(InputFormat format, const ExtractConfig& cfg, TimeParser time_parser);
// The same without the fast path for flat records (json_scan.cpp): every record read
// through simdjson's On-Demand lookups, for tests that check both paths decide alike.
std::unique_ptr<Extractor> make_json_extractor_without_fast_path(const ExtractConfig& cfg, TimeParser time_parser);

// Lower-cases ASCII letters of `in` into `out` (other bytes unchanged).
void ascii_fold(std::string_view in, std::string& out);

// Appends the 4-byte little-endian length of `part` and the part to `out`, the part with ASCII
// letters lower-cased when `fold` (folding after joining would also fold length bytes that
// happen to be letters, e.g. a 84-byte part's 'T').
void append_key_part(std::string& out, std::string_view part, bool fold);

// A key's last steps, in buffers of its own (a view it returns is valid until its next call):
// --mask on each part, then --ignore-case on a key of one part (a composite key is folded
// part by part as it is joined, append_key_part()). A run without either takes two branches.
class KeyFinish {
 public:
  KeyFinish(const KeyMask& mask, bool fold) : mask_(mask), fold_(fold) {}
  std::string_view masked(std::string_view part) { return mask_.masks_anything() ? mask_.apply(part, masked_) : part; }
  // A part of a composite key, masked, joined to `out` (and folded) by append_key_part().
  void append_part(std::string& out, std::string_view part) { append_key_part(out, masked(part), fold_); }
  std::string_view one_part(std::string_view key) {
    key = masked(key);
    if (!fold_) return key;
    ascii_fold(key, folded_);
    return folded_;
  }

 private:
  KeyMask mask_;
  bool fold_;
  std::string masked_, folded_;
};

// How a JSON value becomes key bytes, so that two values are one key exactly when they are
// equal as JSON data (json_key_encoder.cpp, docs/usage.md "JSON keys"):
//  - a string is its unescaped UTF-8 content, untagged (the common case costs nothing and
//    keeps the keys of earlier versions); every other value starts with a tag byte from
//    0xF8-0xFF, which UTF-8 never contains, so no string can equal another type's bytes;
//  - a number is kNumber + its canonical decimal (append_canonical_number);
//  - null, false, true are their tag alone;
//  - an array is kArray, its elements in order, kEnd; an object is kObject, its members
//    sorted by name (first occurrence of a name wins, as for paths), each as its name in the
//    nested string form followed by its value, then kEnd. Inside arrays and objects strings
//    are kString + 4-byte length + content, numbers kNumber + 4-byte length + canonical.
namespace json_key {
inline constexpr char kNull = '\xF8';
inline constexpr char kFalse = '\xF9';
inline constexpr char kTrue = '\xFA';
inline constexpr char kNumber = '\xFB';
inline constexpr char kArray = '\xFC';
inline constexpr char kObject = '\xFD';
inline constexpr char kEnd = '\xFE';
inline constexpr char kString = '\xFF';  // nested strings only
}  // namespace json_key

// Appends the canonical decimal of the JSON number `text` to `out`: the same text exactly
// when the values are equal (1, 1.0, 10e-1 and 0.1e1 are "1"; -0 is "0"; 1.5e-3 is "15e-4";
// integers of up to 40 digits are plain, others "<digits>e<exponent>"). An exponent beyond
// +-10^15 keeps the number as written, after an 'x'. Returns false, appending nothing, when
// `text` is not a JSON number.
bool append_canonical_number(std::string& out, std::string_view text);

}  // namespace tlbf_dedup
