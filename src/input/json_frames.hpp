// JSON framing: where each record of a JSON input begins and ends, for the record reader.
// Records are JSON values separated by whitespace (pretty-printed or concatenated documents),
// the elements of a top-level array, or with --records PATH the elements of the array member
// PATH of each top-level object. The framer sees the reader's unconsumed bytes and keeps no
// copy of them: its state is a few counters, so a document of any size is framed in the
// memory of its longest record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "input/ndjson_lines.hpp"

namespace tlbf_dedup {

struct JsonFrame {
  enum class Kind {
    record,   // a record: [skip, skip + size), then term_len terminator bytes
    more,     // the bytes end inside a record or a separator: read more (skip bytes are consumed)
    end,      // every byte given was consumed, no record open
    damaged,  // the document is broken here: `damage` says how (skip bytes are consumed)
  };
  Kind kind = Kind::more;
  std::size_t skip = 0;  // bytes before the record (or consumed without one) that belong to no record
  std::size_t size = 0;
  // 0, 1 (LF) or 2 (CR LF) terminator bytes after the record; with `newline_over_separator`,
  // the one byte after the record is a separator (a comma, a bracket, a blank) that the
  // reader overwrites with LF, so every element of an array is written as a line (the reader
  // supplies one for an element that ends the input, the array's end missing).
  std::uint32_t term_len = 0;
  bool newline_over_separator = false;
  bool element = false;      // an element of an array (written as one line: RecordReader)
  std::size_t consumed = 0;  // every byte used from the start, the record's included
  std::string damage;
  // The record's bytes are a plain_ascii_record() (printable ASCII, no backslash, an even
  // number of quotes); false: not known. Apart from newline_over_separator: a frame copied
  // member by member copies two flags side by side with one 16-bit load of the two byte
  // stores just made, which the store buffer does not forward.
  bool plain = false;
};

class JsonFramer {
 public:
  // `records_path`: the path to the array of records, read as -k reads it: a dotted path
  // split at its dots (--records a.b is {"a", "b"}), each dot nesting or part of a member's
  // name (member "a.b", or member b of member a), or a JSON pointer given whole ({"/a/b"}:
  // exactly those names, ~0 and ~1 unescaped); it leads through objects only. The first
  // array it reaches in each top-level object is streamed; a second one in the same object
  // (a member repeated, or another reading of the dots) is damage. Empty: records are
  // top-level values, the elements of top-level arrays.
  explicit JsonFramer(std::vector<std::string> records_path = {}, LineScan scan = widest_line_scan());

  // A new input starts: nothing is open.
  void restart();
  // The next frame of `bytes`, the unconsumed input (it starts where the last frame's consumed
  // bytes ended). `at_end`: no byte follows them; then the result is never `more`.
  JsonFrame next(std::string_view bytes, bool at_end);
  // The bytes of the record open at the start of the last `more`, so far.
  std::size_t open_size() const { return open_ ? pos_ : 0; }
  // Inside an array or a --records wrapper (at the input's end, that is a truncation).
  bool inside_document() const { return where_ != Where::top; }

 private:
  enum class Where { top, wrapper, array };
  enum class Nav { member, name, colon, value, after, skip_value };

  // The frame at the start of `b`, by where the framer is; with again_ set, it consumed
  // `consumed` bytes and changed where the framer is, and next() goes on after them.
  JsonFrame frame(std::string_view b, bool at_end);
  // Each reads from the start of `b`; a result with again_ set consumed `skip` bytes and
  // changed where the framer is, and next() goes on after them.
  JsonFrame top_value(std::string_view b, bool at_end);
  JsonFrame top_object(std::string_view b, bool at_end);
  JsonFrame line_record(std::string_view b, bool at_end);
  JsonFrame array_separator(std::string_view b, bool at_end);
  JsonFrame array_element(std::string_view b, bool at_end);
  JsonFrame wrapper(std::string_view b, bool at_end);
  JsonFrame member_value(std::string_view b, std::size_t i);
  // One byte of a value; the value's scan state is depth_, in_string_, escape_, scalar_.
  enum class Step { inside, closed_after, closed_before };
  Step step(char c);
  void start_value() { depth_ = 0, in_string_ = escape_ = scalar_ = false; }
  JsonFrame again(std::size_t consumed);
  // `more`, with `consumed` bytes that belong to no record.
  JsonFrame more_after(std::size_t consumed);
  JsonFrame line_until(std::size_t newline, std::string_view b);
  JsonFrame broken(std::size_t skip, std::string what);
  void leave_array();
  // A --records object (or one inside it) closes.
  JsonFrame close_object(std::size_t i);
  // The last piece of path_ that the member name_ spells from piece `from` on (the pieces
  // joined by dots, in a dotted path), npos when it spells none.
  std::size_t last_name_matched(std::size_t from) const;

  std::vector<std::string> path_;  // --records: the member names (pieces of a dotted path)
  bool dotted_ = true;             // a dot between pieces may be part of a name
  LineScan scan_;
  Where where_ = Where::top;
  // Reading a record: pos_ bytes of it scanned, with this state of the scan.
  bool open_ = false;
  std::size_t pos_ = 0;
  std::size_t first_newline_ = 0;  // a top-level value over several lines: where its first line ends
  int depth_ = 0;
  bool in_string_ = false, escape_ = false, scalar_ = false;
  bool closed_ = false;  // the top-level value closed at pos_
  bool line_ = false;    // the open record is a line as any other (pos_ bytes hold no LF)
  bool again_ = false;
  bool after_array_ = false;  // a top-level array ended: the rest of its line is consumed
  // Arrays: nothing read yet, or an element read and the comma or bracket after it awaited.
  bool array_first_ = true;
  bool need_separator_ = false;
  // --records: the object level, the piece of path_ each level's part of the path starts at,
  // and the member being read.
  Nav nav_ = Nav::member;
  std::size_t level_ = 0;
  std::vector<std::size_t> from_;
  std::string name_;
  bool found_ = false;  // this document's array member was found
};

}  // namespace tlbf_dedup
