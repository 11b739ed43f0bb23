// How a key reads to a person (src/extract/key_display.hpp): JSON keys as the values they were,
// text keys as strings, composite keys part by part, and always valid UTF-8 and valid JSON, also
// for invalid UTF-8 and for keys cut short.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "extract/extract.hpp"
#include "extract/key_display.hpp"
#include "input/record_reader.hpp"
#include "padded_record.hpp"

namespace {
using namespace tlbf_dedup;

// The key bytes the JSON extractor makes of `record` with `keys`.
std::string json_key_of(std::vector<std::string> keys, std::string_view record,
                        MissingMember missing = MissingMember::error) {
  ExtractConfig cfg;
  cfg.keys = std::move(keys);
  cfg.missing = missing;
  auto x = make_json_extractor(cfg, TimeParser(TimeFormat::auto_detect, std::nullopt, 2017));
  const PaddedRecord r(record);
  const Extracted e = x->extract(r.rec);
  REQUIRE(e.status == ExtractStatus::ok);
  return std::string(e.key);
}

// The text is valid UTF-8: every byte sequence is a whole character of RFC 3629.
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t j = 1; j < n; ++j)
      if ((static_cast<unsigned char>(s[i + j]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// A small check of JSON syntax: balanced brackets outside strings, strings closed, escapes
// complete, no raw control bytes.
bool json_shaped(const std::string& s) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (i + 1 >= s.size()) return false;
        if (s[i + 1] == 'u' && i + 5 >= s.size()) return false;
        i += s[i + 1] == 'u' ? 5 : 1;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) return false;
    }
  }
  return depth == 0 && !in_string && s.size() >= 2 && s.front() == '[' && s.back() == ']';
}

const KeyShape kJson{false, InputFormat::json}, kJsonComposite{true, InputFormat::json},
    kText{false, InputFormat::lines}, kTextComposite{true, InputFormat::lines};

}  // namespace

TEST_SUITE("key_display") {
  TEST_CASE("a JSON key shows the value it was: numbers, null, booleans, strings") {
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":443})"), kJson) == "[443]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":"443"})"), kJson) == R"(["443"])");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":null})"), kJson) == "[null]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":true})"), kJson) == "[true]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":false})"), kJson) == "[false]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":-1.50e3})"), kJson) == "[-1500]");  // canonical
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":1.5e-3})"), kJson) == "[15e-4]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":1e99999999999999999})"), kJson) == "[1e99999999999999999]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":"a\"b\\c\u0001é"})"), kJson) ==
          "[\"a\\\"b\\\\c\\u0001\xC3\xA9\"]");
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":""})"), kJson) == R"([""])");
  }

  TEST_CASE("arrays and objects show as compact JSON, members in name order") {
    CHECK(describe_key_parts(json_key_of({"v"}, R"({"v":[1, "a", null, [true], {}]})"), kJson) ==
          R"([[1,"a",null,[true],{}]])");
    CHECK(describe_key_parts(json_key_of({"v"}, R"({"v":{ "b":2, "a":[1.0], "a":3 }})"), kJson) ==
          R"([{"a":[1],"b":2}])");
    CHECK(describe_key_parts(json_key_of({"v"}, R"({"v":[]})"), kJson) == "[[]]");
  }

  TEST_CASE("composite keys: one element per part, --missing null parts as null") {
    CHECK(describe_key_parts(json_key_of({"a", "b", "c"}, R"({"a":443,"b":"x","c":[1]})"), kJsonComposite) ==
          R"([443,"x",[1]])");
    CHECK(describe_key_parts(json_key_of({"a", "b"}, R"({"a":1})", MissingMember::null), kJsonComposite) == "[1,null]");
    std::string text;
    append_key_part(text, "GET", false);
    append_key_part(text, "/a b", false);
    CHECK(describe_key_parts(text, kTextComposite) == R"(["GET","/a b"])");
  }

  TEST_CASE("text keys are strings, bytes outside valid UTF-8 show as U+FFFD") {
    CHECK(describe_key_parts("plain", kText) == R"(["plain"])");
    CHECK(describe_key_parts("\xFB"
                             "443",
                             kText) ==
          "[\"\xEF\xBF\xBD"
          "443\"]");                                                     // a line's byte, not a tag
    CHECK(describe_key_parts("a\xC3", kText) == "[\"a\xEF\xBF\xBD\"]");  // a character cut by the record
    CHECK(describe_key_parts("\xED\xA0\x80", kText) == "[\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"]");  // a surrogate
    CHECK(describe_key_parts("\xC0\xAF", kText) == "[\"\xEF\xBF\xBD\xEF\xBF\xBD\"]");  // an overlong '/'
    CHECK(describe_key_parts("\xF0\x9F\x98\x80", kText) == "[\"\xF0\x9F\x98\x80\"]");  // U+1F600 stays
  }

  TEST_CASE("a key cut short shows what is there, and stays valid JSON") {
    // --top keeps a key's first bytes: a character cut in two is left out, not replaced.
    CHECK(describe_key_parts("ab\xC3", kText, true) == R"(["ab"])");
    const std::string arr = json_key_of({"v"}, R"({"v":[12345,"abcdef",7]})");
    CHECK(describe_key_parts(arr.substr(0, arr.size() - 3), kJson, true) == R"([[12345,"abcdef"]])");
    CHECK(describe_key_parts(arr.substr(0, 8), kJson, true) == "[[]]");        // inside the first number
    CHECK(describe_key_parts(arr.substr(0, 13), kJson, true) == "[[12345]]");  // inside a string's length
    CHECK(describe_key_parts(arr.substr(0, 20), kJson, true) == R"([[12345,"abcd"]])");
    const std::string obj = json_key_of({"v"}, R"({"v":{"name":"value"}})");
    CHECK(describe_key_parts(obj.substr(0, 8), kJson, true) == "[{}]");   // inside the member name
    CHECK(describe_key_parts(obj.substr(0, 13), kJson, true) == "[{}]");  // a name without its value
    CHECK(describe_key_parts(json_key_of({"id"}, R"({"id":123456})").substr(0, 4), kJson, true) == "[]");
    const std::string two = json_key_of({"a", "b"}, R"({"a":"first","b":"second"})");
    CHECK(describe_key_parts(two.substr(0, two.size() - 3), kJsonComposite, true) == R"(["first","sec"])");
    CHECK(describe_key_parts(two.substr(0, 11), kJsonComposite, true) == R"(["first"])");
  }

  TEST_CASE("any bytes give valid UTF-8 and JSON-shaped text") {
    std::mt19937 rng(7);
    const std::string alphabet = std::string("ab\"\\\x01\x7F\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xED\xA0", 17) +
                                 "\xF8\xF9\xFA\xFB\xFC\xFD\xFE\xFF" + std::string(4, '\0') + "\x02\x03";
    for (int round = 0; round < 20000; ++round) {
      std::string key;
      const int n = static_cast<int>(rng() % 24);
      for (int i = 0; i < n; ++i) key += alphabet[rng() % alphabet.size()];
      for (const KeyShape shape : {kJson, kJsonComposite, kText, kTextComposite})
        for (const bool cut : {false, true}) {
          const std::string shown = describe_key_parts(key, shape, cut);
          CHECK_MESSAGE(valid_utf8(shown), shown);
          CHECK_MESSAGE(json_shaped(shown), shown);
        }
    }
  }
}
