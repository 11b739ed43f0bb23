// The command line: every option of tlbf-dedup, parsed and validated into one Options value.
// Options holds each stage's own settings type (PipelineConfig with its ExtractConfig,
// tlbf::FilterConfig) rather than copies of their fields; only cli.cpp and the option tests
// include this header.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline.hpp"
#include "stats.hpp"
#include "timestamp.hpp"
#include "tlbf/config.hpp"

namespace tlbf_dedup {

// Wrong usage: the message says what is wrong with which option; the program exits with 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The filter settings given on the command line, each as the value it set, so that a saved
// state's parameters can win over defaults but not over what the user asked for.
struct FilterOverrides {
  std::optional<tlbf::Duration> span;              // -w
  std::optional<std::uint64_t> window_count;       // -n
  std::optional<tlbf::Algorithm> algorithm;        // -a
  std::optional<double> error_rate;                // -e
  std::optional<std::uint64_t> capacity;           // -c
  std::optional<std::uint64_t> max_memory_bytes;   // --max-memory
};

struct Options {
  std::vector<std::string> files;  // empty = stdin
  bool null_terminated = false;
  // The record loop's settings, the extractor's among them (pipeline.extract); its
  // time_parser is built from the three time fields below.
  PipelineConfig pipeline;
  TimeFormat time_format = TimeFormat::auto_detect;
  std::optional<TimePattern> time_pattern;
  int year = 0;  // for year-less timestamps; set to the current year when not given

  tlbf::FilterConfig filter;
  FilterOverrides given;

  StatsFormat stats = StatsFormat::none;
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
