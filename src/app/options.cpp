// Command-line parsing with CLI11, then validation into an Options value.
//
// Invariant: parse_options() either returns Options that every later stage can use without
// re-checking (a window > 0, exactly one window kind, an error rate in (0, 1), a compiled
// time pattern when one is asked for, an algorithm that fits the window), or throws one
// UsageError whose message names the option and the bad value. Relations between options
// (-w excludes -n, --checkpoint needs --state, ...) are CLI11's excludes/needs; the range of a
// filter parameter is the library's one check (tlbf/checks.hpp), reported under the
// option's name by option_error(). The option names and help
// texts here are the ones man/tlbf-dedup.1 documents; tests/e2e/cli/help_matches_man.sh checks
// that the two list the same options.
#include "app/options.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <sched.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/duration.hpp"
#include "tlbf/checks.hpp"
#include "tlbf_build_commit.hpp"

namespace tlbf_dedup {
namespace {

constexpr const char* kDescription =
    "tlbf-dedup: remove duplicate records within a time window, in bounded memory.\n"
    "Reads FILEs in order (none or \"-\" = stdin) and writes each record whose key was not\n"
    "emitted within the window. See tlbf-dedup(1).";

constexpr const char* kFooter =
    "Exit status: 0 success (also when the reader closes the pipe), 1 runtime error, 2 usage\n"
    "error, 129/130/143 after SIGHUP/SIGINT/SIGTERM: the output is flushed and the state saved\n"
    "first, unless the output takes nothing for a second after the signal; then the rest is\n"
    "not written, stderr says how much, and the state is not saved.";

std::optional<InputFormat> parse_format(const std::string& s) {
  if (s == "auto") return InputFormat::auto_detect;
  if (s == "lines" || s == "text") return InputFormat::lines;
  if (s == "json" || s == "ndjson") return InputFormat::json;
  return std::nullopt;
}

std::optional<TimeFormat> parse_time_format(const std::string& s) {
  if (s == "auto") return TimeFormat::auto_detect;
  if (s == "epoch") return TimeFormat::epoch;
  if (s == "epoch-ms") return TimeFormat::epoch_ms;
  if (s == "epoch-us") return TimeFormat::epoch_us;
  if (s == "epoch-ns") return TimeFormat::epoch_ns;
  if (s == "rfc3339" || s == "iso8601") return TimeFormat::rfc3339;
  if (s == "clf") return TimeFormat::clf;
  if (s == "syslog") return TimeFormat::syslog;
  if (s == "ctime") return TimeFormat::ctime;
  return std::nullopt;
}

template <typename T>
std::optional<T> parse_number(const std::string& s) {
  std::istringstream in(s);
  T v;
  in >> v;
  if (in.fail() || !in.eof()) return std::nullopt;
  return v;
}

// "--mark", "--stats" and "--explain" take an optional value only in the "--opt=VALUE" spelling, so that
// "--mark file.log" does not read the file name as the value. When the word after one of them is
// no file but reads as its value ("--stats json"), the user meant the value: say how to write it,
// instead of failing later on a missing input file named "json".
std::vector<std::string> expand_optional_values(int argc, const char* const* argv,
                                                const std::vector<std::string>& defaults) {
  struct OptionalValue {
    const char* option;
    const char* implied;
    bool (*looks_like_value)(const std::string&);
  };
  static constexpr OptionalValue kOptional[] = {
      {"--mark", "--mark=dup",
       [](const std::string& v) { return !v.empty() && v[0] != '-' && v.find_first_of("/.") == std::string::npos; }},
      {"--stats", "--stats=text", [](const std::string& v) { return v == "text" || v == "json"; }},
      {"--explain", "--explain=20",
       [](const std::string& v) { return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos; }},
  };
  std::vector<std::string> args = defaults;
  bool positional_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!positional_only) {
      if (a == "--") positional_only = true;
      for (const OptionalValue& o : kOptional) {
        if (a != o.option) continue;
        a = o.implied;
        const std::string next = i + 1 < argc ? argv[i + 1] : "";
        struct stat st;
        if (o.looks_like_value(next) && ::stat(next.c_str(), &st) != 0)
          throw UsageError(
              fmt::format("{} {}: the value of {} is written {}={} (with '='); as written, '{}' is an input file, "
                          "and there is none",
                          o.option, next, o.option, o.option, next, next));
      }
    }
    args.push_back(std::move(a));
  }
  return args;
}

constexpr double kMinErrorRate = 1e-12, kMaxErrorRate = 0.5;

// A duration option's value: at least `minimum`, else a usage error naming the option, with
// examples, or the longest duration when the value is well formed but too long.
tlbf::Duration duration_option(const char* option, const std::string& text, tlbf::Duration minimum,
                               const char* examples) {
  if (is_duration_too_long(text))
    throw UsageError(fmt::format("{} '{}': longer than the longest duration, {}", option, text, longest_duration()));
  auto d = parse_duration(text);
  if (d && *d >= minimum) return *d;
  throw UsageError(
      fmt::format("{} '{}': expected a duration{} such as {}", option, text, minimum > 0 ? " > 0" : "", examples));
}

// The option that sets each FilterConfig field, so that the library's one check of a
// parameter reaches the user under the option's name. `hint` says how to fix it in options.
struct FieldOption {
  const char* field;
  const char* option;
  const char* hint;
};
constexpr FieldOption kFieldOptions[] = {
    {"span", "-w/--window", ""},
    {"window_count", "-n/--window-count", ""},
    {"error_rate", "-e/--error-rate", ", e.g. 1e-5"},
    {"capacity", "-c/--capacity", ""},
    {"algorithm", "-a/--algorithm", " (-w gives a time window, -n a count window)"},
    {"max_memory_bytes", "--max-memory", ""},
};

}  // namespace

UsageError option_error(const tlbf::invalid_parameter& e, const std::string& typed) {
  for (const FieldOption& f : kFieldOptions)
    if (e.parameter() == f.field)
      return UsageError(std::string(f.option) + " '" + (typed.empty() ? e.value() : typed) + "': " + e.problem() +
                        f.hint);
  return UsageError(e.what());
}

std::optional<Options> parse_options(int argc, const char* const* argv, const std::vector<std::string>& defaults) {
  Options o;
  CLI::App app{kDescription, "tlbf-dedup"};
  app.set_version_flag("-V,--version", std::string("tlbf-dedup ") + TLBF_VERSION);
  app.get_formatter()->column_width(32);
  app.footer(kFooter);

  std::string format = "auto", time_format = "auto", window, error_rate, capacity, window_count, algorithm;
  std::string delimiter, mark, on_error = "pass", on_cap = "warn", missing = "error", stats, max_memory, year,
                               checkpoint, lock_timeout, max_future, jump, explain, redis_url, redis_fallback = "stop",
                               redis_shards, multiline_timeout, max_record, mask, top, threads;
  std::vector<std::string> keys;

  app.add_option("files", o.files, "input files, read in order; none or \"-\" = stdin")->type_name("FILE...");
  app.add_option("-f,--format", format,
                 "auto|lines|json (ndjson is json); auto: json when the first non-blank byte is '{'")
      ->type_name("FMT");
  app.add_flag("-z,--null", o.null_terminated, "records end with NUL instead of newline");
  app.add_option("--multiline", o.reader.multiline,
                 "a record starts at a line matching this POSIX extended regex (\\d = [0-9]); other lines continue the "
                 "record before; key and time from its first line")
      ->type_name("RE");
  app.add_option("--multiline-timeout", multiline_timeout,
                 "with --multiline: judge an open record once the input has paused this long (default 1s)")
      ->type_name("DUR");
  app.add_option("--max-record", max_record, "a longer record is an input error (default 64M)")->type_name("SIZE");
  app.add_option("-k,--key", keys,
                 "key: JSON path a.b.c or /a/b, or a field list 3 | 1,4 | 2-5 | 6-; repeatable (composite key); "
                 "default: the whole record")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  app.add_option("-d,--delimiter", delimiter, "lines: field separator, one byte (\\t for tab); default: runs of blanks")
      ->type_name("C");
  app.add_option("--key-regex", o.pipeline.extract.key_regex,
                 "lines: the key is capture group 1 of this POSIX extended regex (else the whole match)")
      ->type_name("RE");
  app.add_option("--missing", missing,
                 "JSON: an absent -k part makes the record keyless: error (default) | null (the part is JSON null; a "
                 "record with no part present stays keyless)")
      ->type_name("WHAT");
  app.add_flag("-i,--ignore-case", o.pipeline.extract.ignore_case, "compare keys with ASCII letters case-folded");
  app.add_option("--mask", mask,
                 "replace variable parts of the key (not of the output) by placeholders: a comma list of numbers "
                 "(<N>), hex (<HEX>), uuid (<UUID>), ip (<IP>), quoted ('<Q>'); JSON: in string values")
      ->type_name("LIST");
  app.add_option("-t,--time", o.pipeline.extract.time,
                 "where the record's time is: JSON path or field list (fields joined by one space); default: the wall "
                 "clock on arrival")
      ->type_name("SPEC");
  app.add_option("--time-format", time_format,
                 "auto|epoch|epoch-ms|epoch-us|epoch-ns|rfc3339|clf|syslog|ctime, or a strftime pattern containing '%'")
      ->type_name("F");
  app.add_option("--year", year,
                 "year of each file's first timestamp without one (syslog, patterns without %Y); later ones roll over "
                 "at New Year; default: from the file's modification time, else the current date")
      ->type_name("N");
  app.add_option("--max-future", max_future,
                 "a record time further than this ahead of the wall clock is judged as untimed (default 1d)")
      ->type_name("DUR");
  app.add_option("--jump-threshold", jump,
                 "warn when consecutive record times are further apart (default: max(1h, 100 x window))")
      ->type_name("DUR");
  app.add_flag("--allow-untimed", o.pipeline.clock.allow_untimed,
               "with -t: go on when none of the first 1000 records has a readable time (default: exit 1)");
  app.add_option("-w,--window", window, "time window: 250ms, 30s, 5m, 2h, 1d; a bare number is seconds (default 5m)")
      ->type_name("DUR");
  app.add_option("-n,--window-count", window_count, "count window: a duplicate when among the last N inserted keys")
      ->type_name("N");
  app.add_option("-e,--error-rate", error_rate, "target false-positive rate, 1e-12 to 0.5 (default 1e-5)")
      ->type_name("P");
  app.add_option("-c,--capacity", capacity, "expected distinct keys per window, for initial sizing (default 100000)")
      ->type_name("N");
  app.add_option("-a,--algorithm", algorithm, "tlbf (default with -w) | apbf (default with -n) | gebf | exact")
      ->type_name("NAME");
  app.add_option(
         "--max-memory", max_memory,
         "bound on the filter's memory: 512M, 2G (default 1G); when it binds the window shrinks, never the error rate")
      ->type_name("SIZE");
  app.add_option("--on-cap", on_cap,
                 "when --max-memory makes the filter drop keys inside the window: warn (default: at once and at exit) "
                 "| fail (exit status 1)")
      ->type_name("ACTION");
  app.add_flag("--refresh",
               "a duplicate renews its key (sliding window); default: the window runs from the last emitted copy");
  app.add_option("--mark", mark,
                 "emit every record, flagged: JSON gets \"NAME\":true|false, lines get \"dup\"/\"new\" and a tab (NAME "
                 "default dup)")
      ->type_name("[=NAME]");
  app.add_flag("--only-dups", o.pipeline.output.only_dups, "emit only the duplicates");
  app.add_flag("--line-buffered", o.pipeline.line_buffered, "flush the output after every record");
  app.add_option("--on-error", on_error,
                 "records whose key cannot be extracted: pass (default, as unique) | drop | fail (exit status 1)")
      ->type_name("ACTION");
  app.add_option("--stats", stats, "summary on stderr at exit: text (default) | json")->type_name("[=FMT]");
  app.add_option("--top", top,
                 "at exit, the N keys with the most duplicates and their counts (bounded memory, stated error bound) "
                 "on stderr, or in --stats=json")
      ->type_name("N");
  app.add_option("--explain", explain,
                 "instead of the records, print for the first N (default 20): file:record, key parts, time text, time, "
                 "clock, decision")
      ->type_name("[=N]");
  app.add_flag("--progress", o.pipeline.progress, "progress on stderr (percent and ETA for files, rates for pipes)");
  app.add_option("--threads", threads,
                 "1 | 2: with 2, a second thread reads and parses files ahead of the decisions (regular files only, "
                 "not with --redis, --explain, --line-buffered); 1 keeps to one core; default 2, or 1 when the process "
                 "may run on one CPU only")
      ->type_name("N");
  app.add_option("--state", o.state_file,
                 "keep the filter in FILE across runs: loaded at start, saved at checkpoints and exit")
      ->type_name("FILE");
  app.add_flag("--state-reset", o.state_reset, "with --state: ignore an existing state file and start empty");
  app.add_option("--checkpoint", checkpoint, "with --state: save the state this often (default 60s)")->type_name("DUR");
  app.add_option("--lock-timeout", lock_timeout,
                 "with --state: wait this long for another run on the same FILE to end (default 0: fail at once)")
      ->type_name("DUR");
  app.add_option("--redis", redis_url,
                 "decide with a filter kept in Redis (module tlbf_redis.so), shared by every run that names it: "
                 "redis://HOST[:PORT][/DB], or redis+cluster://HOST[:PORT] for a cluster")
      ->type_name("URL");
  RedisConfig redis;
  app.add_option("--redis-key", redis.key,
                 "with --redis: the filter's key (a cluster's shards are NAME{0}...); reserved with -w, -e, -c, -a, "
                 "--max-memory unless it exists")
      ->type_name("NAME");
  app.add_option("--redis-fallback", redis_fallback,
                 "with --redis, when the server is lost: stop (default: write what was decided, exit 1) | local (go on "
                 "with a local filter, warned once)")
      ->type_name("WHAT");
  app.add_option("--redis-shards", redis_shards,
                 "with redis+cluster://: shard filters to reserve when the filter is missing (default 4 per master)")
      ->type_name("N");
  app.add_flag("-q,--quiet", o.quiet, "no warnings on stderr");

  // Relations between options, checked by CLI11 while parsing.
  app.get_option("--window")->excludes("--window-count");
  app.get_option("--key-regex")->excludes("--key");
  app.get_option("--checkpoint")->needs("--state");
  app.get_option("--state-reset")->needs("--state");
  app.get_option("--lock-timeout")->needs("--state");
  // The state lives in Redis; the module keeps time windows, only inserts new keys and holds
  // its own memory cap (TLBF.INFO shows it); --explain would insert into a shared filter;
  // --multiline's late continuation lines follow a decision that Redis may not have given yet.
  for (const char* name : {"--state", "--window-count", "--refresh", "--explain", "--on-cap", "--multiline"})
    app.get_option("--redis")->excludes(name);
  app.get_option("--redis")->needs("--redis-key");
  for (const char* name : {"--redis-key", "--redis-fallback", "--redis-shards"}) app.get_option(name)->needs("--redis");
  app.get_option("--multiline-timeout")->needs("--multiline");

  std::vector<std::string> args = expand_optional_values(argc, argv, defaults);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return std::nullopt;
  } catch (const CLI::CallForVersion&) {
    std::printf("tlbf-dedup %s (commit %s)\n", TLBF_VERSION, TLBF_BUILD_COMMIT);
    return std::nullopt;
  } catch (const CLI::ExcludesError& e) {
    throw UsageError(std::string(e.what()) + ": give one or the other");
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };

  // Input.
  auto f = parse_format(format);
  if (!f) throw UsageError("-f/--format '" + format + "': expected auto, lines or json");
  o.pipeline.format = *f;
  o.pipeline.extract.keys = keys;
  o.reader.terminator = o.null_terminated ? '\0' : '\n';
  if (given("--multiline")) {
    if (o.pipeline.format == InputFormat::json)
      throw UsageError(
          "--multiline cannot be combined with -f json: a JSON record is one line (--multiline reads lines)");
    try {
      LineStartPattern check(o.reader.multiline);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--multiline '" + o.reader.multiline + "': " + e.what());
    }
    o.pipeline.format = InputFormat::lines;
  }
  if (given("--multiline-timeout")) {
    auto d = parse_duration(multiline_timeout);
    if (!d || *d < 0 || *d > 3600 * tlbf::kSecond)
      throw UsageError("--multiline-timeout '" + multiline_timeout +
                       "': expected a duration from 0 to 1h, such as 1s or 200ms");
    o.reader.multiline_timeout_ms = static_cast<int>(*d / tlbf::kMillisecond);
  }
  if (given("--max-record")) {
    auto m = parse_byte_size(max_record);
    if (!m || *m == 0 || *m > (std::uint64_t{1} << 40))
      throw UsageError("--max-record '" + max_record + "': expected a size from 1 byte to 1T, such as 64M");
    o.reader.max_record = static_cast<std::size_t>(*m);
  }
  if (given("--delimiter")) {
    if (delimiter == "\\t" || delimiter == "tab") delimiter = "\t";
    if (delimiter.size() != 1) throw UsageError("-d/--delimiter '" + delimiter + "': expected a single byte");
    o.pipeline.extract.delimiter = static_cast<unsigned char>(delimiter[0]);
  }
  if (given("--key-regex") && o.pipeline.extract.key_regex.empty()) throw UsageError("--key-regex: empty expression");
  if (given("--time") && o.pipeline.extract.time.empty()) throw UsageError("-t/--time: empty specification");
  if (missing == "null")
    o.pipeline.extract.missing = MissingMember::null;
  else if (missing != "error")
    throw UsageError("--missing '" + missing + "': expected error or null");
  if (given("--mask")) {
    std::string err;
    auto m = KeyMask::parse(mask, &err);
    if (!m)
      throw UsageError("--mask '" + mask + "': " + err + "; expected a comma list of numbers, hex, uuid, ip, quoted");
    o.pipeline.extract.mask = *m;
  }
  if (o.pipeline.extract.missing == MissingMember::null && keys.size() < 2)
    throw UsageError(
        "--missing null has no effect without two or more -k (a record with no key part present has no key)");
  // Field lists and the regex are checked now when lines are certain (or a regex implies
  // them), not at the first record.
  if (o.pipeline.format == InputFormat::lines || !o.pipeline.extract.key_regex.empty()) {
    try {
      (void)make_line_extractor(o.pipeline.extract, TimeParser(TimeFormat::auto_detect, std::nullopt, 1970));
    } catch (const SpecError& e) {
      throw UsageError(e.what());
    }
  }

  // Time.
  if (time_format.find('%') != std::string::npos) {
    std::string err;
    o.time_pattern = TimePattern::compile(time_format, &err);
    if (!o.time_pattern) throw UsageError("--time-format '" + time_format + "': " + err);
    o.time_format = TimeFormat::pattern;
  } else {
    auto tf = parse_time_format(time_format);
    if (!tf)
      throw UsageError(
          "--time-format '" + time_format +
          "': expected auto, epoch, epoch-ms, epoch-us, epoch-ns, rfc3339, clf, syslog, ctime or a pattern with '%'");
    o.time_format = *tf;
  }
  if (given("--time-format") && o.pipeline.extract.time.empty())
    throw UsageError("--time-format has no effect without -t/--time (records are timed by the wall clock)");
  if (given("--year")) {
    auto y = parse_number<int>(year);
    if (!y || *y < 1678 || *y > 2261) throw UsageError("--year '" + year + "': expected a year between 1678 and 2261");
    o.pipeline.clock.year = *y;
  }
  o.pipeline.time_parser = TimeParser(o.time_format, o.time_pattern, o.pipeline.clock.year.value_or(current_year()));
  if (given("--max-future")) {
    o.pipeline.clock.max_future = duration_option("--max-future", max_future, 1, "1h or 7d");
  }
  if (given("--jump-threshold")) {
    o.pipeline.clock.jump = duration_option("--jump-threshold", jump, 1, "1h or 2d");
  }
  for (const char* needs_time : {"--max-future", "--jump-threshold", "--allow-untimed"})
    if (given(needs_time) && o.pipeline.extract.time.empty())
      throw UsageError(std::string(needs_time) +
                       " has no effect without -t/--time (records are timed by the wall clock)");

  // Filter.
  tlbf::FilterConfig& fc = o.filter;
  if (given("--window-count")) {
    auto n = parse_number<std::uint64_t>(window_count);
    if (!n || *n == 0 || window_count[0] == '-')
      throw UsageError("-n/--window-count '" + window_count + "': expected a whole number > 0");
    fc.window_count = *n;
    o.given.window_count = *n;
    fc.span = 0;
    fc.algorithm = tlbf::Algorithm::apbf;
  } else {
    fc.span = duration_option("-w/--window", given("--window") ? window : "5m", 1, "250ms, 30s, 5m, 2h, 1d");
    if (given("--window")) o.given.span = fc.span;
    fc.algorithm = tlbf::Algorithm::tlbf;
  }
  if (given("--algorithm")) {
    auto a = tlbf::parse_algorithm(algorithm);
    if (!a) throw UsageError("-a/--algorithm '" + algorithm + "': expected tlbf, apbf, gebf or exact");
    fc.algorithm = *a;
    o.given.algorithm = *a;
    try {
      tlbf::check_algorithm(fc);
    } catch (const tlbf::invalid_parameter& e) {
      throw option_error(e, algorithm);
    }
  }
  if (given("--error-rate")) {
    // The range every filter meets: below 1e-12 the GEBF's per-segment rates reach the
    // precision its sizing keeps, and the TLBF/APBF's slice layouts (k + l <= 64) run out
    // near 1e-19; above 0.5 a filter would drop most unique records.
    auto p = parse_number<double>(error_rate);
    if (!p || !(*p >= kMinErrorRate && *p <= kMaxErrorRate))
      throw UsageError(fmt::format("-e/--error-rate '{}': expected a rate from {:g} to {:g}, e.g. 1e-5", error_rate,
                                   kMinErrorRate, kMaxErrorRate));
    fc.error_rate = *p;
    o.given.error_rate = *p;
  }
  if (given("--capacity")) {
    auto n = parse_number<std::uint64_t>(capacity);
    if (!n || *n == 0 || capacity[0] == '-')
      throw UsageError("-c/--capacity '" + capacity + "': expected a whole number > 0");
    fc.capacity = *n;
    o.given.capacity = *n;
  }
  if (given("--max-memory")) {
    auto m = parse_byte_size(max_memory);
    if (!m || *m < 4096)
      throw UsageError("--max-memory '" + max_memory + "': expected a size of at least 4K, such as 512M or 2G");
    fc.max_memory_bytes = *m;
    o.given.max_memory_bytes = *m;
  }
  o.pipeline.refresh = app.get_option("--refresh")->count() > 0 ? Refresh::yes : Refresh::no;

  // Output.
  if (given("--mark")) {
    if (mark.empty()) throw UsageError("--mark=NAME: the name is empty");
    o.pipeline.output.mark = true;
    o.pipeline.output.mark_name = mark;
  }
  if (on_error == "pass")
    o.pipeline.on_error = OnError::pass;
  else if (on_error == "drop")
    o.pipeline.on_error = OnError::drop;
  else if (on_error == "fail")
    o.pipeline.on_error = OnError::fail;
  else
    throw UsageError("--on-error '" + on_error + "': expected pass, drop or fail");
  if (on_cap == "warn")
    o.pipeline.on_cap = OnCap::warn;
  else if (on_cap == "fail")
    o.pipeline.on_cap = OnCap::fail;
  else
    throw UsageError("--on-cap '" + on_cap + "': expected warn or fail");
  if (given("--stats")) {
    if (stats == "text")
      o.stats = StatsFormat::text;
    else if (stats == "json")
      o.stats = StatsFormat::json;
    else
      throw UsageError("--stats='" + stats + "': expected text or json");
  }

  if (given("--top")) {
    auto n = parse_number<std::size_t>(top);
    if (!n || *n == 0 || *n > TopKeys::kMaxTop || top[0] == '-')
      throw UsageError("--top '" + top + "': expected a whole number from 1 to " + std::to_string(TopKeys::kMaxTop));
    o.pipeline.top = *n;
  }

  if (given("--threads")) {
    if (threads != "1" && threads != "2") throw UsageError("--threads '" + threads + "': expected 1 or 2");
    o.pipeline.threads = threads[0] - '0';
  } else {
    // The default takes a second core only where the process may run on one: in a container
    // or under taskset limited to one CPU, a second thread would only add its hand-over.
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    o.pipeline.threads = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2 ? 1 : 2;
  }

  if (given("--explain")) {
    auto n = parse_number<std::uint64_t>(explain);
    if (!n || *n == 0 || explain[0] == '-')
      throw UsageError("--explain='" + explain + "': expected a whole number > 0");
    o.pipeline.explain = *n;
  }

  // State.
  if (given("--checkpoint")) {
    o.checkpoint = duration_option("--checkpoint", checkpoint, 1, "30s or 5m");
  }
  if (given("--lock-timeout")) {
    o.lock_timeout = duration_option("--lock-timeout", lock_timeout, 0, "0, 30s or 5m");
  }
  if (given("--state") && o.state_file.empty()) throw UsageError("--state: empty file name");

  // Redis.
  if (given("--redis")) {
    std::string problem;
    auto url = parse_redis_url(redis_url, &problem);
    if (!url) throw UsageError("--redis '" + redis_url + "': " + problem);
    redis.url = *url;
    if (redis.key.empty()) throw UsageError("--redis-key: empty name");
    if (url->cluster && redis.key.find_first_of("{}") != std::string::npos)
      throw UsageError("--redis-key '" + redis.key +
                       "': a cluster filter's name cannot contain { or } (its shards are NAME{0}, NAME{1}, ...)");
    if (redis_fallback == "local")
      redis.fallback = RedisFallback::local;
    else if (redis_fallback != "stop")
      throw UsageError("--redis-fallback '" + redis_fallback + "': expected stop or local");
    if (given("--redis-shards")) {
      auto n = parse_number<std::uint32_t>(redis_shards);
      if (!n || *n == 0 || *n > 16384 || redis_shards[0] == '-')
        throw UsageError("--redis-shards '" + redis_shards + "': expected a whole number from 1 to 16384");
      if (!url->cluster) throw UsageError("--redis-shards has no effect without a redis+cluster:// URL");
      redis.shards = *n;
    }
    if (fc.algorithm != tlbf::Algorithm::tlbf && fc.algorithm != tlbf::Algorithm::gebf)
      throw UsageError("-a/--algorithm '" + algorithm + "': the Redis module keeps tlbf or gebf filters");
    if (fc.span % tlbf::kMillisecond != 0)
      throw UsageError("-w/--window '" + window + "': with --redis, a whole number of milliseconds");
    o.redis = std::move(redis);
  }
  for (const char* name : kKeyTimeOptions) {
    const CLI::Option* opt = app.get_option(name);
    if (opt->count() == 0) continue;
    RecordedOption r{name, {}};
    if (opt->get_expected_max() > 0) r.values = opt->results();  // a flag records no value
    o.key_time_options.push_back(std::move(r));
  }
  return o;
}

}  // namespace tlbf_dedup
