// The emitter (emitter.hpp).
//
// Invariant: a record is written byte for byte as it was read, with --mark plus its flag,
// with --count plus its count fields (count_format.cpp) -- a record --where did not select
// with neither -- and nothing else but the line end
// a held record without one gets when another record follows it; a record is borrowed
// (written from its source's memory, not copied) only when it is written unmarked and its
// source keeps the bytes until the writer's next flush. Everything else goes through the
// writer's buffer, in the order the emitter is called.
#include "output/emitter.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <simdjson.h>

#include "base/json_text.hpp"
#include "extract/key_display.hpp"
#include "output/json_member.hpp"
#include "output/table_column.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

Emitter::Emitter(Writer& out, OutputMode mode)
    : out_(out),
      mode_(std::move(mode)),
      mark_name_(json_escape(mode_.mark_name)),
      mark_bytes_(std::max<std::size_t>(4, mark_name_.size() + 9)) {}  // "dup\t", or ,"NAME":false

Emitter::~Emitter() = default;

OutRecord Emitter::compacted(const OutRecord& r) {
  if (!json_check_) json_check_ = std::make_unique<simdjson::dom::parser>();
  if (json_check_->parse(r.bytes.data(), r.text_size).error() != simdjson::SUCCESS) return r;
  compact_.resize(r.text_size + 1);
  std::size_t size = 0;
  if (simdjson::minify(r.bytes.data(), r.text_size, compact_.data(), size) != simdjson::SUCCESS) return r;
  compact_[size] = '\n';
  return OutRecord{std::string_view(compact_.data(), size + 1), size, r.format, false};
}

CountedRecord Emitter::compacted(const CountedRecord& r) {
  CountedRecord c = r;
  const OutRecord o = compacted(OutRecord{r.bytes, r.text_size, r.format, false});
  c.bytes = o.bytes;
  c.text_size = o.text_size;
  return c;
}

void Emitter::undecided(const OutRecord& given) {
  const OutRecord r = mode_.compact && given.format == InputFormat::json ? compacted(given) : given;
  if (mode_.mark)
    write_marked(r.bytes, r.text_size, r.format, false);
  else
    out_.write(r.bytes);
}

bool Emitter::held(const CountedRecord& held, bool counted) {
  const CountedRecord r = mode_.compact && held.format == InputFormat::json ? compacted(held) : held;
  if (mode_.only_dups && r.count < 2) return false;
  if (owes_terminator_) out_.write(std::string_view(&mode_.terminator, 1));
  if (mode_.count && counted)
    mode_.count_format.write(out_, r);
  else if (mode_.count && is_table(r.format))  // (a table's row not counted: its count columns empty)
    write_unjudged_row(r.bytes, r.text_size, r.format);
  else
    out_.write(r.bytes);
  owes_terminator_ = r.text_size == r.bytes.size();
  return true;
}

void Emitter::passed_among_held(const OutRecord& r) {
  if (owes_terminator_) out_.write(std::string_view(&mode_.terminator, 1));
  passed(r);
  owes_terminator_ = r.text_size == r.bytes.size();
}

void Emitter::explain_header() { out_.write("#record\tkey\ttime_text\ttime\tclock\tdecision\n"); }

void Emitter::explain(const ExplainLine& line) {
  std::string key = "-", text = "-", time = "-";
  if (line.key) key = describe_key_parts(*line.key, KeyShape{line.composite, line.format});
  if (line.time) {
    text = quoted_time(*line.time);
    if (line.time->parsed) time = format_rfc3339(line.time->time);
  }
  out_.write(fmt::format("{}:{}\t{}\t{}\t{}\t{}\t{}\n", line.input, line.record, key, text, time,
                         format_rfc3339(line.clock), line.decision));
}

void Emitter::blank(const OutRecord& r) {
  const std::string_view text = r.bytes.substr(0, r.text_size);
  if (!is_table(r.format) || !is_header_line(text)) return undecided(r);  // (--mark leaves a blank line)
  if (r.format != InputFormat::zeek) {
    if (text == table_header_) return;
    table_header_ = text;
  }
  if (mode_.mark) {
    const AddedColumn mark{mode_.mark_name, "bool", {}};
    return write_with_columns(out_, r.bytes, r.text_size, r.format, &mark, 1, true);
  }
  if (mode_.count) return mode_.count_format.write_header(out_, r.bytes, r.text_size, r.format);
  out_.write(r.bytes);
}

void Emitter::write_unjudged_row(std::string_view bytes, std::size_t text_size, InputFormat format) {
  if (mode_.count) return mode_.count_format.write_uncounted_row(out_, bytes, text_size, format);
  const AddedColumn mark{mode_.mark_name, "bool", {}};
  write_with_columns(out_, bytes, text_size, format, &mark, 1, false);
}

void Emitter::write_marked(std::string_view bytes, std::size_t text_size, InputFormat format, bool dup) {
  if (is_table(format)) {
    const bool zeek = format == InputFormat::zeek;  // (Zeek writes a bool as T or F)
    const AddedColumn mark{mode_.mark_name, "bool", dup ? (zeek ? "T" : "true") : (zeek ? "F" : "false")};
    return write_with_columns(out_, bytes, text_size, format, &mark, 1, false);
  }
  if (format != InputFormat::json) {
    out_.write(dup ? "dup\t" : "new\t");
    out_.write(bytes);
    return;
  }
  // The object's closing brace, after trailing blanks.
  std::size_t close = text_size;
  while (close > 0 && (bytes[close - 1] == ' ' || bytes[close - 1] == '\t' || bytes[close - 1] == '\r')) --close;
  if (close == 0 || bytes[close - 1] != '}') {
    out_.write(bytes);
    return;
  }
  --close;
  const auto [value_begin, value_end] = find_member_value(bytes.substr(0, close + 1), mark_name_);
  if (value_begin != std::string_view::npos) {
    out_.write(bytes.substr(0, value_begin));
    out_.write(dup ? "true" : "false");
    out_.write(bytes.substr(value_end));
    return;
  }
  std::size_t before = close;
  while (before > 0 && is_blank(bytes[before - 1])) --before;
  const bool empty_object = before > 0 && bytes[before - 1] == '{';
  out_.write(bytes.substr(0, close));
  out_.write(empty_object ? "\"" : ",\"");
  out_.write(mark_name_);
  out_.write(dup ? "\":true" : "\":false");
  out_.write(bytes.substr(close));
}

}  // namespace tlbf_dedup
