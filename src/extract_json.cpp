// Key and time extraction for JSON records (one object per record, NDJSON).
//
// Invariants:
//  - JSON is read with simdjson On-Demand straight from the reader's buffer (which keeps
//    SIMDJSON_PADDING bytes after every record), touching only the requested paths: a
//    record is checked only as far as those paths are read, so damage after them goes
//    unnoticed, and a member that appears twice is found at its first occurrence.
//  - For a dotted path a.b.c, a member literally named "a.b.c" wins over nesting, then
//    "a" -> "b.c" (recursively, with the same rule), then "a.b" -> "c": Zeek's "id.orig_h"
//    is a flat member name. A path starting with '/' is a JSON pointer (RFC 6901).
//  - Key values: strings by their unescaped content, numbers, booleans and null as
//    written, objects and arrays as their JSON text. Composite keys are length-prefixed.
//  - Parsing speed comes from simdjson's stage 1 (structural indexing, UTF-8 validation),
//    which the library dispatches at run time to the best kernel for the CPU; the
//    On-Demand navigation compiled here is scalar code, so no special compiler flags are
//    needed (measured: the same speed with the Haswell instruction set enabled here).
#include <simdjson.h>

#include "extract.hpp"

namespace tlbf_dedup {

static_assert(simdjson::SIMDJSON_PADDING <= RecordReader::kTailPadding, "the reader must keep simdjson's padding after each record");

namespace {

namespace od = simdjson::ondemand;

// Finds `path` in `obj` with the literal-name-first rule described at the top of the file.
simdjson::error_code find_dotted(od::object obj, std::string_view path, od::value& out) {
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
    od::object sub;
    err = child.get_object().get(sub);
    if (err == simdjson::INCORRECT_TYPE) continue;
    if (err) return err;
    err = find_dotted(sub, path.substr(dot + 1), out);
    if (err != simdjson::NO_SUCH_FIELD) return err;
  }
  return simdjson::NO_SUCH_FIELD;
}

class JsonExtractor final : public Extractor {
 public:
  JsonExtractor(const ExtractConfig& cfg, TimeParser time_parser)
      : keys_(cfg.keys), ignore_case_(cfg.ignore_case), time_path_(cfg.time), time_parser_(std::move(time_parser)) {
    if (!cfg.key_regex.empty()) throw SpecError("--key-regex applies to lines, not to JSON records");
    if (cfg.delimiter >= 0) throw SpecError("-d/--delimiter applies to lines, not to JSON records");
    for (const std::string& k : keys_)
      if (k.empty()) throw SpecError("-k/--key: an empty JSON path");
    wants_time_ = !time_path_.empty();
  }

  Extracted extract(const Record& record) override {
    Extracted out;
    od::document doc;
    if (parser_.iterate(record.data, record.size, record.size + RecordReader::kTailPadding).get(doc)) {
      out.status = ExtractStatus::malformed;
      return out;
    }
    od::object root;
    if (doc.get_object().get(root)) {
      out.status = ExtractStatus::malformed;
      return out;
    }
    root_stale_ = false;
    // The time first: a single key's text may live in the parser's string buffer, which a
    // later lookup after a rewind (JSON pointers) would overwrite.
    if (wants_time_) {
      od::value v;
      simdjson::error_code err = lookup(doc, root, time_path_, v);
      if (err == simdjson::SUCCESS) {
        std::string_view text;
        if (scalar_text(v, text) == simdjson::SUCCESS) out.time = time_parser_(text);
      } else if (err != simdjson::NO_SUCH_FIELD && err != simdjson::INCORRECT_TYPE &&
                 err != simdjson::INVALID_JSON_POINTER) {
        // The document broke while looking for the time: nothing more can be read from it
        // (On-Demand leaves the parser unusable for further lookups on this document).
        out.status = ExtractStatus::malformed;
        return out;
      }
    }
    if (keys_.empty()) {
      out.key = record.text();
    } else {
      composite_.clear();
      std::string_view single;
      for (const std::string& k : keys_) {
        od::value v;
        simdjson::error_code err = lookup(doc, root, k, v);
        std::string_view text;
        if (!err) err = any_text(v, text);
        if (err) {
          out.status = err == simdjson::NO_SUCH_FIELD ? ExtractStatus::missing_key : ExtractStatus::malformed;
          return out;
        }
        if (keys_.size() == 1) single = text;
        else append_key_part(composite_, text, ignore_case_);
      }
      out.key = keys_.size() == 1 ? single : std::string_view(composite_);
    }
    if (ignore_case_ && keys_.size() <= 1) {  // composite parts were folded as they were joined
      ascii_fold(out.key, folded_);
      out.key = folded_;
    }
    return out;
  }

 private:
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
    return find_dotted(root, path, out);
  }

  // Strings as their unescaped content, numbers/booleans/null as written.
  static simdjson::error_code scalar_text(od::value& v, std::string_view& text) {
    od::json_type type;
    simdjson::error_code err = v.type().get(type);
    if (err) return err;
    if (type == od::json_type::string) return v.get_string().get(text);
    if (type == od::json_type::object || type == od::json_type::array) return simdjson::INCORRECT_TYPE;
    text = trim(v.raw_json_token());
    return simdjson::SUCCESS;
  }
  // As scalar_text, and objects/arrays as their raw JSON text.
  static simdjson::error_code any_text(od::value& v, std::string_view& text) {
    od::json_type type;
    simdjson::error_code err = v.type().get(type);
    if (err) return err;
    if (type == od::json_type::object || type == od::json_type::array) {
      err = simdjson::to_json_string(v).get(text);
      text = trim(text);
      return err;
    }
    return scalar_text(v, text);
  }
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    return s;
  }

  od::parser parser_;
  bool root_stale_ = false;  // the document was rewound since `root` was fetched
  std::vector<std::string> keys_;
  bool ignore_case_;
  std::string time_path_;
  TimeParser time_parser_;
  std::string composite_;
  std::string folded_;
};

}  // namespace

std::unique_ptr<Extractor> make_json_extractor(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<JsonExtractor>(cfg, std::move(time_parser));
}


}  // namespace tlbf_dedup
