// LineRegex: the program's regular expressions, compiled by RE2 with POSIX's syntax and
// leftmost-longest matching.
//
// Invariant: matching a text of n bytes takes time O(n x pattern size) and at most RE2's
// max_mem (8 MiB) of automata per pattern, whatever both are: RE2 has no backtracking, so no
// pattern can make a line take exponential time or memory. What it cannot match that way is
// refused at compile time with a message naming it, before any input is read.
#include "base/line_regex.hpp"

#include <stdexcept>

#include <re2/re2.h>

namespace tlbf_dedup {
namespace {

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(what); }

// The end of the bracket expression opening at `at`: past its closing ']'. A ']' right after
// the '[' (or "[^") is a member, and [: :] [= =] [. .] enclose names.
std::size_t bracket_end(std::string_view p, std::size_t at) {
  std::size_t j = at + 1;
  if (j < p.size() && p[j] == '^') ++j;
  if (j < p.size() && p[j] == ']') ++j;
  for (; j < p.size() && p[j] != ']'; ++j) {
    if (p[j] == '[' && j + 1 < p.size() && (p[j + 1] == '=' || p[j + 1] == '.'))
      refuse("equivalence classes and collating elements ([[=a=]], [[.a.]]) are not supported");
    if (p[j] == '[' && j + 1 < p.size() && p[j + 1] == ':') {
      const std::size_t close = p.find(":]", j + 2);
      if (close != std::string::npos) j = close + 1;
    } else if (p[j] == '\\') {
      ++j;  // RE2 reads escapes inside brackets too
    }
  }
  return j + 1;
}

// Refuses what RE2 lacks with a message of its own (RE2's would say "invalid escape").
void check_supported(const std::string& p) {
  for (std::size_t i = 0; i < p.size();) {
    if (p[i] == '[') {
      i = bracket_end(p, i);
      continue;
    }
    if (p[i] == '\\' && i + 1 < p.size()) {
      const char n = p[i + 1];
      if (n >= '1' && n <= '9')
        refuse(std::string("\\") + n +
               ": backreferences are not supported (patterns are matched by RE2, in time linear in the line, and "
               "RE2 has none)");
      if (n == '<' || n == '>') refuse(std::string("\\") + n + " is not supported; \\b matches a word's start or end");
      i += 2;
      continue;
    }
    ++i;
  }
}

}  // namespace

std::size_t LineRegex::count_groups(std::string_view p) {
  std::size_t groups = 0;
  for (std::size_t i = 0; i < p.size();) {
    if (p[i] == '[') {
      i = bracket_end(p, i);
    } else if (p[i] == '\\') {
      i += 2;
    } else {
      groups += p[i++] == '(';
    }
  }
  return groups;
}

LineRegex::LineRegex(const std::string& pattern, bool ignore_case) {
  check_supported(pattern);
  RE2::Options o;
  o.set_posix_syntax(true);                      // egrep's syntax ...
  o.set_longest_match(true);                     // ... and POSIX's leftmost-longest match
  o.set_perl_classes(true);                      // \d \s \w
  o.set_word_boundary(true);                     // \b \B
  o.set_one_line(true);                          // ^ and $ at the text's ends only, as regexec without REG_NEWLINE
  o.set_dot_nl(true);                            // '.' matches a newline too (a -z record may hold one)
  o.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as the C locale reads them
  o.set_case_sensitive(!ignore_case);
  o.set_log_errors(false);
  re_ = std::make_unique<RE2>(pattern, o);
  if (re_->error_code() == RE2::ErrorRepeatSize)  // RE2 bounds nested counts by their product too
    refuse(re_->error() + " (a count is at most 1000, and so is the product of nested counts)");
  if (!re_->ok()) refuse(re_->error());
  groups_ = static_cast<std::size_t>(re_->NumberOfCapturingGroups());
}

LineRegex::~LineRegex() = default;

bool LineRegex::matches(std::string_view text) const {
  return re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, nullptr, 0);
}

std::optional<std::string_view> LineRegex::group_or_match(std::string_view text) const {
  re2::StringPiece m[2];
  const bool has_group = groups_ >= 1;
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, m, has_group ? 2 : 1))
    return std::nullopt;
  const re2::StringPiece& g = has_group && m[1].data() != nullptr ? m[1] : m[0];
  return std::string_view(g.data(), g.size());
}

bool LineRegex::match_groups(std::string_view text, std::vector<std::string_view>& out) const {
  constexpr std::size_t kOnStack = 16;
  re2::StringPiece stack[kOnStack + 1];
  std::vector<re2::StringPiece> heap(groups_ + 1 > kOnStack + 1 ? groups_ + 1 : 0);
  re2::StringPiece* m = heap.empty() ? stack : heap.data();
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, m,
                  static_cast<int>(groups_ + 1)))
    return false;
  out.clear();
  for (std::size_t i = 1; i <= groups_; ++i) out.emplace_back(m[i].data() ? m[i].data() : "", m[i].size());
  return true;
}

}  // namespace tlbf_dedup
