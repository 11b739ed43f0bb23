// The emitter: a judged record in, output bytes out (ripgrep's Sink). It owns the output
// policy: which records --only-dups writes, the flag --mark adds, the count fields --count
// adds to the records the holding stage writes, the line --explain writes instead of a
// record, and when a record's bytes may be borrowed rather than copied. The Writer below it
// only writes bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "extract/timestamp.hpp"
#include "output/count_format.hpp"
#include "output/output_mode.hpp"
#include "output/record_sink.hpp"
#include "output/writer.hpp"
#include "tlbf/types.hpp"

namespace simdjson::dom {
class parser;
}

namespace tlbf_dedup {

class Emitter {
 public:
  // `out` must outlive the emitter.
  Emitter(Writer& out, OutputMode mode);
  ~Emitter();

  // A record the filter judged, `dup` or not: written as --only-dups and --mark say; true
  // when it was written.
  bool decided(const OutRecord& r, bool dup) {
    // Not `cond ? compacted(r) : r`: that copies r, whose fields were just stored one by
    // one, and the copy's whole-record loads stall on every record.
    if (mode_.compact && r.format == InputFormat::json) return write_decided(compacted(r), dup);
    return write_decided(r, dup);
  }

 private:
  bool write_decided(const OutRecord& r, bool dup) {
    if (mode_.mark) {
      if (mode_.only_dups && !dup) return false;
      write_marked(r.bytes, r.text_size, r.format, dup);
      return true;
    }
    if (dup != mode_.only_dups) return false;
    if (r.borrowable)
      out_.write_borrowed(r.bytes);
    else
      out_.write(r.bytes);
    return true;
  }

 public:
  // A record written whatever the filter says (passed by --on-error pass): copied, and with
  // --mark flagged as new.
  void undecided(const OutRecord& r);
  // A record that is no record (ExtractStatus::blank): a blank JSON line, written as read; a
  // table's empty line as read, its header with the column of --mark or --count (a CSV or TSV
  // header equal to the one written before, a later input's, is not written again).
  void blank(const OutRecord& r);
  // Takes over from `before` (the output hold's emitter, or the output's): what it wrote
  // that decides what this one writes (the table header written last).
  void follow(const Emitter& before) { table_header_ = before.table_header_; }
  // A record --where did not select: exactly as read, whatever --mark, --compact and --count
  // say; borrowed where it may be. A table's row gets the columns of --mark or --count empty
  // (not judged), so that every row has the header's columns.
  void passed(const OutRecord& r) {
    if ((mode_.mark || mode_.count) && is_table(r.format)) return write_unjudged_row(r.bytes, r.text_size, r.format);
    if (r.borrowable)
      out_.write_borrowed(r.bytes);
    else
      out_.write(r.bytes);
  }
  // The same between the records of the holding stage, which leave the input's order: it
  // gets the line end a held record before it owes, and owes one when it has none.
  void passed_among_held(const OutRecord& r);
  // Lines that continue the record written last (--multiline): copied as they are.
  void continuation(std::string_view bytes) { out_.write(bytes); }
  // A record of the holding stage (--count, --keep last), copied: with --count, with its
  // count fields; --only-dups writes only the records that stood for more than one copy. True
  // when it was written. Such records leave the input's order, so one without a terminator
  // (the input's last) gets the records' terminator when another record follows it.
  // `counted` false: a record that was not held (no key) goes out without count fields.
  bool held(const CountedRecord& r, bool counted = true);

  // How much judged records may write before the writer must flush: while they stay within
  // it, no write can fail or block before the next flush(). Each record counts its bytes, plus
  // what --mark adds, against both the buffer's room and the borrowed bytes' room.
  using Room = SinkRoom;
  Room room() const {
    const WriterRoom w = out_.room();
    // --compact copies every record and may add a line end.
    const bool copies = mode_.mark || mode_.compact;
    return Room{copies ? w.copied : std::min(w.copied, w.borrowed),
                (mode_.mark ? mark_bytes_ : 0) + (mode_.compact ? 1 : 0), w.calls};
  }

  // --explain: the header, then one line per record instead of the record.
  void explain_header();
  void explain(const ExplainLine& line);

 private:
  // Writes the record with the flag of --mark: lines get "dup\t" or "new\t" in front; a JSON
  // object gets ,"NAME":true|false before its closing brace, or, when it already has a
  // top-level member spelled "NAME", that member's value replaced (so the output never holds
  // NAME twice). A record that is not a JSON object in JSON mode is written unchanged. A
  // table's row gets a last column, true or false (table_column.hpp).
  void write_marked(std::string_view bytes, std::size_t text_size, InputFormat format, bool dup);
  // A table's row not judged: the columns --mark or --count add, empty.
  void write_unjudged_row(std::string_view bytes, std::size_t text_size, InputFormat format);
  // --compact: the record minified, with a line end, as a record of compact_; `r` itself
  // when it is not one valid JSON value (the minifier only drops blanks outside strings: it
  // would glue the words of any text together, and "1 2" into 12).
  OutRecord compacted(const OutRecord& r);
  CountedRecord compacted(const CountedRecord& r);

  Writer& out_;
  OutputMode mode_;
  std::string mark_name_;         // mode_.mark_name as JSON string text
  std::size_t mark_bytes_;        // the most --mark adds to a record
  bool owes_terminator_ = false;  // the held record written last had no terminator
  std::string compact_;           // --compact: the record written now, minified
  // --compact: what tells a JSON value from text (made at the first record).
  std::unique_ptr<simdjson::dom::parser> json_check_;
  std::string table_header_;  // the CSV or TSV header written last
};

}  // namespace tlbf_dedup
