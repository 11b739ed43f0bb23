// The count fields of --count (count_format.hpp).
//
// Invariant: the record's own bytes come out unchanged and in order; a line gets only what
// the template puts around it, and a JSON object only the count members, each named once:
// a member the object already has at the top level gets its value replaced in place, the
// others go before the closing brace. A record in JSON mode that is not an object is written
// unchanged, as --mark leaves it.
#include "output/count_format.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "extract/timestamp.hpp"
#include "output/json_member.hpp"
#include "output/table_column.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A copy's time as a line shows it.
void write_seen_text(Writer& out, const SeenTime& t) {
  switch (t.form) {
    case SeenForm::clock:
      out.write(format_rfc3339(t.at));
      break;
    case SeenForm::absent:
      out.write("-");
      break;
    case SeenForm::bare:
    case SeenForm::string:
      out.write(t.text);
      break;
  }
}

// A copy's time as a JSON value.
void write_seen_json(Writer& out, const SeenTime& t) {
  switch (t.form) {
    case SeenForm::clock:
      out.write("\"" + format_rfc3339(t.at) + "\"");
      break;
    case SeenForm::absent:
      out.write("null");
      break;
    case SeenForm::bare:
      out.write(t.text);
      break;
    case SeenForm::string:
      out.write("\"" + json_escape(t.text) + "\"");
      break;
  }
}

}  // namespace

CountFormat::CountFormat() {
  std::string problem;
  set_template(kDefaultTemplate, problem);
  set_names(kDefaultNames, problem);
}

bool CountFormat::set_template(std::string_view text, std::string& problem) {
  static constexpr std::pair<std::string_view, Field> kFields[] = {
      {"{count}", Field::count}, {"{first}", Field::first}, {"{last}", Field::last}, {"{record}", Field::record}};
  std::vector<Piece> pieces;
  std::string literal;
  int records = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::string_view rest = text.substr(i);
    if (rest.rfind("{{", 0) == 0 || rest.rfind("}}", 0) == 0) {
      literal += rest[0];
      i += 2;
    } else if (rest[0] == '\\') {
      if (rest.size() < 2 || (rest[1] != 't' && rest[1] != '\\')) {
        problem = "a backslash is \\t (a tab) or \\\\ (a backslash)";
        return false;
      }
      literal += rest[1] == 't' ? '\t' : '\\';
      i += 2;
    } else if (rest[0] == '{') {
      const auto* f = std::find_if(std::begin(kFields), std::end(kFields),
                                   [&](const auto& field) { return rest.rfind(field.first, 0) == 0; });
      if (f == std::end(kFields)) {
        problem = "a field is {count}, {first}, {last} or {record} ({{ for a brace)";
        return false;
      }
      if (!literal.empty()) pieces.push_back(Piece{Field::text, std::move(literal)});
      literal.clear();
      pieces.push_back(Piece{f->second, {}});
      records += f->second == Field::record;
      i += f->first.size();
    } else {
      literal += rest[0];
      ++i;
    }
  }
  if (!literal.empty()) pieces.push_back(Piece{Field::text, std::move(literal)});
  if (records != 1) {
    problem = "the template must hold {record} once";
    return false;
  }
  pieces_ = std::move(pieces);
  return true;
}

bool CountFormat::set_names(std::string_view list, std::string& problem) {
  std::array<std::string, 3> names, columns;
  std::size_t n = 0;
  for (std::size_t start = 0;; ++n) {
    const std::size_t comma = list.find(',', start);
    if (n < names.size()) columns[n] = std::string(list.substr(start, comma - start));
    if (n < names.size()) names[n] = json_escape(columns[n]);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (n != 2) {
    problem = "expected three names separated by commas (count, first copy's time, last copy's time), e.g. " +
              std::string(kDefaultNames);
    return false;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j)
      if (!names[i].empty() && names[i] == names[j]) {
        problem = "the name '" + names[i] + "' is given twice";
        return false;
      }
  names_ = std::move(names);
  column_names_ = std::move(columns);
  return true;
}

void CountFormat::write(Writer& out, const CountedRecord& r) const {
  if (r.format == InputFormat::json)
    write_object(out, r);
  else if (is_table(r.format))
    write_row(out, r);
  else
    write_line(out, r);
}

void CountFormat::write_row(Writer& out, const CountedRecord& r) const {
  std::array<AddedColumn, 3> columns;
  std::array<std::string, 3> values;
  std::size_t n = 0;
  for (std::size_t m = 0; m < column_names_.size(); ++m) {
    if (column_names_[m].empty()) continue;
    if (m == 0) {
      values[n] = fmt::format_int(r.count).str();
    } else {
      const SeenTime& t = m == 1 ? r.first : r.last;
      values[n] = t.form == SeenForm::clock    ? format_rfc3339(t.at)
                  : t.form == SeenForm::absent ? ""
                                               : std::string(t.text);
    }
    columns[n] = AddedColumn{column_names_[m], {}, values[n]};
    ++n;
  }
  write_with_columns(out, r.bytes, r.text_size, r.format, columns.data(), n, false);
}

void CountFormat::write_columns(Writer& out, std::string_view bytes, std::size_t text_size, InputFormat format,
                                bool header) const {
  static constexpr std::string_view kTypes[] = {"count", "string", "string"};
  std::array<AddedColumn, 3> columns;
  std::size_t n = 0;
  for (std::size_t m = 0; m < column_names_.size(); ++m)
    if (!column_names_[m].empty()) columns[n++] = AddedColumn{column_names_[m], kTypes[m], {}};
  write_with_columns(out, bytes, text_size, format, columns.data(), n, header);
}

void CountFormat::write_line(Writer& out, const CountedRecord& r) const {
  for (const Piece& p : pieces_) {
    switch (p.field) {
      case Field::text:
        out.write(p.text);
        break;
      case Field::count:
        out.write(fmt::format_int(r.count).str());
        break;
      case Field::first:
        write_seen_text(out, r.first);
        break;
      case Field::last:
        write_seen_text(out, r.last);
        break;
      case Field::record:
        out.write(r.bytes.substr(0, r.text_size));
        break;
    }
  }
  out.write(r.bytes.substr(r.text_size));
}

void CountFormat::write_object(Writer& out, const CountedRecord& r) const {
  const std::string_view bytes = r.bytes;
  std::size_t close = r.text_size;  // the closing brace, after trailing blanks
  while (close > 0 && (bytes[close - 1] == ' ' || bytes[close - 1] == '\t' || bytes[close - 1] == '\r')) --close;
  if (close == 0 || bytes[close - 1] != '}') {
    out.write(bytes);
    return;
  }
  --close;
  auto write_value = [&](std::size_t member) {
    if (member == 0)
      out.write(fmt::format_int(r.count).str());
    else
      write_seen_json(out, member == 1 ? r.first : r.last);
  };
  // Members the object has already: their values are replaced where they stand.
  struct Found {
    std::size_t begin, end, member;
  };
  Found found[3];
  std::size_t n = 0;
  bool present[3] = {false, false, false};
  const std::string_view object = bytes.substr(0, close + 1);
  for (std::size_t m = 0; m < names_.size(); ++m) {
    if (names_[m].empty()) continue;
    const auto [begin, end] = find_member_value(object, names_[m]);
    if (begin == std::string_view::npos) continue;
    found[n++] = Found{begin, end, m};
    present[m] = true;
  }
  for (std::size_t i = 1; i < n; ++i)  // in the order they stand
    for (std::size_t j = i; j > 0 && found[j].begin < found[j - 1].begin; --j) std::swap(found[j], found[j - 1]);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.write(bytes.substr(at, found[i].begin - at));
    write_value(found[i].member);
    at = found[i].end;
  }
  out.write(bytes.substr(at, close - at));
  // The others, before the closing brace.
  std::size_t before = close;
  while (before > 0 && is_blank(bytes[before - 1])) --before;
  bool comma = !(before > 0 && bytes[before - 1] == '{');
  for (std::size_t m = 0; m < names_.size(); ++m) {
    if (names_[m].empty() || present[m]) continue;
    out.write(comma ? ",\"" : "\"");
    out.write(names_[m]);
    out.write("\":");
    write_value(m);
    comma = true;
  }
  out.write(bytes.substr(close));
}

}  // namespace tlbf_dedup
