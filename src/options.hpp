// The command line: every option of tlbf-dedup, parsed and validated into one Options value.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "extract.hpp"
#include "timestamp.hpp"
#include "tlbf/config.hpp"
#include "writer.hpp"

namespace tlbf_dedup {

enum class InputFormat { auto_detect, lines, json };
enum class OnError { pass, drop, fail };
enum class StatsFormat { none, text, json };
enum class Refresh { no, yes };

// Wrong usage: the message says what is wrong with which option; the program exits with 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<std::string> files;  // empty = stdin
  InputFormat format = InputFormat::auto_detect;
  bool null_terminated = false;
  ExtractConfig extract;
  TimeFormat time_format = TimeFormat::auto_detect;
  std::optional<TimePattern> time_pattern;
  int year = 0;  // for year-less timestamps; set to the current year when not given

  tlbf::FilterConfig filter;
  // The filter options given on the command line (long names, e.g. "--window"), so a
  // saved state's parameters can win over defaults but not over what the user asked for.
  std::set<std::string> explicit_filter_options;

  Refresh refresh = Refresh::no;
  OutputMode output;
  bool line_buffered = false;
  OnError on_error = OnError::pass;
  StatsFormat stats = StatsFormat::none;
  bool progress = false;
  bool quiet = false;

  std::string state_file;
  bool state_reset = false;
  tlbf::Duration checkpoint = 60 * tlbf::kSecond;
};

// The usage error for a filter parameter the library refused: the option that sets it, the
// value as the user typed it (`typed`, else as the library writes it), and the problem.
UsageError option_error(const tlbf::invalid_parameter& e, const std::string& typed = "");

// Parses argv. Returns nullopt after printing --help or --version to stdout (exit 0).
// Throws UsageError for anything invalid.
std::optional<Options> parse_options(int argc, const char* const* argv);

}  // namespace tlbf_dedup
