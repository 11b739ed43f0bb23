// Advice for a record whose key or time could not be read: the fields it has, as -k and -t
// name them, and a --time-format that reads a time text no format read. What the warnings
// and the untimed run's error say, so that the way out fits the input at hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extract.hpp"
#include "extract/timestamp.hpp"

namespace tlbf_dedup {

// Levenshtein distance with ASCII letters compared case-folded: how near a name the user wrote
// is to one the input has.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The fields of `record` as -k and -t name them: a JSON object's member names (of the object
// `path` reaches, as far as it goes: "members of user: id, name"), a line's numbered fields
// with their first characters (split by `delimiter`, -1 for runs of blanks). At most a dozen.
std::string describe_fields(std::string_view record, InputFormat format, int delimiter, std::string_view path = {});

// What to do about a record that lacks key part `absent_part` (1-based; 0: the whole key):
// for a JSON path written as jq writes it (.id), the path that reads it; the member names
// nearest to the one missing; then the fields it has (with the --records that reads a
// wrapper's array), as describe_fields() lists them.
std::string missing_key_advice(const ExtractConfig& cfg, std::string_view record, InputFormat format,
                               std::uint32_t absent_part);

// Why a JSON record (its text, without its line end) is ExtractStatus::malformed: "not a
// readable JSON object (...)" with the parser's reason or a NUL byte's place, or, for valid
// JSON that is not an object, what it is ("not a JSON object: an array").
std::string describe_malformed_json(std::string_view record);

// Where the dotted path or JSON pointer `path` stops in the JSON object `record` when it
// leads through a value that cannot hold the rest ("a.b.c is the number 1, not an object",
// "a.b is an array of 2 elements, without element 5"); with `containers_unwanted`, also when
// it reaches an object or array ("a is an object", where a time must be a string or number).
// Empty when the path leads nowhere for want of a member, when it reaches a value, or when
// the record is not a readable object. Paths are read as the extractor reads them (a literal
// dotted name first); of several readings, the one that goes furthest speaks.
std::string json_path_stop(std::string_view record, std::string_view path, bool containers_unwanted = false);

// A strftime pattern that reads `text` (a time text no format read), checked by reading it
// with the pattern; `alternative` gets a second reading where the day and the month could be
// either way round (01-02-2017). nullopt when none is found.
std::optional<std::string> suggest_time_format(std::string_view text, std::string* alternative = nullptr);

// What to do about a record whose time at -t was not read: the fields the record has when the
// field is absent, else a --time-format that reads the text (or the formats there are).
std::string untimed_advice(const ExtractConfig& cfg, std::string_view record, InputFormat format, const TimeReading& t);

// The advice of the untimed records a run reads while it looks for its first readable time,
// grouped: the group most of them fall in speaks for the input, not the first record, which
// may be a preamble (a banner, the lines before the first --multiline match). A group is one
// advice text, or, for records without the time field, all of them (their lists of fields
// differ). At most kMostGroups groups are kept; later kinds are only counted.
class AdviceTally {
 public:
  static constexpr std::size_t kMostGroups = 16;
  struct Group {
    std::string advice;   // the first record's of the group
    std::string example;  // its time text, quoted
    std::uint64_t count = 0;
  };
  // One untimed record: its time reading, the advice it got, its time text quoted.
  void add(const TimeReading& t, std::string advice, std::string example);
  // The group with the most records (the earliest of those tied); nullptr before the first.
  const Group* most_common() const;
  // The first record's group.
  const Group* first() const { return groups_.empty() ? nullptr : &groups_.front(); }

 private:
  std::vector<Group> groups_;
  std::vector<bool> absent_;  // the group is the records without the field
};

// Which top-level member tells the kinds of records of a mixed stream apart (Suricata's
// event_type: alert, dns, flow, stats), so that --where can pick the kind the key is for. Fed
// JSON records with a key and without, it looks for a member whose short string value is in
// every record with a key and nearly every one without, with no value in both groups.
class KindTally {
 public:
  static constexpr std::size_t kMostKeyed = 64;     // records with a key read at most
  static constexpr std::size_t kMostMembers = 64;   // members followed at most
  static constexpr std::size_t kMostValues = 32;    // values of a member followed at most
  static constexpr std::size_t kLongestValue = 64;  // a longer string is no kind
  // One record's text; `keyed`: it had a key.
  void add(std::string_view record, bool keyed);
  // "--where NAME=VALUE", VALUE the one most records with a key have; empty when no member
  // tells the groups apart.
  std::string where_advice() const;

 private:
  struct Member {
    std::string name;
    std::vector<std::pair<std::string, std::uint64_t>> keyed, keyless;  // values and their records
    std::uint64_t in_keyed = 0, in_keyless = 0;                         // records that have it as a short string
    bool overflowed = false;                                            // more values than followed
  };
  std::vector<Member> members_;
  std::uint64_t keyed_ = 0, keyless_ = 0;
};

// How to put one input in time order before it is read: a command that sorts `input` (a file,
// or "(stdin)") by the time at -t when the time text sorts as text (`time_text`, one record's:
// year first, or an epoch number), so that the order it makes is the times' order; else what
// must be done without a command. `record` is one of its records (for a JSON member's name).
std::string sort_advice(const ExtractConfig& cfg, InputFormat format, std::string_view record,
                        std::string_view time_text, std::string_view input);

}  // namespace tlbf_dedup
