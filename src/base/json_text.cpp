// JSON string escaping (json_text.hpp): quote and backslash escaped, control bytes as
// \u00XX, every other byte as it is (so the result is as valid UTF-8 as the input).
#include "base/json_text.hpp"

namespace tlbf_dedup {

std::string json_escape(std::string_view name) {
  std::string r;
  for (char c : name) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* kHex = "0123456789abcdef";
      r += "\\u00";
      r += kHex[(c >> 4) & 0xf];
      r += kHex[c & 0xf];
    } else {
      r += c;
    }
  }
  return r;
}

}  // namespace tlbf_dedup
