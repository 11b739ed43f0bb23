// The regular expressions of --multiline and --key-regex: POSIX extended syntax, matched by
// RE2 in time linear in the text and in bounded memory, whatever the pattern and the input.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace tlbf_dedup {

// A compiled pattern. The syntax is POSIX extended (egrep's) with \d \D \s \S \w \W and \b \B,
// matched leftmost-longest as POSIX does, on bytes (no locale, no UTF-8 decoding), with '.'
// and ^ $ as for a whole text (a NUL-terminated record may hold newlines). What RE2 cannot do
// in linear time -- backreferences (\1 to \9) -- and the few POSIX forms it lacks
// ([[=a=]], [[.a.]], \< \>, repetition counts over 1000) are refused when compiling.
class LineRegex {
 public:
  // Throws std::invalid_argument saying what is wrong with `pattern` (not naming the option).
  explicit LineRegex(const std::string& pattern, bool ignore_case = false);
  ~LineRegex();
  LineRegex(const LineRegex&) = delete;
  LineRegex& operator=(const LineRegex&) = delete;

  // A match anywhere in `text`.
  bool matches(std::string_view text) const;
  // The match's capture group 1 when the pattern has one and it took part in the match, else
  // the whole match; nullopt when nothing matches.
  std::optional<std::string_view> group_or_match(std::string_view text) const;
  // The match's capture groups 1..groups() into `out` (a group that took no part in the
  // match is empty); false when nothing matches.
  bool match_groups(std::string_view text, std::vector<std::string_view>& out) const;
  std::size_t groups() const { return groups_; }

  // The capture groups of a POSIX extended `pattern`: its '(' outside brackets and escapes
  // (every group captures in POSIX syntax). Counted from the text, without compiling it.
  static std::size_t count_groups(std::string_view pattern);

 private:
  std::unique_ptr<re2::RE2> re_;
  std::size_t groups_ = 0;
};

}  // namespace tlbf_dedup
