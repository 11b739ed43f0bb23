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

#include "decide/redis/redis_backend.hpp"
#include "extract/timestamp.hpp"
#include "output/holder.hpp"
#include "pipeline/config.hpp"
#include "report/stats.hpp"
#include "state/state_store.hpp"
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
  std::optional<tlbf::Duration> span;             // -w
  std::optional<std::uint64_t> window_count;      // -n
  std::optional<tlbf::Algorithm> algorithm;       // -a
  std::optional<double> error_rate;               // -e
  std::optional<std::uint64_t> capacity;          // -c
  std::optional<std::uint64_t> max_memory_bytes;  // --max-memory
};

struct Options {
  std::vector<std::string> files;  // empty = stdin
  bool no_merge = false;           // --no-merge: with -t, inputs are read one after another
  bool null_terminated = false;
  // How records are framed: terminator (from -z), --multiline, --max-record.
  ReaderConfig reader;
  // The record loop's settings, the extractor's among them (pipeline.extract); its
  // time_parser is built from the three time fields below.
  PipelineConfig pipeline;
  std::vector<std::string> where;  // --where as typed, read into pipeline.extract.where
  TimeFormat time_format = TimeFormat::auto_detect;
  std::optional<TimePattern> time_pattern;

  tlbf::FilterConfig filter;
  FilterOverrides given;
  // --count, --keep, --drain: what the holding stage does; cli.cpp adds the window, the
  // memory cap and --refresh from the filter it makes.
  HoldConfig hold;

  StatsFormat stats = StatsFormat::none;
  std::string stats_file;  // --stats-file: the summary goes there instead of stderr
  bool quiet = false;

  std::string state_file;
  bool state_reset = false;
  // The options of kKeyTimeOptions that were given, as typed: what a state file records of
  // how its keys and times were read, and what a later run is held to.
  std::vector<RecordedOption> key_time_options;
  tlbf::Duration checkpoint = 60 * tlbf::kSecond;
  tlbf::Duration lock_timeout = 0;  // how long to wait for another run's lock on the state; 0: fail at once

  std::optional<RedisConfig> redis;  // --redis: the filter is in Redis (no state file)
};

// The usage error for a filter parameter the library refused: the option that sets it, the
// value as the user typed it (`typed`, else as the library writes it), and the problem.
UsageError option_error(const tlbf::invalid_parameter& e, const std::string& typed = "");

// The long names of the options that decide what a record, its key and its time are (how
// records are framed and read among them), and what a state's window holds (records held by
// --count and --keep). A new such option is added here, and state files then record it and
// hold later runs to it.
inline constexpr const char* kKeyTimeOptions[] = {
    "--format",    "--records",     "--null",     "--multiline", "--key",        "--key-except",  "--key-regex",
    "--delimiter", "--ignore-case", "--missing",  "--mask",      "--time",       "--time-format", "--count",
    "--keep",      "--time-regex",  "--timezone", "--where",     "--where-regex"};

// Parses argv. Returns nullopt after printing --help or --version to stdout (exit 0).
// Throws UsageError for anything invalid. `defaults` are arguments read before argv's own
// ("--key=3"), for options argv does not give (the ones a state file recorded).
std::optional<Options> parse_options(int argc, const char* const* argv, const std::vector<std::string>& defaults = {});

}  // namespace tlbf_dedup
