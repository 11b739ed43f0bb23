// Advice for records whose key or time could not be read (advice.hpp).
//
// Invariant: a --time-format suggested is one that reads the very text it is suggested for
// (compiled and parsed here before it is named); where none is found the advice says what
// the formats are, and where the field is absent it lists the fields the record has.
#include "extract/advice.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "extract/field_list.hpp"
#include "extract/key_display.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::size_t kMostFields = 12;
constexpr std::size_t kFieldChars = 24;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `text` as a JSON string (so blanks and odd bytes stay visible), its first kFieldChars bytes.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  append_json_text(out, text.substr(0, kFieldChars), text.size() > kFieldChars);
  return out + (text.size() > kFieldChars ? "...\"" : "\"");
}

// The most levels of arrays and objects the advice parses a record through: past simdjson's
// usual 1024, which a valid record may pass (the extractor reads past such values), but not
// so far that a record of nothing but brackets costs the parser's memory for each level.
constexpr std::size_t kAdviceMaxDepth = std::size_t{1} << 16;

// Whether `text` nests arrays and objects more than `limit` levels deep (outside strings).
bool nests_deeper(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// `record` parsed through up to kAdviceMaxDepth levels (DEPTH_ERROR past them, found by a scan
// before the parser takes any memory).
simdjson::error_code parse_any_depth(simdjson::dom::parser& parser, const simdjson::padded_string& text,
                                     simdjson::dom::element& root) {
  if (nests_deeper(std::string_view(text.data(), text.size()), kAdviceMaxDepth)) return simdjson::DEPTH_ERROR;
  const std::size_t depth = std::min(text.size() / 2 + 2, kAdviceMaxDepth);
  if (simdjson::error_code err = parser.allocate(text.size(), depth)) return err;
  return parser.parse(text).get(root);
}

bool is_index(std::string_view s) {
  if (s.empty() || s.size() > 18 || (s[0] == '0' && s.size() > 1)) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// A scalar as a warning names it: the number 1, the string "x", true, null.
std::string scalar_words(simdjson::dom::element v) {
  switch (v.type()) {
    case simdjson::dom::element_type::STRING: {
      return "the string " + quoted(v.get_string().value_unsafe());
    }
    case simdjson::dom::element_type::BOOL:
      return v.get_bool().value_unsafe() ? "true" : "false";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
    default:
      return "the number " + simdjson::minify(v);
  }
}

// json_path_stop()'s walk: `v` reached by the first `at` bytes of `path` (`rest` is what
// follows); the reason of the reading that went furthest is kept in `why` (`reached`: the
// bytes of the path before its stop).
struct PathWalk {
  std::string_view path;  // without a pointer's leading '/'
  bool pointer = false;
  bool containers_unwanted = false;
  std::size_t reached = 0;
  std::string why;
  bool found = false;  // a reading reaches a value the extractor would take

  // The value reached by the first `at` bytes, named by the path's own text.
  std::string name(std::size_t at) const { return (pointer ? "/" : "") + std::string(path.substr(0, at - 1)); }
  void stop(std::size_t at, std::string reason) {
    if (why.empty() || at > reached) reached = at, why = std::move(reason);
  }

  void walk(simdjson::dom::element v, std::size_t at) {
    if (found) return;
    if (at == path.size() + 1) {  // the whole path read: a value
      const bool container = v.is_object() || v.is_array();
      if (containers_unwanted && container)
        stop(at, fmt::format("{} is {}", name(at), v.is_object() ? "an object" : "an array"));
      else
        found = true;
      return;
    }
    const std::string_view rest = path.substr(at);
    const char sep = pointer ? '/' : '.';
    const std::size_t end = std::min(rest.find(sep), rest.size());
    const std::string segment = pointer ? unescape(rest.substr(0, end)) : std::string(rest.substr(0, end));
    if (simdjson::dom::object obj; !v.get_object().get(obj)) {
      simdjson::dom::element child;
      if (pointer) {
        if (!obj.at_key(segment).get(child)) walk(child, at + end + 1);
        return;
      }
      // A literal dotted name first, then each dot read as nesting (find_in_object()).
      if (!obj.at_key(rest).get(child)) walk(child, path.size() + 1);
      for (std::size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.', dot + 1))
        if (!obj.at_key(rest.substr(0, dot)).get(child)) walk(child, at + dot + 1);
      return;
    }
    if (simdjson::dom::array arr; !v.get_array().get(arr)) {
      if (!is_index(segment)) {
        stop(at, fmt::format("{} is an array, and {} is not an index", name(at), quoted(std::string_view(segment))));
        return;
      }
      const std::size_t index = std::stoull(segment);
      simdjson::dom::element child;
      if (arr.at(index).get(child)) {
        stop(at, fmt::format("{} is an array of {} element{}, without element {}", name(at), arr.size(),
                             arr.size() == 1 ? "" : "s", index));
        return;
      }
      walk(child, at + end + 1);
      return;
    }
    stop(at, fmt::format("{} is {}, not an object{}", name(at), scalar_words(v), is_index(segment) ? " or array" : ""));
  }

  // A pointer's segment with ~1 and ~0 read as '/' and '~'.
  static std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '~' && i + 1 < s.size() && (s[i + 1] == '0' || s[i + 1] == '1'))
        out += s[++i] == '0' ? '~' : '/';
      else
        out += s[i];
    }
    return out;
  }
};

// The object `path` leads to in `object`, as far as it leads into objects: a member literally
// named with dots wins over nesting, as for -k and -t (the longest such name first). `where`
// is the path to it, `rest` what of `path` is left.
struct Descent {
  simdjson::dom::object object;
  std::string where;
  std::string_view rest;
  char sep = '.';
};
Descent descend(simdjson::dom::object object, std::string_view path) {
  const bool pointer = !path.empty() && path[0] == '/';
  Descent d{object, "", pointer ? path.substr(1) : path, pointer ? '/' : '.'};
  for (bool descended = true; descended && !d.rest.empty();) {
    descended = false;
    for (std::size_t end = pointer ? d.rest.find(d.sep) : d.rest.rfind(d.sep); end != std::string_view::npos && end > 0;
         end = pointer ? std::string_view::npos : d.rest.rfind(d.sep, end - 1)) {
      simdjson::dom::object inner;
      if (d.object.at_key(d.rest.substr(0, end)).get_object().get(inner)) continue;
      d.where += (d.where.empty() ? "" : std::string(1, d.sep)) + std::string(d.rest.substr(0, end));
      d.object = inner;
      d.rest.remove_prefix(end + 1);
      descended = true;
      break;
    }
  }
  return d;
}

std::string json_members(std::string_view record, std::string_view path) {
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element root;
  simdjson::dom::object top;
  if (const simdjson::error_code err = parse_any_depth(parser, text, root))
    return err == simdjson::DEPTH_ERROR ? "it nests too deep to list its members" : "it is not a readable JSON object";
  if (root.get_object().get(top)) return "it is not a readable JSON object";
  const Descent d = descend(top, path);
  const simdjson::dom::object object = d.object;
  const std::string& where = d.where;
  const char sep = d.sep;
  std::vector<std::string> names;
  for (auto field : object) names.emplace_back(field.key);
  if (names.empty()) return where.empty() ? "it is an empty object" : "member " + where + " is an empty object";
  std::string list;
  for (std::size_t i = 0; i < std::min(names.size(), kMostFields); ++i)
    list += (i ? ", " : "") + names[i].substr(0, kFieldChars * 2);
  if (names.size() > kMostFields) list += fmt::format(", ... ({} in all)", names.size());
  // A wrapper such as CloudTrail's {"Records":[{...}]}: its array's elements are the records.
  std::string wrapper;
  for (auto field : object) {
    simdjson::dom::array items;
    simdjson::dom::object first;
    if (field.value.get_array().get(items) || items.at(0).get_object().get(first)) continue;
    const std::string name = (where.empty() ? "" : where + sep) + std::string(field.key);
    wrapper = "; " + name + " is an array of objects: --records " + name + " makes its elements the records";
    break;
  }
  return (where.empty() ? "its members: " : "the members of " + where + ": ") + list + wrapper;
}

std::string line_fields(std::string_view line, int delimiter) {
  std::vector<std::string_view> fields;
  const std::uint32_t n =
      FieldSplitter(delimiter).split<Scan::scalar>(line, UINT32_MAX, [&](std::uint32_t, std::string_view f) {
        if (fields.size() < kMostFields) fields.push_back(f);
        return true;
      });
  if (n == 0) return "it has no field";
  std::string list;
  for (std::size_t i = 0; i < fields.size(); ++i)
    list += fmt::format("{}{} {}", i ? ", " : "", i + 1, quoted(fields[i]));
  if (n > fields.size()) list += ", ...";
  return fmt::format("it has {} field{}: {}", n, n == 1 ? "" : "s", list);
}

}  // namespace

std::string describe_malformed_json(std::string_view record) {
  if (const void* nul = std::memchr(record.data(), '\0', record.size()))
    return fmt::format(
        "not a readable JSON object: a NUL byte at byte {} (NUL is not JSON; -z reads records "
        "separated by NUL)",
        static_cast<const char*>(nul) - record.data() + 1);
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element root;
  if (const simdjson::error_code err = parse_any_depth(parser, text, root)) {
    switch (err) {
      case simdjson::UTF8_ERROR:
        return "not a readable JSON object (invalid UTF-8)";
      case simdjson::UNCLOSED_STRING:
        return "not a readable JSON object (a string without its closing quote)";
      case simdjson::UNESCAPED_CHARS:
        return "not a readable JSON object (a control character not escaped in a string)";
      case simdjson::NUMBER_ERROR:
        return "not a readable JSON object (a malformed number)";
      case simdjson::STRING_ERROR:
        return "not a readable JSON object (a malformed string escape)";
      case simdjson::T_ATOM_ERROR:
      case simdjson::F_ATOM_ERROR:
      case simdjson::N_ATOM_ERROR:
        return "not a readable JSON object (a word that is not true, false or null)";
      case simdjson::TAPE_ERROR:
        return "not a readable JSON object (a comma, colon, brace or bracket missing or extra, or the record cut "
               "short)";
      case simdjson::DEPTH_ERROR:
        return fmt::format("a JSON object nesting arrays and objects deeper than {} levels, too deep to read",
                           kMaxKeyDepth);
      default:
        return fmt::format("not a readable JSON object ({})", simdjson::error_message(err));
    }
  }
  switch (root.type()) {
    case simdjson::dom::element_type::OBJECT:
      break;
    case simdjson::dom::element_type::ARRAY:
      return "not a JSON object: an array";
    default:
      return "not a JSON object: " + scalar_words(root);
  }
  simdjson::dom::parser shallow;  // simdjson's usual depth
  if (shallow.parse(text).error() == simdjson::DEPTH_ERROR)
    return fmt::format("a JSON object nesting arrays and objects deeper than {} levels, too deep to read",
                       kMaxKeyDepth);
  return "not a readable JSON object";
}

std::string json_path_stop(std::string_view record, std::string_view path, bool containers_unwanted) {
  if (path.empty()) return {};
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element root;
  if (parse_any_depth(parser, text, root) || !root.is_object()) return {};
  const bool pointer = path[0] == '/';
  PathWalk w;
  w.path = pointer ? path.substr(1) : path;
  w.pointer = pointer;
  w.containers_unwanted = containers_unwanted;
  w.walk(root, 0);
  return w.found ? std::string() : w.why;
}

std::string describe_fields(std::string_view record, InputFormat format, int delimiter, std::string_view path) {
  const bool json = format == InputFormat::json;
  if (json) return json_members(record, path);
  return line_fields(record.substr(0, record.find('\n')), delimiter);
}

namespace {

// Whether `path` (as -k reads it) reaches a value in the JSON object `record`.
bool json_path_found(std::string_view record, std::string_view path) {
  if (path.empty()) return false;
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element root;
  if (parse_any_depth(parser, text, root) || !root.is_object()) return false;
  PathWalk w;
  w.pointer = path[0] == '/';
  w.path = w.pointer ? path.substr(1) : path;
  w.walk(root, 0);
  return w.found;
}

char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = fold(a[i - 1]) == fold(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

// The members of `record` nearest to the one `path` misses, where it misses it, as -k
// options ("-k user.id"); empty when none is near.
std::string nearest_members(std::string_view record, std::string_view path) {
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::element root;
  simdjson::dom::object top;
  if (parse_any_depth(parser, text, root) || root.get_object().get(top)) return {};
  const Descent d = descend(top, path);
  const std::size_t end = std::min(d.rest.find(d.sep), d.rest.size());
  const std::string_view missing = d.rest.substr(0, end), after = d.rest.substr(end);
  if (missing.empty()) return {};
  const std::size_t most = std::max<std::size_t>(1, missing.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (auto field : d.object) {
    const std::size_t distance = edit_distance(missing, field.key);
    if (distance <= most && distance < missing.size())
      near.emplace_back(distance, fmt::format("-k {}{}{}{}", path[0] == '/' ? "/" : "",
                                              d.where.empty() ? "" : d.where + d.sep, field.key, after));
  }
  if (near.empty()) return {};
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out = near.size() == 1 ? "the nearest member is " : "the nearest members are ";
  for (std::size_t i = 0; i < std::min<std::size_t>(near.size(), 3); ++i) out += (i ? ", " : "") + near[i].second;
  return out;
}

}  // namespace

std::string missing_key_advice(const ExtractConfig& cfg, std::string_view record, InputFormat format,
                               std::uint32_t absent_part) {
  const bool json = format == InputFormat::json;
  const bool one_part = absent_part >= 1 && absent_part <= cfg.keys.size();
  const std::string path = one_part ? cfg.keys[absent_part - 1] : std::string();
  if (!json || path.empty()) return describe_fields(record, format, cfg.delimiter, path);
  // jq's habit: .id for the member id.
  if (path.size() > 1 && path[0] == '.' && json_path_found(record, std::string_view(path).substr(1)))
    return fmt::format("-k {} reads it (a path is written without jq's leading dot)", path.substr(1));
  const std::string_view bare = path[0] == '.' ? std::string_view(path).substr(1) : std::string_view(path);
  const std::string near = nearest_members(record, bare);
  const std::string fields = describe_fields(record, format, cfg.delimiter, bare);
  return near.empty() ? fields : near + "; " + fields;
}

void AdviceTally::add(const TimeReading& t, std::string advice, std::string example) {
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    if (absent_[i] ? !t.present : (t.present && groups_[i].advice == advice)) {
      ++groups_[i].count;
      return;
    }
  }
  if (groups_.size() == kMostGroups) return;
  groups_.push_back(Group{std::move(advice), std::move(example), 1});
  absent_.push_back(!t.present);
}

const AdviceTally::Group* AdviceTally::most_common() const {
  const Group* best = nullptr;
  for (const Group& g : groups_)
    if (!best || g.count > best->count) best = &g;
  return best;
}

std::string untimed_advice(const ExtractConfig& cfg, std::string_view record, InputFormat format,
                           const TimeReading& t) {
  const bool json = format == InputFormat::json;
  if (t.regex_missed)
    return "--time-regex does not match it (the time is its capture group 1, or the whole match without a group)";
  if (!t.present && json)  // an object or array where the time should be, or a path through a scalar
    if (const std::string stop = json_path_stop(record, cfg.time, true); !stop.empty())
      return fmt::format("-t {} leads to no time: {}", cfg.time, stop);
  if (!t.present)
    return fmt::format("-t {} is not in the record; {}", cfg.time,
                       describe_fields(record, format, cfg.delimiter, cfg.time));
  std::string other;
  if (const std::optional<std::string> p = suggest_time_format(t.text, &other))
    return fmt::format("--time-format '{}' reads it{}", *p,
                       other.empty() ? "" : fmt::format(" (or '{}', if the day comes first)", other));
  return "name its format with --time-format: epoch, epoch-ms, rfc3339, clf, syslog, ctime, or a strftime pattern "
         "such as '%Y-%m-%d %H:%M:%S'";
}

void KindTally::add(std::string_view record, bool keyed) {
  if (keyed && keyed_ >= kMostKeyed) return;
  simdjson::dom::parser parser;
  const simdjson::padded_string text(record);
  simdjson::dom::object object;
  if (parser.parse(text).get_object().get(object)) return;
  ++(keyed ? keyed_ : keyless_);
  for (auto field : object) {
    std::string_view value;
    if (field.value.get_string().get(value) || value.size() > kLongestValue) continue;
    auto m = std::find_if(members_.begin(), members_.end(), [&](const Member& x) { return x.name == field.key; });
    if (m == members_.end()) {
      if (members_.size() == kMostMembers) continue;
      members_.push_back(Member{std::string(field.key), {}, {}, 0, 0, false});
      m = members_.end() - 1;
    }
    ++(keyed ? m->in_keyed : m->in_keyless);
    auto& values = keyed ? m->keyed : m->keyless;
    auto v = std::find_if(values.begin(), values.end(), [&](const auto& x) { return x.first == value; });
    if (v != values.end())
      ++v->second;
    else if (values.size() < kMostValues)
      values.emplace_back(std::string(value), 1);
    else
      m->overflowed = true;
  }
}

std::string KindTally::where_advice() const {
  const Member* best = nullptr;
  for (const Member& m : members_) {
    // In every record with a key and in 9 of 10 without, and no value in both groups.
    if (keyed_ == 0 || m.in_keyed < keyed_ || m.in_keyless * 10 < keyless_ * 9 || m.overflowed) continue;
    const bool shared = std::any_of(m.keyed.begin(), m.keyed.end(), [&](const auto& k) {
      return std::any_of(m.keyless.begin(), m.keyless.end(), [&](const auto& x) { return x.first == k.first; });
    });
    if (shared) continue;
    // A kind has few values: of the candidates, the member with the fewest.
    if (!best || m.keyed.size() + m.keyless.size() < best->keyed.size() + best->keyless.size()) best = &m;
  }
  if (!best) return {};
  const auto most = std::max_element(best->keyed.begin(), best->keyed.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
  std::string value = most->first;
  const bool plain = !value.empty() && value.find_first_of(" '\"\\$`*?[]();&|<>!#~") == std::string::npos;
  const std::string word = fmt::format("{}={}", best->name, value);
  return "--where " + (plain ? word : "'" + word + "'");
}

}  // namespace tlbf_dedup
