// Key and time extraction for JSON records (one object per record, NDJSON): the paths looked
// up with simdjson On-Demand, and JsonExtractor, which reads a record by the fast path of
// json_scan.cpp when it can and by those lookups otherwise, and keys the values it finds with
// the KeyEncoder of json_key_encoder.cpp.
//
// Invariants:
//  - JSON is read with simdjson On-Demand straight from the reader's buffer (which keeps
//    SIMDJSON_PADDING bytes after every record), touching only the requested paths: a
//    record is checked only as far as those paths are read, so damage after them goes
//    unnoticed, and a member that appears twice is found at its first occurrence.
//  - For a dotted path a.b.c, a member literally named "a.b.c" wins over nesting, then
//    "a" -> "b.c" (recursively, with the same rule), then "a.b" -> "c": Zeek's "id.orig_h"
//    is a flat member name. Where the value reached is an array, the next segment is a
//    decimal index (a.0.b); an object is always looked up by name, so a member named "0"
//    is found as such. A path starting with '/' is a JSON pointer (RFC 6901), which indexes
//    arrays the same way.
//  - A part is absent when the path leads nowhere (no such member, an index past the end,
//    a scalar where the path goes on: the warning says which, json_path_stop()), too deep
//    when its value nests more than kMaxKeyDepth arrays and objects; anything else that
//    fails is a malformed record, and so is a record with a NUL byte (simdjson would stop
//    reading at it). A record of blanks only is ExtractStatus::blank, no record.
//  - Key values are JSON data, not text (json_key in extract.hpp, json_key_encoder.cpp): two
//    parts are one key exactly when they are equal values of one type, whatever the escapes,
//    the member order, the whitespace or the way a number is written. Composite keys are
//    length-prefixed. A string key, the common case, stays a view into the parser's
//    buffer: the only per-record cost of typing keys is a tag byte on the other kinds.
//  - --where's members are read first: a record that fails a condition is unmatched, and
//    neither its time nor its key is read (the time parser's rollovers see judged records only).
//  - --mask rewrites string values only, after unescaping and before folding, at any depth of
//    the key; member names, numbers and the other types are data and stay as they are.
//  - The common record -- printable ASCII, no backslash, the wanted members top-level names
//    among its first -- is read without simdjson, by one pass of 16-byte compares that proves
//    simdjson's stage 1 would accept it and a scan of its first members (json_scan.cpp): a
//    fifth of the instructions. The scan decides a record only as simdjson's lookups would decide
//    it, and hands every other record to them (a test compares both on thousands of edited
//    records).
//  - Parsing speed comes from simdjson's stage 1 (structural indexing, UTF-8 validation),
//    which the library dispatches at run time to the best kernel for the CPU; the
//    On-Demand navigation compiled here is scalar code, so no special compiler flags are
//    needed (measured: the same speed with the Haswell instruction set enabled here).
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "extract/extract.hpp"
#include "extract/json_key_encoder.hpp"
#include "extract/json_scan.hpp"

namespace tlbf_dedup {

static_assert(simdjson::SIMDJSON_PADDING <= RecordReader::kTailPadding,
              "the reader must keep simdjson's padding after each record");

namespace {

namespace od = simdjson::ondemand;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// Lookup errors that mean "nothing there" rather than "the record is broken".
bool is_absent(simdjson::error_code err) {
  return err == simdjson::NO_SUCH_FIELD || err == simdjson::INDEX_OUT_OF_BOUNDS || err == simdjson::INCORRECT_TYPE ||
         err == simdjson::INVALID_JSON_POINTER;  // an index such as 01 or - in a pointer: no such element
}

// An array index as a path segment: decimal, no sign, no leading zero (as in JSON pointers).
std::optional<std::size_t> array_index(std::string_view s) {
  if (s.empty() || s.size() > 18 || (s[0] == '0' && s.size() > 1)) return std::nullopt;
  std::size_t n = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

simdjson::error_code find_below(od::value& v, std::string_view path, od::value& out);

// Finds `path` in `obj` with the literal-name-first rule described at the top of the file.
simdjson::error_code find_in_object(od::object obj, std::string_view path, od::value& out) {
  simdjson::error_code err = obj.find_field_unordered(path).get(out);
  if (err != simdjson::NO_SUCH_FIELD) return err;
  for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1)) {
    // Back to the first field before each search, for the reason given in lookup().
    bool has_fields = false;
    if ((err = obj.reset().get(has_fields))) return err;
    if (!has_fields) return simdjson::NO_SUCH_FIELD;
    od::value child;
    err = obj.find_field_unordered(path.substr(0, dot)).get(child);
    if (err == simdjson::NO_SUCH_FIELD) continue;
    if (err) return err;
    err = find_below(child, path.substr(dot + 1), out);
    if (err != simdjson::NO_SUCH_FIELD) return err;
  }
  return simdjson::NO_SUCH_FIELD;
}

// Finds the rest of a dotted path below the value `v` reached so far: by name in an object,
// by index in an array (the segment up to the next dot); a scalar holds nothing.
simdjson::error_code find_below(od::value& v, std::string_view path, od::value& out) {
  od::json_type type;
  simdjson::error_code err = v.type().get(type);
  if (err) return err;
  if (type == od::json_type::object) {
    od::object sub;
    if ((err = v.get_object().get(sub))) return err;
    return find_in_object(sub, path, out);
  }
  if (type != od::json_type::array) return simdjson::NO_SUCH_FIELD;
  const std::size_t dot = path.find('.');
  const auto index = array_index(path.substr(0, dot));
  if (!index) return simdjson::NO_SUCH_FIELD;
  od::array arr;
  if ((err = v.get_array().get(arr))) return err;
  od::value element;
  err = arr.at(*index).get(element);
  if (err == simdjson::INDEX_OUT_OF_BOUNDS) return simdjson::NO_SUCH_FIELD;
  if (err) return err;
  if (dot == std::string_view::npos) {
    out = std::move(element);
    return simdjson::SUCCESS;
  }
  return find_below(element, path.substr(dot + 1), out);
}

// RFC 6901: '~' only as ~0 or ~1.
bool valid_pointer(std::string_view p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] == '~' && (i + 1 == p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  return true;
}
// A number, true, false or null as JSON writes it (simdjson types a scalar by its first byte
// and checks the rest only when it is read).
bool valid_scalar(std::string_view token) {
  if (token == "true" || token == "false" || token == "null") return true;
  std::string canonical;
  return append_canonical_number(canonical, token);
}

// A scalar simdjson gives a type (number, boolean, null) by its first byte: its text is a time's.
bool is_typed_scalar(char first) {
  return first == '-' || is_digit(first) || first == 't' || first == 'f' || first == 'n';
}

class JsonExtractor final : public Extractor {
 public:
  JsonExtractor(const ExtractConfig& cfg, TimeParser time_parser, bool fast_path)
      : keys_(cfg.keys),
        except_(cfg.key_except),
        missing_(cfg.missing),
        encoder_(cfg.ignore_case, cfg.mask),
        mask_(cfg.mask),
        time_path_(cfg.time),
        time_parser_(std::move(time_parser)),
        where_(cfg.where),
        where_regex_(cfg.where_regex) {
    if (!cfg.key_regex.empty()) throw SpecError("--key-regex applies to lines, not to JSON records");
    if (cfg.delimiter >= 0) throw SpecError("-d/--delimiter applies to lines, not to JSON records");
    for (const std::string& k : keys_) {
      if (k.empty()) throw SpecError("-k/--key: an empty JSON path");
      if (k[0] == '/' && !valid_pointer(k))
        throw SpecError("-k/--key '" + k + "': '~' in a JSON pointer must be ~0 or ~1");
    }
    if (!time_path_.empty() && time_path_[0] == '/' && !valid_pointer(time_path_))
      throw SpecError("-t/--time '" + time_path_ + "': '~' in a JSON pointer must be ~0 or ~1");
    for (const WhereCondition& c : where_)
      if (c.path[0] == '/' && !valid_pointer(c.path))
        throw SpecError("--where '" + c.path + "': '~' in a JSON pointer must be ~0 or ~1");
    wants_time_ = !time_path_.empty();
    // The fast path reads member names and the values of strings and plain integers as written.
    if (wants_time_) flat_names_.push_back(time_path_);
    flat_names_.insert(flat_names_.end(), keys_.begin(), keys_.end());
    for (const WhereCondition& c : where_) flat_names_.push_back(c.path);
    flat_ = fast_path && !flat_names_.empty() && (keys_.empty() || encoder_.keeps_strings()) && except_.empty() &&
            std::none_of(flat_names_.begin(), flat_names_.end(), [](const std::string& p) { return p[0] == '/'; });
    flat_found_.resize(flat_names_.size());
  }

  Extracted extract(const Record& record) override {
    Extracted out;
    if (!where_regex_.empty() && !where_regex_.all_match(record.text())) {
      out.status = ExtractStatus::unmatched;
      return out;
    }
    if (flat_ && (record.plain || plain_ascii_record(record)) && read_flat(record, out)) return out;
    od::document doc;
    od::object root;
    // simdjson would read a record up to a NUL byte and never look further: not JSON.
    if (std::memchr(record.data, '\0', record.size) ||
        parser_.iterate(record.data, record.size, record.size + RecordReader::kTailPadding).get(doc) ||
        doc.get_object().get(root)) {
      out.status = is_blank(record.text()) ? ExtractStatus::blank : ExtractStatus::malformed;
      return out;
    }
    root_stale_ = false;
    // --where first: a record it does not select is not read further.
    for (const WhereCondition& c : where_) {
      if (selected(doc, root, c)) continue;
      out.status = broken_ ? ExtractStatus::malformed : ExtractStatus::unmatched;
      return out;
    }
    // The time next: a single key's text may live in the parser's string buffer, which a
    // later lookup after a rewind (JSON pointers) would overwrite.
    if (wants_time_) {
      od::value v;
      simdjson::error_code err = lookup(doc, root, time_path_, v);
      if (err == simdjson::SUCCESS) {
        std::string_view text;
        if (scalar_text(v, text) == simdjson::SUCCESS) out.time = time_parser_(text);
      } else if (!is_absent(err)) {
        // The document broke while looking for the time: nothing more can be read from it
        // (On-Demand leaves the parser unusable for further lookups on this document).
        out.status = ExtractStatus::malformed;
        return out;
      }
    }
    if (!except_.empty()) {
      key_except(doc, out);
      return out;  // every path returns `out` itself, so it is built in the caller's place
    }
    if (keys_.empty()) {
      out.key = whole_record_key(record);
      return out;
    }
    if (keys_.size() == 1) {
      const Found found = read_part(doc, root, keys_[0], out.key);
      if (found != Found::value) fail(found, 1, out);
      return out;
    }
    composite_.clear();
    std::uint32_t absent = 0;
    for (std::uint32_t i = 0; i < keys_.size(); ++i) {
      std::string_view part;
      const Found found = read_part(doc, root, keys_[i], part);
      if (found == Found::absent && missing_ == MissingMember::null) {
        part = std::string_view(&json_key::kNull, 1);
        ++absent;
      } else if (found != Found::value) {
        fail(found, i + 1, out);
        return out;
      }
      append_key_part(composite_, part, false);  // folded, where at all, by the encoder
    }
    // Every part absent: the record is of another kind than the key describes; keying all
    // such records as (null, ..., null) would keep only the first of them.
    if (absent == keys_.size()) {
      out.status = ExtractStatus::missing_key;
      out.absent_part = 0;
      return out;
    }
    out.key = composite_;
    return out;
  }

 private:
  enum class Found { value, absent, broken, too_deep };

  // The key part at `path`: absent only when the path leads nowhere; a value found but not
  // valid JSON (tru, 01) is a broken record.
  Found read_part(od::document& doc, od::object& root, const std::string& path, std::string_view& part) {
    od::value v;
    simdjson::error_code err = lookup(doc, root, path, v);
    if (err) return is_absent(err) ? Found::absent : Found::broken;
    err = encoder_.part(v, part_, part);
    if (err == simdjson::DEPTH_ERROR) return Found::too_deep;
    return err ? Found::broken : Found::value;
  }

  // --key-except: the record's value read again from its start, without the members left out.
  void key_except(od::document& doc, Extracted& out) {
    // A time text simdjson unescaped lives in its string buffer, which the walk below reuses.
    if (!out.time.text.empty()) out.time.text = time_text_.assign(out.time.text);
    od::value v;
    doc.rewind();
    simdjson::error_code err = doc.get_value().get(v);
    if (!err) err = encoder_.record_except(v, except_, part_);
    if (err) {
      out.status = err == simdjson::DEPTH_ERROR ? ExtractStatus::too_deep : ExtractStatus::malformed;
      return;
    }
    out.key = part_;
  }

  // The whole record is text here, not a value: masked as a line would be.
  std::string_view whole_record_key(const Record& record) {
    return mask_.masks_anything() ? mask_.apply(record.text(), part_) : record.text();
  }

  // Whether the record meets condition `c`; false with broken_ set when the record broke
  // where the condition's member is.
  bool selected(od::document& doc, od::object& root, const WhereCondition& c) {
    od::value v;
    WhereFound found = WhereFound::absent;
    std::string_view text;
    simdjson::error_code err = lookup(doc, root, c.path, v);
    od::json_type type{};
    if (!err) err = v.type().get(type);
    if (!err) {
      if (type == od::json_type::string) {
        found = WhereFound::string;
        err = v.get_string().get(text);
      } else if (type == od::json_type::object || type == od::json_type::array) {
        found = WhereFound::container;
      } else {
        found = WhereFound::scalar;
        text = trim_json_token(v.raw_json_token());
        if (!valid_scalar(text)) err = simdjson::TAPE_ERROR;  // (tru, 01: a broken record)
      }
    }
    broken_ = err && !is_absent(err);
    return !broken_ && c.holds(err ? WhereFound::absent : found, text);
  }

  // The record decided by flat_scan(), exactly as the lookups would decide it; false (nothing
  // done) for a record or a value the fast path leaves to them.
  bool read_flat(const Record& record, Extracted& out) {
    if (!flat_scan(record, flat_names_, flat_found_.data(), flat_shape_)) return false;
    const FlatValue* conditions = flat_found_.data() + flat_names_.size() - where_.size();
    for (std::size_t i = 0; i < where_.size(); ++i)  // (a broken scalar is the lookups' to report)
      if (!conditions[i].string && !valid_scalar(conditions[i].text)) return false;
    for (std::size_t i = 0; i < where_.size(); ++i) {
      const FlatValue& v = conditions[i];
      if (where_[i].holds(v.string ? WhereFound::string : WhereFound::scalar, v.text)) continue;
      out.status = ExtractStatus::unmatched;
      return true;
    }
    const FlatValue* parts = flat_found_.data() + (wants_time_ ? 1 : 0);
    // Everything is checked before the time parser runs: it keeps state (year rollover).
    if (wants_time_) {
      const FlatValue& t = flat_found_[0];
      if (!t.string && !is_typed_scalar(t.text[0])) return false;
    }
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (!parts[i].string && !is_plain_integer(parts[i].text)) return false;
    // The time text is a slice of the record, which stays valid while the record is judged
    // (as the line path's fields do): no copy, unlike a value simdjson unescaped.
    if (wants_time_) time_parser_.parse_in_place(flat_found_[0].text, out.time);
    auto part = [&](const FlatValue& v) {
      std::string_view bytes = v.text;
      if (!v.string) encoder_.plain_integer(v.text, bytes);
      return bytes;
    };
    if (keys_.empty()) {
      out.key = whole_record_key(record);
    } else if (keys_.size() == 1) {
      out.key = part(parts[0]);
    } else {
      composite_.clear();
      for (std::size_t i = 0; i < keys_.size(); ++i) append_key_part(composite_, part(parts[i]), false);
      out.key = composite_;
    }
    return true;
  }

  static void fail(Found found, std::uint32_t part, Extracted& out) {
    out.status = found == Found::absent     ? ExtractStatus::missing_key
                 : found == Found::too_deep ? ExtractStatus::too_deep
                                            : ExtractStatus::malformed;
    if (found != Found::broken) out.absent_part = part;
  }

  // Each lookup after the first rewinds the document and fetches the root object again, so
  // that no search starts mid-object (see below); a JSON pointer rewinds by itself.
  simdjson::error_code lookup(od::document& doc, od::object& root, const std::string& path, od::value& out) {
    if (path[0] == '/') {
      root_stale_ = true;
      return doc.at_pointer(path).get(out);
    }
    if (root_stale_) {
      doc.rewind();
      simdjson::error_code err = doc.get_object().get(root);
      if (err) return err;
      root_stale_ = false;
    }
    // Every lookup starts from the first field: find_field_unordered() that starts mid-object
    // wraps around assuming the first pass validated the object, which malformed input breaks
    // (a SIMDJSON_ASSUME, undefined behaviour). Texts of earlier lookups are consumed by then.
    root_stale_ = true;
    return find_in_object(root, path, out);
  }

  // A time is text for the time parser: strings unescaped, numbers as written.
  static simdjson::error_code scalar_text(od::value& v, std::string_view& text) {
    od::json_type type;
    simdjson::error_code err = v.type().get(type);
    if (err) return err;
    if (type == od::json_type::string) return v.get_string().get(text);
    if (type == od::json_type::object || type == od::json_type::array) return simdjson::INCORRECT_TYPE;
    text = trim_json_token(v.raw_json_token());
    return simdjson::SUCCESS;
  }

  od::parser parser_;
  bool flat_ = false;                    // every path may be read by flat_scan()
  std::vector<std::string> flat_names_;  // the time path if any, then the key paths
  std::vector<FlatValue> flat_found_;
  FlatShape flat_shape_;     // the last flat record's members
  bool root_stale_ = false;  // the document was rewound since `root` was fetched
  std::vector<std::string> keys_;
  ExceptTree except_;
  MissingMember missing_;
  KeyEncoder encoder_;
  KeyMask mask_;
  std::string time_path_;
  TimeParser time_parser_;
  std::string part_;  // the current part's bytes when they are not a view into the record
  std::string composite_;
  std::string time_text_;  // with --key-except, the time's text
  std::vector<WhereCondition> where_;
  WhereRegexes where_regex_;
  bool broken_ = false;  // the last --where lookup met broken JSON
};

}  // namespace

std::unique_ptr<Extractor> make_json_extractor(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<JsonExtractor>(cfg, std::move(time_parser), true);
}

std::unique_ptr<Extractor> make_json_extractor_without_fast_path(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<JsonExtractor>(cfg, std::move(time_parser), false);
}

}  // namespace tlbf_dedup
