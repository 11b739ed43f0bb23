// The check of --multiline's pattern over the first lines of a run (multiline_check.hpp).
#include "pipeline/multiline_check.hpp"

#include <cstring>

#include <fmt/format.h>

#include "extract/key_display.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::size_t kShownChars = 80;

std::string_view first_line(std::string_view bytes, char terminator) {
  std::string_view line = bytes.substr(0, bytes.find(terminator));
  if (terminator == '\n' && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Each line ends with the terminator, the last one maybe without.
std::uint64_t lines_in(std::string_view bytes, char terminator) {
  std::uint64_t n = 0;
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  while (p < end) {
    ++n;
    const void* hit = std::memchr(p, terminator, static_cast<std::size_t>(end - p));
    if (!hit) break;
    p = static_cast<const char*>(hit) + 1;
  }
  return n;
}

}  // namespace

std::string pattern_for_line(std::string_view line) {
  const std::string_view word = line.substr(0, std::min(line.find_first_of(" \t"), std::size_t{24}));
  if (word.find_first_of("0123456789") == std::string_view::npos) return {};
  std::string out = "^";
  for (std::size_t i = 0; i < word.size();) {
    std::size_t j = i;
    while (j < word.size() && word[j] >= '0' && word[j] <= '9') ++j;
    if (j > i) {
      out += j - i == 1 ? std::string("\\d") : fmt::format("\\d{{{}}}", j - i);
      i = j;
      continue;
    }
    if (std::strchr("\\^$.[]|()*+?{}", word[i])) out += '\\';
    out += word[i++];
  }
  try {
    if (LineStartPattern(out).starts_record(line)) return out;
  } catch (const std::invalid_argument&) {
  }
  return {};
}

MultilineCheck::MultilineCheck(const std::string& pattern, char terminator)
    : text_(pattern), pattern_(pattern), terminator_(terminator) {}

std::optional<std::string> MultilineCheck::look(std::string_view bytes, bool continues) {
  if (decided_ || bytes.empty()) return std::nullopt;
  if (!continues) {
    const std::string_view line = first_line(bytes, terminator_);
    if (pattern_.starts_record(line)) {
      decided_ = true;
      return std::nullopt;
    }
    if (lines_ == 0) first_line_ = std::string(line.substr(0, kShownChars + 1));
  }
  lines_ += lines_in(bytes, terminator_);
  bytes_ += bytes.size();
  if (lines_ < kLines && bytes_ < kBytes) return std::nullopt;
  return failed();
}

std::optional<std::string> MultilineCheck::at_end() {
  if (decided_ || lines_ == 0) return std::nullopt;
  return failed();
}

std::string MultilineCheck::failed() {
  decided_ = true;
  std::string shown = "\"";
  append_json_text(shown, std::string_view(first_line_).substr(0, kShownChars), first_line_.size() > kShownChars);
  shown += first_line_.size() > kShownChars ? "...\"" : "\"";
  const std::string suggestion = pattern_for_line(first_line_);
  const std::string lines = lines_ >= kLines   ? fmt::format("the first {} lines", kLines)
                            : bytes_ >= kBytes ? fmt::format("the first MiB ({} lines)", lines_)
                            : lines_ == 1      ? std::string("the only line read")
                                               : fmt::format("the {} lines read", lines_);
  return fmt::format(
      "--multiline '{}' matched none of {} (the first: {}): a record starts only at a matching line, so each "
      "input was read as one record{}",
      text_, lines, shown, suggestion.empty() ? "" : fmt::format("; this input's lines start like '{}'", suggestion));
}

bool MultilineCheck::check(const RecordBatch* b, const std::string& last_input, Diagnostics& diagnostics) {
  std::optional<std::string> failed;
  std::string input = last_input;  // where it failed
  for (std::size_t i = 0; b && i < b->size() && !failed && !decided_; ++i) {
    failed = look((*b)[i].bytes, (*b)[i].continues);
    input = b->names[(*b)[i].input];
  }
  if (!b) failed = at_end();
  if (failed) diagnostics.warning(Warning{WarningKind::multiline, input, 0, 1, input + ": " + *failed});
  return decided_;
}

}  // namespace tlbf_dedup
