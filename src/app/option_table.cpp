// The option table: each option of tlbf-dedup declared once to CLI11, with its names, the
// word --help shows for its value, its help text, and what it excludes or needs.
//
// Invariant: the declarations run in the order --help lists the options, and every option
// that takes one value is bound to its text in OptionTexts, so that option_rules.cpp reads
// every value, and reads it only there. The option names and help texts are the ones
// man/tlbf-dedup.1 documents; tests/e2e/cli/help_matches_man.sh checks that the two list the
// same options.
#include "app/option_table.hpp"

namespace tlbf_dedup {
namespace {

constexpr const char* kDescription =
    "tlbf-dedup: remove duplicate records within a time window, in bounded memory.\n"
    "Reads FILEs (none or \"-\" = stdin; with -t merged by record time, else in order) and writes\n"
    "each record whose key was not emitted within the window. See tlbf-dedup(1).";

constexpr const char* kFooter =
    "Exit status: 0 success (also when the reader closes the pipe), 1 runtime error, 2 usage\n"
    "error, 129/130/143 after SIGHUP/SIGINT/SIGTERM: the output is flushed and the state saved\n"
    "first, unless the output takes nothing for a second after the signal; then the rest is\n"
    "not written, stderr says how much, and the state is not saved.";

// An option taking one value, bound to texts[its long name].
class ValueOptions {
 public:
  ValueOptions(CLI::App& app, OptionTexts& texts) : app_(app), texts_(texts) {}
  CLI::Option* operator()(const std::string& names, const char* type, const std::string& help) {
    const std::string long_name = names.substr(names.find("--"));
    return app_.add_option(names, texts_[long_name], help)->type_name(type);
  }

 private:
  CLI::App& app_;
  OptionTexts& texts_;
};

void declare_input(CLI::App& app, ValueOptions& value, Options& o) {
  app.add_option("files", o.files,
                 "input files; none or \"-\" = stdin; with -t merged by record time (--no-merge: in order)")
      ->type_name("FILE...");
  value("-f,--format", "FMT",
        "auto|lines|json|csv|tsv|zeek (ndjson is json; also pretty-printed or concatenated values, top-level "
        "arrays of objects); csv (RFC 4180 quoting), tsv and zeek are tables whose header names the columns -k, "
        "-t, --where and --key-except take (field numbers work too), written once; auto: json when the input "
        "starts with '{' or '[{', zeek when it starts with a #separator line (blanks aside)");
  value("--records", "PATH",
        "JSON: the records are the elements of the array member PATH (read as -k reads it: a.b for nested members "
        "or a member named \"a.b\", /a/b a JSON pointer; a second such array in one object is an error) of each "
        "top-level object, streamed, written one per line (--records Records for {\"Records\":[...]}); implies -f "
        "json");
  app.add_flag("-z,--null", o.null_terminated, "records end with NUL instead of newline");
  value("--multiline", "RE",
        "a record starts at a line matching this POSIX extended regex (\\d = [0-9]; matched in linear time, so "
        "no backreferences); other lines continue the record before; key and time from its first line");
  value("--multiline-timeout", "DUR",
        "with --multiline: judge an open record once the input has paused this long (default 1s)");
  value("--max-record", "SIZE", "a longer record is an input error (default 64M)");
}

void declare_key(CLI::App& app, ValueOptions& value, Options& o) {
  app.add_option("-k,--key", o.pipeline.extract.keys,
                 "key: JSON path a.b.c or /a/b, a column name (-f csv|tsv|zeek), or a field list 3 | 1,4 | 2-5 | 6-; "
                 "repeatable (composite key); "
                 "default: the whole record")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  value("--key-except", "LIST",
        "JSON: the key is the whole record without these members (a comma list of paths a, a.b or pointers /a/b; "
        "tables: of columns), in a "
        "canonical "
        "form: member order, spacing and how a number is written do not split one event; with --mask, -i");
  value("-d,--delimiter", "C", "lines: field separator, one byte (\\t for tab); default: runs of blanks");
  value("--comment", "C",
        "lines: a line starting with the byte C (# for shell-style comments) is no record: written as read, "
        "neither keyed nor counted nor warned about");
  value("--key-regex", "RE",
        "lines: the key is capture group 1 of this POSIX extended regex (else the whole match; no backreferences); "
        "with two or more groups, each a part of a composite key");
  value("--missing", "WHAT",
        "JSON: an absent -k part makes the record keyless: error (default) | null (the part is JSON null; a "
        "record with no part present stays keyless)");
  app.add_option("--where", o.where,
                 "deduplicate only the records that meet COND, pass the others through untouched; repeatable (all "
                 "must hold): PATH=VALUE, PATH!=VALUE, PATH (present), PATH as -k takes it (--where "
                 "event_type=alert; lines: --where 3=GET)")
      ->type_name("COND")
      ->allow_extra_args(false);
  app.add_option("--where-regex", o.pipeline.extract.where_regex,
                 "deduplicate only the records this POSIX extended regex matches (anywhere in the record, its first "
                 "line with --multiline), pass the others through untouched; repeatable")
      ->type_name("RE")
      ->allow_extra_args(false);
  app.add_flag("-i,--ignore-case", o.pipeline.extract.ignore_case, "compare keys with ASCII letters case-folded");
  value("--mask", "LIST",
        "replace variable parts of the key (not of the output) by placeholders: a comma list of numbers "
        "(<N>), hex (<HEX>), uuid (<UUID>), ip (<IP>), quoted ('<Q>'); JSON: in string values");
}

void declare_time(CLI::App& app, ValueOptions& value, Options& o) {
  value("-t,--time", "SPEC",
        "where the record's time is: JSON path or field list (fields joined by one space); default: the wall "
        "clock on arrival");
  value("--time-format", "F",
        "auto|epoch|epoch-ms|epoch-us|epoch-ns|rfc3339|clf|syslog|ctime, or a strftime pattern containing '%'");
  value("--time-regex", "RE",
        "the time is capture group 1 of this POSIX extended regex (\\d = [0-9]) in the -t text (-t 1- for the "
        "whole line), read as --time-format says: --time-regex 'audit\\(([0-9.]+):'");
  value("--year", "N",
        "year of each file's first timestamp without one (syslog, patterns without %Y); later ones roll over "
        "at New Year; default: from the file's modification time, else the current date");
  value("--date", "YYYY-MM-DD",
        "date of each file's first time of day without a date (15:54:07,115); later ones roll over at midnight "
        "(a time of day over 12h before the latest); default: from the file's modification time, else today");
  value("--timezone", "ZONE",
        "read stamps that name no zone as local times in ZONE: an IANA name (Europe/Berlin) or an offset "
        "(+02:00, -0530); default UTC; %Z also reads the zone's abbreviations (CET, CEST)");
  value("--max-future", "DUR",
        "a record time further than this ahead of the wall clock is judged as untimed (default 1d)");
  value("--jump-threshold", "DUR",
        "consecutive record times further apart are a jump, counted in --stats (default: max(1h, 100 x window))");
  value("--lateness", "DUR",
        "hold records this long for time order: judged oldest first once the clock has passed them by DUR, so "
        "records out of order by up to DUR are decided as if sorted (default 0)");
  app.add_flag("--no-merge", o.no_merge,
               "with -t: read several inputs one after another (default: merged by record time, as one stream)");
  app.add_flag("--allow-untimed", o.pipeline.clock.allow_untimed,
               "with -t: go on when none of the first 1000 records has a readable time (default: exit 1)");
}

void declare_filter(CLI::App& app, ValueOptions& value) {
  value("-w,--window", "DUR", "time window: 250ms, 30s, 5m, 2h, 1d, 1h30m; a bare number is seconds (default 5m)");
  value("-n,--window-count", "N", "count window: a duplicate when among the last N inserted keys");
  value("-e,--error-rate", "P", "target false-positive rate, 1e-12 to 0.5 (default 1e-5)");
  value("-c,--capacity", "N",
        "expected distinct keys per window, for initial sizing (default 100000); set it near a large window's "
        "real count and the filter starts at that size");
  value("-a,--algorithm", "NAME",
        "tlbf (default with -w) | apbf (default with -n) | gebf | exact | tagged (-w only: for large windows, "
        "tight memory and a boundary within window/16)");
  value("--max-memory", "SIZE",
        "bound on the filter's memory: 512M, 2G (default 1G); when it binds the window shrinks, never the error rate");
  value("--on-cap", "ACTION",
        "when --max-memory makes the filter drop keys inside the window: warn (default: at once and at exit) "
        "| fail (exit status 1)");
  app.add_flag("--refresh",
               "a duplicate renews its key (sliding window); default: the window runs from the last emitted copy");
}

void declare_output(CLI::App& app, ValueOptions& value, Options& o) {
  value("--mark", "[=NAME]",
        "emit every record, flagged: JSON gets \"NAME\":true|false, lines get \"dup\"/\"new\" and a tab (NAME "
        "default dup)");
  app.add_flag("--compact", o.pipeline.output.compact,
               "JSON: write each record minified on one line (default: exactly as read, with a line end)");
  app.add_flag("--only-dups", o.pipeline.output.only_dups,
               "emit only the duplicates (with --count or --keep last: the records that had copies)");
  app.add_flag("--line-buffered", o.pipeline.line_buffered, "flush the output after every record");
  app.add_flag("--count", o.hold.count,
               "hold each kept record until its key's window closes, then write it once with its number of copies "
               "and the times of its first and last copy (lines: see --count-format; JSON and tables: see "
               "--count-names, a table's rows not counted get them empty); "
               "output comes in window-close order");
  value("--count-format", "FMT",
        "with --count, lines: the record and its fields, {count} {first} {last} {record}; \\t is a tab "
        "(default '{count} {record}')");
  value("--count-names", "LIST",
        "with --count, JSON: the members for the count and the first and last copy's times (default "
        "dup_count,first_seen,last_seen; an empty name leaves that member out)");
  value("--keep", "WHICH",
        "the copy written for a key: first (default) | last (the last inside the window, held until it closes)");
  value("--on-error", "ACTION",
        "records whose key cannot be extracted: pass (as unique) | drop | fail (exit status 1); by default pass, but "
        "a run where none of the first 1000 records has the key stops (exit status 1, nothing written): give pass to "
        "go on; a blank JSON line is no record, a JSON record with a NUL byte a malformed one; a table's row with a "
        "quote never closed (which runs to the end of the input) or a NUL byte is malformed, one with too few "
        "columns has no key");
  value("--stats", "[=FMT]", "summary on stderr at exit: text (default) | json");
  value("--stats-file", "PATH",
        "write the summary (with --top's keys) to PATH instead of stderr, replacing it whole at exit: in --stats's "
        "format, else json for a name ending in .json, else text");
  value("--top", "N",
        "at exit, the N keys with the most duplicates and their counts (bounded memory, stated error bound) "
        "on stderr, or in --stats=json");
  value("--explain", "[=N]",
        "instead of the records, print for the first N (default 20): file:record, key parts, time text, time, "
        "clock, decision");
  app.add_flag("--progress", o.pipeline.progress, "progress on stderr (percent and ETA for files, rates for pipes)");
  value("--threads", "N",
        "1 | 2: with 2, a second thread reads and parses files ahead of the decisions (regular files only, "
        "not with --redis, --explain, --line-buffered); 1 keeps to one core; default 2, or 1 when the process "
        "may run on one CPU only");
}

void declare_state(CLI::App& app, ValueOptions& value, Options& o) {
  value("--state", "FILE", "keep the filter in FILE across runs: loaded at start, saved at checkpoints and exit");
  app.add_flag("--state-reset", o.state_reset, "with --state: ignore an existing state file and start empty");
  value("--checkpoint", "DUR", "with --state: save the state this often (default 60s)");
  value("--lock-timeout", "DUR",
        "with --state: wait this long for another run on the same FILE to end (default 0: fail at once)");
  app.add_flag("--drain", o.hold.drain,
               "with --state and --count or --keep last: write the held records at exit instead of keeping them in "
               "the state for the next run");
}

void declare_redis(ValueOptions& value) {
  value("--redis", "URL",
        "decide with a filter kept in Redis (module tlbf_redis.so), shared by every run that names it: "
        "redis://HOST[:PORT][/DB], or redis+cluster://HOST[:PORT] for a cluster");
  value("--redis-key", "NAME",
        "with --redis: the filter's key (a cluster's shards are NAME{0}...); reserved with -w, -e, -c, -a, "
        "--max-memory unless it exists");
  value("--redis-fallback", "WHAT",
        "with --redis, when the server is lost: stop (default: write what was decided, exit 1) | local (go on "
        "with a local filter, warned once)");
  value("--redis-shards", "N",
        "with redis+cluster://: shard filters to reserve when the filter is missing (default 4 per master)");
}

// Relations between options, checked by CLI11 while parsing. --help shows each with the
// option that names it.
void declare_relations(CLI::App& app) {
  app.get_option("--window")->excludes("--window-count");
  app.get_option("--key-regex")->excludes("--key");
  for (const char* name : {"--key", "--key-regex"}) app.get_option("--key-except")->excludes(name);
  for (const char* name : {"--checkpoint", "--state-reset", "--lock-timeout", "--drain"})
    app.get_option(name)->needs("--state");
  for (const char* name : {"--count-format", "--count-names"}) app.get_option(name)->needs("--count");
  // The state lives in Redis; the module keeps time windows, only inserts new keys and holds
  // its own memory cap (TLBF.INFO shows it); --explain would insert into a shared filter;
  // --multiline's late continuation lines follow a decision that Redis may not have given yet.
  for (const char* name : {"--state", "--window-count", "--refresh", "--explain", "--on-cap", "--multiline"})
    app.get_option("--redis")->excludes(name);
  app.get_option("--redis")->needs("--redis-key");
  for (const char* name : {"--redis-key", "--redis-fallback", "--redis-shards"}) app.get_option(name)->needs("--redis");
  app.get_option("--multiline-timeout")->needs("--multiline");
  for (const char* name : {"--multiline", "--null", "--key-regex"}) app.get_option("--records")->excludes(name);
}

}  // namespace

void declare_options(CLI::App& app, Options& o, OptionTexts& texts) {
  app.name("tlbf-dedup");
  app.description(kDescription);
  app.set_version_flag("-V,--version", std::string("tlbf-dedup ") + TLBF_VERSION);
  app.get_formatter()->column_width(32);
  app.footer(kFooter);

  ValueOptions value(app, texts);
  declare_input(app, value, o);
  declare_key(app, value, o);
  declare_time(app, value, o);
  declare_filter(app, value);
  declare_output(app, value, o);
  declare_state(app, value, o);
  declare_redis(value);
  app.add_flag("-q,--quiet", o.quiet, "no warnings on stderr");
  declare_relations(app);
}

}  // namespace tlbf_dedup
