// The column --mark and --count add to a table's records (table_column.hpp).
//
// Invariant: the record's own bytes come out unchanged and in order; the added text is one
// separator and one field per column, after the record's text and before its terminator. A
// value that holds the separator, a quote or a line end is quoted in CSV (RFC 4180); an empty
// value in a Zeek log is its unset field, '-'.
#include "output/table_column.hpp"

#include <string>

namespace tlbf_dedup {
namespace {

void write_field(Writer& out, std::string_view field, InputFormat format) {
  if (format == InputFormat::zeek && field.empty()) return out.write("-");  // (Zeek's unset field)
  if (format != InputFormat::csv || field.find_first_of(",\"\r\n") == std::string_view::npos) {
    if (!field.empty()) out.write(field);  // (an empty field may have no bytes at all to copy from)
    return;
  }
  std::string quoted = "\"";
  for (char c : field) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  quoted += '"';
  out.write(quoted);
}

}  // namespace

void write_with_columns(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format,
                        const AddedColumn* columns, std::size_t n, bool header) {
  const std::string_view text = bytes.substr(0, text_size);
  const std::string_view sep = format == InputFormat::csv ? "," : "\t";
  bool names = header, types = false;
  if (header && format == InputFormat::zeek) {
    names = text.rfind("#fields\t", 0) == 0;
    types = text.rfind("#types\t", 0) == 0;
  }
  out.write(text);
  if (names || types) {
    for (std::size_t i = 0; i < n; ++i) {
      out.write(sep);
      write_field(out, types ? columns[i].zeek_type : columns[i].name, format);
    }
  } else if (!header) {
    for (std::size_t i = 0; i < n; ++i) {
      out.write(sep);
      write_field(out, columns[i].value, format);
    }
  }
  out.write(bytes.substr(text_size));
}

}  // namespace tlbf_dedup
