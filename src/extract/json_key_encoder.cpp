// How a JSON value becomes key bytes (json_key in extract.hpp): KeyEncoder's encoding of
// every type, and the canonical form of a number (append_canonical_number).
//
// Invariant: the bytes say the value and its type, and nothing of how the text wrote it:
// escapes are undone, numbers are canonical (no sign on zero, no leading or trailing zeros,
// the exponent folded in), an object's members are sorted by name with the first of equal
// names kept; inside an array or object every value is tagged and length-prefixed, so no two
// different values concatenate to the same bytes. Nested values are walked with a stack of
// their own, not by recursion, and refused past kMaxKeyDepth levels, whatever the input.
#include "extract/json_key_encoder.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tlbf_dedup {
namespace {

namespace od = simdjson::ondemand;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

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

}  // namespace

// Eight bytes at a time, since this runs for every record keyed by a number.
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

simdjson::error_code KeyEncoder::part(od::value& v, std::string& buf, std::string_view& out) {
  od::json_type type;
  simdjson::error_code err = v.type().get(type);
  if (err) return err;
  if (type == od::json_type::string && keeps_strings()) return v.get_string().get(out);
  if (type == od::json_type::number && plain_integer(trim_json_token(v.raw_json_token()), out))
    return simdjson::SUCCESS;
  buf.clear();
  if ((err = append(v, type, buf))) return err;
  out = buf;
  return simdjson::SUCCESS;
}

std::vector<std::string> split_at(std::string_view text, char sep) {
  std::vector<std::string> pieces;
  std::size_t from = 0;
  while (true) {
    const std::size_t at = text.find(sep, from);
    pieces.emplace_back(text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return pieces;
    from = at + 1;
  }
}

ExceptTree::ExceptTree(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (!path.empty() && path[0] == '/') {  // a JSON pointer: exactly its segments, unescaped
      std::vector<std::string> names = split_at(std::string_view(path).substr(1), '/');
      for (std::string& name : names) {
        std::string plain;
        for (std::size_t i = 0; i < name.size(); ++i) {
          if (name[i] != '~') {
            plain += name[i];
          } else if (i + 1 < name.size() && (name[i + 1] == '0' || name[i + 1] == '1')) {
            plain += name[++i] == '0' ? '~' : '/';
          } else {
            throw SpecError("--key-except '" + path + "': '~' in a JSON pointer must be ~0 or ~1");
          }
        }
        name = std::move(plain);
      }
      add(names);
      continue;
    }
    // A dotted path: each dot read as nesting or as part of a name (bit i of `joined` set:
    // the dot after piece i is a name's), so that Zeek's flat "id.orig_p" is left out as well
    // as a nested one.
    const std::vector<std::string> pieces = split_at(path, '.');
    if (pieces.size() - 1 > kMaxDots)
      throw SpecError("--key-except '" + path + "': more than " + std::to_string(kMaxDots) +
                      " dots; a JSON pointer (/a/b/c) names a deeper member");
    for (std::uint32_t joined = 0; joined < (std::uint32_t{1} << (pieces.size() - 1)); ++joined) {
      std::vector<std::string> names{pieces[0]};
      for (std::size_t i = 1; i < pieces.size(); ++i) {
        if (joined >> (i - 1) & 1)
          names.back() += '.' + pieces[i];
        else
          names.push_back(pieces[i]);
      }
      add(names);
    }
  }
}

void ExceptTree::add(const std::vector<std::string>& names) {
  ExceptTree* node = this;
  for (const std::string& name : names)
    if (!node->whole_) node = &node->children_[name];  // (a path inside one left out whole adds nothing)
  node->whole_ = true;
}

simdjson::error_code KeyEncoder::record_except(od::value& v, const ExceptTree& except, std::string& buf) {
  od::json_type type;
  simdjson::error_code err = v.type().get(type);
  if (err) return err;
  if (type != od::json_type::object) return simdjson::INCORRECT_TYPE;
  buf.clear();
  return append(v, type, buf, &except);
}

simdjson::error_code KeyEncoder::append_scalar(od::value& v, od::json_type type, std::string& out, bool nested) {
  simdjson::error_code err = simdjson::SUCCESS;
  switch (type) {
    case od::json_type::string: {
      std::string_view s;
      if ((err = v.get_string().get(s))) return err;
      if (nested) out += json_key::kString;
      const std::size_t len_at = out.size();
      if (nested) append_length(out, 0);
      const std::size_t at = out.size();
      // Masked before folding, as line keys are; the length is the masked text's.
      if (mask_.masks_anything())
        mask_.append_masked(s, out);
      else
        out.append(s.data(), s.size());
      if (fold_)
        for (std::size_t i = at; i < out.size(); ++i)
          if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] + 32);
      if (nested) patch_length(out, len_at, out.size() - at);
      return simdjson::SUCCESS;
    }
    case od::json_type::number: {
      out += json_key::kNumber;
      const std::size_t len_at = out.size();
      if (nested) append_length(out, 0);
      const std::size_t at = out.size();
      if (!append_canonical_number(out, trim_json_token(v.raw_json_token()))) return simdjson::NUMBER_ERROR;
      if (nested) patch_length(out, len_at, out.size() - at);
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
    default:
      return simdjson::INCORRECT_TYPE;
  }
}

namespace {

bool is_container(od::json_type t) { return t == od::json_type::array || t == od::json_type::object; }

// An array or object whose encoding is under way: its iterator, where its bytes go, and for
// an object its members so far (written sorted when it closes).
struct Member {
  std::string name, value;
};
struct Level {
  bool object;
  od::array_iterator element, elements_end;
  od::object_iterator field, fields_end;
  std::string* out;
  std::vector<Member> members;
  const ExceptTree* except;  // members left out of this object (nullptr: none)

  bool at_end() const { return object ? !(field != fields_end) : !(element != elements_end); }
  void advance() {
    if (object)
      ++field;
    else
      ++element;
  }
};

// Starts the array or object `v` as a new innermost level; an array's tag goes out now, an
// object's with its sorted members when it closes.
simdjson::error_code open_level(od::value& v, od::json_type type, std::string& out, std::vector<Level>& levels,
                                const ExceptTree* except = nullptr) {
  simdjson::error_code err;
  Level l{type == od::json_type::object, {}, {}, {}, {}, &out, {}, except};
  if (l.object) {
    od::object obj;
    if ((err = v.get_object().get(obj)) || (err = obj.begin().get(l.field)) || (err = obj.end().get(l.fields_end)))
      return err;
  } else {
    od::array arr;
    if ((err = v.get_array().get(arr)) || (err = arr.begin().get(l.element)) || (err = arr.end().get(l.elements_end)))
      return err;
    out += json_key::kArray;
  }
  levels.push_back(std::move(l));
  return simdjson::SUCCESS;
}

// Ends the innermost level: an object's members sorted by name, the first of equal names
// kept (the order and repetition of members in the text do not matter, and a name means
// what a path lookup finds).
void close_level(std::vector<Level>& levels) {
  Level& l = levels.back();
  std::string& out = *l.out;
  if (l.object) {
    std::stable_sort(l.members.begin(), l.members.end(),
                     [](const Member& a, const Member& b) { return a.name < b.name; });
    out += json_key::kObject;
    for (std::size_t i = 0; i < l.members.size(); ++i) {
      if (i > 0 && l.members[i].name == l.members[i - 1].name) continue;
      out += json_key::kString;
      append_length(out, l.members[i].name.size());
      out += l.members[i].name;
      out += l.members[i].value;
    }
  }
  out += json_key::kEnd;
  levels.pop_back();
}

}  // namespace

simdjson::error_code KeyEncoder::append(od::value& v, od::json_type type, std::string& out, const ExceptTree* except) {
  if (!is_container(type)) return append_scalar(v, type, out, false);
  // Depth first without recursion: `levels` holds the open arrays and objects, innermost last.
  // A level's iterator moves on only once the value it points at is written (a nested one
  // closed), as On-Demand requires.
  std::vector<Level> levels;
  simdjson::error_code err = open_level(v, type, out, levels, except);
  while (!err && !levels.empty()) {
    Level& l = levels.back();
    if (l.at_end()) {
      close_level(levels);
      if (!levels.empty()) levels.back().advance();
      continue;
    }
    od::value child;
    std::string* target = l.out;
    const ExceptTree* child_except = nullptr;
    if (l.object) {
      od::field f;
      std::string_view name;
      if ((err = (*l.field).get(f)) || (err = f.unescaped_key().get(name))) break;
      child_except = l.except ? l.except->find(name) : nullptr;
      if (child_except && child_except->leaf()) {  // left out: On-Demand skips its value
        l.advance();
        continue;
      }
      l.members.push_back({std::string(name), {}});
      target = &l.members.back().value;  // stays put: the vector grows only after this value
      child = f.value();
    } else if ((err = (*l.element).get(child))) {
      break;
    }
    od::json_type child_type;
    if ((err = child.type().get(child_type))) break;
    if (!is_container(child_type)) {
      if ((err = append_scalar(child, child_type, *target, true))) break;
      l.advance();
    } else if (levels.size() == kMaxKeyDepth) {
      err = simdjson::DEPTH_ERROR;
    } else {
      err = open_level(child, child_type, *target, levels, child_except);  // `l` may move: not used after
    }
  }
  return err;
}

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

}  // namespace tlbf_dedup
