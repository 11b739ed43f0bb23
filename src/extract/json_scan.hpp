// The JSON extractor's fast path (json_scan.cpp): the common record read from its bytes,
// without simdjson, exactly as simdjson's lookups would read it, or not at all. The extractor
// and bench/ndjson_floor.cpp (the NDJSON path's floor) read records with these same two
// functions, so the floor measures the program's own scan.
#pragma once

#include <cstdint>
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

// The members of the last record flat_scan() read through `shape`, up to its last wanted
// one: the exact bytes before each value (the record's opening or a separator, then the
// quoted name and the colon, blanks included) and the value's kind. Records of one source
// mostly repeat these bytes around their values; such a record is read by comparing them,
// and decided as the scan member by member decides it. A shape belongs to one `names`.
class FlatShape {
 public:
  static constexpr std::size_t kMaxMembers = 8;
  static constexpr std::size_t kMaxBytes = 128;

 private:
  friend bool flat_scan(const Record&, const std::vector<std::string>&, FlatValue*, FlatShape&);
  struct Member {
    std::uint8_t begin = 0, size = 0;  // its bytes in bytes_
    bool string = false;               // a string (else a scalar; containers make no shape)
    std::uint32_t wanted = 0;          // bit i: found[i] is this value
  };
  Member members_[kMaxMembers];
  std::size_t count_ = 0;            // 0: no shape
  char bytes_[kMaxBytes + 16] = {};  // 16 more: a comparison loads 16 bytes at a time
};

// For a plain_ascii_record() `{"name":value,...}`, finds the first member named `names[i]`
// (names compared as written, as find_field_unordered() does) for every i into found[i], and
// returns false -- the caller then asks simdjson -- whenever the record is anything but what
// simdjson's lookups would accept without an error: root not an object, a missing ':' or ',',
// a member absent, a container where a wanted value is, or the root's end that simdjson
// checks ("missing } at end", and the unbalanced-document check it makes when the byte after
// the record is '}').
// It first tries the record against `shape`, and after a full read member by member keeps
// that record's shape for the next; either way the record is decided alike.
bool flat_scan(const Record& record, const std::vector<std::string>& names, FlatValue* found, FlatShape& shape);

}  // namespace tlbf_dedup
