// The records a run deduplicates (--where, --where-regex): the others are not judged at all,
// and pass through as read. A condition names a member of a JSON record or fields of a line,
// as -k does, and tests it; the extractors read the member or fields in the pass that reads
// the key and time, and a record that fails a condition is ExtractStatus::unmatched.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tlbf_dedup {

class LineRegex;

// What a condition's path found in a record.
enum class WhereFound : std::uint8_t {
  absent,     // no such member, or too few fields
  string,     // a JSON string (its unescaped text), or a line's fields (joined as -k joins them)
  scalar,     // a JSON number, true, false or null (its token as written)
  container,  // a JSON object or array
};

// One --where: PATH (present), PATH=VALUE or PATH!=VALUE.
struct WhereCondition {
  enum class Test : std::uint8_t { present, equals, differs };
  std::string path;  // a JSON path or a field list, as -k takes it
  Test test = Test::present;
  std::string value;
  // VALUE's canonical decimal (append_canonical_number) when it reads as a JSON number, so that
  // 200 matches 200.0 and 2e2; empty otherwise.
  std::string number;

  // Parses the option's text. The first '=' ends PATH ("!=" tests inequality); "==" is refused
  // (a habit of other languages that would otherwise test for a value starting with '=').
  // Throws SpecError naming --where.
  static WhereCondition parse(std::string_view text);

  // Whether the condition holds for what its path `found` (`text`: the string's or token's
  // bytes). A value equals VALUE when it is the string VALUE, the number VALUE reads as, or the
  // literal true, false or null written as VALUE; an object or array never does, and "!="
  // holds for an absent member.
  bool holds(WhereFound found, std::string_view text) const;
};

// --where-regex: patterns (POSIX extended, as --key-regex) that must all match somewhere in
// a record's text (for --multiline, its first line).
class WhereRegexes {
 public:
  // Throws SpecError naming --where-regex for a pattern that cannot be compiled.
  explicit WhereRegexes(const std::vector<std::string>& patterns);
  ~WhereRegexes();
  WhereRegexes(WhereRegexes&&) noexcept;
  WhereRegexes& operator=(WhereRegexes&&) noexcept;

  bool empty() const { return regexes_.empty(); }
  bool all_match(std::string_view text) const;

 private:
  std::vector<std::unique_ptr<LineRegex>> regexes_;
};

}  // namespace tlbf_dedup
