// Parsing argv into Options: the optional values' spelling, CLI11's parse over the option
// table (option_table.cpp), then the rules of the values (option_rules.cpp).
//
// Invariant: parse_options() either returns Options that every later stage can use without
// re-checking (a window > 0, exactly one window kind, an error rate in (0, 1), a compiled
// time pattern when one is asked for, an algorithm that fits the window), or throws one
// UsageError whose message names the option and the bad value. Relations between options
// (-w excludes -n, --checkpoint needs --state, ...) are CLI11's excludes/needs; the range of a
// filter parameter is the library's one check (tlbf/checks.hpp), reported under the
// option's name by option_error().
#include "app/options.hpp"

#include <algorithm>
#include <cstdio>

#include <sys/stat.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/option_rules.hpp"
#include "app/option_table.hpp"
#include "tlbf_build_commit.hpp"

namespace tlbf_dedup {
namespace {

// "--mark", "--stats" and "--explain" take an optional value only in the "--opt=VALUE" spelling, so that
// "--mark file.log" does not read the file name as the value. When the word after one of them is
// no file but reads as its value ("--stats json"), the user meant the value: say how to write it,
// instead of failing later on a missing input file named "json".
std::vector<std::string> expand_optional_values(int argc, const char* const* argv,
                                                const std::vector<std::string>& defaults) {
  struct OptionalValue {
    const char* option;
    const char* implied;
    bool (*looks_like_value)(const std::string&);
  };
  static constexpr OptionalValue kOptional[] = {
      {"--mark", "--mark=dup",
       [](const std::string& v) { return !v.empty() && v[0] != '-' && v.find_first_of("/.") == std::string::npos; }},
      {"--stats", "--stats=text", [](const std::string& v) { return v == "text" || v == "json"; }},
      {"--explain", "--explain=20",
       [](const std::string& v) { return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos; }},
  };
  std::vector<std::string> args = defaults;
  bool positional_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!positional_only) {
      if (a == "--") positional_only = true;
      for (const OptionalValue& o : kOptional) {
        if (a != o.option) continue;
        a = o.implied;
        const std::string next = i + 1 < argc ? argv[i + 1] : "";
        struct stat st;
        if (o.looks_like_value(next) && ::stat(next.c_str(), &st) != 0)
          throw UsageError(
              fmt::format("{} {}: the value of {} is written {}={} (with '='); as written, '{}' is an input file, "
                          "and there is none",
                          o.option, next, o.option, o.option, next, next));
      }
    }
    args.push_back(std::move(a));
  }
  return args;
}

// The option that sets each FilterConfig field, so that the library's one check of a
// parameter reaches the user under the option's name. `hint` says how to fix it in options.
struct FieldOption {
  const char* field;
  const char* option;
  const char* hint;
};
constexpr FieldOption kFieldOptions[] = {
    {"span", "-w/--window", ""},
    {"window_count", "-n/--window-count", ""},
    {"error_rate", "-e/--error-rate", ", e.g. 1e-5"},
    {"capacity", "-c/--capacity", ""},
    {"algorithm", "-a/--algorithm", " (-w gives a time window, -n a count window)"},
    {"max_memory_bytes", "--max-memory", ""},
};

// The options of kKeyTimeOptions that were given, with their values as typed (a flag has none).
std::vector<RecordedOption> key_time_options(const CLI::App& app) {
  std::vector<RecordedOption> recorded;
  for (const char* name : kKeyTimeOptions) {
    const CLI::Option* opt = app.get_option(name);
    if (opt->count() == 0) continue;
    RecordedOption r{name, {}};
    if (opt->get_expected_max() > 0) r.values = opt->results();
    recorded.push_back(std::move(r));
  }
  return recorded;
}

}  // namespace

UsageError option_error(const tlbf::invalid_parameter& e, const std::string& typed) {
  for (const FieldOption& f : kFieldOptions)
    if (e.parameter() == f.field)
      return UsageError(std::string(f.option) + " '" + (typed.empty() ? e.value() : typed) + "': " + e.problem() +
                        f.hint);
  return UsageError(e.what());
}

std::optional<Options> parse_options(int argc, const char* const* argv, const std::vector<std::string>& defaults) {
  Options o;
  OptionTexts texts;
  CLI::App app;
  declare_options(app, o, texts);

  // The words of the command line, optional values spelled out, parsed by CLI11: unknown
  // options, missing or repeated values, excludes and needs.
  std::vector<std::string> args = expand_optional_values(argc, argv, defaults);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return std::nullopt;
  } catch (const CLI::CallForVersion&) {
    std::printf("tlbf-dedup %s (commit %s)\n", TLBF_VERSION, TLBF_BUILD_COMMIT);
    return std::nullopt;
  } catch (const CLI::ExcludesError& e) {
    throw UsageError(std::string(e.what()) + ": give one or the other");
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  // The values, each by its rule; then what a state file records of the key and time options.
  read_option_values(app, texts, o);
  o.key_time_options = key_time_options(app);
  return o;
}

}  // namespace tlbf_dedup
