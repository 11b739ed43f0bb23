// The JSON member scanner behind --mark (json_member.hpp).
//
// Invariant: it reads the record and never writes it; every index it returns lies inside
// `text`, and a string that does not close, or a member without its ':', ends the search
// with "no such member", so a damaged record is written unchanged rather than cut.
#include "output/json_member.hpp"

namespace tlbf_dedup {
namespace {

bool is_json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the JSON string that opens at text[i] ('"'), just past its closing quote;
// npos when it does not close.
std::size_t skip_string(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return std::string_view::npos;
}

// The end of the member value that starts at text[i]: the ',' or the closing bracket after
// it at depth 0; npos when the object ends first or a string does not close.
std::size_t skip_value(std::string_view text, std::size_t i) {
  int depth = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      if (i == std::string_view::npos) return i;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return i;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::pair<std::size_t, std::size_t> find_member_value(std::string_view text, std::string_view escaped_name) {
  constexpr auto npos = std::string_view::npos;
  std::size_t i = text.find('{');
  if (i == npos) return {npos, npos};
  ++i;
  while (true) {
    while (i < text.size() && is_json_blank(text[i])) ++i;
    if (i >= text.size() || text[i] != '"') return {npos, npos};
    const std::size_t key_end = skip_string(text, i);
    if (key_end == npos) return {npos, npos};
    const bool wanted = text.substr(i + 1, key_end - i - 2) == escaped_name;
    i = key_end;
    while (i < text.size() && is_json_blank(text[i])) ++i;
    if (i >= text.size() || text[i] != ':') return {npos, npos};
    ++i;
    while (i < text.size() && is_json_blank(text[i])) ++i;
    const std::size_t value_begin = i;
    i = skip_value(text, i);
    if (i == npos) return {npos, npos};
    std::size_t value_end = i;
    while (value_end > value_begin && is_json_blank(text[value_end - 1])) --value_end;
    if (wanted) return {value_begin, value_end};
    if (text[i] != ',') return {npos, npos};  // the object's end: no such member
    ++i;
  }
}

}  // namespace tlbf_dedup
