// How a key reads to a person: what --explain, --top and --stats=json show of a key, decoded
// from the bytes the extractors make of it (json_key and append_key_part in extract.hpp).
//
// Invariant: the text is always valid UTF-8 and a valid JSON array, whatever the key's bytes:
// one element per part, each as the user would write it.
#pragma once

#include <string>
#include <string_view>

#include "input/input_format.hpp"

namespace tlbf_dedup {

// What a key's bytes hold: several length-prefixed parts (-k given more than once), and JSON
// values (a JSON record's key, json_key in extract.hpp) or text (a line's fields).
struct KeyShape {
  bool composite = false;
  InputFormat format = InputFormat::lines;  // JSON: the parts are JSON values
};

// The key's parts as a JSON array: a JSON part as the value it was (443, null, "443", [1,2],
// {"a":1}: compact, members in name order), a text part as a JSON string. A byte that is not
// part of valid UTF-8 shows as U+FFFD. `cut`: the bytes are the key's first bytes only (--top
// keeps at most 200); the parts that are there are shown, a value cut inside as far as it
// reads (a string's first characters, an array's first elements), a number cut inside not at
// all.
std::string describe_key_parts(std::string_view key, KeyShape shape, bool cut = false);

// Appends `text` as the body of a JSON string (without the quotes): quote and backslash
// escaped, control bytes as \u00XX, each byte outside valid UTF-8 as U+FFFD. `cut`: the text
// may end inside a character, which is then left out.
void append_json_text(std::string& out, std::string_view text, bool cut = false);

}  // namespace tlbf_dedup
