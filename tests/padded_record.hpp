// A record as the reader hands it over: its text in a buffer that goes on past it with the
// reader's guaranteed padding (RecordReader::kTailPadding), which the extractors may read.
#pragma once

#include <string>
#include <string_view>

#include "input/record_reader.hpp"

struct PaddedRecord {
  // `after`: the byte after the record (the reader's buffer goes on with the next records).
  explicit PaddedRecord(std::string_view text, char after = '\0') : buf(text) {
    buf += after;
    buf.append(tlbf_dedup::RecordReader::kTailPadding - 1, '\0');
    rec.data = buf.data();
    rec.size = text.size();
    rec.term_len = 0;
  }
  std::string buf;
  tlbf_dedup::Record rec;
};
