// The format of a run's records: how the reader frames them, which extractor reads their key
// and time, and how --mark and --count add to them (a member to JSON, a column to a table). Auto mode chooses it once,
// by the one rule below (detect_format), from the first bytes with content; a new format is an entry here, its rule in
// detect_format(), and its extractor (pipeline/record_source.cpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace tlbf_dedup {

// auto_detect is a request only (the options, the source's and the reader's settings); the
// records of a run are always read as one of the others.
// csv, tsv and zeek are tables: a header names the columns (table_column.hpp, extract_table.hpp).
enum class InputFormat : std::uint8_t { auto_detect, lines, json, tsv, csv, zeek };

inline bool is_table(InputFormat f) { return f == InputFormat::tsv || f == InputFormat::csv || f == InputFormat::zeek; }

// What detect_format() looks at: the first bytes of an input, whose array of objects the
// reader frames as its objects; or a record already framed as a line (-z, --multiline,
// --key-regex), which is JSON only as an object.
enum class FormatHead { input, record };

// The one rule of auto mode, given `head` (blanks first are skipped): JSON for an object,
// or (FormatHead::input) for an array of objects ("[INFO] ..." and "[07/Mar/2004:...]" are
// lines); a Zeek log for its "#separator " line; lines for anything else (CSV and TSV are
// never guessed: -f csv, -f tsv). auto_detect while `head` is too short to tell (only
// blanks, '[' and blanks, the start of "#separator "): the caller reads more, or takes lines
// at the end.
InputFormat detect_format(std::string_view head, FormatHead what);

}  // namespace tlbf_dedup
