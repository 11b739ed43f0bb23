// The one rule by which auto mode chooses the format (input_format.hpp): the reader applies
// it to an input's first bytes, the record source to the first record with content where the
// framing was fixed as lines, and both mean the same by it.
#include "input/input_format.hpp"

#include <algorithm>

namespace tlbf_dedup {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

InputFormat detect_format(std::string_view head, FormatHead what) {
  const char* end = head.data() + head.size();
  const char* first = std::find_if_not(head.data(), end, is_blank);
  if (first == end) return InputFormat::auto_detect;
  if (*first == '{') return InputFormat::json;
  if (*first == '#') {
    static constexpr std::string_view kZeek = "#separator ";
    const std::string_view rest(first, static_cast<std::size_t>(end - first));
    if (rest.size() < kZeek.size())
      return kZeek.substr(0, rest.size()) == rest ? InputFormat::auto_detect : InputFormat::lines;
    return rest.substr(0, kZeek.size()) == kZeek ? InputFormat::zeek : InputFormat::lines;
  }
  if (*first != '[' || what == FormatHead::record) return InputFormat::lines;
  const char* second = std::find_if_not(first + 1, end, is_blank);
  if (second == end) return InputFormat::auto_detect;
  return *second == '{' ? InputFormat::json : InputFormat::lines;
}

}  // namespace tlbf_dedup
