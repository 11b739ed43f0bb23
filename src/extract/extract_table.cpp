// Key and time of a table's rows: CSV (RFC 4180), TSV and Zeek's TSV logs, whose header names
// the columns -k, -t, --where and --key-except take (a field number, or a list of them as for
// lines, still works where no column has that name).
//
// Invariants:
//  - A header is no row: the first record of each input (CSV, TSV) and, in a Zeek log, every
//    line that starts with '#' are ExtractStatus::blank, written as read and never judged
//    (the emitter adds --mark's and --count's column to a header: output/table_column.cpp).
//  - The map from names to columns is the header's: made at each input's first record (CSV,
//    TSV) or at each #fields line (Zeek: a second header block starts a new map). A name the
//    header lacks is a SpecError that names the nearest names.
//  - A field's value is its text; in CSV a quoted field is its content with each doubled
//    quote made one, so "a" and a are one key. One -k is its columns' values joined with the
//    separator, as for lines; several -k, and --key-except's columns, are length-prefixed parts.
//  - A row that cannot be read (a quote left open, a NUL byte) is malformed; a row without a
//    key column has no key. Both pass through as read (--on-error) and are warned about.
#include "extract/extract_table.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "extract/advice.hpp"
#include "extract/field_list.hpp"

namespace tlbf_dedup {

std::string nearest_columns(std::string_view name, const std::vector<std::string>& columns) {
  std::vector<std::pair<std::size_t, std::size_t>> by_distance;  // (distance, column)
  for (std::size_t i = 0; i < columns.size(); ++i) by_distance.emplace_back(edit_distance(name, columns[i]), i);
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (std::size_t i = 0; i < by_distance.size() && i < 3; ++i) {
    if (!out.empty()) out += ", ";
    out += columns[by_distance[i].second];
  }
  return out;
}

bool split_row(std::string_view text, const TableDialect& dialect, std::uint32_t last_field,
               std::vector<std::string_view>& fields, std::string& scratch) {
  fields.clear();
  scratch.clear();
  // Unescaped fields are built in `scratch`, which may move while it grows: they are kept as
  // offsets first and made views at the end.
  struct Unescaped {
    std::size_t field, offset, size;
  };
  Unescaped pending[64];
  std::vector<Unescaped> more;
  std::size_t n_pending = 0;
  const char sep = dialect.separator;
  const char* p = text.data();
  const char* end = p + text.size();
  while (fields.size() < last_field) {
    if (dialect.quoted && p < end && *p == '"') {
      // A quoted field: up to the quote that is not doubled, then (leniently, as Python's csv
      // module reads it) whatever stands before the next separator.
      const char* q = p + 1;
      const char* close = nullptr;
      bool doubled = false;
      while (true) {
        const char* quote = static_cast<const char*>(std::memchr(q, '"', static_cast<std::size_t>(end - q)));
        if (!quote) return false;  // the quote is never closed
        if (quote + 1 < end && quote[1] == '"') {
          doubled = true;
          q = quote + 2;
          continue;
        }
        close = quote;
        break;
      }
      const char* after = close + 1;
      const char* next = after < end
                             ? static_cast<const char*>(std::memchr(after, sep, static_cast<std::size_t>(end - after)))
                             : nullptr;
      const char* field_end = next ? next : end;
      if (!doubled && field_end == after) {
        fields.emplace_back(p + 1, static_cast<std::size_t>(close - p - 1));
      } else {
        const std::size_t offset = scratch.size();
        for (const char* c = p + 1; c < close; ++c) {
          scratch += *c;
          if (*c == '"') ++c;  // the second of a doubled quote
        }
        scratch.append(after, field_end);
        const Unescaped u{fields.size(), offset, scratch.size() - offset};
        if (n_pending < 64)
          pending[n_pending++] = u;
        else
          more.push_back(u);
        fields.emplace_back();
      }
      if (!next) break;
      p = next + 1;
      if (p == end) {  // a separator last: one more, empty field
        if (fields.size() < last_field) fields.emplace_back(end, 0);
        break;
      }
      continue;
    }
    const char* next = static_cast<const char*>(std::memchr(p, sep, static_cast<std::size_t>(end - p)));
    fields.emplace_back(p, static_cast<std::size_t>((next ? next : end) - p));
    if (!next) break;
    p = next + 1;
    if (p == end && fields.size() < last_field) {
      fields.emplace_back(end, 0);
      break;
    }
  }
  for (std::size_t i = 0; i < n_pending; ++i)
    fields[pending[i].field] = std::string_view(scratch.data() + pending[i].offset, pending[i].size);
  for (const Unescaped& u : more) fields[u.field] = std::string_view(scratch.data() + u.offset, u.size);
  return true;
}

std::string describe_malformed_row(std::string_view record) {
  if (const void* nul = std::memchr(record.data(), '\0', record.size()))
    return fmt::format("not a readable row: a NUL byte at byte {}", static_cast<const char*>(nul) - record.data() + 1);
  return "not a readable row: a quote that is never closed, so the record runs to the end of the input (RFC 4180: "
         "a quoted field ends at a quote that is not doubled)";
}

namespace {

// Zeek's escapes in a #separator line: "\x09" is a tab.
char zeek_separator(std::string_view value) {
  if (value.size() == 4 && value[0] == '\\' && value[1] == 'x') {
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    return static_cast<char>(hex(value[2]) * 16 + hex(value[3]));
  }
  return value.empty() ? '\t' : value[0];
}

class TableExtractor final : public Extractor {
 public:
  TableExtractor(InputFormat format, const ExtractConfig& cfg, TimeParser time_parser)
      : format_(format),
        cfg_(cfg),
        finish_(cfg.mask, cfg.ignore_case),
        time_parser_(std::move(time_parser)),
        where_regex_(cfg.where_regex) {
    if (cfg.missing != MissingMember::error) throw SpecError("--missing null applies to JSON records, not to tables");
    if (!cfg.key_regex.empty()) throw SpecError("--key-regex reads lines: it cannot be combined with a table format");
    dialect_.separator = format == InputFormat::csv ? ',' : '\t';
    if (cfg.delimiter >= 0 && format != InputFormat::zeek) dialect_.separator = static_cast<char>(cfg.delimiter);
    dialect_.quoted = format == InputFormat::csv;
    wants_time_ = !cfg.time.empty();
  }

  void start_input() override {
    if (format_ != InputFormat::zeek) mapped_ = false;
  }

  Extracted extract(const Record& record) override {
    Extracted out;
    const std::string_view text = record.text();
    if (format_ == InputFormat::zeek && !text.empty() && text[0] == '#') {
      read_zeek_header(text);
      out.status = ExtractStatus::blank;
      return out;
    }
    if (!mapped_ && format_ != InputFormat::zeek) {
      if (!split_row(text, dialect_, UINT32_MAX, fields_, scratch_)) {
        out.status = ExtractStatus::malformed;
        return out;
      }
      map_columns(std::vector<std::string>(fields_.begin(), fields_.end()));
      out.status = ExtractStatus::blank;
      return out;
    }
    if (text.empty()) {
      out.status = ExtractStatus::blank;
      return out;
    }
    if (record.unclosed || std::memchr(text.data(), '\0', text.size()) ||
        !split_row(text, dialect_, last_field_, fields_, scratch_)) {
      out.status = ExtractStatus::malformed;
      return out;
    }
    if (!where_regex_.empty() && !where_regex_.all_match(text)) {
      out.status = ExtractStatus::unmatched;
      return out;
    }
    for (const Where& w : where_) {
      const bool present = has(w.columns);
      if (w.condition.holds(present ? WhereFound::string : WhereFound::absent,
                            present ? value(w.columns, dialect_.separator, joined_) : ""))
        continue;
      out.status = ExtractStatus::unmatched;
      return out;
    }
    if (wants_time_ && mapped_ && has(time_)) time_parser_.parse_in_place(value(time_, ' ', time_text_), out.time);
    if (!mapped_ && !parts_resolved_) {  // a Zeek row before any #fields line
      out.status = ExtractStatus::missing_key;
      return out;
    }
    return key_of(text, out);
  }

 private:
  void read_zeek_header(std::string_view line) {
    const std::size_t space = line.find_first_of(" \t");
    const std::string_view tag = line.substr(0, space);
    const std::string_view rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    if (tag == "#separator") {
      dialect_.separator = zeek_separator(rest);
    } else if (tag == "#fields") {
      std::vector<std::string> names;
      TableDialect d = dialect_;
      d.quoted = false;
      split_row(rest, d, UINT32_MAX, fields_, scratch_);
      for (std::string_view f : fields_) names.emplace_back(f);
      map_columns(std::move(names));
    }
  }

  // The columns a specification names: the column of that name, else the fields a field list
  // names (1-based), else a SpecError naming the nearest columns.
  std::vector<std::uint32_t> resolve(const std::string& spec, const char* option) const {
    const auto named = std::find(columns_.begin(), columns_.end(), spec);
    if (named != columns_.end()) return {static_cast<std::uint32_t>(named - columns_.begin())};
    if (auto list = FieldList::parse(spec)) {
      std::vector<std::uint32_t> out;
      const std::uint32_t width = std::max<std::uint32_t>(static_cast<std::uint32_t>(columns_.size()), 1);
      for (const FieldList::Range& r : list->ranges())
        for (std::uint32_t f = r.first; f <= std::min(r.last, std::max(width, r.first)); ++f) out.push_back(f - 1);
      return out;
    }
    throw SpecError(std::string(option) + " '" + spec +
                    "': no column of that name in the header (nearest: " + nearest_columns(spec, columns_) + ")");
  }

  void map_columns(std::vector<std::string> names) {
    columns_ = std::move(names);
    mapped_ = parts_resolved_ = true;
    parts_.clear();
    where_.clear();
    except_.clear();
    last_field_ = 0;
    auto need = [&](const std::vector<std::uint32_t>& cols) {
      for (std::uint32_t c : cols) last_field_ = std::max(last_field_, c + 1);
    };
    for (const std::string& k : cfg_.keys) parts_.push_back(resolve(k, "-k/--key"));
    for (const std::string& k : cfg_.key_except) {
      for (std::uint32_t c : resolve(k, "--key-except")) except_.push_back(c);
    }
    if (!cfg_.time.empty()) time_ = resolve(cfg_.time, "-t/--time");
    for (const WhereCondition& c : cfg_.where) where_.push_back(Where{c, resolve(c.path, "--where")});
    for (const auto& p : parts_) need(p);
    need(time_);
    for (const Where& w : where_) need(w.columns);
    if (!except_.empty() || parts_.empty()) last_field_ = UINT32_MAX;  // every column, or the whole row
  }

  bool has(const std::vector<std::uint32_t>& columns) const {
    return !columns.empty() && *std::max_element(columns.begin(), columns.end()) < fields_.size();
  }
  // The columns' values joined by `sep` in `joined` (one column: its value, no copy).
  std::string_view value(const std::vector<std::uint32_t>& columns, char sep, std::string& joined) const {
    if (columns.size() == 1) return fields_[columns[0]];
    joined.clear();
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) joined += sep;
      joined.append(fields_[columns[i]]);
    }
    return joined;
  }

  Extracted key_of(std::string_view text, Extracted& out) {
    std::string_view key;
    if (!except_.empty()) {
      composite_.clear();
      for (std::uint32_t c = 0; c < fields_.size(); ++c)
        if (std::find(except_.begin(), except_.end(), c) == except_.end()) finish_.append_part(composite_, fields_[c]);
      out.key = composite_;
      return out;
    }
    if (parts_.empty()) {
      key = text;
    } else {
      for (std::uint32_t i = 0; i < parts_.size(); ++i) {
        if (!has(parts_[i])) {
          out.status = ExtractStatus::missing_key;
          out.absent_part = i + 1;
          return out;
        }
      }
      if (parts_.size() > 1) {
        composite_.clear();
        for (const auto& p : parts_) finish_.append_part(composite_, value(p, dialect_.separator, joined_));
        out.key = composite_;
        return out;
      }
      key = value(parts_[0], dialect_.separator, joined_);
    }
    out.key = finish_.one_part(key);
    return out;
  }

  InputFormat format_;
  ExtractConfig cfg_;
  KeyFinish finish_;
  TimeParser time_parser_;
  WhereRegexes where_regex_;
  TableDialect dialect_;
  bool mapped_ = false;          // the columns of the current header are known
  bool parts_resolved_ = false;  // some header was read (Zeek: a row after one is keyed by it)
  std::vector<std::string> columns_;
  std::vector<std::vector<std::uint32_t>> parts_;  // -k, 0-based columns
  std::vector<std::uint32_t> time_, except_;
  struct Where {
    WhereCondition condition;
    std::vector<std::uint32_t> columns;
  };
  std::vector<Where> where_;
  std::uint32_t last_field_ = 0;  // fields to split a row into
  std::vector<std::string_view> fields_;
  std::string scratch_, joined_, time_text_, composite_;
};

}  // namespace

std::unique_ptr<Extractor> make_table_extractor(InputFormat format, const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<TableExtractor>(format, cfg, std::move(time_parser));
}

}  // namespace tlbf_dedup
