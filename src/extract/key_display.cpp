// Key bytes back into what a person wrote (key_display.hpp): the inverse of the JSON key
// encoding (json_key_encoder.cpp) and of the composite key's length prefixes (append_key_part).
//
// Invariant: the output is valid UTF-8 and valid JSON for any input bytes. A value is written
// whole or, when the bytes end inside it (`cut`), as far as it reads and then closed; bytes
// that are not a key the extractors make (never seen in practice) are shown as text.
#include "extract/key_display.hpp"

#include <cstdint>

#include "extract/extract.hpp"

namespace tlbf_dedup {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

unsigned byte_at(std::string_view s, std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; }

// How many bytes from s[i] on are the start of a valid UTF-8 character (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), at most `length`, the length its first byte
// announces (0 for a byte that starts none): `length` when the character is whole.
std::size_t utf8_prefix(std::string_view s, std::size_t i, std::size_t& length) {
  const unsigned c = byte_at(s, i);
  unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c < 0x80) {
    length = 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    lo = c == 0xE0 ? 0xA0 : lo;
    hi = c == 0xED ? 0x9F : hi;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    lo = c == 0xF0 ? 0x90 : lo;
    hi = c == 0xF4 ? 0x8F : hi;
  } else {
    length = 0;
    return 0;
  }
  std::size_t n = 1;
  for (; n < length && i + n < s.size(); ++n) {
    const unsigned x = byte_at(s, i + n);
    if (x < (n == 1 ? lo : 0x80u) || x > (n == 1 ? hi : 0xBFu)) break;
  }
  return n;
}

void append_string(std::string& out, std::string_view text, bool cut) {
  out += '"';
  append_json_text(out, text, cut);
  out += '"';
}

std::uint32_t read_length(std::string_view s, std::size_t at) {
  return byte_at(s, at) | (byte_at(s, at + 1) << 8) | (byte_at(s, at + 2) << 16) |
         (static_cast<std::uint32_t>(byte_at(s, at + 3)) << 24);
}

// A canonical number (append_canonical_number) as JSON: its text, or after 'x' the number as
// written. Empty when it is not one.
std::string_view number_text(std::string_view n) {
  if (!n.empty() && n[0] == 'x') n.remove_prefix(1);
  if (n.empty() || n.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return {};
  return n;
}

// How a value read: whole, cut off by the end of the bytes (written as far as it went, or not
// at all), or not a value the encoder writes.
enum class Read { whole, cut, bad };

// Reads the nested values of json_key's encoding from `s`, from `at` on.
class NestedReader {
 public:
  NestedReader(std::string_view s, std::size_t at) : s_(s), at_(at) {}
  std::size_t at() const { return at_; }

  // Appends the value at `at` to `out`. On `cut`, `out` holds the value as far as it read, or
  // nothing of it.
  Read value(std::string& out) {
    if (at_ >= s_.size()) return Read::cut;
    const char tag = s_[at_++];
    switch (tag) {
      case json_key::kNull:
        out += "null";
        return Read::whole;
      case json_key::kFalse:
        out += "false";
        return Read::whole;
      case json_key::kTrue:
        out += "true";
        return Read::whole;
      case json_key::kString:
        return string(out);
      case json_key::kNumber:
        return number(out);
      case json_key::kArray:
        return array(out);
      case json_key::kObject:
        return object(out);
      default:
        return Read::bad;
    }
  }

 private:
  // A length-prefixed body: whole, cut inside (`body` the bytes there are), or cut inside its
  // length (nothing known of it).
  enum class Body { whole, cut, unknown };
  Body body(std::string_view& body) {
    if (at_ + 4 > s_.size()) {
      at_ = s_.size();
      return Body::unknown;
    }
    const std::uint32_t n = read_length(s_, at_);
    at_ += 4;
    body = s_.substr(at_, n);
    at_ += body.size();
    return body.size() == n ? Body::whole : Body::cut;
  }
  Read string(std::string& out) {
    std::string_view text;
    const Body b = body(text);
    if (b == Body::unknown) return Read::cut;
    append_string(out, text, b == Body::cut);
    return b == Body::whole ? Read::whole : Read::cut;
  }
  Read number(std::string& out) {
    std::string_view text;
    if (body(text) != Body::whole) return Read::cut;
    const std::string_view n = number_text(text);
    if (n.empty()) return Read::bad;
    out += n;
    return Read::whole;
  }
  // At the container's end: consumes it and closes the JSON text with `close`.
  bool closes(std::string& out, char close) {
    if (at_ >= s_.size() || s_[at_] != json_key::kEnd) return false;
    ++at_;
    out += close;
    return true;
  }
  Read array(std::string& out) {
    out += '[';
    for (bool first = true;; first = false) {
      if (closes(out, ']')) return Read::whole;
      const std::size_t before = out.size();
      if (!first) out += ',';
      const std::size_t element = out.size();
      const Read r = value(out);
      if (r == Read::bad) return r;
      if (r == Read::cut) {
        if (out.size() == element) out.resize(before);
        out += ']';
        return r;
      }
    }
  }
  Read object(std::string& out) {
    out += '{';
    for (bool first = true;; first = false) {
      if (closes(out, '}')) return Read::whole;
      if (at_ < s_.size() && s_[at_] != json_key::kString) return Read::bad;
      const std::size_t before = out.size();
      if (!first) out += ',';
      std::string_view name;
      Read r = Read::cut;
      if (at_ < s_.size() && (++at_, body(name) == Body::whole)) {
        append_string(out, name, false);
        out += ':';
        const std::size_t member = out.size();
        r = value(out);
        if (r == Read::bad) return r;
        if (r == Read::cut && out.size() == member) out.resize(before);  // a name without its value
      } else {
        out.resize(before);  // the bytes end inside the name
      }
      if (r == Read::cut) {
        out += '}';
        return r;
      }
    }
  }

  std::string_view s_;
  std::size_t at_;
};

// One part of a JSON record's key (json_key's top-level form); false when it is not one.
bool append_json_part(std::string& out, std::string_view part, bool cut) {
  if (part.empty() || static_cast<unsigned char>(part[0]) < 0xF8) {  // a string, untagged
    append_string(out, part, cut);
    return true;
  }
  const char tag = part[0];
  if (tag == json_key::kNumber) {  // its canonical text, to the end of the part
    if (cut) return true;          // it may have had more digits: not shown
    const std::string_view n = number_text(part.substr(1));
    if (n.empty()) return false;
    out += n;
    return true;
  }
  if (tag == json_key::kString || tag == json_key::kEnd) return false;
  NestedReader r(part, 0);
  const std::size_t before = out.size();
  const Read read = r.value(out);
  if (read == Read::whole && r.at() == part.size()) return true;
  if (read == Read::cut && cut) return true;
  out.resize(before);
  return false;
}

void append_part(std::string& out, std::string_view part, bool json, bool cut) {
  const std::size_t before = out.size();
  if (out.size() > 1) out += ',';
  const std::size_t at = out.size();
  if (json && !append_json_part(out, part, cut)) append_string(out, part, cut);  // not a key we make
  if (!json) append_string(out, part, cut);
  if (out.size() == at) out.resize(before);  // nothing of it could be shown
}

}  // namespace

void append_json_text(std::string& out, std::string_view text, bool cut) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned c = byte_at(text, i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
      ++i;
    } else {
      std::size_t length = 0;
      const std::size_t n = utf8_prefix(text, i, length);
      if (length > 0 && n == length) {
        out.append(text.data() + i, n);
        i += n;
      } else if (cut && i + n == text.size()) {
        return;  // a character the cut ended
      } else {
        out += kReplacement;
        ++i;
      }
    }
  }
}

std::string describe_key_parts(std::string_view key, KeyShape shape, bool cut) {
  std::string out = "[";
  if (!shape.composite) {
    append_part(out, key, shape.format == InputFormat::json, cut);
    return out + "]";
  }
  while (key.size() >= 4) {
    const std::uint32_t n = read_length(key, 0);
    const std::string_view part = key.substr(4, n);
    append_part(out, part, shape.format == InputFormat::json, part.size() < n);
    key.remove_prefix(4 + part.size());
  }
  return out + "]";
}

}  // namespace tlbf_dedup
