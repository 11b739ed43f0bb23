// What --count adds to a record it writes: the number of copies the record stood for and the
// times of its first and last copy. Lines get them around the record as a template says
// (--count-format, "{count} {record}" by default); a JSON object gets them as members
// (--count-names, dup_count, first_seen and last_seen by default), replacing members of the
// same names rather than adding a second one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/input_format.hpp"
#include "output/writer.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// How a copy's time is shown: as the input wrote it where there is such a text.
enum class SeenForm : std::uint8_t {
  clock,   // no -t: the time the copy arrived, RFC 3339 in UTC
  absent,  // -t, but the record has no such field: null in JSON, "-" in lines
  bare,    // a JSON number or literal, or the text of line fields: written as it is
  string,  // the content of a JSON string: written as a JSON string again
};
inline constexpr std::uint8_t kLastSeenForm = static_cast<std::uint8_t>(SeenForm::string);

struct SeenTime {
  SeenForm form = SeenForm::clock;
  std::string_view text;  // with bare and string
  tlbf::Time at = 0;      // the time the copy was judged at
  // The copy's own time when it has one (-t, read), else `at`: what first and last compare.
  std::optional<tlbf::Time> own;
  tlbf::Time own_or_at() const { return own ? *own : at; }
};

// A record as the holding stage writes it: the copy it kept and what that copy stood for.
struct CountedRecord {
  std::string_view bytes;  // the copy, exactly as read, terminator included
  std::size_t text_size;   // without the terminator
  InputFormat format;      // what it was read as
  std::uint64_t count;     // copies of the key in its window, this one included
  SeenTime first, last;
};

class CountFormat {
 public:
  static constexpr const char* kDefaultTemplate = "{count} {record}";
  static constexpr const char* kDefaultNames = "dup_count,first_seen,last_seen";

  CountFormat();  // the defaults

  // --count-format: text with {count}, {first}, {last} and exactly one {record}; \t is a tab,
  // \\ a backslash, {{ and }} braces. False, with `problem` set, for anything else.
  bool set_template(std::string_view text, std::string& problem);
  // --count-names: three comma-separated member names, for the count, the first and the last
  // copy's time; an empty one leaves its member out. False, with `problem` set, when the list
  // is not three names, or two names are the same.
  bool set_names(std::string_view list, std::string& problem);

  // Writes `r` with its count and times, then its terminator.
  void write(Writer& out, const CountedRecord& r) const;
  // A table's header line with the names of the count columns (table_column.hpp).
  void write_header(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format) const {
    write_columns(out, bytes, text_size, format, true);
  }
  // A table's row that was not counted (keyless, or not selected by --where): the count
  // columns empty, so that every row has the header's columns.
  void write_uncounted_row(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format) const {
    write_columns(out, bytes, text_size, format, false);
  }

 private:
  enum class Field : std::uint8_t { text, count, first, last, record };
  struct Piece {
    Field field;
    std::string text;  // with Field::text
  };
  void write_line(Writer& out, const CountedRecord& r) const;
  void write_object(Writer& out, const CountedRecord& r) const;
  void write_row(Writer& out, const CountedRecord& r) const;
  // The count columns' names (`header`) or empty values.
  void write_columns(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format, bool header) const;

  std::vector<Piece> pieces_;
  std::array<std::string, 3> names_;         // as JSON string text; empty: left out
  std::array<std::string, 3> column_names_;  // the same as given: a table's columns
};

}  // namespace tlbf_dedup
