// Fuzzes key and time extraction (src/extract/extract.hpp) for lines and for JSON records, with the
// input as one record placed in a buffer with the reader's tail padding.
//
// Input: a control byte choosing one of the extractor configurations below, then the record.
// Invariants checked: extraction is a pure function of the record's bytes (the same result
// twice, whatever bytes the padding holds); a composite key is exactly its length-prefixed
// parts; a line's single-field key and time agree with FieldSplitter and TimeParser; and a
// JSON record that simdjson's DOM parser reads as an object with a string "id" yields that
// string as the key (On-Demand must not miss what a full parse finds).
// Typed keys (variants 8-15): for a valid record, the key at "k" is unchanged when its value
// is rewritten (every letter and digit \u-escaped, members reversed with the first of equal
// names kept, other spacing, integers as N.00E+0; with -i, string content upper-cased) and
// differs from the key of the value's JSON text as a string; an absent part is named only
// with --missing error; a canonical number is a fixed point with the same double value.
#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extract.hpp"
#include "extract/field_list.hpp"

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
                     bool icase = false, tlbf_dedup::MissingMember missing = tlbf_dedup::MissingMember::error) {
  ExtractConfig c;
  c.keys = std::move(keys);
  c.time = std::move(time);
  c.delimiter = delimiter;
  c.key_regex = std::move(regex);
  c.ignore_case = icase;
  c.missing = missing;
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
    add(false, config({"3"}, "1"));                         // generated text: key field 3, time field 1
    add(false, config({"1,4", "2-"}, "2", ','));            // composite key, delimiter
    add(false, config({}, "4,5", -1, "id=([^ ]+)", true));  // regex key, two-field time
    add(false, config({}, ""));                             // the whole line
    add(true, config({"id"}, "ts"));                        // generated NDJSON
    add(true, config({"id", "req.path"}, "/ts"));           // composite, JSON pointer
    add(true, config({"id.orig_h", "/a/0"}, "ts", -1, {}, true));
    add(true, config({}, "time"));
    // 16 variants, so the seeds' control bytes (0-7 and 37) keep choosing the ones above.
    const auto null = tlbf_dedup::MissingMember::null;
    add(true, config({"k"}, ""));                // 8: typed values, rewritten
    add(true, config({"k"}, "", -1, {}, true));  // 9: the same with -i
    add(true, config({"a.0.b", "/a/1", "k"}, "", -1, {}, false, null));
    add(true, config({"k", "id"}, "ts", -1, {}, false, null));
    add(true, config({"a.0"}, ""));
    add(true, config({"/k/0/x"}, ""));
    add(true, config({"k"}, "ts"));  // 14: typed values with a time read first
    add(true, config({"x.y", "k"}, ""));
    return out;
  }();
  return v;
}

struct Result {
  ExtractStatus status;
  std::string key;
  std::optional<tlbf::Time> time;
  std::uint32_t absent_part;
  bool operator==(const Result& o) const {
    return status == o.status && key == o.key && time == o.time && absent_part == o.absent_part;
  }
};

Result run(tlbf_dedup::Extractor& e, std::string_view text, char padding) {
  std::string buf(text);
  buf.append(tlbf_dedup::RecordReader::kTailPadding, padding);
  tlbf_dedup::Record r;
  r.data = buf.data();
  r.size = text.size();
  r.term_len = 0;
  tlbf_dedup::Extracted x = e.extract(r);
  return {x.status, std::string(x.key), x.time.value(), x.absent_part};
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
    const tlbf_dedup::TimeReading fresh = parser.parse(field1);
    // A time of day is dated by the times before it (midnight rolls the date over), which the
    // extractor's parser has seen in earlier inputs and a fresh one has not: the same time of
    // day, then, on some date.
    constexpr tlbf::Time kDay = 86400 * tlbf::Time{1000000000};
    if (fresh.parsed && fresh.time_of_day)
      require(r.time && (*r.time - fresh.time) % kDay == 0, "the time is field 1's time of day");
    else
      require(r.time == fresh.value(), "the time is field 1 parsed");
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

bool holds_double(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::DOUBLE:
      return true;
    case simdjson::dom::element_type::ARRAY: {
      const simdjson::dom::array a = e.get_array().value_unsafe();
      for (simdjson::dom::element x : a)
        if (holds_double(x)) return true;
      return false;
    }
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object o = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : o)
        if (holds_double(kv.value)) return true;
      return false;
    }
    default:
      return false;
  }
}

void append_escaped(std::string& out, std::string_view s, bool upper, bool escape_alnum) {
  out += '"';
  for (char c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (u < 0x20 || (alnum && escape_alnum)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", u);
      out += buf;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  out += '"';
}

// The same JSON value written differently (see the top of the file); doubles are left out by
// the caller, since DOM keeps only their rounded value.
void rewrite(simdjson::dom::element e, bool upper, std::string& out) {
  switch (e.type()) {
    case simdjson::dom::element_type::INT64:
      out += std::to_string(e.get_int64().value_unsafe()) + ".00E+0";
      return;
    case simdjson::dom::element_type::UINT64:
      out += std::to_string(e.get_uint64().value_unsafe()) + ".00E+0";
      return;
    case simdjson::dom::element_type::STRING:
      append_escaped(out, e.get_string().value_unsafe(), upper, true);
      return;
    case simdjson::dom::element_type::ARRAY: {
      out += "[ ";
      bool first = true;
      const simdjson::dom::array a = e.get_array().value_unsafe();
      for (simdjson::dom::element x : a) {
        if (!first) out += " , ";
        first = false;
        rewrite(x, upper, out);
      }
      out += " ]";
      return;
    }
    case simdjson::dom::element_type::OBJECT: {
      std::vector<std::pair<std::string_view, simdjson::dom::element>> members;
      const simdjson::dom::object o = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : o) {
        bool seen = false;
        for (auto& m : members) seen = seen || m.first == kv.key;
        if (!seen) members.emplace_back(kv.key, kv.value);
      }
      out += "{\n";
      for (auto m = members.rbegin(); m != members.rend(); ++m) {
        if (m != members.rbegin()) out += ",\t";
        append_escaped(out, m->first, false, true);
        out += " : ";
        rewrite(m->second, upper, out);
      }
      out += "}";
      return;
    }
    default:  // null, true, false
      out += simdjson::minify(e);
      out += ' ';
  }
}

void check_typed_key(tlbf_dedup::Extractor& x, const Result& r, std::string_view text, bool icase) {
  static simdjson::dom::parser dom;
  simdjson::padded_string padded(text);
  simdjson::dom::element doc;
  simdjson::dom::object obj;
  simdjson::dom::element k;
  if (dom.parse(padded).get(doc) || doc.get_object().get(obj) || obj["k"].get(k) || holds_double(k)) return;
  require(r.status == ExtractStatus::ok, "a valid record with \"k\" has a key");
  std::string same = "{\"k\":";
  rewrite(k, icase, same);
  same += '}';
  std::string as_text = "{\"k\":";
  append_escaped(as_text, simdjson::minify(k), false, false);
  as_text += '}';
  const Result s = run(x, same, '\0');
  if (!(s.status == ExtractStatus::ok && s.key == r.key)) {
    std::fprintf(stderr, "rewritten: %s\n", same.c_str());
    require(false, "a value written differently is the same key");
  }
  const Result t = run(x, as_text, '\0');
  require(t.status == ExtractStatus::ok && t.key != r.key, "a value and its JSON text as a string are different keys");
}

void check_canonical_number(std::string_view text) {
  std::string canon;
  if (!tlbf_dedup::append_canonical_number(canon, text) || canon[0] == 'x') return;
  std::string again;
  require(tlbf_dedup::append_canonical_number(again, canon) && again == canon,
          "a canonical number is its own canonical form");
  const double a = std::strtod(std::string(text).c_str(), nullptr), b = std::strtod(canon.c_str(), nullptr);
  require(a == b || (std::isnan(a) && std::isnan(b)), "a canonical number has the same value");
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
  if (which == 8 || which == 9 || which == 14) check_typed_key(*v.extractor, a, text, which == 9);
  if (which == 8) check_canonical_number(text);
  if (a.status == ExtractStatus::missing_key && v.json && !v.cfg.keys.empty()) {
    if (v.cfg.missing == tlbf_dedup::MissingMember::null)
      require(a.absent_part == 0, "--missing null: keyless only when every part is absent");
    else
      require(a.absent_part >= 1 && a.absent_part <= v.cfg.keys.size(), "the absent part is one of the -k");
  }
  return 0;
}
