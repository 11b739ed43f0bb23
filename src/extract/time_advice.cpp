// Advice about times (advice.hpp): a --time-format that reads a time text no format read,
// and how to sort an input by time for a run that found it out of order.
//
// Invariant: a --time-format suggested is one that reads the very text it is suggested for
// (compiled and parsed here before it is named).
#include <simdjson.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "extract/advice.hpp"
#include "extract/field_list.hpp"
#include "extract/key_display.hpp"

namespace tlbf_dedup {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// --- suggest_time_format: the text's tokens, then a directive for each ---

struct Token {
  std::string_view text;
  enum Kind { digits, letters, other } kind;
};

std::vector<Token> tokens_of(std::string_view s) {
  std::vector<Token> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 1;
    const Token::Kind kind = is_digit(s[i]) ? Token::digits : is_alpha(s[i]) ? Token::letters : Token::other;
    if (kind != Token::other)
      while (j < s.size() && (kind == Token::digits ? is_digit(s[j]) : is_alpha(s[j]))) ++j;
    out.push_back(Token{s.substr(i, j - i), kind});
    i = j;
  }
  return out;
}

bool one_of(std::string_view word, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const std::string_view name(n);
    if (word.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < word.size() && same; ++i) same = (word[i] | 0x20) == (name[i] | 0x20);
    if (same) return true;
  }
  return false;
}

// The directive of a word: a month or weekday name (short or long), AM/PM, a zone name; or
// the word itself, as a literal.
std::string word_directive(std::string_view w, bool& twelve_hour) {
  if (one_of(w, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"})) return "%b";
  if (one_of(w, {"january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
                 "december"}))
    return "%B";
  if (one_of(w, {"mon", "tue", "wed", "thu", "fri", "sat", "sun"})) return "%a";
  if (one_of(w, {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})) return "%A";
  if (one_of(w, {"am", "pm"})) {
    twelve_hour = true;
    return "%p";
  }
  if (one_of(w, {"utc", "gmt", "ut"})) return "%Z";
  return std::string(w);
}

// The directives of the numbers, in order: the date's (before the first number followed by
// ':', or the first three), then the time of day's, then a fraction; `day_first` chooses
// day-month where the year comes last.
std::vector<std::string> number_directives(const std::vector<Token>& t, bool month_named, bool day_first) {
  std::vector<std::size_t> numbers;
  std::size_t time_at = SIZE_MAX;  // the first number of the time of day
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != Token::digits) continue;
    if (time_at == SIZE_MAX && i + 1 < t.size() && t[i + 1].text == ":") time_at = numbers.size();
    numbers.push_back(i);
  }
  auto width = [&](std::size_t k) { return t[numbers[k]].text.size(); };
  // A date written as one number (20171223, 081109) when more numbers follow.
  const bool compact = !numbers.empty() && (width(0) == 8 || (width(0) == 6 && numbers.size() > 1));
  const std::size_t date_count =
      compact ? 1 : std::min(time_at, std::min<std::size_t>(numbers.size(), month_named ? 2 : 3));
  std::vector<std::string> out;
  if (date_count == 1 && width(0) == 8) {
    out.push_back("%Y%m%d");
  } else if (date_count == 1 && width(0) == 6 && compact) {
    out.push_back("%y%m%d");
  } else if (month_named) {
    for (std::size_t k = 0; k < date_count; ++k) out.push_back(width(k) == 4 ? "%Y" : "%d");
  } else if (date_count >= 2) {
    const bool year_first = width(0) == 4 || (date_count == 3 && width(2) <= 2);
    const char* year = width(year_first ? 0 : date_count - 1) == 4 ? "%Y" : "%y";
    if (date_count == 2) {
      out = day_first ? std::vector<std::string>{"%d", "%m"} : std::vector<std::string>{"%m", "%d"};
    } else if (year_first) {
      out = {year, "%m", "%d"};
    } else {
      out = day_first ? std::vector<std::string>{"%d", "%m", year} : std::vector<std::string>{"%m", "%d", year};
    }
  }
  const std::size_t from = out.empty() ? 0 : date_count;
  static const char* const kClock[] = {"%H", "%M", "%S"};
  for (std::size_t k = from; k < numbers.size(); ++k) {
    const std::size_t at = k - from;
    if (at == 0 && width(k) == 6 && time_at == SIZE_MAX)
      out.push_back("%H%M%S");
    else
      out.push_back(at < 3 ? kClock[at] : "%f");  // after the seconds, a fraction
  }
  return out;
}

// The numbers a zone offset at t[i] takes (+0800: 1, -08:00: 2), or 0 when none starts there.
std::size_t zone_numbers(const std::vector<Token>& t, std::size_t i) {
  if ((t[i].text != "+" && t[i].text != "-") || i + 1 >= t.size() || t[i + 1].kind != Token::digits) return 0;
  if (t[i + 1].text.size() == 4 && i + 2 == t.size()) return 1;
  const bool hh_mm = t[i + 1].text.size() == 2 && i + 4 == t.size() && t[i + 2].text == ":" &&
                     t[i + 3].kind == Token::digits && t[i + 3].text.size() == 2;
  return hh_mm ? 2 : 0;
}

// The pattern for `t` with the day first or not; empty when a number has no directive.
std::string pattern_for(const std::vector<Token>& t, bool day_first) {
  bool month_named = false, twelve_hour = false;
  for (const Token& k : t) {
    if (k.kind != Token::letters) continue;
    const std::string d = word_directive(k.text, twelve_hour);
    month_named |= d == "%b" || d == "%B";
  }
  const std::vector<std::string> numbers = number_directives(t, month_named, day_first);
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    if (const std::size_t zone = zone_numbers(t, i); zone > 0 && n + zone == numbers.size() && n >= 4) {
      out += "%z";  // a zone offset at the end: +0800, -08:00
      break;
    }
    if (k.kind == Token::digits) {
      if (n >= numbers.size()) return {};
      const std::string& d = numbers[n++];
      out += d == "%H" && twelve_hour ? "%I" : d;
    } else if (k.kind == Token::letters) {
      out += word_directive(k.text, twelve_hour);
    } else {
      out += k.text == "%" ? "%%" : std::string(k.text);
    }
  }
  return out;
}

bool reads(const std::string& pattern, std::string_view text) {
  if (pattern.empty()) return false;
  const std::optional<TimePattern> p = TimePattern::compile(pattern);
  return p && p->parse(text, 2000).has_value();
}

// The time text's order as text is the times' order: year first (2017-01-02..., 2017/01/02...,
// 20170102...) or an epoch number, when every record writes it the same way.
bool sorts_as_text(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '[' || t.front() == '"')) t.remove_prefix(1);
  std::size_t digits = 0;
  while (digits < t.size() && is_digit(t[digits])) ++digits;
  if (digits > 0 && t.find_first_not_of("0123456789.", digits) == std::string_view::npos) return true;  // epoch
  if (digits >= 8) return true;                                                                         // 20170102...
  const auto sep = [&](std::size_t i) { return i < t.size() && (t[i] == '-' || t[i] == '/' || t[i] == '.'); };
  return digits == 4 && sep(4) && t.size() >= 10 && is_digit(t[5]) && is_digit(t[6]) && sep(7) && is_digit(t[8]);
}

// A JSON path as jq writes it: .a.b, or .["a.b"] for a member whose name jq cannot take bare
// (or one the record has literally, dots and all).
std::string jq_path(std::string_view path, std::string_view record) {
  auto segment = [](std::string_view s) {
    bool bare = !s.empty() && !is_digit(s[0]);
    for (char c : s) bare = bare && (is_alpha(c) || is_digit(c) || c == '_');
    if (bare) return "." + std::string(s);
    std::string quoted = ".[\"";
    append_json_text(quoted, s);
    return quoted + "\"]";
  };
  const bool pointer = !path.empty() && path[0] == '/';
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element member;
  if (!pointer && !parser.parse(text).at_key(path).get(member)) return segment(path);
  std::string out;
  std::string_view rest = pointer ? path.substr(1) : path;
  for (std::size_t end; !rest.empty(); rest.remove_prefix(std::min(end + 1, rest.size()))) {
    end = std::min(rest.find(pointer ? '/' : '.'), rest.size());
    out += segment(rest.substr(0, end));
  }
  return out;
}

// sort(1)'s keys for the fields of a -t field list: -k1,2 for 1,2 or 1-2.
std::string sort_keys(const std::string& spec) {
  const std::optional<FieldList> list = FieldList::parse(spec);
  if (!list) return {};
  std::string out;
  for (const auto& r : list->ranges())
    out += r.last == FieldList::kOpenEnd ? fmt::format(" -k{}", r.first) : fmt::format(" -k{},{}", r.first, r.last);
  return out;
}

}  // namespace

std::optional<std::string> suggest_time_format(std::string_view text, std::string* alternative) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '[' || text.front() == '"')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == ']' || text.back() == '"')) text.remove_suffix(1);
  const std::vector<Token> t = tokens_of(text);
  const std::string month_first = pattern_for(t, false), day_first = pattern_for(t, true);
  const bool month_reads = reads(month_first, text), day_reads = reads(day_first, text);
  if (alternative && month_reads && day_reads && month_first != day_first) *alternative = day_first;
  if (month_reads) return month_first;
  if (day_reads) return day_first;
  return std::nullopt;
}

std::string sort_advice(const ExtractConfig& cfg, InputFormat format, std::string_view record,
                        std::string_view time_text, std::string_view input) {
  const bool json = format == InputFormat::json;
  if (!sorts_as_text(time_text)) return "sort it by time first (its time text does not sort as text)";
  const bool stdin_input = input == "(stdin)" || input == "-";
  std::string command;
  if (json) {
    command = fmt::format("jq -c -s 'sort_by({})[]'", jq_path(cfg.time, record));
  } else {
    const std::string keys = sort_keys(cfg.time);
    if (keys.empty()) return "sort it by time first";
    const std::string fields =
        cfg.delimiter < 0 ? std::string(" -b") : fmt::format(" -t '{}'", static_cast<char>(cfg.delimiter));
    command = fmt::format("LC_ALL=C sort -s{}{}", fields, keys);
  }
  if (stdin_input) return fmt::format("sort it by time first: ... | {} | tlbf-dedup ...", command);
  // The sorted copy beside it: app.log → app.sorted.log.
  const std::size_t slash = input.rfind('/') == std::string_view::npos ? 0 : input.rfind('/') + 1;
  const std::size_t dot = input.find('.', slash + 1);
  const std::string sorted = dot == std::string_view::npos
                                 ? std::string(input) + ".sorted"
                                 : fmt::format("{}.sorted{}", input.substr(0, dot), input.substr(dot));
  return fmt::format("sort it by time first: {} {} > {}", command, input, sorted);
}

}  // namespace tlbf_dedup
