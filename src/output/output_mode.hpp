// The printer's settings: how a judged record is written (--only-dups, --mark, --compact,
// --count and its format). The command line fills them; the pipeline reads --only-dups to
// know which records it need not hand over at all.
#pragma once

#include <string>

#include "output/count_format.hpp"

namespace tlbf_dedup {

// How a kept or dropped record is written.
struct OutputMode {
  bool only_dups = false;
  bool mark = false;
  std::string mark_name = "dup";  // JSON member name for --mark
  // --compact: a JSON record is written minified on one line (simdjson's minifier); one that
  // is not one valid JSON value is written as it was read.
  bool compact = false;
  // --count: the records of the holding stage (output/holder.hpp) carry their count and times.
  bool count = false;
  CountFormat count_format;
  char terminator = '\n';  // of records (-z: NUL), for a held record written without one
};

}  // namespace tlbf_dedup
