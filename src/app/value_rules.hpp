// How an option's text becomes its value (option_rules.cpp): rules that read the text or say
// what was expected instead, built from a few kinds -- a number in a range, one of a few
// words, a duration, whatever a constructor makes of it.
//
// Invariant: a rule either returns the value or leaves `problem` saying what was expected,
// the text of the usage error after "OPTION 'TEXT': "; it never throws.
#pragma once

#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/duration.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup::value_rules {

// Reads an option's text into a value, or says what was expected instead: what the usage
// error says after "OPTION 'TEXT': ".
template <typename T>
using Rule = std::function<std::optional<T>(const std::string& text, std::string& problem)>;

// A value `parse` reads, from `min` to `max`.
template <typename T, typename Parse>
Rule<T> in_range(Parse parse, T min, T max, std::string expected) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    const std::optional<T> v = parse(text);
    if (v && *v >= min && *v <= max) return v;
    problem = expected;
    return std::nullopt;
  };
}

// A number as an istream reads it, without the minus sign that an unsigned read would wrap
// around, and without leading blanks, which would hide that sign from the check (" -3").
template <typename T>
std::optional<T> parse_number(const std::string& s) {
  std::istringstream in(s);
  T v;
  in >> std::noskipws >> v;
  if (in.fail() || !in.eof() || s[0] == '-') return std::nullopt;
  return v;
}

template <typename T>
Rule<T> number(T min, T max, std::string expected) {
  return in_range<T>(parse_number<T>, min, max, std::move(expected));
}

template <typename T>
Rule<T> choice(std::vector<std::pair<std::string, T>> words, std::string expected) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    for (const auto& [word, value] : words)
      if (text == word) return value;
    problem = expected;
    return std::nullopt;
  };
}

// A duration of at least `minimum`, and at most the longest an option takes.
inline Rule<tlbf::Duration> duration(tlbf::Duration minimum, const char* examples) {
  return [=](const std::string& text, std::string& problem) -> std::optional<tlbf::Duration> {
    if (is_duration_too_long(text)) {
      problem = "longer than the longest duration, " + longest_duration();
      return std::nullopt;
    }
    const std::optional<tlbf::Duration> d = parse_duration(text);
    if (d && *d >= minimum) return d;
    problem = fmt::format("expected a duration{} such as {}", minimum > 0 ? " > 0" : "", examples);
    return std::nullopt;
  };
}

// What `make` makes of the text; the message of its std::invalid_argument as the problem.
template <typename T, typename Make>
Rule<T> made_by(Make make) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    try {
      return make(text);
    } catch (const std::invalid_argument& e) {
      problem = e.what();
      return std::nullopt;
    }
  };
}

}  // namespace tlbf_dedup::value_rules
