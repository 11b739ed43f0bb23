// The column --mark and --count add to a table (CSV, TSV, Zeek log), as they add a member to
// a JSON object: to a row its values, to the header the columns' names (to a Zeek log's
// #fields line, and their types to #types), after the last field and before the terminator.
#pragma once

#include <cstddef>
#include <string_view>

#include "input/input_format.hpp"
#include "output/writer.hpp"

namespace tlbf_dedup {

// One column added: its name, its Zeek type, and its value in a row.
struct AddedColumn {
  std::string_view name;
  std::string_view zeek_type;
  std::string_view value;
};

// `bytes` (`text_size` of them before the terminator) with `columns` added: their values
// to a row, their names to a header line (`header`: a CSV or TSV header, or a Zeek # line, of
// which only #fields and #types change).
void write_with_columns(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format,
                        const AddedColumn* columns, std::size_t n, bool header);

// Whether a table's record handed over as blank (no row) is a header line rather than an
// empty one.
inline bool is_header_line(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") != std::string_view::npos;
}

}  // namespace tlbf_dedup
