// The rules of the option values: for each option that takes one, what its text must be (a
// number in a range, a duration, one of a few words, a pattern that compiles) and the Options
// field it sets; and the rules that join options (--missing null wants two -k, a time option
// wants -t, what --redis allows).
//
// Invariant: the rules run in one fixed order -- input, key, time, filter, output, holding,
// state, Redis -- after CLI11's own checks (unknown options, missing and repeated values, --help,
// --version, excludes and needs), and the first rule broken is the one reported, so a command
// line with two mistakes always names the same one. That is why they are not attached to the
// options as CLI11 validators: CLI11 runs those while parsing, in declaration order, before
// --help and before its own checks. A message names the option as --help spells it and the
// text as typed: "-w/--window '5x': expected a duration > 0 such as 250ms, 30s, 5m, 2h, 1d".
#include "app/option_rules.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <sched.h>

#include <fmt/format.h>

#include "base/duration.hpp"
#include "base/line_regex.hpp"
#include "extract/extract.hpp"
#include "extract/json_key_encoder.hpp"
#include "input/record_reader.hpp"
#include "report/top_keys.hpp"
#include "state/state_path.hpp"
#include "tlbf/checks.hpp"
#include "tlbf/registry.hpp"

namespace tlbf_dedup {
namespace {

// Reads an option's text into a value, or says what was expected instead: what the usage
// error says after "OPTION 'TEXT': ".
template <typename T>
using Rule = std::function<std::optional<T>(const std::string& text, std::string& problem)>;

// A value `parse` reads, from `min` to `max`.
template <typename T, typename Parse>
Rule<T> in_range(Parse parse, T min, T max, std::string expected) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    const std::optional<T> v = parse(text);
    if (v && *v >= min && *v <= max) return v;
    problem = expected;
    return std::nullopt;
  };
}

// A number as an istream reads it, without the minus sign that an unsigned read would wrap
// around, and without leading blanks, which would hide that sign from the check (" -3").
template <typename T>
std::optional<T> parse_number(const std::string& s) {
  std::istringstream in(s);
  T v;
  in >> std::noskipws >> v;
  if (in.fail() || !in.eof() || s[0] == '-') return std::nullopt;
  return v;
}

template <typename T>
Rule<T> number(T min, T max, std::string expected) {
  return in_range<T>(parse_number<T>, min, max, std::move(expected));
}

template <typename T>
Rule<T> choice(std::vector<std::pair<std::string, T>> words, std::string expected) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    for (const auto& [word, value] : words)
      if (text == word) return value;
    problem = expected;
    return std::nullopt;
  };
}

// A duration of at least `minimum`, and at most the longest an option takes.
Rule<tlbf::Duration> duration(tlbf::Duration minimum, const char* examples) {
  return [=](const std::string& text, std::string& problem) -> std::optional<tlbf::Duration> {
    if (is_duration_too_long(text)) {
      problem = "longer than the longest duration, " + longest_duration();
      return std::nullopt;
    }
    const std::optional<tlbf::Duration> d = parse_duration(text);
    if (d && *d >= minimum) return d;
    problem = fmt::format("expected a duration{} such as {}", minimum > 0 ? " > 0" : "", examples);
    return std::nullopt;
  };
}

// What `make` makes of the text; the message of its std::invalid_argument as the problem.
template <typename T, typename Make>
Rule<T> made_by(Make make) {
  return [=](const std::string& text, std::string& problem) -> std::optional<T> {
    try {
      return make(text);
    } catch (const std::invalid_argument& e) {
      problem = e.what();
      return std::nullopt;
    }
  };
}

// The time format: a named one, or a strftime pattern (one with '%').
struct TimeSpec {
  TimeFormat format;
  std::optional<TimePattern> pattern;
};

constexpr std::uint64_t kAnyCount = std::numeric_limits<std::uint64_t>::max();
// The error rates every filter meets: below 1e-12 the GEBF's per-segment rates reach the
// precision its sizing keeps, and the TLBF/APBF's slice layouts (k + l <= 64) run out near
// 1e-19; above 0.5 a filter would drop most unique records.
constexpr double kMinErrorRate = 1e-12, kMaxErrorRate = 0.5;
constexpr tlbf::Duration kDefaultWindow = 5 * 60 * tlbf::kSecond;

// The rule of each option's value, in the order they are applied.
const Rule<InputFormat> kFormat = choice<InputFormat>({{"auto", InputFormat::auto_detect},
                                                       {"lines", InputFormat::lines},
                                                       {"text", InputFormat::lines},
                                                       {"json", InputFormat::json},
                                                       {"ndjson", InputFormat::json},
                                                       {"tsv", InputFormat::tsv},
                                                       {"csv", InputFormat::csv},
                                                       {"zeek", InputFormat::zeek}},
                                                      "expected auto, lines, json, csv, tsv or zeek");
const Rule<std::string> kMultiline = made_by<std::string>([](const std::string& text) {
  LineStartPattern check(text);
  return text;
});
// --records a.b: member names joined by dots, none empty.
const Rule<std::vector<std::string>> kRecordsPath =
    [](const std::string& text, std::string& problem) -> std::optional<std::vector<std::string>> {
  std::vector<std::string> path = split_at(text, '.');
  if (std::none_of(path.begin(), path.end(), [](const std::string& name) { return name.empty(); })) return path;
  problem = "expected member names joined by dots, such as Records or data.items";
  return std::nullopt;
};
// --records: a dotted path (kRecordsPath), or a JSON pointer as -k takes one (/data/items),
// given whole to the framer.
const Rule<std::vector<std::string>> kRecordsOption =
    [](const std::string& text, std::string& problem) -> std::optional<std::vector<std::string>> {
  if (text.empty() || text[0] != '/') return kRecordsPath(text, problem);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '~' && (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))) {
      problem = "'~' in a JSON pointer must be ~0 or ~1";
      return std::nullopt;
    }
  }
  return std::vector<std::string>{text};
};
// --key-except a,b.c,/d/e: such paths, or JSON pointers (checked by the extractor), joined by commas.
const Rule<std::vector<std::string>> kKeyExcept = [](const std::string& text,
                                                     std::string& problem) -> std::optional<std::vector<std::string>> {
  std::vector<std::string> paths = split_at(text, ',');
  for (const std::string& path : paths) {
    if (path.empty() || (path[0] != '/' && !kRecordsPath(path, problem))) {
      problem = "expected member paths or JSON pointers joined by commas, such as ts or ts,meta.host or /id.orig_p";
      return std::nullopt;
    }
  }
  return paths;
};
const Rule<tlbf::Duration> kMultilineTimeout = in_range<tlbf::Duration>(
    parse_duration, 0, 3600 * tlbf::kSecond, "expected a duration from 0 to 1h, such as 1s or 200ms");
const Rule<std::uint64_t> kMaxRecord = in_range<std::uint64_t>(parse_byte_size, 1, std::uint64_t{1} << 40,
                                                               "expected a size from 1 byte to 1T, such as 64M");
const Rule<int> kDelimiter = [](const std::string& text, std::string& problem) -> std::optional<int> {
  if (text == "\\t" || text == "tab") return '\t';
  if (text.size() == 1) return static_cast<unsigned char>(text[0]);
  problem = "expected a single byte";
  return std::nullopt;
};
const Rule<MissingMember> kMissing =
    choice<MissingMember>({{"error", MissingMember::error}, {"null", MissingMember::null}}, "expected error or null");
const Rule<KeyMask> kMask = [](const std::string& text, std::string& problem) {
  std::optional<KeyMask> m = KeyMask::parse(text, &problem);
  if (!m) problem += "; expected a comma list of numbers, hex, uuid, ip, quoted";
  return m;
};
const Rule<TimeFormat> kTimeFormatName = choice<TimeFormat>(
    {{"auto", TimeFormat::auto_detect},
     {"epoch", TimeFormat::epoch},
     {"epoch-ms", TimeFormat::epoch_ms},
     {"epoch-us", TimeFormat::epoch_us},
     {"epoch-ns", TimeFormat::epoch_ns},
     {"rfc3339", TimeFormat::rfc3339},
     {"iso8601", TimeFormat::rfc3339},
     {"clf", TimeFormat::clf},
     {"syslog", TimeFormat::syslog},
     {"ctime", TimeFormat::ctime}},
    "expected auto, epoch, epoch-ms, epoch-us, epoch-ns, rfc3339, clf, syslog, ctime or a pattern with '%'");
const Rule<TimeSpec> kTimeFormat = [](const std::string& text, std::string& problem) -> std::optional<TimeSpec> {
  if (text.find('%') == std::string::npos) {
    const std::optional<TimeFormat> f = kTimeFormatName(text, problem);
    if (!f) return std::nullopt;
    return TimeSpec{*f, std::nullopt};
  }
  std::optional<TimePattern> pattern = TimePattern::compile(text, &problem);
  if (!pattern) return std::nullopt;
  return TimeSpec{TimeFormat::pattern, std::move(pattern)};
};
const Rule<int> kYear = number<int>(1678, 2261, "expected a year between 1678 and 2261");
const Rule<std::shared_ptr<const LineRegex>> kTimeRegex = made_by<std::shared_ptr<const LineRegex>>(
    [](const std::string& text) { return std::make_shared<const LineRegex>(text); });
const Rule<std::shared_ptr<const TimeZone>> kTimeZone = made_by<std::shared_ptr<const TimeZone>>(
    [](const std::string& text) { return std::make_shared<const TimeZone>(TimeZone::named(text)); });
// --date: a day as YYYY-MM-DD, in the years --year takes; days since 1970-01-01.
const Rule<std::int64_t> kDate = [](const std::string& text, std::string& problem) -> std::optional<std::int64_t> {
  const std::optional<tlbf::Time> t = text.size() == 10 && text[4] == '-' ? parse_rfc3339(text) : std::nullopt;
  if (t && text.compare(0, 4, "1678") >= 0 && text.compare(0, 4, "2261") <= 0) return *t / (86400 * tlbf::kSecond);
  problem = "expected a date YYYY-MM-DD between 1678 and 2261, such as 2024-03-05";
  return std::nullopt;
};
const Rule<tlbf::Duration> kMaxFuture = duration(1, "1h or 7d");
const Rule<tlbf::Duration> kJumpThreshold = duration(1, "1h or 2d");
const Rule<tlbf::Duration> kLateness = duration(0, "5s or 2m");
const Rule<std::uint64_t> kWindowCount = number<std::uint64_t>(1, kAnyCount, "expected a whole number > 0");
const Rule<tlbf::Duration> kWindow = duration(1, "250ms, 30s, 5m, 2h, 1d");
const Rule<tlbf::Algorithm> kAlgorithm = [](const std::string& text, std::string& problem) {
  const std::optional<tlbf::Algorithm> a = tlbf::parse_algorithm(text);
  if (!a) problem = "expected " + tlbf::algorithm_names();
  return a;
};
const Rule<double> kErrorRate =
    number<double>(kMinErrorRate, kMaxErrorRate,
                   fmt::format("expected a rate from {:g} to {:g}, e.g. 1e-5", kMinErrorRate, kMaxErrorRate));
const Rule<std::uint64_t> kCapacity = number<std::uint64_t>(1, kAnyCount, "expected a whole number > 0");
const Rule<std::uint64_t> kMaxMemory =
    in_range<std::uint64_t>(parse_byte_size, 4096, kAnyCount, "expected a size of at least 4K, such as 512M or 2G");
const Rule<OnError> kOnError = choice<OnError>(
    {{"pass", OnError::pass}, {"drop", OnError::drop}, {"fail", OnError::fail}}, "expected pass, drop or fail");
const Rule<OnCap> kOnCap = choice<OnCap>({{"warn", OnCap::warn}, {"fail", OnCap::fail}}, "expected warn or fail");
const Rule<StatsFormat> kStats =
    choice<StatsFormat>({{"text", StatsFormat::text}, {"json", StatsFormat::json}}, "expected text or json");
const Rule<std::size_t> kTop =
    number<std::size_t>(1, TopKeys::kMaxTop, "expected a whole number from 1 to " + std::to_string(TopKeys::kMaxTop));
const Rule<Keep> kKeep = choice<Keep>({{"first", Keep::first}, {"last", Keep::last}}, "expected first or last");
const Rule<int> kThreads = choice<int>({{"1", 1}, {"2", 2}}, "expected 1 or 2");
const Rule<std::uint64_t> kExplain = number<std::uint64_t>(1, kAnyCount, "expected a whole number > 0");
const Rule<tlbf::Duration> kCheckpoint = duration(1, "30s or 5m");
const Rule<tlbf::Duration> kLockTimeout = duration(0, "0, 30s or 5m");
const Rule<RedisUrl> kRedisUrl = [](const std::string& text, std::string& problem) {
  return parse_redis_url(text, &problem);
};
const Rule<RedisFallback> kRedisFallback =
    choice<RedisFallback>({{"stop", RedisFallback::stop}, {"local", RedisFallback::local}}, "expected stop or local");
const Rule<std::uint32_t> kRedisShards = number<std::uint32_t>(1, 16384, "expected a whole number from 1 to 16384");

// The command line as CLI11 parsed it, and how a message names its options.
class Parsed {
 public:
  Parsed(const CLI::App& app, const OptionTexts& texts) : app_(app), texts_(texts) {}

  bool given(const char* name) const { return app_.get_option(name)->count() > 0; }
  const std::string& text(const char* name) const { return texts_.find(name)->second; }

  // The option as --help spells it: "-w/--window", "--max-memory".
  std::string label(const char* name) const {
    const CLI::Option* opt = app_.get_option(name);
    std::string out;
    for (const std::string& s : opt->get_snames()) out += "-" + s + "/";
    return out + "--" + opt->get_lnames().front();
  }
  // The option and a text of it: "-w/--window '5x'", or "--stats='yaml'" for an option
  // whose value is written after '='.
  std::string quoted(const char* name, const std::string& text) const {
    const bool after_equals = app_.get_option(name)->get_type_name().rfind("[=", 0) == 0;
    return label(name) + (after_equals ? "='" : " '") + text + "'";
  }

  template <typename T>
  T read(const char* name, const Rule<T>& rule) const {
    std::string problem;
    if (std::optional<T> value = rule(text(name), problem)) return std::move(*value);
    throw UsageError(quoted(name, text(name)) + ": " + problem);
  }
  // The value when the option was given.
  template <typename T>
  std::optional<T> read_given(const char* name, const Rule<T>& rule) const {
    if (!given(name)) return std::nullopt;
    return read(name, rule);
  }
  // An option given with an empty text is a UsageError saying `problem`.
  void require_text(const char* name, const char* problem) const {
    if (given(name) && text(name).empty()) throw UsageError(label(name) + ": " + problem);
  }
  // An option that has no effect without -t.
  void require_time(const char* name, const Options& o) const {
    if (given(name) && o.pipeline.extract.time.empty())
      throw UsageError(std::string(name) + " has no effect without -t/--time (records are timed by the wall clock)");
  }

 private:
  const CLI::App& app_;
  const OptionTexts& texts_;
};

// What a second thread is worth by default: nothing where the process may run on one CPU
// only (a container, taskset), where it would only add its hand-over.
int default_threads() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2 ? 1 : 2;
}

void read_input(const Parsed& p, Options& o) {
  if (auto f = p.read_given("--format", kFormat)) o.pipeline.format = *f;
  o.reader.terminator = o.null_terminated ? '\0' : '\n';
  if (is_table(o.pipeline.format))  // rows end with a newline; their columns are the format's
    for (const char* name : {"--multiline", "--records", "--null", "--key-regex", "--delimiter", "--comment"})
      if (p.given(name))
        throw UsageError(fmt::format("{} cannot be combined with -f {}: a table's rows are lines split by its format",
                                     name, p.text("--format")));
  if (p.given("--multiline")) {
    if (o.pipeline.format == InputFormat::json)
      throw UsageError(
          "--multiline cannot be combined with -f json: JSON records are framed as JSON values (--multiline reads "
          "lines)");
    o.reader.multiline = o.pipeline.multiline = p.read("--multiline", kMultiline);
    o.pipeline.terminator = o.reader.terminator;
    o.pipeline.format = InputFormat::lines;
  }
  if (auto d = p.read_given("--multiline-timeout", kMultilineTimeout))
    o.reader.multiline_timeout_ms = static_cast<int>(*d / tlbf::kMillisecond);
  if (auto m = p.read_given("--max-record", kMaxRecord)) o.reader.max_record = static_cast<std::size_t>(*m);
  if (auto r = p.read_given("--records", kRecordsOption)) {
    if (o.pipeline.format == InputFormat::lines)
      throw UsageError("--records cannot be combined with -f lines: it names a member of JSON objects");
    o.reader.records_path = std::move(*r);
    o.pipeline.format = InputFormat::json;
  }
  // JSON values are framed as values (over lines when pretty-printed); auto mode lets the
  // first input's first byte decide, unless --key-regex says the records are lines.
  o.reader.format =
      o.pipeline.format == InputFormat::auto_detect && p.given("--key-regex") ? InputFormat::lines : o.pipeline.format;
}

void read_key(const Parsed& p, Options& o) {
  ExtractConfig& x = o.pipeline.extract;
  if (auto d = p.read_given("--delimiter", kDelimiter)) x.delimiter = *d;
  if (auto c = p.read_given("--comment", kDelimiter)) {
    if (o.pipeline.format == InputFormat::json)
      throw UsageError("--comment cannot be combined with -f json: it skips comment lines of line input");
    x.comment = *c;
  }
  x.key_regex = p.text("--key-regex");
  p.require_text("--key-regex", "empty expression");
  x.time = p.text("--time");
  p.require_text("--time", "empty specification");
  if (auto m = p.read_given("--missing", kMissing)) x.missing = *m;
  if (auto m = p.read_given("--mask", kMask)) x.mask = *m;
  if (auto e = p.read_given("--key-except", kKeyExcept)) {
    if (o.pipeline.format == InputFormat::lines)
      throw UsageError(
          "--key-except cannot be combined with -f lines: it leaves members out of JSON records and columns out of "
          "tables");
    x.key_except = std::move(*e);
  }
  try {
    for (const std::string& w : o.where) x.where.push_back(WhereCondition::parse(w));
    (void)WhereRegexes(x.where_regex);
  } catch (const SpecError& e) {
    throw UsageError(e.what());
  }
  if (x.missing == MissingMember::null && x.keys.size() < 2)
    throw UsageError(
        "--missing null has no effect without two or more -k (a record with no key part present has no key)");
  // Field lists and the regex are checked now when lines are certain (or a regex implies
  // them), not at the first record.
  if (o.pipeline.format == InputFormat::lines || !x.key_regex.empty()) {
    try {
      (void)make_line_extractor(x, TimeParser(TimeFormat::auto_detect, std::nullopt, 1970));
    } catch (const SpecError& e) {
      throw UsageError(e.what());
    }
  }
}

void read_time(const Parsed& p, Options& o) {
  if (auto t = p.read_given("--time-format", kTimeFormat)) {
    o.time_format = t->format;
    o.time_pattern = std::move(t->pattern);
  }
  p.require_time("--time-format", o);
  TimeSettings settings;
  if (p.given("--time-regex") && o.pipeline.extract.time.empty())
    throw UsageError(
        "--time-regex has no effect without -t/--time: it is matched against the -t text (-t 1- for the whole "
        "line)");
  if (auto r = p.read_given("--time-regex", kTimeRegex)) settings.regex = std::move(*r);
  if (auto y = p.read_given("--year", kYear)) o.pipeline.clock.year = *y;
  if (auto d = p.read_given("--date", kDate)) settings.date = *d;
  if (auto z = p.read_given("--timezone", kTimeZone)) settings.zone = std::move(*z);
  o.pipeline.time_parser =
      TimeParser(o.time_format, o.time_pattern, o.pipeline.clock.year.value_or(current_year()), std::move(settings));
  if (auto d = p.read_given("--max-future", kMaxFuture)) o.pipeline.clock.max_future = *d;
  if (auto d = p.read_given("--jump-threshold", kJumpThreshold)) o.pipeline.clock.jump = *d;
  if (auto d = p.read_given("--lateness", kLateness)) o.pipeline.clock.lateness = *d;
  for (const char* name :
       {"--date", "--timezone", "--max-future", "--jump-threshold", "--allow-untimed", "--lateness", "--no-merge"})
    p.require_time(name, o);
}

// Exactly one window: a count with -n (APBF by default), else a time span (TLBF by default).
void read_filter(const Parsed& p, Options& o) {
  tlbf::FilterConfig& fc = o.filter;
  if (auto n = p.read_given("--window-count", kWindowCount)) {
    o.given.window_count = fc.window_count = *n;
    fc.span = 0;
    fc.algorithm = tlbf::Algorithm::apbf;
  } else {
    fc.span = kDefaultWindow;
    if (auto w = p.read_given("--window", kWindow)) o.given.span = fc.span = *w;
    fc.algorithm = tlbf::Algorithm::tlbf;
  }
  if (auto a = p.read_given("--algorithm", kAlgorithm)) {
    o.given.algorithm = fc.algorithm = *a;
    try {
      tlbf::check_algorithm(fc);
    } catch (const tlbf::invalid_parameter& e) {
      throw option_error(e, p.text("--algorithm"));
    }
  }
  if (auto e = p.read_given("--error-rate", kErrorRate)) o.given.error_rate = fc.error_rate = *e;
  if (auto c = p.read_given("--capacity", kCapacity)) o.given.capacity = fc.capacity = *c;
  if (auto m = p.read_given("--max-memory", kMaxMemory)) o.given.max_memory_bytes = fc.max_memory_bytes = *m;
  o.pipeline.refresh = p.given("--refresh") ? Refresh::yes : Refresh::no;
  // The algorithm's own check of its parameters (its registry entry's), now all are read.
  try {
    tlbf::check_parameters(fc);
  } catch (const tlbf::invalid_parameter& e) {
    throw option_error(e);
  }
}

void read_output(const Parsed& p, Options& o) {
  if (p.given("--mark")) {
    if (p.text("--mark").empty()) throw UsageError("--mark=NAME: the name is empty");
    o.pipeline.output.mark = true;
    o.pipeline.output.mark_name = p.text("--mark");
  }
  if (auto a = p.read_given("--on-error", kOnError)) o.pipeline.on_error = *a;
  // A key no record has stops the run, unless --on-error says what records without one get.
  o.pipeline.stop_when_keyless = !p.given("--on-error");
  if (auto a = p.read_given("--on-cap", kOnCap)) o.pipeline.on_cap = *a;
  if (auto s = p.read_given("--stats", kStats)) o.stats = *s;
  o.stats_file = p.text("--stats-file");
  p.require_text("--stats-file", "empty file name");
  if (!o.stats_file.empty() && o.stats == StatsFormat::none) {  // the format by the file's name
    const std::string_view name = o.stats_file;
    const bool json = name.size() >= 5 && name.substr(name.size() - 5) == ".json";
    o.stats = json ? StatsFormat::json : StatsFormat::text;
  }
  if (auto n = p.read_given("--top", kTop)) o.pipeline.top = *n;
  o.pipeline.threads = p.given("--threads") ? p.read("--threads", kThreads) : default_threads();
  if (auto n = p.read_given("--explain", kExplain)) o.pipeline.explain = *n;
}

// --count and --keep last: the holding stage decides by itself, exactly, so what makes no
// sense beside it is refused with the reason.
void read_hold(const Parsed& p, Options& o) {
  HoldConfig& h = o.hold;
  if (auto k = p.read_given("--keep", kKeep)) h.keep = *k;
  OutputMode& out = o.pipeline.output;
  out.count = h.count;
  out.terminator = o.null_terminated ? '\0' : '\n';
  std::string problem;
  if (p.given("--count-format") && !out.count_format.set_template(p.text("--count-format"), problem))
    throw UsageError(p.quoted("--count-format", p.text("--count-format")) + ": " + problem);
  if (p.given("--count-names") && !out.count_format.set_names(p.text("--count-names"), problem))
    throw UsageError(p.quoted("--count-names", p.text("--count-names")) + ": " + problem);
  if (!h.active()) return;  // (--drain without them is refused once a state's options are read: cli.cpp)
  const std::string what = h.count ? "--count" : "--keep last";
  auto refuse = [&](const char* name, const char* why) {
    if (p.given(name)) throw UsageError(fmt::format("{} cannot be combined with {}: {}", p.label(name), what, why));
  };
  refuse("--mark",
         "it writes every copy as it comes, and the records are held until their windows close (--only-dups "
         "writes the records that had copies)");
  refuse("--explain", "it shows each record's decision as it is made, not the held records");
  refuse("--redis",
         "the held records are counted here, exactly, as the window's keys; a filter shared in Redis cannot count "
         "the copies other runs see");
  refuse("--error-rate", "the held records are an exact table of the window's keys, with no false positives");
  refuse("--capacity", "the held records' table grows with the keys in the window");
  if (is_table(o.pipeline.format))
    refuse("--state", "a state keeps a held record's format only as JSON or lines, not as a table's row");
  if (o.given.algorithm && *o.given.algorithm != tlbf::Algorithm::exact)
    throw UsageError(p.quoted("--algorithm", p.text("--algorithm")) + ": " + what +
                     " decides with the held records, an exact table of the window's keys (-a exact)");
  o.filter.algorithm = tlbf::Algorithm::exact;
}

void read_state(const Parsed& p, Options& o) {
  if (auto d = p.read_given("--checkpoint", kCheckpoint)) o.checkpoint = *d;
  if (auto d = p.read_given("--lock-timeout", kLockTimeout)) o.lock_timeout = *d;
  p.require_text("--state", "empty file name");
  // The file the path leads to, so that every name of one state file takes one lock; a FIFO,
  // a device or a directory is refused here, before anything is locked, opened or read.
  if (p.given("--state")) o.state_file = resolve_state_path(p.text("--state"));
}

// --redis: the URL, the filter's name, and what of the filter settings the module can keep.
void read_redis(const Parsed& p, Options& o) {
  if (!p.given("--redis")) return;
  RedisConfig redis;
  redis.url = p.read("--redis", kRedisUrl);
  redis.key = p.text("--redis-key");
  p.require_text("--redis-key", "empty name");
  if (redis.url.cluster && redis.key.find_first_of("{}") != std::string::npos)
    throw UsageError(p.quoted("--redis-key", redis.key) +
                     ": a cluster filter's name cannot contain { or } (its shards are NAME{0}, NAME{1}, ...)");
  if (auto f = p.read_given("--redis-fallback", kRedisFallback)) redis.fallback = *f;
  if (auto n = p.read_given("--redis-shards", kRedisShards)) {
    if (!redis.url.cluster) throw UsageError("--redis-shards has no effect without a redis+cluster:// URL");
    redis.shards = *n;
  }
  if (o.filter.algorithm != tlbf::Algorithm::tlbf && o.filter.algorithm != tlbf::Algorithm::gebf)
    throw UsageError(p.quoted("--algorithm", p.text("--algorithm")) + ": the Redis module keeps tlbf or gebf filters");
  if (o.filter.span % tlbf::kMillisecond != 0)
    throw UsageError(p.quoted("--window", p.text("--window")) + ": with --redis, a whole number of milliseconds");
  o.redis = std::move(redis);
}

}  // namespace

void read_option_values(const CLI::App& app, const OptionTexts& texts, Options& o) {
  const Parsed p(app, texts);
  read_input(p, o);
  read_key(p, o);
  read_time(p, o);
  read_filter(p, o);
  read_output(p, o);
  read_hold(p, o);
  read_state(p, o);
  read_redis(p, o);
}

}  // namespace tlbf_dedup
