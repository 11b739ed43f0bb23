// JSON framing for the record reader: balanced braces and brackets outside strings (escapes
// honoured) make a record; what lies between records (blanks, commas, the brackets of an
// array, the wrapper object around --records) is consumed as it is read and never held.
//
// Invariants:
//  - Top-level values are framed so that NDJSON frames exactly as lines do: a record starts
//    at its line's first byte, and a line whose value closes on it is one record with its
//    blanks and line end, as line framing makes it. A value continues over line ends only
//    while it is open; a line end inside a string, or a '{' or '[' at the start of a line
//    while a value is open (jq and every pretty-printer indent what is inside), means the
//    first line was broken: it is a record of its own, as it always was, and framing goes on
//    at the next line. A second value on the same line (after blanks) is a record of its own.
//  - The elements of an array are records when it is a --records member, or a top-level
//    array whose first element is an object (NDJSON's line "[1,2]" stays one record); every
//    byte of an element is its record, exactly, and the one byte after it (a comma, a
//    bracket, a blank) becomes its line end, so an array is written out as NDJSON. Each
//    element is handed out only once the byte after it is known.
//  - The scan of an open record resumes where the last call stopped (pos_), so a record of n
//    bytes read in any number of pieces costs O(n).
//  - No recursion and no stack: the depth of a value is a counter, the way into a --records
//    wrapper the index of its level and, per level, the piece of the path it has reached
//    (at most one level per piece).
//  - --records reads its path as -k does (a dot nesting or part of a name), in document
//    order: the first array the path reaches in an object is streamed, a second is damage.
#include "input/json_frames.hpp"

#include <cstring>

#include "input/ndjson_lines.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);
constexpr std::size_t kMaxName = 4096;  // a member name longer than this matches no path

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_space(char c) { return is_blank(c) || c == '\n'; }

}  // namespace

JsonFramer::JsonFramer(std::vector<std::string> records_path, LineScan scan)
    : path_(std::move(records_path)), scan_(scan) {
  if (path_.size() == 1 && !path_[0].empty() && path_[0][0] == '/') {  // a JSON pointer: its segments, unescaped
    std::vector<std::string> names;
    const std::string& p = path_[0];
    for (std::size_t at = 1; at <= p.size(); ++at) {
      std::string name;
      for (; at < p.size() && p[at] != '/'; ++at) {
        if (p[at] == '~' && at + 1 < p.size() && (p[at + 1] == '0' || p[at + 1] == '1'))
          name += p[++at] == '0' ? '~' : '/';
        else
          name += p[at];
      }
      names.push_back(std::move(name));
    }
    path_ = std::move(names);
    dotted_ = false;
  }
  from_.assign(path_.size(), 0);
}

std::size_t JsonFramer::last_name_matched(std::size_t from) const {
  // name_ is path_[from], or (a dotted path) path_[from] '.' path_[from + 1] ... path_[j].
  std::size_t at = 0;
  for (std::size_t j = from; j < path_.size(); ++j) {
    const std::string& piece = path_[j];
    if (name_.compare(at, piece.size(), piece) != 0) return npos;
    at += piece.size();
    if (at == name_.size()) return j;
    if (!dotted_ || name_[at] != '.') return npos;
    ++at;
  }
  return npos;
}

void JsonFramer::restart() {
  where_ = Where::top;
  open_ = closed_ = line_ = after_array_ = false;
  pos_ = 0;
  nav_ = Nav::member;
  level_ = 0;
  found_ = false;
}

// One frame built where the caller receives it: `f`, at the function's scope, is the only
// value returned (named return value optimisation). Declared inside the loop, it was copied
// out member by member on every record, the fields just stored loaded back at once.
JsonFrame JsonFramer::next(std::string_view bytes, bool at_end) {
  std::size_t skipped = 0;
  JsonFrame f = frame(bytes, at_end);
  while (again_) {
    skipped += f.consumed;
    f = frame(bytes.substr(skipped), at_end);
  }
  f.skip += skipped;
  f.consumed += skipped;
  return f;
}

JsonFrame JsonFramer::frame(std::string_view b, bool at_end) {
  again_ = false;
  return where_ == Where::array ? (need_separator_ || !open_ ? array_separator(b, at_end) : array_element(b, at_end))
         : where_ == Where::wrapper ? wrapper(b, at_end)
         : path_.empty()            ? top_value(b, at_end)
                                    : top_object(b, at_end);
}

JsonFrame JsonFramer::more_after(std::size_t consumed) {
  JsonFrame f;
  f.skip = f.consumed = consumed;
  return f;
}

JsonFrame JsonFramer::again(std::size_t consumed) {
  again_ = true;
  JsonFrame f;
  f.consumed = consumed;
  return f;
}

JsonFrame JsonFramer::broken(std::size_t skip, std::string what) {
  JsonFrame f;
  f.kind = JsonFrame::Kind::damaged;
  f.skip = f.consumed = skip;
  f.damage = std::move(what);
  restart();
  return f;
}

JsonFramer::Step JsonFramer::step(char c) {
  if (in_string_) {
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
    } else if (c == '"') {
      in_string_ = false;
      if (depth_ == 0) return Step::closed_after;
    }
    return Step::inside;
  }
  if (scalar_) return is_space(c) || c == ',' || c == ']' || c == '}' ? Step::closed_before : Step::inside;
  switch (c) {
    case '"':
      in_string_ = true;
      return Step::inside;
    case '{':
    case '[':
      ++depth_;
      return Step::inside;
    case '}':
    case ']':
      return --depth_ <= 0 ? Step::closed_after : Step::inside;
    default:
      if (depth_ == 0) scalar_ = true;
      return Step::inside;
  }
}

JsonFrame JsonFramer::line_until(std::size_t newline, std::string_view b) {
  JsonFrame f;
  f.kind = JsonFrame::Kind::record;
  const bool crlf = newline > 0 && b[newline - 1] == '\r';
  f.size = newline - crlf;
  f.term_len = crlf ? 2 : 1;
  f.consumed = newline + 1;
  open_ = closed_ = line_ = false;
  return f;
}

JsonFrame JsonFramer::line_record(std::string_view b, bool at_end) {
  const void* hit = pos_ < b.size() ? std::memchr(b.data() + pos_, '\n', b.size() - pos_) : nullptr;
  if (hit) return line_until(static_cast<std::size_t>(static_cast<const char*>(hit) - b.data()), b);
  pos_ = b.size();
  JsonFrame f;
  if (!at_end) {
    open_ = line_ = true;
    return f;
  }
  open_ = closed_ = line_ = false;
  f.kind = b.empty() ? JsonFrame::Kind::end : JsonFrame::Kind::record;
  f.size = f.consumed = b.size();  // the input's last line, without its line end
  return f;
}

JsonFrame JsonFramer::top_value(std::string_view b, bool at_end) {
  if (line_) return line_record(b, at_end);
  if (after_array_) {  // the rest of the line a top-level array ended on is part of it
    std::size_t i = 0;
    while (i < b.size() && is_blank(b[i])) ++i;
    if (i == b.size() && !at_end) return more_after(i);
    after_array_ = false;
    return again(i < b.size() && b[i] == '\n' ? i + 1 : i);
  }
  if (!open_) {
    std::size_t i = 0;
    while (i < b.size() && (b[i] == ' ' || b[i] == '\t')) ++i;
    if (i == b.size() && !at_end) return JsonFrame{};
    if (i < b.size() && b[i] == '[') {  // an array of objects holds records; any other is one
      std::size_t j = i + 1;
      while (j < b.size() && is_space(b[j])) ++j;
      if (j == b.size() && !at_end) return JsonFrame{};
      if (j < b.size() && b[j] == '{') {
        where_ = Where::array;
        array_first_ = true;
        need_separator_ = false;
        return again(i + 1);
      }
    }
    pos_ = i;
    if (i == b.size() || b[i] != '{') return line_record(b, at_end);  // blank, scalar or other: a line
    bool plain = false;
    if (const std::size_t nl = ndjson_line_end(b, i, scan_, plain); nl != npos) {
      JsonFrame f = line_until(nl, b);
      f.plain = plain && i == 0;  // the record starts at the line's first byte, a blank or not
      return f;
    }
    open_ = true;
    closed_ = false;
    first_newline_ = npos;
    start_value();
  }
  while (!closed_ && pos_ < b.size()) {
    const char c = b[pos_];
    if (c == '\n') {
      if (in_string_) return line_until(first_newline_ == npos ? pos_ : first_newline_, b);
      if (first_newline_ == npos) first_newline_ = pos_;
    } else if ((c == '{' || c == '[') && !in_string_ && first_newline_ != npos && b[pos_ - 1] == '\n') {
      return line_until(first_newline_, b);
    }
    closed_ = step(c) == Step::closed_after;
    ++pos_;
  }
  if (!closed_) {
    if (!at_end) return JsonFrame{};
    if (first_newline_ != npos) return line_until(first_newline_, b);
    return line_record(b, at_end);
  }
  // The value closed: the rest of its line decides where the record ends.
  std::size_t j = pos_;
  while (j < b.size() && is_blank(b[j])) ++j;
  if (j == b.size()) return at_end ? line_record(b, at_end) : JsonFrame{};
  if (b[j] == '\n') return line_until(j, b);
  if (b[j] != '{' && b[j] != '[') return line_record(b, at_end);  // a value and more: a line
  JsonFrame f;  // another value follows on this line: a record of its own
  f.kind = JsonFrame::Kind::record;
  f.size = pos_;
  f.newline_over_separator = j > pos_;
  f.term_len = j > pos_ ? 1 : 0;
  f.consumed = j;
  open_ = closed_ = false;
  return f;
}

JsonFrame JsonFramer::top_object(std::string_view b, bool at_end) {
  std::size_t i = 0;
  while (i < b.size() && is_space(b[i])) ++i;
  if (i == b.size()) {
    JsonFrame f;
    f.kind = at_end ? JsonFrame::Kind::end : JsonFrame::Kind::more;
    f.skip = f.consumed = i;
    return f;
  }
  if (b[i] != '{') return broken(i, "not a JSON object with an array member for --records");
  where_ = Where::wrapper;
  nav_ = Nav::member;
  level_ = 0;
  found_ = false;
  return again(i + 1);
}

JsonFrame JsonFramer::array_separator(std::string_view b, bool at_end) {
  std::size_t i = 0;
  for (; i < b.size(); ++i) {
    const char c = b[i];
    if (is_space(c)) continue;
    if (c == ']' && (need_separator_ || array_first_)) {
      leave_array();
      return again(i + 1);
    }
    if (need_separator_) {
      if (c != ',') return broken(i, std::string("expected ',' or ']' after a record, found '") + c + "'");
      need_separator_ = false;
      continue;
    }
    if (c == ',' || c == ']' || c == '}') return broken(i, std::string("expected a record, found '") + c + "'");
    array_first_ = false;
    open_ = true;
    closed_ = false;
    pos_ = 0;
    start_value();
    return again(i);
  }
  if (at_end) return broken(i, "the input ends inside an array (truncated?)");
  JsonFrame f;
  f.skip = f.consumed = i;
  return f;
}

JsonFrame JsonFramer::array_element(std::string_view b, bool at_end) {
  while (!closed_ && pos_ < b.size()) {
    const Step s = step(b[pos_]);
    closed_ = s != Step::inside;
    if (s != Step::closed_before) ++pos_;
  }
  if (!closed_ && at_end && !scalar_) return broken(0, "the input ends inside a record (truncated?)");
  if (pos_ == b.size() && !at_end) return JsonFrame{};  // the byte after the record decides
  JsonFrame f;
  f.kind = JsonFrame::Kind::record;
  f.size = f.consumed = pos_;
  f.element = true;
  open_ = closed_ = false;
  if (pos_ == b.size()) return f;  // the last bytes of the input: the array's end is missing
  const char after = b[pos_];
  if (after == ',') {
    need_separator_ = false;
  } else if (after == ']') {
    leave_array();
  } else if (is_space(after)) {
    need_separator_ = true;
  } else {
    return broken(pos_, std::string("expected ',' or ']' after a record, found '") + after + "'");
  }
  f.term_len = 1;
  f.newline_over_separator = true;
  f.consumed = pos_ + 1;
  return f;
}

void JsonFramer::leave_array() {
  need_separator_ = false;
  if (path_.empty()) {
    where_ = Where::top;
    after_array_ = true;
  } else {
    where_ = Where::wrapper;
    nav_ = Nav::after;
  }
}

JsonFrame JsonFramer::close_object(std::size_t i) {
  if (level_ > 0) {
    --level_;
    nav_ = Nav::after;
    return again(i + 1);
  }
  where_ = Where::top;
  if (!found_) return broken(i + 1, "a JSON object without the array member of --records");
  return again(i + 1);
}

JsonFrame JsonFramer::member_value(std::string_view b, std::size_t i) {
  const char c = b[i];
  if (const std::size_t j = last_name_matched(from_[level_]); j != npos) {
    if (j + 1 < path_.size() && c == '{') {  // the path goes on inside
      ++level_;
      from_[level_] = j + 1;
      nav_ = Nav::member;
      return again(i + 1);
    }
    if (j + 1 == path_.size() && c == '[') {
      // A second array the path reaches in one object: a member repeated, or the dots of
      // the path read two ways ("a.b" and "a" -> "b"); which one -k would read is not
      // known while streaming the first, so neither is taken for the other.
      if (found_)
        return broken(i,
                      "a second array for --records in one object (a member named twice, or a dotted path that "
                      "reaches two members)");
      found_ = true;
      where_ = Where::array;
      array_first_ = true;
      need_separator_ = false;
      return again(i + 1);
    }
  }
  nav_ = Nav::skip_value;  // another member: read past it
  start_value();
  return again(i);
}

JsonFrame JsonFramer::wrapper(std::string_view b, bool at_end) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    const char c = b[i];
    switch (nav_) {
      case Nav::member:
        if (c == '}') return close_object(i);
        if (c == '"') {
          name_.clear();
          escape_ = false;
          nav_ = Nav::name;
        } else if (!is_space(c) && c != ',') {
          return broken(i, std::string("expected a member name, found '") + c + "'");
        }
        break;
      case Nav::name:
        if (!escape_ && c == '"') {
          nav_ = Nav::colon;
          break;
        }
        escape_ = !escape_ && c == '\\';
        if (name_.size() <= kMaxName) name_ += c;
        break;
      case Nav::colon:
        if (c == ':')
          nav_ = Nav::value;
        else if (!is_space(c))
          return broken(i, std::string("expected ':', found '") + c + "'");
        break;
      case Nav::value:
        if (!is_space(c)) return member_value(b, i);
        break;
      case Nav::skip_value: {
        const Step s = step(c);
        if (s == Step::closed_after) nav_ = Nav::after;
        if (s == Step::closed_before) {
          nav_ = Nav::after;
          return again(i);
        }
        break;
      }
      case Nav::after:
        if (c == ',')
          nav_ = Nav::member;
        else if (c == '}')
          return close_object(i);
        else if (!is_space(c))
          return broken(i, std::string("expected ',' or '}', found '") + c + "'");
        break;
    }
  }
  if (at_end) return broken(b.size(), "the input ends inside the object of --records (truncated?)");
  JsonFrame f;
  f.skip = f.consumed = b.size();
  return f;
}

}  // namespace tlbf_dedup
