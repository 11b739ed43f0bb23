// The command line as CLI11 declares it: every option's names, value type and help text, and
// the relations between options (excludes, needs). Internal to src/app: options.cpp builds
// the parser from it and option_rules.cpp reads the texts it collects.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "app/options.hpp"

namespace tlbf_dedup {

// The text given to each option that takes one value, by long name ("--window"); "" when the
// option was not given. Flags, the inputs and -k are bound to their Options fields instead.
using OptionTexts = std::map<std::string, std::string, std::less<>>;

// Declares every option of tlbf-dedup on `app` (in --help's order), bound to `o` and `texts`.
void declare_options(CLI::App& app, Options& o, OptionTexts& texts);

}  // namespace tlbf_dedup
