// The rules of the option values (option_rules.cpp): what each option's text must be, and
// the Options it sets. Internal to src/app.
#pragma once

#include <CLI/CLI.hpp>

#include "app/option_table.hpp"
#include "app/options.hpp"

namespace tlbf_dedup {

// Reads every value `app` parsed (its texts in `texts`, flags already in `o`) into `o`, in one
// fixed order; throws the UsageError of the first rule a value breaks.
void read_option_values(const CLI::App& app, const OptionTexts& texts, Options& o);

}  // namespace tlbf_dedup
