// Fuzzes key and time extraction (src/extract.hpp) for lines and for JSON records, with the
// input as one record placed in a buffer with the reader's tail padding.
//
// Input: a control byte choosing one of the extractor configurations below, then the record.
// Invariants checked: extraction is a pure function of the record's bytes (the same result
// twice, whatever bytes the padding holds); a composite key is exactly its length-prefixed
// parts; a line's single-field key and time agree with FieldSplitter and TimeParser; and a
// JSON record that simdjson's DOM parser reads as an object with a string "id" yields that
// string as the key (On-Demand must not miss what a full parse finds).
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract.hpp"
#include "field_list.hpp"

namespace {

using tlbf_dedup::ExtractConfig;
using tlbf_dedup::ExtractStatus;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_extract: invariant broken: %s\n", what);
    std::abort();
  }
}

struct Variant {
  bool json;
  ExtractConfig cfg;
  std::unique_ptr<tlbf_dedup::Extractor> extractor;
};

ExtractConfig config(std::vector<std::string> keys, std::string time, int delimiter = -1, std::string regex = {},
                     bool icase = false) {
  ExtractConfig c;
  c.keys = std::move(keys);
  c.time = std::move(time);
  c.delimiter = delimiter;
  c.key_regex = std::move(regex);
  c.ignore_case = icase;
  return c;
}

std::vector<Variant>& variants() {
  static std::vector<Variant> v = [] {
    std::vector<Variant> out;
    auto add = [&](bool json, ExtractConfig c) {
      tlbf_dedup::TimeParser parser(tlbf_dedup::TimeFormat::auto_detect, std::nullopt, 2024);
      auto e = json ? tlbf_dedup::make_json_extractor(c, parser) : tlbf_dedup::make_line_extractor(c, parser);
      out.push_back({json, std::move(c), std::move(e)});
    };
    add(false, config({"3"}, "1"));                      // generated text: key field 3, time field 1
    add(false, config({"1,4", "2-"}, "2", ','));         // composite key, delimiter
    add(false, config({}, "4,5", -1, "id=([^ ]+)", true)); // regex key, two-field time
    add(false, config({}, ""));                          // the whole line
    add(true, config({"id"}, "ts"));                     // generated NDJSON
    add(true, config({"id", "req.path"}, "/ts"));        // composite, JSON pointer
    add(true, config({"id.orig_h", "/a/0"}, "ts", -1, {}, true));
    add(true, config({}, "time"));
    return out;
  }();
  return v;
}

struct Result {
  ExtractStatus status;
  std::string key;
  std::optional<tlbf::Time> time;
  bool operator==(const Result& o) const { return status == o.status && key == o.key && time == o.time; }
};

Result run(tlbf_dedup::Extractor& e, std::string_view text, char padding) {
  std::string buf(text);
  buf.append(tlbf_dedup::RecordReader::kTailPadding, padding);
  tlbf_dedup::Record r;
  r.data = buf.data();
  r.size = text.size();
  r.term_len = 0;
  tlbf_dedup::Extracted x = e.extract(r);
  return {x.status, std::string(x.key), x.time};
}

void check_composite(const Result& r, std::size_t parts) {
  std::string_view k = r.key;
  for (std::size_t i = 0; i < parts; ++i) {
    require(k.size() >= 4, "a composite key part has its length");
    std::uint32_t n = 0;
    for (int b = 0; b < 4; ++b) n |= std::uint32_t{static_cast<unsigned char>(k[b])} << (8 * b);
    k.remove_prefix(4);
    require(n <= k.size(), "a composite key part fits in the key");
    k.remove_prefix(n);
  }
  require(k.empty(), "a composite key is exactly its parts");
}

void check_line_single_key(const Result& r, std::string_view text) {
  // Variant 0: key = field 3, time = field 1, blank-separated.
  std::string_view field1, field3;
  const std::uint32_t n = tlbf_dedup::FieldSplitter(-1).split(text, 3, [&](std::uint32_t i, std::string_view f) {
    (i == 1 ? field1 : field3) = f;
    return true;
  });
  if (n < 3) {
    require(r.status == ExtractStatus::missing_key, "a line without field 3 has no key");
  } else {
    require(r.status == ExtractStatus::ok && r.key == field3, "the key is field 3");
  }
  if (n >= 1) {
    tlbf_dedup::TimeParser parser(tlbf_dedup::TimeFormat::auto_detect, std::nullopt, 2024);
    require(r.time == parser(field1), "the time is field 1 parsed");
  } else {
    require(!r.time, "an empty line has no time");
  }
}

void check_json_id(const Result& r, std::string_view text) {
  // Variant 4: key "id". When a full DOM parse finds a string "id", On-Demand must find it too.
  static simdjson::dom::parser dom;
  simdjson::padded_string padded(text);
  simdjson::dom::element doc;
  if (dom.parse(padded).get(doc)) return;
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) {
    require(r.status == ExtractStatus::malformed, "a JSON value that is not an object is malformed");
    return;
  }
  std::string_view id;
  if (obj["id"].get_string().get(id)) return;
  require(r.status == ExtractStatus::ok && r.key == id, "a string id that DOM finds is the key");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  auto& vs = variants();
  const std::size_t which = data[0] % vs.size();
  Variant& v = vs[which];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  const Result a = run(*v.extractor, text, '\0');
  const Result b = run(*v.extractor, text, '"');
  const Result c = run(*v.extractor, text, '}');
  // Known limit (simdjson On-Demand is lazy): for JSON that is invalid somewhere, whether the
  // requested fields are read before the error is met can depend on the bytes after the record,
  // so the status may be ok in one run and malformed in another. Output bytes do not change.
  // For valid JSON, and for every line format, the result must not vary.
  auto invalid_json = [&] {
    static simdjson::dom::parser dom;
    simdjson::padded_string padded(text);
    simdjson::dom::element doc;
    return dom.parse(padded).get(doc) != simdjson::SUCCESS;
  };
  const bool some_malformed = a.status == ExtractStatus::malformed || b.status == ExtractStatus::malformed ||
                              c.status == ExtractStatus::malformed;
  if (!(a == b && b == c) && !(some_malformed && invalid_json())) {
    for (const Result* r : {&a, &b, &c})
      std::fprintf(stderr, "status %d, key %zu bytes \"%s\", time %s\n", static_cast<int>(r->status), r->key.size(),
                   r->key.c_str(), r->time ? std::to_string(*r->time).c_str() : "none");
    require(false, "the result does not depend on the padding or on earlier records");
  }
  if (a.status == ExtractStatus::ok && v.cfg.keys.size() >= 2) check_composite(a, v.cfg.keys.size());
  if (a.status == ExtractStatus::ok && v.cfg.keys.empty() && v.cfg.key_regex.empty())
    require(a.key == text, "no key option: the key is the whole record");
  if (!v.json) require(a.status != ExtractStatus::malformed, "lines are never malformed");
  if (which == 0) check_line_single_key(a, text);
  if (which == 4) check_json_id(a, text);
  return 0;
}
