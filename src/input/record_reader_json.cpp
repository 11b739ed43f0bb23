// The record reader's JSON framing: the reader's buffer, fills and inputs as for lines, with
// the JsonFramer (json_frames.hpp) saying where each record begins and ends.
//
// Invariants (besides record_reader.cpp's):
//  - Bytes that belong to no record (an array's brackets and commas, a --records wrapper's
//    other members) are consumed as soon as they are framed, so the buffer holds at most the
//    open record: memory stays bounded by --max-record however large the document.
//  - A record's line end is its own (LF, CR LF), or the separator byte after it, overwritten
//    with LF once the framer has read it; a record's own bytes are never changed, but for an
//    array element spread over lines, minified in place so that it is written as one line.
//  - Damage (a truncated array, bytes that are not JSON where a separator must be) is an
//    InputError naming the input, the record's number in it and the byte offset, thrown
//    after every complete record before it was handed out.
#include <cstring>
#include <string>

#include <simdjson.h>

#include "input/byte_source.hpp"
#include "input/record_reader.hpp"

namespace tlbf_dedup {

bool RecordReader::next_json(Record& out) {
  while (true) {
    const bool at_end = eof_ && !detecting_;
    const JsonFrame f = framer_.next({buf_.get() + begin_, end_ - begin_}, at_end);
    switch (f.kind) {
      case JsonFrame::Kind::record:
        hand_out_frame(f, at_end, out);
        return true;
      case JsonFrame::Kind::damaged:
        throw_damage(f, at_end);
      case JsonFrame::Kind::end:
        if (!advance_input()) return false;
        continue;
      case JsonFrame::Kind::more:
        begin_ += f.skip;
        input_offset_ += f.skip;
        check_record_size(framer_.open_size());
        if (!at_end) fill();
        continue;
    }
  }
}

void RecordReader::hand_out_frame(const JsonFrame& f, bool at_end, Record& out) {
  char* record = buf_.get() + begin_ + f.skip;
  check_record_size(f.size);
  out.data = record;
  out.size = out.head_size = f.size;
  out.term_len = f.term_len;
  out.continues = false;
  out.plain = f.plain;
  out.unclosed = false;
  if (f.element && std::memchr(record, '\n', f.size)) one_line(record, out);
  if (f.newline_over_separator) record[out.size] = '\n';
  begin_ += f.consumed;
  input_offset_ += f.consumed;
  scan_ = begin_;
  ++record_in_input_;
  // The input's last record without a line end, another input after it, or an array's
  // element (an array is written as lines, also one whose end is missing): one is supplied
  // (end_ <= cap_, and the allocation has kTailPadding bytes more), as for lines.
  if (out.term_len == 0 && at_end && begin_ == end_ && (next_path_ < paths_.size() || f.element)) {
    record[out.size] = '\n';
    out.term_len = 1;
  }
}

void RecordReader::one_line(char* record, Record& r) {
  // An element spread over lines (a pretty-printed array) is minified in place, so that the
  // array comes out as NDJSON; a frame is a balanced value, so the minifier cannot fail on it.
  element_scratch_.resize(r.size);
  std::size_t size = 0;
  if (simdjson::minify(record, r.size, element_scratch_.data(), size) != simdjson::SUCCESS) return;
  std::memcpy(record, element_scratch_.data(), size);
  r.size = r.head_size = size;
  r.plain = false;
}

void RecordReader::throw_damage(const JsonFrame& f, bool at_end) const {
  // A damaged compressed stream ends like a file: its own damage is the cause to name.
  if (at_end && source_ && !source_->damage().empty()) throw InputError(name_ + ": " + source_->damage());
  throw InputError(name_ + ": record " + std::to_string(record_in_input_ + 1) + " at byte " +
                   std::to_string(input_offset_ + f.skip) + ": " + f.damage +
                   " (the records before it were processed)");
}

}  // namespace tlbf_dedup
