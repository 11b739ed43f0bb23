// Tables with a header (CSV, TSV, Zeek logs): how a row splits into fields, and the extractor
// that reads key and time by column name (extract_table.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extract.hpp"

namespace tlbf_dedup {

struct TableDialect {
  char separator = ',';
  bool quoted = false;  // RFC 4180: a field in quotes holds separators, newlines and doubled quotes
};

// Splits `text` into its first `last_field` fields (views into `text`, or into `scratch` for a
// quoted field with a doubled quote or text after its closing quote). False when a quote is
// never closed.
bool split_row(std::string_view text, const TableDialect& dialect, std::uint32_t last_field,
               std::vector<std::string_view>& fields, std::string& scratch);

// The (at most three) names of `columns` nearest to `name` by edit distance, nearest first.
std::string nearest_columns(std::string_view name, const std::vector<std::string>& columns);

// Why a row is malformed (ExtractStatus::malformed): a NUL byte, or a quote never closed.
std::string describe_malformed_row(std::string_view record);

}  // namespace tlbf_dedup
