// The JSON extractor's fast path (json_scan.cpp): the common record read from its bytes,
// without simdjson, exactly as simdjson's lookups would read it, or not at all. The extractor
// and bench/ndjson_floor.cpp (the NDJSON path's floor) read records with these same two
// functions, so the floor measures the program's own scan.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "input/record_reader.hpp"

namespace tlbf_dedup {

// A top-level member's value as flat_scan() saw it: a string's content between its quotes,
// or a scalar's token (what simdjson's raw_json_token() gives, trimmed).
struct FlatValue {
  std::string_view text;
  bool string = false;
  bool found = false;
};

// True when simdjson's stage 1 is bound to accept the record and its strings hold no escape:
// every byte printable ASCII (so valid UTF-8, and no raw control character in a string), no
// backslash, an even number of quotes (every string closed). Reads up to 15 bytes past the
// record (the reader's tail padding).
bool plain_ascii_record(const Record& record);

// For a plain_ascii_record() `{"name":value,...}`, finds the first member named `names[i]`
// (names compared as written, as find_field_unordered() does) for every i into found[i], and
// returns false -- the caller then asks simdjson -- whenever the record is anything but what
// simdjson's lookups would accept without an error: root not an object, a missing ':' or ',',
// a member absent, a container where a wanted value is, or the root's end that simdjson
// checks ("missing } at end", and the unbalanced-document check it makes when the byte after
// the record is '}').
bool flat_scan(const Record& record, const std::vector<std::string>& names, FlatValue* found);

}  // namespace tlbf_dedup
