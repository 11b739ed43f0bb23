// The record reader's --multiline framing: a record is a start line and the lines after it
// that do not match, kept as one span of the reader's buffer (record_reader.cpp's invariants
// hold: the buffer, its fills and inputs are the same as for lines).
//
// Invariant: a record ends when the next start line arrives, at the end of its input, or when
// the input (one that can pause) has paused for multiline_timeout_ms; lines that arrive after
// that are handed out as `continues`, so no byte is lost or moved.
#include <algorithm>
#include <cstring>

#include "input/record_reader.hpp"

namespace tlbf_dedup {

void RecordReader::hand_out_group(Record& out, bool next_is_start) {
  const std::uint32_t t = input_uses_crlf_ ? 2 : 1;
  out.data = buf_.get() + begin_;
  out.size = group_ - t;
  out.term_len = t;
  out.head_size = std::min(head_size_, out.size);
  out.continues = !start_line_ && record_in_input_ > 0;
  out.plain = out.unclosed = false;
  ++record_in_input_;
  begin_ += group_;
  group_ = 0;
  scan_ = begin_;
  next_is_start_ = next_is_start;
}

bool RecordReader::next_multiline(Record& out) {
  // The open record's lines are [begin_, begin_ + group_); the next line starts after them.
  while (true) {
    const char* base = buf_.get();
    const std::size_t line = begin_ + group_;
    // A stop read nothing more: a record of many lines ends with the lines read so far.
    if (stop_ && *stop_ && !eof_) stop_reading();
    if (line < end_) {
      const std::size_t from = scan_ > line ? scan_ : line;
      const void* hit = std::memchr(base + from, term_, end_ - from);
      if (hit) {
        const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
        std::size_t size = pos - line;
        const bool crlf = term_ == '\n' && size > 0 && base[pos - 1] == '\r';
        size -= crlf;
        scan_ = pos + 1;
        if (group_ == 0) {  // the record's first line
          head_size_ = size;
          start_line_ = next_is_start_ || line_start_->starts_record({base + line, size});
          next_is_start_ = false;
        } else if (line_start_->starts_record({base + line, size})) {  // the next record begins here
          hand_out_group(out, true);
          return true;
        }
        group_ = pos + 1 - begin_;
        input_uses_crlf_ = crlf;
        check_record_size(group_ - (crlf ? 2 : 1));
        continue;
      }
      scan_ = end_;
    }
    if (eof_ && !detecting_) {
      if (begin_ == end_) {
        if (!advance_input()) return false;
        continue;
      }
      // The input ends: the open record takes an unterminated last line unless that starts
      // a record of its own.
      const std::size_t rest = end_ - (begin_ + group_);
      if (group_ > 0 && rest > 0 && line_start_->starts_record({base + begin_ + group_, rest})) {
        hand_out_group(out, true);
        return true;
      }
      if (rest == 0) {
        hand_out_group(out, false);
        return true;
      }
      if (group_ == 0) {
        head_size_ = rest;
        start_line_ = next_is_start_ || line_start_->starts_record({base + begin_, rest});
      }
      check_record_size(end_ - begin_);
      out.continues = !start_line_ && record_in_input_ > 0;
      hand_out_rest(out);
      out.head_size = std::min(head_size_, out.size);
      next_is_start_ = false;
      return true;
    }
    check_open_records();
    held_out_ = false;
    if (!fill(group_ > 0 ? config_.multiline_timeout_ms : -1) && held_out_) {
      // The input paused with a record open: it goes out now; lines that continue it later
      // are handed out as `continues`.
      held_out_ = false;
      hand_out_group(out, false);
      return true;
    }
  }
}

}  // namespace tlbf_dedup
