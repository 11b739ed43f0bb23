// Key and time extraction for JSON records (one object per record, NDJSON).
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
//    a scalar where the path goes on); anything else that fails is a malformed record.
//  - Key values are JSON data, not text (json_key in extract.hpp): two parts are one key
//    exactly when they are equal values of one type, whatever the escapes, the member
//    order, the whitespace or the way a number is written. Composite keys are
//    length-prefixed. A string key, the common case, stays a view into the parser's
//    buffer: the only per-record cost of typing keys is a tag byte on the other kinds.
//  - --mask rewrites string values only, after unescaping and before folding, at any depth of
//    the key; member names, numbers and the other types are data and stay as they are.
//  - The common record -- printable ASCII, no backslash, the wanted members top-level names
//    among its first -- is read without simdjson, by one pass of 16-byte compares that proves
//    simdjson's stage 1 would accept it and a scan of its first members (flat_scan): a fifth
//    of the instructions. The scan decides a record only as simdjson's lookups would decide
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "extract/extract.hpp"
#include "extract/json_scan.hpp"

namespace tlbf_dedup {

static_assert(simdjson::SIMDJSON_PADDING <= RecordReader::kTailPadding,
              "the reader must keep simdjson's padding after each record");
constexpr std::size_t kPlainDigits = 40;  // integers up to this many digits print plainly
static_assert(kPlainDigits + 8 <= RecordReader::kTailPadding, "a plain integer key is copied with the bytes after it");

namespace {

namespace od = simdjson::ondemand;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

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

// An integer that append_canonical_number() would copy unchanged: no -0, no leading zero,
// at most kPlainDigits digits. Eight bytes at a time, since this runs for every record keyed
// by a number.
bool is_plain_integer(std::string_view s) {
  std::size_t i = !s.empty() && s[0] == '-';
  const std::size_t digits = s.size() - i;
  if (digits == 0 || digits > kPlainDigits || s[i] == '0') return s == "0";
  auto eight_digits = [&](std::size_t at) {
    std::uint64_t x;
    std::memcpy(&x, s.data() + at, 8);
    // Each byte is 0x30-0x39: high nibble 3, and adding 6 leaves it 3.
    constexpr std::uint64_t high = 0xF0F0F0F0F0F0F0F0, threes = 0x3030303030303030, sixes = 0x0606060606060606;
    return (x & high) == threes && ((x + sixes) & high) == threes;
  };
  if (digits < 8) {
    for (; i < s.size(); ++i)
      if (static_cast<unsigned char>(s[i] - '0') > 9) return false;
    return true;
  }
  for (; i + 8 < s.size(); i += 8)
    if (!eight_digits(i)) return false;
  return eight_digits(s.size() - 8);  // the last eight, overlapping the previous word
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool is_json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A scalar simdjson gives a type (number, boolean, null) by its first byte: its text is a time's.
bool is_typed_scalar(char first) {
  return first == '-' || is_digit(first) || first == 't' || first == 'f' || first == 'n';
}

}  // namespace

// Stage 1 fails only on the three things plain_ascii_record() checks; what it would index,
// the flat scan reads from the bytes (one pass of 16-byte compares, a fifth of stage 1's
// instructions on a typical record).
bool plain_ascii_record(const Record& record) {
  const char* p = record.data;
  const std::size_t n = record.size;
#if defined(__SSE2__)
  unsigned quotes = 0;  // the quotes' bits of every block xor-ed: the count's parity is theirs
  const __m128i space = _mm_set1_epi8(' '), backslash = _mm_set1_epi8('\\'), quote = _mm_set1_epi8('"');
  for (std::size_t i = 0; i < n; i += 16) {
    // The bytes past the record are its padding or the next record's: masked off.
    const unsigned valid = n - i >= 16 ? 0xFFFFu : (1u << (n - i)) - 1;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed: bytes of 0x80 and above are negative, so below ' ' as the control bytes are.
    const __m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, backslash));
    if (static_cast<unsigned>(_mm_movemask_epi8(bad)) & valid) return false;
    quotes ^= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote))) & valid;
  }
  quotes ^= quotes >> 8;
  quotes ^= quotes >> 4;
  quotes ^= quotes >> 2;
  quotes ^= quotes >> 1;
#else
  unsigned quotes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '\\') return false;
    quotes += c == '"';
  }
#endif
  return (quotes & 1) == 0;
}

namespace {

// The next quote at or after p, or nullptr at `end` (strings of a plain_ascii_record() have
// no escapes: the next quote closes them). Names and values are short: 16 bytes at a time
// inline, where a call to memchr() cost more than the search.
const char* next_quote(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  for (; p < end; p += 16) {  // the record's tail padding keeps the last load readable
    const auto hits = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), quote)));
    if (hits) {
      const char* q = p + __builtin_ctz(hits);
      return q < end ? q : nullptr;
    }
  }
  return nullptr;
#else
  return static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
#endif
}

// Bytes that end a scalar's token in stage 1: blanks, the structural characters, and a quote
// (which, right after a scalar, stage 1 does not take as a string's start).
struct ScalarEnds {
  bool at[256] = {};
  constexpr ScalarEnds() {
    for (char c : std::string_view(" \t\n\r,:{}[]\"")) at[static_cast<unsigned char>(c)] = true;
  }
};
constexpr ScalarEnds kScalarEnds;

bool same_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)  // names are short: no call to memcmp()
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

// The common record, read without simdjson: stage 1 indexes the whole record and On-Demand
// navigation compares member names through the library's general iterator, rewinding for
// each lookup; together four fifths of the extraction's instructions, for two members at the
// front of the record. Values skipped on the way are skipped as On-Demand skips them, by
// counting brackets, without validating them.
bool flat_scan(const Record& record, const std::vector<std::string>& names, FlatValue* found) {
  const char* p = record.data;
  const char* end = record.data + record.size;
  while (end > p && is_json_blank(end[-1])) --end;
  if (end == p || end[-1] != '}' || record.data[record.size] == '}') return false;
  while (is_json_blank(*p)) ++p;
  if (*p++ != '{') return false;
  std::size_t missing = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) found[i] = FlatValue{};
  auto skip_blanks = [&] {
    while (p < end && is_json_blank(*p)) ++p;
  };
  for (;;) {
    skip_blanks();
    if (p == end || *p != '"') return false;
    const char* name = ++p;
    if (!(p = next_quote(p, end))) return false;
    const std::string_view member(name, static_cast<std::size_t>(p++ - name));
    skip_blanks();
    if (p == end || *p++ != ':') return false;
    skip_blanks();
    if (p == end) return false;
    FlatValue value;
    const char* start = p;
    switch (*p) {
      case '"': {
        const char* close = next_quote(p + 1, end);
        if (!close) return false;
        value.string = true;
        value.text = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
        p = close + 1;
        break;
      }
      case '{':
      case '[': {
        // A container is never a value the fast path reads, only one it skips.
        int depth = 0;
        do {
          if (*p == '"') {
            if (!(p = next_quote(p + 1, end))) return false;
          } else if (*p == '{' || *p == '[') {
            ++depth;
          } else if (*p == '}' || *p == ']') {
            --depth;
          }
          ++p;
        } while (depth > 0 && p < end);
        if (depth > 0) return false;
        break;
      }
      case ',':
      case ':':
      case '}':
      case ']':
        return false;
      default:
        while (p < end && !kScalarEnds.at[static_cast<unsigned char>(*p)]) ++p;
        // A quote right after a scalar does not start a string for stage 1: 8"a,b" is one token.
        if (p < end && *p == '"') return false;
        value.text = std::string_view(start, static_cast<std::size_t>(p - start));
        break;
    }
    value.found = true;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (found[i].found || !same_bytes(names[i], member)) continue;
      if (*start == '{' || *start == '[') return false;
      found[i] = value;
      // Once the last wanted member is read, nothing after it is: On-Demand stops there too.
      if (--missing == 0) return true;
    }
    skip_blanks();
    if (p == end || *p++ != ',') return false;
  }
}

namespace {

void append_length(std::string& out, std::size_t n) {
  const auto u = static_cast<std::uint32_t>(n);
  const char len[4] = {static_cast<char>(u), static_cast<char>(u >> 8), static_cast<char>(u >> 16),
                       static_cast<char>(u >> 24)};
  out.append(len, 4);
}

// Sets the 4-byte length written by append_length() at `at`, once the value's size is known.
void patch_length(std::string& out, std::size_t at, std::size_t n) {
  for (int b = 0; b < 4; ++b) out[at + static_cast<std::size_t>(b)] = static_cast<char>(n >> (8 * b));
}

// Writes a JSON value as key bytes (json_key in extract.hpp).
class KeyEncoder {
 public:
  KeyEncoder(bool fold, const KeyMask& mask) : fold_(fold), mask_(mask) {}

  // Strings are keyed as they are: a string part can be a view of the text.
  bool keeps_strings() const { return !fold_ && !mask_.masks_anything(); }

  // The second most common key: a short integer, its own canonical form. Copied with its
  // tag in one step, since a per-character append cost a tenth of all instructions. False
  // when `raw` (a number's token, in the record) needs append_canonical_number().
  bool plain_integer(std::string_view raw, std::string_view& out) {
    if (!is_plain_integer(raw)) return false;
    // A fixed-size copy, a few vector moves: the bytes past the integer are the record's
    // or its tail padding (RecordReader::kTailPadding > kPlainDigits + 8).
    number_key_[0] = json_key::kNumber;
    std::memcpy(number_key_ + 1, raw.data(), kPlainDigits + 8);
    out = std::string_view(number_key_, raw.size() + 1);
    return true;
  }

  // The part's bytes: a string as a view into the parser's buffer when nothing is to be
  // folded or masked, anything else encoded into `buf`.
  simdjson::error_code part(od::value& v, std::string& buf, std::string_view& out) {
    od::json_type type;
    simdjson::error_code err = v.type().get(type);
    if (err) return err;
    if (type == od::json_type::string && keeps_strings()) return v.get_string().get(out);
    if (type == od::json_type::number && plain_integer(trim(v.raw_json_token()), out)) return simdjson::SUCCESS;
    buf.clear();
    if ((err = append(v, type, buf, Depth::top))) return err;
    out = buf;
    return simdjson::SUCCESS;
  }

 private:
  enum class Depth { top, nested };  // nested: inside an array or object, self-delimiting

  simdjson::error_code append(od::value& v, od::json_type type, std::string& out, Depth depth) {
    simdjson::error_code err = simdjson::SUCCESS;
    switch (type) {
      case od::json_type::string: {
        std::string_view s;
        if ((err = v.get_string().get(s))) return err;
        if (depth == Depth::nested) out += json_key::kString;
        const std::size_t len_at = out.size();
        if (depth == Depth::nested) append_length(out, 0);
        const std::size_t at = out.size();
        // Masked before folding, as line keys are; the length is the masked text's.
        if (mask_.masks_anything())
          mask_.append_masked(s, out);
        else
          out.append(s.data(), s.size());
        if (fold_)
          for (std::size_t i = at; i < out.size(); ++i)
            if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] + 32);
        if (depth == Depth::nested) patch_length(out, len_at, out.size() - at);
        return simdjson::SUCCESS;
      }
      case od::json_type::number: {
        out += json_key::kNumber;
        const std::size_t len_at = out.size();
        if (depth == Depth::nested) append_length(out, 0);
        const std::size_t at = out.size();
        if (!append_canonical_number(out, trim(v.raw_json_token()))) return simdjson::NUMBER_ERROR;
        if (depth == Depth::nested) patch_length(out, len_at, out.size() - at);
        return simdjson::SUCCESS;
      }
      case od::json_type::boolean: {
        bool b = false;
        if ((err = v.get_bool().get(b))) return err;
        out += b ? json_key::kTrue : json_key::kFalse;
        return simdjson::SUCCESS;
      }
      case od::json_type::null: {
        bool is_null = false;
        if ((err = v.is_null().get(is_null))) return err;
        if (!is_null) return simdjson::N_ATOM_ERROR;
        out += json_key::kNull;
        return simdjson::SUCCESS;
      }
      case od::json_type::array: {
        od::array arr;
        if ((err = v.get_array().get(arr))) return err;
        out += json_key::kArray;
        for (auto element : arr) {
          od::value ev;
          od::json_type et;
          if ((err = element.get(ev)) || (err = ev.type().get(et)) || (err = append(ev, et, out, Depth::nested)))
            return err;
        }
        out += json_key::kEnd;
        return simdjson::SUCCESS;
      }
      case od::json_type::object:
        return append_object(v, out);
    }
    return simdjson::INCORRECT_TYPE;
  }

  // Members sorted by name, the first of equal names kept: the order and repetition of
  // members in the text do not matter, and a name means what a path lookup finds.
  simdjson::error_code append_object(od::value& v, std::string& out) {
    od::object obj;
    simdjson::error_code err = v.get_object().get(obj);
    if (err) return err;
    struct Member {
      std::string name, value;
    };
    std::vector<Member> members;
    for (auto field : obj) {
      od::field f;
      std::string_view name;
      od::json_type type;
      if ((err = std::move(field).get(f)) || (err = f.unescaped_key().get(name))) return err;
      members.push_back({std::string(name), {}});
      if ((err = f.value().type().get(type)) || (err = append(f.value(), type, members.back().value, Depth::nested)))
        return err;
    }
    std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.name < b.name; });
    out += json_key::kObject;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0 && members[i].name == members[i - 1].name) continue;
      out += json_key::kString;
      append_length(out, members[i].name.size());
      out += members[i].name;
      out += members[i].value;
    }
    out += json_key::kEnd;
    return simdjson::SUCCESS;
  }

  bool fold_;
  KeyMask mask_;                       // applied to string values, never to member names or other types
  char number_key_[kPlainDigits + 9];  // kNumber and a plain integer, for part()
};

class JsonExtractor final : public Extractor {
 public:
  JsonExtractor(const ExtractConfig& cfg, TimeParser time_parser, bool fast_path)
      : keys_(cfg.keys),
        missing_(cfg.missing),
        encoder_(cfg.ignore_case, cfg.mask),
        mask_(cfg.mask),
        time_path_(cfg.time),
        time_parser_(std::move(time_parser)) {
    if (!cfg.key_regex.empty()) throw SpecError("--key-regex applies to lines, not to JSON records");
    if (cfg.delimiter >= 0) throw SpecError("-d/--delimiter applies to lines, not to JSON records");
    for (const std::string& k : keys_) {
      if (k.empty()) throw SpecError("-k/--key: an empty JSON path");
      if (k[0] == '/' && !valid_pointer(k))
        throw SpecError("-k/--key '" + k + "': '~' in a JSON pointer must be ~0 or ~1");
    }
    if (!time_path_.empty() && time_path_[0] == '/' && !valid_pointer(time_path_))
      throw SpecError("-t/--time '" + time_path_ + "': '~' in a JSON pointer must be ~0 or ~1");
    wants_time_ = !time_path_.empty();
    // The fast path reads member names and the values of strings and plain integers as written.
    if (wants_time_) flat_names_.push_back(time_path_);
    flat_names_.insert(flat_names_.end(), keys_.begin(), keys_.end());
    flat_ = fast_path && !flat_names_.empty() && (keys_.empty() || encoder_.keeps_strings()) &&
            std::none_of(flat_names_.begin(), flat_names_.end(), [](const std::string& p) { return p[0] == '/'; });
    flat_found_.resize(flat_names_.size());
  }

  Extracted extract(const Record& record) override {
    Extracted out;
    if (flat_ && plain_ascii_record(record) && read_flat(record, out)) return out;
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
      } else if (!is_absent(err)) {
        // The document broke while looking for the time: nothing more can be read from it
        // (On-Demand leaves the parser unusable for further lookups on this document).
        out.status = ExtractStatus::malformed;
        return out;
      }
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
  enum class Found { value, absent, broken };

  // The key part at `path`: absent only when the path leads nowhere; a value found but not
  // valid JSON (tru, 01) is a broken record.
  Found read_part(od::document& doc, od::object& root, const std::string& path, std::string_view& part) {
    od::value v;
    simdjson::error_code err = lookup(doc, root, path, v);
    if (err) return is_absent(err) ? Found::absent : Found::broken;
    return encoder_.part(v, part_, part) ? Found::broken : Found::value;
  }

  // The whole record is text here, not a value: masked as a line would be.
  std::string_view whole_record_key(const Record& record) {
    return mask_.masks_anything() ? mask_.apply(record.text(), part_) : record.text();
  }

  // The record decided by flat_scan(), exactly as the lookups would decide it; false (nothing
  // done) for a record or a value the fast path leaves to them.
  bool read_flat(const Record& record, Extracted& out) {
    if (!flat_scan(record, flat_names_, flat_found_.data())) return false;
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
    if (wants_time_) out.time = time_parser_.parse_in_place(flat_found_[0].text);
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
    out.status = found == Found::absent ? ExtractStatus::missing_key : ExtractStatus::malformed;
    if (found == Found::absent) out.absent_part = part;
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
    text = trim(v.raw_json_token());
    return simdjson::SUCCESS;
  }

  od::parser parser_;
  bool flat_ = false;                    // every path may be read by flat_scan()
  std::vector<std::string> flat_names_;  // the time path if any, then the key paths
  std::vector<FlatValue> flat_found_;
  bool root_stale_ = false;  // the document was rewound since `root` was fetched
  std::vector<std::string> keys_;
  MissingMember missing_;
  KeyEncoder encoder_;
  KeyMask mask_;
  std::string time_path_;
  TimeParser time_parser_;
  std::string part_;  // the current part's bytes when they are not a view into the record
  std::string composite_;
};

}  // namespace

bool append_canonical_number(std::string& out, std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  const bool negative = i < n && text[i] == '-';
  if (negative) ++i;
  const std::size_t int_begin = i;
  if (i < n && text[i] == '0') {
    ++i;
  } else {
    if (i == n || !is_digit(text[i])) return false;
    while (i < n && is_digit(text[i])) ++i;
  }
  const std::string_view int_digits = text.substr(int_begin, i - int_begin);
  // The common case: a short integer is its own canonical form (but -0 is 0).
  if (i == n && int_digits.size() <= kPlainDigits) {
    if (int_digits == "0")
      out += '0';
    else
      out.append(text.data(), text.size());
    return true;
  }
  std::string_view frac_digits;
  if (i < n && text[i] == '.') {
    const std::size_t begin = ++i;
    while (i < n && is_digit(text[i])) ++i;
    if (i == begin) return false;
    frac_digits = text.substr(begin, i - begin);
  }
  std::int64_t exponent = 0;
  bool huge_exponent = false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    const std::size_t begin = i;
    for (; i < n && is_digit(text[i]); ++i) {
      if (exponent >= 1'000'000'000'000'000)
        huge_exponent = true;
      else
        exponent = exponent * 10 + (text[i] - '0');
    }
    if (i == begin) return false;
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return false;

  // value = digits (int_digits then frac_digits) x 10^(exponent - frac size); drop the zeros
  // on both ends of the digits, counting the trailing ones into the exponent.
  auto digit_at = [&](std::size_t k) {
    return k < int_digits.size() ? int_digits[k] : frac_digits[k - int_digits.size()];
  };
  const std::size_t total = int_digits.size() + frac_digits.size();
  std::size_t first = 0, last = total;
  while (first < total && digit_at(first) == '0') ++first;
  if (first == total) {
    out += '0';
    return true;
  }
  while (digit_at(last - 1) == '0') --last;
  if (huge_exponent) {
    out += 'x';
    out.append(text.data(), text.size());
    return true;
  }
  exponent += static_cast<std::int64_t>(total - last) - static_cast<std::int64_t>(frac_digits.size());
  if (negative) out += '-';
  for (std::size_t k = first; k < last; ++k) out += digit_at(k);
  const auto digits = static_cast<std::int64_t>(last - first);
  if (exponent >= 0 && digits + exponent <= static_cast<std::int64_t>(kPlainDigits)) {
    out.append(static_cast<std::size_t>(exponent), '0');
  } else {
    out += 'e';
    out += std::to_string(exponent);
  }
  return true;
}

std::unique_ptr<Extractor> make_json_extractor(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<JsonExtractor>(cfg, std::move(time_parser), true);
}

std::unique_ptr<Extractor> make_json_extractor_without_fast_path(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<JsonExtractor>(cfg, std::move(time_parser), false);
}

}  // namespace tlbf_dedup
