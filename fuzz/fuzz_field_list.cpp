// Fuzzes the cut-style field lists and the line splitter (src/extract/field_list.hpp).
//
// Input: three control bytes, then "<spec>\n<line>". Control byte 0 picks the delimiter (a
// value >= 128 means runs of blanks), byte 1 the last field to split up to (255 = no limit),
// byte 2 the field at which the visitor stops early (0 = never).
// Invariants checked: a parsed list is non-empty, sorted, disjoint and not adjacent, with
// 1 <= first <= last, and contains() agrees with the ranges; the splitter visits fields
// 1, 2, ... in order, never more than asked, each field is a piece of the line without the
// delimiter (or blanks), and when the line runs out the fields put back together give the line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "extract/field_list.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_field_list: invariant broken: %s\n", what);
    std::abort();
  }
}

void check_list(const tlbf_dedup::FieldList& list) {
  using tlbf_dedup::FieldList;
  const auto& r = list.ranges();
  require(!r.empty(), "a parsed list is not empty");
  require(!list.contains(0), "field 0 does not exist");
  for (std::size_t i = 0; i < r.size(); ++i) {
    require(r[i].first >= 1 && r[i].first <= r[i].last, "1 <= first <= last");
    require(list.contains(r[i].first) && list.contains(r[i].last), "contains() agrees with the ranges");
    if (r[i].first > 1) require(!list.contains(r[i].first - 1), "merged ranges leave a gap before each range");
    if (i + 1 < r.size()) {
      require(r[i].last != FieldList::kOpenEnd, "an open range is the last one");
      require(r[i].last + 1 < r[i + 1].first, "ranges are sorted, disjoint and not adjacent");
    }
  }
  require(list.last_field() == r.back().last, "last_field is the end of the last range");
  require(list.required_fields() >= 1 && list.contains(list.required_fields()), "required field is selected");
}

void check_split(int delimiter, std::string_view line, std::uint32_t last_field, std::uint32_t stop_at) {
  tlbf_dedup::FieldSplitter splitter(delimiter);
  std::uint32_t expected_number = 0;
  std::string rebuilt;
  const char* previous_end = line.data();
  const std::uint32_t n = splitter.split(line, last_field, [&](std::uint32_t number, std::string_view field) {
    require(number == ++expected_number, "fields are numbered 1, 2, ... in order");
    require(field.data() >= previous_end && field.data() + field.size() <= line.data() + line.size(),
            "a field is a piece of the line after the previous one");
    previous_end = field.data() + field.size();
    if (delimiter >= 0) {
      require(field.find(static_cast<char>(delimiter)) == std::string_view::npos, "a field holds no delimiter");
      if (number > 1) rebuilt += static_cast<char>(delimiter);
    } else {
      require(!field.empty(), "blank-separated fields are not empty");
      require(field.find_first_of(" \t") == std::string_view::npos, "a field holds no blank");
    }
    rebuilt.append(field);
    return number != stop_at;
  });
  require(n == expected_number, "the count returned is the number of fields visited");
  require(n <= last_field, "never more fields than asked");
  const bool stopped = stop_at != 0 && n == stop_at;
  if (n < last_field && !stopped) {
    if (delimiter >= 0) {
      require(rebuilt == line, "the fields and delimiters give back the line");
    } else {
      std::string no_blanks;
      for (char c : line)
        if (c != ' ' && c != '\t') no_blanks += c;
      require(rebuilt == no_blanks, "the fields give back the line without its blanks");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int delimiter = data[0] >= 128 ? -1 : data[0];
  const std::uint32_t last_field = data[1] == 255 ? tlbf_dedup::FieldList::kOpenEnd : data[1];
  const std::uint32_t stop_at = data[2];
  std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::size_t newline = rest.find('\n');
  const std::string_view spec = rest.substr(0, newline);
  // Without a newline the line is empty, but still points into the input as the reader's
  // records always do (a default string_view's null pointer would be the fuzzer's own bug).
  const std::string_view line = rest.substr(newline == std::string_view::npos ? rest.size() : newline + 1);

  if (auto list = tlbf_dedup::FieldList::parse(spec)) check_list(*list);
  check_split(delimiter, line, last_field, stop_at);
  return 0;
}
