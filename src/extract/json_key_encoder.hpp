// KeyEncoder: a JSON value as key bytes (json_key in extract.hpp), written by the JSON
// extractor for every key part. Internal to src/extract (extract_json.cpp and
// json_key_encoder.cpp).
//
// Invariant: two values give the same bytes exactly when they are equal JSON data of one
// type (append_canonical_number() for numbers, members sorted by name for objects), and a
// string or plain integer part is given without encoding when nothing folds or masks it.
#pragma once

#include <simdjson.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extract.hpp"
#include "extract/key_mask.hpp"

namespace tlbf_dedup {

constexpr std::size_t kPlainDigits = 40;  // integers up to this many digits print plainly
static_assert(kPlainDigits + 8 <= RecordReader::kTailPadding, "a plain integer key is copied with the bytes after it");

// An integer that append_canonical_number() would copy unchanged: no -0, no leading zero,
// at most kPlainDigits digits.
bool is_plain_integer(std::string_view s);

// A scalar's token without the blanks simdjson leaves after it.
inline std::string_view trim_json_token(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The pieces of `text` between the `sep` bytes (a path's member names, a list's paths).
std::vector<std::string> split_at(std::string_view text, char sep);

// The members --key-except leaves out of a record's key, as a tree of member names: a name
// whose node is a leaf is left out with its whole value, the others lead to nested objects.
class ExceptTree {
 public:
  static constexpr std::size_t kMaxDots = 12;  // a dotted path is read in 2^dots ways
  // `paths`: member names joined by dots (a, a.b), where a dot may also be part of a name, as
  // -k reads them (a.b leaves out a member "a.b" and member b of member a); or JSON pointers
  // (/a/b, exactly those names). Throws SpecError for a pointer with a stray '~' or a dotted
  // path of more than kMaxDots dots.
  explicit ExceptTree(const std::vector<std::string>& paths = {});
  bool empty() const { return children_.empty(); }
  bool leaf() const { return whole_; }
  // The node of member `name` below this one, or nullptr when no path goes through it.
  const ExceptTree* find(std::string_view name) const {
    const auto it = children_.find(name);
    return it == children_.end() ? nullptr : &it->second;
  }

 private:
  void add(const std::vector<std::string>& names);  // one path, as the names it goes through

  std::map<std::string, ExceptTree, std::less<>> children_;
  bool whole_ = false;  // the member is left out with its whole value
};

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
  // folded or masked, anything else encoded into `buf`. simdjson::DEPTH_ERROR for a value
  // nested deeper than kMaxKeyDepth.
  simdjson::error_code part(simdjson::ondemand::value& v, std::string& buf, std::string_view& out);
  // A whole record (an object) without the members of `except`, encoded as a key part is
  // (members sorted, values typed, folded and masked alike) into `buf`.
  simdjson::error_code record_except(simdjson::ondemand::value& v, const ExceptTree& except, std::string& buf);

 private:
  // Any value, arrays and objects walked without recursion (json_key_encoder.cpp).
  // `except`: members left out of the top object (and of the objects it leads to).
  simdjson::error_code append(simdjson::ondemand::value& v, simdjson::ondemand::json_type type, std::string& out,
                              const ExceptTree* except = nullptr);
  // A string, number, boolean or null; `nested`: inside an array or object, self-delimiting.
  simdjson::error_code append_scalar(simdjson::ondemand::value& v, simdjson::ondemand::json_type type, std::string& out,
                                     bool nested);

  bool fold_;
  KeyMask mask_;                       // applied to string values, never to member names or other types
  char number_key_[kPlainDigits + 9];  // kNumber and a plain integer, for part()
};

}  // namespace tlbf_dedup
