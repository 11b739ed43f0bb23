// Key and time extraction for lines (JSON records: extract_json.cpp).
//
// Invariants:
//  - The key is a pure function of the record's bytes and the options: the same record
//    always yields the same key, and keys of different parts never collide by
//    concatenation (composite keys are length-prefixed per part; inside one part, fields
//    are joined with the delimiter, which a field cannot contain).
//  - Lines are split once, left to right, and only up to the last field any option needs.
//  - --where's fields are split in the same pass as the key's; a line that fails a condition
//    is unmatched before its time is parsed, and keyed no further.
//  - --mask rewrites each key part (a field group, the regex match, the whole line) before
//    parts are joined and before -i folds them; without --mask a key is exactly the bytes
//    it was before masks existed, and extraction takes one extra, always-false branch.
#include "extract/extract.hpp"

#include <algorithm>
#include <cstring>

#include "base/line_regex.hpp"
#include "extract/advice.hpp"
#include "extract/field_list.hpp"

namespace tlbf_dedup {

void ascii_fold(std::string_view in, std::string& out) {
  out.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    out[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
}

void append_key_part(std::string& out, std::string_view part, bool fold) {
  std::uint32_t n = static_cast<std::uint32_t>(part.size());
  char len[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                 static_cast<char>(n >> 24)};
  out.append(len, 4);
  const std::size_t at = out.size();
  out.append(part.data(), part.size());
  if (fold)
    for (std::size_t i = at; i < out.size(); ++i)
      if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] + 32);
}

namespace {

// What a user may have meant by a -k part that a JSON record lacks, when the part reads like
// the syntax of lines: a field list (-k 3, -k 1,4) or fields joined with commas
// (-k id.orig_h,query). Empty when the part looks like a plain path.
std::string json_key_hint(const std::string& k) {
  if (!k.empty() && k.find_first_not_of("0123456789,-") == std::string::npos)
    return "; the input is JSON, where -k " + k + " is a member named \"" + k + "\" (field numbers are for lines)";
  if (k.find(',') == std::string::npos) return "";
  std::string repeated;
  for (std::size_t at = 0; at <= k.size();) {
    const std::size_t comma = std::min(k.find(',', at), k.size());
    if (!repeated.empty()) repeated += ' ';
    repeated += "-k " + k.substr(at, comma - at);
    at = comma + 1;
  }
  return "; in a JSON path a comma is part of the member name: for a composite key repeat -k (" + repeated + ")";
}

}  // namespace

bool has_composite_key(const ExtractConfig& cfg) {
  return cfg.keys.size() > 1 || LineRegex::count_groups(cfg.key_regex) > 1;
}

std::string describe_missing_key(const ExtractConfig& cfg, const Extracted& x, InputFormat format,
                                 std::string_view record) {
  const bool json = format == InputFormat::json;
  const std::string too_deep = " nests arrays and objects deeper than " + std::to_string(kMaxKeyDepth) + " levels";
  if (x.status == ExtractStatus::too_deep && x.absent_part >= 1 && x.absent_part <= cfg.keys.size()) {
    const std::string k = "-k " + cfg.keys[x.absent_part - 1];
    return (cfg.keys.size() == 1 ? "the key (" + k + ")"
                                 : "key part " + std::to_string(x.absent_part) + " (" + k + ")") +
           too_deep + ", too deep to read";
  }
  if (x.status == ExtractStatus::too_deep) return "the record" + too_deep + ", too deep to key (--key-except)";
  if (!cfg.key_regex.empty()) return "the key regex does not match";
  if (x.absent_part == 0 || x.absent_part > cfg.keys.size()) {
    if (cfg.keys.size() > 1) return "every key part is absent (--missing null needs at least one)";
    return "the key is missing";
  }
  const std::string& k = cfg.keys[x.absent_part - 1];
  const std::string part =
      cfg.keys.size() == 1 ? "the key (-k " + k + ")" : "key part " + std::to_string(x.absent_part) + " (-k " + k + ")";
  // A path through a scalar, or an array without that element, is not an absent member.
  if (json && !record.empty())
    if (const std::string stop = json_path_stop(record, k); !stop.empty()) return part + " cannot be read: " + stop;
  std::string hint = json ? json_key_hint(k) : "";
  if (cfg.keys.size() == 1) return "the key (-k " + k + ") is absent" + hint;
  // Logs that mix kinds of records give each kind only some of the members.
  if (json && hint.empty() && cfg.missing == MissingMember::error)
    hint =
        "; --missing null reads an absent part as null, so that records without some of the members still match "
        "on the others";
  return "key part " + std::to_string(x.absent_part) + " (-k " + k + ") is absent" + hint;
}

namespace {

// One selected group of fields, collected while splitting: a single field stays a view into
// the record, several are joined into `joined`.
struct FieldCollector {
  FieldList list;
  std::string_view first;
  std::string joined;
  std::uint32_t count = 0;

  void reset() { count = 0; }
  void add(std::string_view field, char sep) {
    if (count == 0) {
      first = field;
    } else {
      if (count == 1) joined.assign(first.data(), first.size());
      joined += sep;
      joined.append(field.data(), field.size());
    }
    ++count;
  }
  std::string_view value() const { return count <= 1 ? first : std::string_view(joined); }
};

// --key-regex: capture group 1 of the pattern, or its whole match; with two or more groups,
// each group a part of a composite key (match_parts).
class RegexKey {
 public:
  RegexKey(const std::string& re, bool icase) : re_(compile(re, icase)) {}
  bool composite() const { return re_->groups() >= 2; }
  std::optional<std::string_view> match(std::string_view line) const { return re_->group_or_match(line); }
  bool match_parts(std::string_view line, std::vector<std::string_view>& parts) const {
    return re_->match_groups(line, parts);
  }

 private:
  static std::unique_ptr<LineRegex> compile(const std::string& re, bool icase) {
    try {
      return std::make_unique<LineRegex>(re, icase);
    } catch (const std::invalid_argument& e) {
      throw SpecError("--key-regex '" + re + "': " + e.what());
    }
  }
  std::unique_ptr<LineRegex> re_;
};

class LineExtractor final : public Extractor {
 public:
  LineExtractor(const ExtractConfig& cfg, TimeParser time_parser)
      : comment_(cfg.comment),
        splitter_(cfg.delimiter),
        sep_(cfg.delimiter >= 0 ? static_cast<char>(cfg.delimiter) : ' '),
        finish_(cfg.mask, cfg.ignore_case),
        time_parser_(std::move(time_parser)),
        where_regex_(cfg.where_regex) {
    if (cfg.missing != MissingMember::error) throw SpecError("--missing null applies to JSON records, not to lines");
    if (!cfg.key_except.empty()) throw SpecError("--key-except applies to JSON records, not to lines");
    if (!cfg.key_regex.empty()) {
      if (!cfg.keys.empty()) throw SpecError("--key-regex and -k/--key cannot be combined");
      regex_ = std::make_unique<RegexKey>(cfg.key_regex, cfg.ignore_case);
    }
    for (const std::string& k : cfg.keys) {
      auto list = FieldList::parse(k);
      if (!list)
        throw SpecError("-k/--key '" + k + "': not a field list such as 3, 1,4, 2-5 or 6- (fields count from 1)");
      parts_.push_back(FieldCollector{*list, {}, {}, 0});
      last_field_ = std::max(last_field_, list->last_field());
    }
    if (!cfg.time.empty()) {
      auto list = FieldList::parse(cfg.time);
      if (!list) throw SpecError("-t/--time '" + cfg.time + "': not a field list such as 1 or 4,5");
      time_ = FieldCollector{*list, {}, {}, 0};
      wants_time_ = true;
      last_field_ = std::max(last_field_, list->last_field());
    }
    for (const WhereCondition& c : cfg.where) {
      auto list = FieldList::parse(c.path);
      if (!list)
        throw SpecError("--where '" + c.path +
                        "': not a field list such as 3, 1,4 or 2-5 (fields count from 1), as lines take it");
      where_.push_back(WhereField{c, FieldCollector{*list, {}, {}, 0}});
      last_field_ = std::max(last_field_, list->last_field());
    }
    // The common shape: one key field and at most one time field, each a single number.
    auto single = [](const FieldList& l) {
      return l.ranges().size() == 1 && l.ranges()[0].first == l.ranges()[0].last;
    };
    if (parts_.size() == 1 && single(parts_[0].list) && (!wants_time_ || single(time_.list)) && where_.empty() &&
        where_regex_.empty()) {
      key_field_ = parts_[0].list.ranges()[0].first;
      time_field_ = wants_time_ ? time_.list.ranges()[0].first : 0;
    }
  }

  Extracted extract(const Record& record) override {
    Extracted out;
    std::string_view line = record.text();
    if (comment_ >= 0 && !line.empty() && line[0] == static_cast<char>(comment_)) {
      out.status = ExtractStatus::blank;
      return out;
    }
    if (key_field_ != 0) return extract_single_fields(record);
    if (!where_regex_.empty() && !where_regex_.all_match(line)) {
      out.status = ExtractStatus::unmatched;
      return out;
    }
    std::uint32_t fields = 0;
    if (last_field_ > 0) {
      for (auto& p : parts_) p.reset();
      for (auto& w : where_) w.fields.reset();
      time_.reset();
      fields = splitter_.split(line, last_field_, [&](std::uint32_t n, std::string_view f) {
        for (auto& p : parts_)
          if (p.list.contains(n)) p.add(f, sep_);
        for (auto& w : where_)
          if (w.fields.list.contains(n)) w.fields.add(f, sep_);
        if (wants_time_ && time_.list.contains(n)) time_.add(f, ' ');
        return true;
      });
    }
    for (const WhereField& w : where_) {
      const bool present = fields >= w.fields.list.required_fields();
      if (w.condition.holds(present ? WhereFound::string : WhereFound::absent, w.fields.value())) continue;
      out.status = ExtractStatus::unmatched;
      return out;
    }
    if (wants_time_ && fields >= time_.list.required_fields()) time_parser_.parse_in_place(time_.value(), out.time);

    std::string_view key;
    bool joined = false;  // a composite key, folded part by part as it was joined
    if (regex_ && regex_->composite()) {
      if (!regex_->match_parts(line, regex_parts_)) {
        out.status = ExtractStatus::missing_key;
        return out;
      }
      composite_.clear();
      for (std::string_view part : regex_parts_) finish_.append_part(composite_, part);
      key = composite_;
      joined = true;
    } else if (regex_) {
      auto m = regex_->match(line);
      if (!m) {
        out.status = ExtractStatus::missing_key;
        return out;
      }
      key = *m;
    } else if (parts_.empty()) {
      key = line;
    } else {
      for (std::uint32_t i = 0; i < parts_.size(); ++i) {
        if (fields < parts_[i].list.required_fields()) {
          out.status = ExtractStatus::missing_key;
          out.absent_part = i + 1;
          return out;
        }
      }
      if (parts_.size() == 1) {
        key = parts_[0].value();
      } else {
        composite_.clear();
        for (auto& p : parts_) finish_.append_part(composite_, p.value());
        key = composite_;
        joined = true;
      }
    }
    out.key = joined ? key : finish_.one_part(key);
    return out;
  }

 private:
  // extract() for one key field and at most one time field: the same result as the
  // general path (a single-field group is that field's text), without the collectors,
  // whose per-field bookkeeping was a third of the extraction's instructions.
  Extracted extract_single_fields(const Record& record) {
    Extracted out;
    std::string_view key, time;
    const std::uint32_t key_field = key_field_, time_field = time_field_;
    const std::uint32_t fields = splitter_.split(record.text(), last_field_, [&](std::uint32_t n, std::string_view f) {
      if (n == key_field) key = f;
      if (n == time_field) time = f;
      return true;
    });
    if (wants_time_ && fields >= time_field) time_parser_.parse_in_place(time, out.time);
    if (fields < key_field) {
      out.status = ExtractStatus::missing_key;
      out.absent_part = 1;
      return out;
    }
    out.key = finish_.one_part(key);
    return out;
  }

  int comment_;
  FieldSplitter splitter_;
  char sep_;
  KeyFinish finish_;
  TimeParser time_parser_;
  std::vector<FieldCollector> parts_;
  FieldCollector time_{*FieldList::parse("1"), {}, {}, 0};
  std::uint32_t last_field_ = 0;
  std::uint32_t key_field_ = 0;   // the single key field, or 0 when the general path is needed
  std::uint32_t time_field_ = 0;  // the single time field (0: no time)
  std::unique_ptr<RegexKey> regex_;
  std::vector<std::string_view> regex_parts_;  // a composite regex key's groups
  struct WhereField {
    WhereCondition condition;
    FieldCollector fields;
  };
  std::vector<WhereField> where_;
  WhereRegexes where_regex_;
  std::string composite_;
};

}  // namespace

std::unique_ptr<Extractor> make_line_extractor(const ExtractConfig& cfg, TimeParser time_parser) {
  return std::make_unique<LineExtractor>(cfg, std::move(time_parser));
}

}  // namespace tlbf_dedup
