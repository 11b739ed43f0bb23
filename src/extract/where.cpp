// The conditions of --where and --where-regex (where.hpp).
//
// Invariant: a condition compares values as the key compares them (json_key in extract.hpp):
// a JSON number by its value, a string by its unescaped bytes, exactly (neither -i nor --mask
// applies); what it cannot compare (an object, an array, an absent member) is never equal.
#include "extract/where.hpp"

#include "base/line_regex.hpp"
#include "extract/extract.hpp"

namespace tlbf_dedup {

WhereCondition WhereCondition::parse(std::string_view text) {
  WhereCondition c;
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    c.path = text;
  } else {
    const bool differs = eq > 0 && text[eq - 1] == '!';
    c.test = differs ? Test::differs : Test::equals;
    c.path = text.substr(0, differs ? eq - 1 : eq);
    c.value = text.substr(eq + 1);
    if (!differs && !c.value.empty() && c.value[0] == '=')
      throw SpecError("--where '" + std::string(text) + "': write one '=' (" + c.path + "=" + c.value.substr(1) +
                      "); a value that starts with '=' is matched by --where-regex");
  }
  if (c.path.empty())
    throw SpecError("--where '" + std::string(text) +
                    "': no member or field before the test; write PATH, PATH=VALUE or PATH!=VALUE (PATH as -k "
                    "takes it)");
  if (c.test != Test::present) append_canonical_number(c.number, c.value);
  return c;
}

bool WhereCondition::holds(WhereFound found, std::string_view text) const {
  if (test == Test::present) return found != WhereFound::absent;
  bool equal = false;
  if (found == WhereFound::string) {
    equal = text == value;
  } else if (found == WhereFound::scalar) {
    std::string canonical;
    equal = text == value || (!number.empty() && append_canonical_number(canonical, text) && canonical == number);
  }
  return equal == (test == Test::equals);
}

WhereRegexes::WhereRegexes(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    try {
      regexes_.push_back(std::make_unique<LineRegex>(p));
    } catch (const std::invalid_argument& e) {
      throw SpecError("--where-regex '" + p + "': " + e.what());
    }
  }
}

WhereRegexes::~WhereRegexes() = default;
WhereRegexes::WhereRegexes(WhereRegexes&&) noexcept = default;
WhereRegexes& WhereRegexes::operator=(WhereRegexes&&) noexcept = default;

bool WhereRegexes::all_match(std::string_view text) const {
  for (const auto& re : regexes_)
    if (!re->matches(text)) return false;
  return true;
}

}  // namespace tlbf_dedup
