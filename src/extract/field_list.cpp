// Parsing of cut-style field lists.
//
// Invariant: a parsed list is non-empty, every range has 1 <= first <= last, and ranges are
// sorted and disjoint (overlapping or adjacent ranges are merged), so a caller walking the
// fields of a line once, left to right, sees each selected field exactly once.
#include "extract/field_list.hpp"

#include <algorithm>

namespace tlbf_dedup {
namespace {

std::optional<std::uint32_t> parse_field_number(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (v == 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<FieldList> FieldList::parse(std::string_view spec) {
  FieldList list;
  if (spec.empty()) return std::nullopt;
  while (true) {
    std::size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    std::size_t dash = item.find('-');
    Range r{};
    if (dash == std::string_view::npos) {
      auto n = parse_field_number(item);
      if (!n) return std::nullopt;
      r = {*n, *n};
    } else {
      auto a = parse_field_number(item.substr(0, dash));
      std::string_view rest = item.substr(dash + 1);
      if (!a) return std::nullopt;  // "-5" (cut's "from the start") is spelled "1-5" here
      if (rest.empty()) {
        r = {*a, kOpenEnd};
      } else {
        auto b = parse_field_number(rest);
        if (!b || *b < *a) return std::nullopt;
        r = {*a, *b};
      }
    }
    list.required_ = std::max(list.required_, r.last == kOpenEnd ? r.first : r.last);
    list.ranges_.push_back(r);
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  std::sort(list.ranges_.begin(), list.ranges_.end(), [](Range x, Range y) { return x.first < y.first; });
  std::vector<Range> merged;
  for (Range r : list.ranges_) {
    if (!merged.empty() && (merged.back().last == kOpenEnd || r.first <= merged.back().last + 1)) {
      merged.back().last = std::max(merged.back().last, r.last);
    } else {
      merged.push_back(r);
    }
  }
  list.ranges_ = std::move(merged);
  for (const Range& r : list.ranges_)
    for (std::uint32_t f = r.first; f <= r.last && f < 64; ++f) list.mask_ |= std::uint64_t{1} << f;
  return list;
}

bool FieldList::contains_beyond_63(std::uint32_t field) const {
  for (const Range& r : ranges_)
    if (field >= r.first && field <= r.last) return true;
  return false;
}

}  // namespace tlbf_dedup
