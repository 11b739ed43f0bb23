// Command-line parsing and validation (src/app/options.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/options.hpp"

namespace {
using namespace tlbf_dedup;

Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tlbf-dedup");
  auto o = parse_options(static_cast<int>(args.size()), args.data());
  REQUIRE(o);
  return *o;
}

std::string usage_error(std::vector<const char*> args) {
  args.insert(args.begin(), "tlbf-dedup");
  try {
    parse_options(static_cast<int>(args.size()), args.data());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_SUITE("options") {
  TEST_CASE("defaults") {
    Options o = parse({});
    CHECK(o.files.empty());
    CHECK(o.pipeline.format == InputFormat::auto_detect);
    CHECK(o.filter.span == 300 * tlbf::kSecond);
    CHECK(o.filter.algorithm == tlbf::Algorithm::tlbf);
    CHECK(o.filter.error_rate == 1e-5);
    CHECK(o.filter.capacity == 100000);
    CHECK(o.filter.max_memory_bytes == (1ULL << 30));
    CHECK(o.pipeline.on_error == OnError::pass);
    CHECK(o.stats == StatsFormat::none);
    CHECK(o.pipeline.refresh == Refresh::no);
    CHECK(!o.given.span);
    CHECK(!o.given.window_count);
    CHECK(!o.given.algorithm);
    CHECK(!o.given.error_rate);
    CHECK(!o.given.capacity);
    CHECK(!o.given.max_memory_bytes);
    CHECK(o.checkpoint == 60 * tlbf::kSecond);
  }

  TEST_CASE("every option reaches the Options") {
    Options o = parse({"-f",
                       "json",
                       "-z",
                       "-k",
                       "a.b",
                       "-k",
                       "c",
                       "-i",
                       "-t",
                       "ts",
                       "--time-format",
                       "%Y %m",
                       "--year",
                       "2017",
                       "-w",
                       "90s",
                       "-e",
                       "1e-3",
                       "-c",
                       "500",
                       "-a",
                       "exact",
                       "--max-memory",
                       "64M",
                       "--refresh",
                       "--mark=seen",
                       "--only-dups",
                       "--line-buffered",
                       "--on-error",
                       "fail",
                       "--stats=json",
                       "--progress",
                       "--state",
                       "s.bin",
                       "--state-reset",
                       "--checkpoint",
                       "5s",
                       "-q",
                       "in1",
                       "-",
                       "in2"});
    CHECK(o.pipeline.format == InputFormat::json);
    CHECK(o.null_terminated);
    CHECK(o.pipeline.extract.keys == std::vector<std::string>{"a.b", "c"});
    CHECK(o.pipeline.extract.ignore_case);
    CHECK(o.pipeline.extract.time == "ts");
    CHECK(o.time_format == TimeFormat::pattern);
    CHECK(o.time_pattern);
    CHECK(o.pipeline.clock.year == 2017);
    CHECK(o.filter.span == 90 * tlbf::kSecond);
    CHECK(o.filter.error_rate == 1e-3);
    CHECK(o.filter.capacity == 500);
    CHECK(o.filter.algorithm == tlbf::Algorithm::exact);
    CHECK(o.filter.max_memory_bytes == (64ULL << 20));
    CHECK(o.pipeline.refresh == Refresh::yes);
    CHECK(o.pipeline.output.mark);
    CHECK(o.pipeline.output.mark_name == "seen");
    CHECK(o.pipeline.output.only_dups);
    CHECK(o.pipeline.line_buffered);
    CHECK(o.pipeline.on_error == OnError::fail);
    CHECK(o.stats == StatsFormat::json);
    CHECK(o.pipeline.progress);
    CHECK(o.state_file == "s.bin");
    CHECK(o.state_reset);
    CHECK(o.checkpoint == 5 * tlbf::kSecond);
    CHECK(o.quiet);
    CHECK(o.files == std::vector<std::string>{"in1", "-", "in2"});
    // What was given is kept as typed values, to be weighed against a saved state.
    CHECK(o.given.span == 90 * tlbf::kSecond);
    CHECK(!o.given.window_count);
    CHECK(o.given.error_rate == 1e-3);
    CHECK(o.given.capacity == 500u);
    CHECK(o.given.algorithm == tlbf::Algorithm::exact);
    CHECK(o.given.max_memory_bytes == (64ULL << 20));
  }

  TEST_CASE("optional values only with '='") {
    Options o = parse({"--mark", "file.log", "--stats", "other.log"});
    CHECK(o.pipeline.output.mark);
    CHECK(o.pipeline.output.mark_name == "dup");
    CHECK(o.stats == StatsFormat::text);
    CHECK(o.files == std::vector<std::string>{"file.log", "other.log"});
  }

  TEST_CASE("a blank before a number, a flag with a value, an empty value after '=' are usage errors") {
    CHECK(usage_error({"-n", " -3"}) == "-n/--window-count ' -3': expected a whole number > 0");
    CHECK(usage_error({"-c", " 5"}) == "-c/--capacity ' 5': expected a whole number > 0");
    CHECK(usage_error({"--refresh=no"}) ==
          "--refresh=no: --refresh is a flag and takes no value; give --refresh alone, or leave it out");
    CHECK(usage_error({"--quiet=true"}).find("--quiet is a flag") != std::string::npos);
    CHECK(usage_error({"--mark=", "file.log"}) == "--mark=NAME: the name is empty");
    CHECK(usage_error({"--state=", "file.log"}) == "--state: empty file name");
    CHECK(usage_error({"--window=", "file.log"}) ==
          "-w/--window '': expected a duration > 0 such as 250ms, 30s, 5m, 2h, 1d");
    // After "--", words are files, whatever they look like.
    CHECK(parse({"--", "--refresh=no", "--state="}).files == std::vector<std::string>{"--refresh=no", "--state="});
    CHECK(parse({"--refresh"}).pipeline.refresh == Refresh::yes);
    CHECK(parse({"-n", "3"}).filter.window_count == 3);
  }

  TEST_CASE("--stats-file: the format is --stats's, else by the file's name") {
    CHECK(parse({"--stats-file", "s.json"}).stats == StatsFormat::json);
    CHECK(parse({"--stats-file", "s.txt"}).stats == StatsFormat::text);
    CHECK(parse({"--stats-file", "stats"}).stats == StatsFormat::text);
    CHECK(parse({"--stats=json", "--stats-file", "s.txt"}).stats == StatsFormat::json);
    CHECK(parse({"--stats", "--stats-file", "s.json"}).stats == StatsFormat::text);
    CHECK(parse({"--stats-file", "out/s.json"}).stats_file == "out/s.json");
    CHECK(parse({}).stats_file.empty());
    CHECK(usage_error({"--stats-file="}) == "--stats-file: empty file name");
  }

  TEST_CASE("count window picks apbf, delimiter forms") {
    Options o = parse({"-n", "1000", "-d", "\\t"});
    CHECK(o.filter.window_count == 1000);
    CHECK(o.filter.span == 0);
    CHECK(o.filter.algorithm == tlbf::Algorithm::apbf);
    CHECK(o.pipeline.extract.delimiter == '\t');
    CHECK(o.given.window_count == 1000u);
    CHECK(!o.given.span);
    CHECK(!o.given.algorithm);  // apbf was chosen, not given
  }

  TEST_CASE("--records and --key-except frame and key JSON, and are recorded for a state") {
    Options o = parse({"--records", "log.Records", "--key-except", "ts,meta.host"});
    CHECK(o.reader.records_path == std::vector<std::string>{"log", "Records"});
    CHECK(o.reader.format == InputFormat::json);
    CHECK(o.pipeline.format == InputFormat::json);
    CHECK(o.pipeline.extract.key_except == std::vector<std::string>{"ts", "meta.host"});
    REQUIRE(o.key_time_options.size() == 2);
    CHECK(o.key_time_options[0] == RecordedOption{"--records", {"log.Records"}});
    CHECK(o.key_time_options[1] == RecordedOption{"--key-except", {"ts,meta.host"}});
    CHECK(parse({}).reader.format == InputFormat::auto_detect);
    CHECK(parse({"-f", "lines"}).reader.format == InputFormat::lines);
    CHECK(parse({"--key-regex", "a(b)"}).reader.format == InputFormat::lines);
    CHECK(usage_error({"--records", "a..b"}).find("--records 'a..b': expected member names") != std::string::npos);
    CHECK(usage_error({"--key-except", "a,"}).find("--key-except 'a,': expected member paths") != std::string::npos);
    // A JSON pointer's dots are part of its names: "/a..b" is the member "a..b".
    CHECK(parse({"--key-except", "/id.orig_p,/a..b"}).pipeline.extract.key_except ==
          std::vector<std::string>{"/id.orig_p", "/a..b"});
    CHECK(usage_error({"--records", "R", "-f", "lines"}).find("--records cannot be combined with -f lines") !=
          std::string::npos);
    CHECK(usage_error({"--key-except", "ts", "-k", "id"}).find("excludes") != std::string::npos);
  }

  TEST_CASE("--count and --keep last hold records, decided by an exact table, and are recorded for a state") {
    Options o = parse({"--count", "--keep", "last", "-z", "--count-format", "{record}\\t{count}"});
    CHECK(o.hold.count);
    CHECK(o.hold.keep == Keep::last);
    CHECK(o.hold.active());
    CHECK(o.pipeline.output.count);
    CHECK(o.pipeline.output.terminator == '\0');
    CHECK(o.filter.algorithm == tlbf::Algorithm::exact);
    REQUIRE(o.key_time_options.size() == 3);  // -z frames the records, so it is recorded too
    CHECK(o.key_time_options[0] == RecordedOption{"--null", {}});
    CHECK(o.key_time_options[1] == RecordedOption{"--count", {}});
    CHECK(o.key_time_options[2] == RecordedOption{"--keep", {"last"}});
    CHECK_FALSE(parse({"--keep", "first"}).hold.active());
    CHECK(parse({"-n", "10", "--count"}).filter.algorithm == tlbf::Algorithm::exact);
    CHECK(usage_error({"--count", "-a", "gebf"}).find("-a/--algorithm 'gebf'") != std::string::npos);
    CHECK(usage_error({"--count", "-c", "10"}).find("-c/--capacity cannot be combined with --count") !=
          std::string::npos);
    CHECK(usage_error({"--keep", "last", "--mark"}).find("--mark cannot be combined with --keep last") !=
          std::string::npos);
    CHECK(usage_error({"--count", "--count-names", "a,b"}).find("--count-names 'a,b'") != std::string::npos);
    CHECK(usage_error({"--count-names", "a,b,c"}).find("--count") != std::string::npos);  // needs --count
  }

  TEST_CASE("usage errors name the option") {
    CHECK(usage_error({"-w", "0"}).find("--window") != std::string::npos);
    CHECK(usage_error({"-w", "5 parsecs"}).find("--window") != std::string::npos);
    CHECK(usage_error({"-w", "5", "-n", "3"}) == "--window excludes --window-count: give one or the other");
    CHECK(usage_error({"-n", "-3"}).find("--window-count") != std::string::npos);
    CHECK(usage_error({"-e", "1"}).find("--error-rate") != std::string::npos);
    CHECK(usage_error({"-c", "0"}).find("--capacity") != std::string::npos);
    CHECK(usage_error({"-a", "bloom"}).find("--algorithm") != std::string::npos);
    CHECK(usage_error({"-a", "apbf", "-w", "5"}).find("apbf") != std::string::npos);
    // The library's one check of a filter parameter speaks with the option's name and the
    // value as typed.
    CHECK(usage_error({"-e", "1.50"}).find("-e/--error-rate '1.50': ") == 0);
    CHECK(usage_error({"-a", "apbf", "-w", "5"}).find("-a/--algorithm 'apbf': needs a count window") == 0);
    CHECK(usage_error({"-a", "tlbf", "-n", "5"}).find("tlbf") != std::string::npos);
    CHECK(usage_error({"-f", "xml"}).find("--format") != std::string::npos);
    CHECK(usage_error({"-d", "ab"}).find("--delimiter") != std::string::npos);
    CHECK(usage_error({"-t", "1", "--time-format", "%Q"}).find("%Q") != std::string::npos);
    CHECK(usage_error({"-t", "1", "--time-format", "iso"}).find("--time-format") != std::string::npos);
    CHECK(usage_error({"--time-format", "epoch"}).find("without -t") != std::string::npos);
    CHECK(usage_error({"--year", "12"}).find("--year") != std::string::npos);
    CHECK(usage_error({"--max-memory", "1"}).find("--max-memory") != std::string::npos);
    CHECK(usage_error({"--on-error", "skip"}).find("--on-error") != std::string::npos);
    CHECK(usage_error({"--stats=xml"}).find("--stats") != std::string::npos);
    CHECK(usage_error({"--checkpoint", "5s"}).find("--state") != std::string::npos);
    CHECK(usage_error({"--state-reset"}).find("--state") != std::string::npos);
    CHECK(usage_error({"--key-regex", "("}).find("--key-regex") != std::string::npos);
    CHECK(usage_error({"--key-regex", "a", "-k", "1"}).find("--key excludes --key-regex") == 0);
    CHECK(usage_error({"--checkpoint", "5s"}) == "--checkpoint requires --state");
    CHECK(usage_error({"--state-reset"}) == "--state-reset requires --state");
    CHECK(usage_error({"-f", "lines", "-k", "a.b"}).find("a.b") != std::string::npos);
    CHECK(usage_error({"--mark="}).find("--mark") != std::string::npos);
    CHECK(usage_error({"--no-such-option"}).find("no-such-option") != std::string::npos);
  }

  TEST_CASE("a value message names the option as --help spells it, and the text as typed") {
    CHECK(usage_error({"-a", "bloom"}) == "-a/--algorithm 'bloom': expected tlbf, apbf, gebf, exact or tagged");
    CHECK(usage_error({"--max-future", "36501d"}) == "--max-future '36501d': longer than the longest duration, 36500d");
    CHECK(usage_error({"--multiline", "x", "--multiline-timeout", "2h"}) ==
          "--multiline-timeout '2h': expected a duration from 0 to 1h, such as 1s or 200ms");
    CHECK(usage_error({"--max-record", "0"}) == "--max-record '0': expected a size from 1 byte to 1T, such as 64M");
    CHECK(usage_error({"-d", "ab"}) == "-d/--delimiter 'ab': expected a single byte");
    CHECK(usage_error({"--top", "0"}) == "--top '0': expected a whole number from 1 to 10000");
    CHECK(usage_error({"-n", "0x10"}) == "-n/--window-count '0x10': expected a whole number > 0");
    CHECK(usage_error({"-t", ""}) == "-t/--time: empty specification");
    CHECK(usage_error({"--mark=", ""}) == "--mark=NAME: the name is empty");
    // A value written after '=' is shown so.
    CHECK(usage_error({"--stats=yaml"}) == "--stats='yaml': expected text or json");
    CHECK(usage_error({"--explain=x"}) == "--explain='x': expected a whole number > 0");
    CHECK(usage_error({"--mask", "bad"}) ==
          "--mask 'bad': unknown mask 'bad'; expected a comma list of numbers, hex, uuid, ip, quoted");
  }

  TEST_CASE("of two mistakes, the same one is always reported") {
    // CLI11's own checks (relations, unknown options, repeated values, flag values) come
    // before any value's rule.
    CHECK(usage_error({"-w", "0", "-n", "5"}) == "--window excludes --window-count: give one or the other");
    CHECK(usage_error({"-w", "0", "--bogus"}) == "The following argument was not expected: --bogus");
    CHECK(usage_error({"-w", "0", "-w", "5"}) == "--window: At Most 1 required but received 2");
    CHECK(usage_error({"-f", "xml", "--quiet=bad"}) ==
          "--quiet=bad: --quiet is a flag and takes no value; give --quiet alone, or leave it out");
    CHECK(usage_error({"--max-memory", "1", "--state-reset"}) == "--state-reset requires --state");
    // Then the rules, stage by stage: input, key, time, filter, output, state, Redis.
    CHECK(usage_error({"-a", "bloom", "-e", "2"}).find("-a/--algorithm 'bloom'") == 0);
    CHECK(usage_error({"-e", "2", "-c", "0"}).find("-e/--error-rate '2'") == 0);
    CHECK(usage_error({"--on-cap", "x", "--mark=", "", "--on-error", "y"}) == "--mark=NAME: the name is empty");
    CHECK(usage_error({"--on-cap", "x", "--on-error", "y"}).find("--on-error 'y'") == 0);
    CHECK(usage_error({"--threads", "3", "--explain=0"}).find("--threads '3'") == 0);
    CHECK(usage_error({"-t", "", "--missing", "x"}) == "-t/--time: empty specification");
    CHECK(usage_error({"--year", "12", "--time-format", "epoch"}).find("--time-format has no effect") == 0);
    CHECK(usage_error({"--multiline", "(", "-f", "json"}).find("--multiline cannot be combined with -f json") == 0);
    CHECK(usage_error({"--missing", "null", "-k", "a", "--mask", "bad"}).find("--mask 'bad'") == 0);
    CHECK(usage_error({"--redis", "redis://h", "--redis-key", "k", "--redis-shards", "4"}) ==
          "--redis-shards has no effect without a redis+cluster:// URL");
    CHECK(usage_error({"--redis", "redis://h", "--redis-key", "k", "-w", "1.0001s"}) ==
          "-w/--window '1.0001s': with --redis, a whole number of milliseconds");
  }

  TEST_CASE("--redis: a host, an IPv4 address or a bracketed IPv6 one, a port, a database") {
    const auto url = [](const char* text) { return parse({"--redis", text, "--redis-key", "k"}).redis->url; };
    CHECK(url("redis://h").host == "h");
    CHECK(url("redis://h").port == 6379);
    CHECK(url("redis://127.0.0.1:6392/3").port == 6392);
    CHECK(url("redis://127.0.0.1:6392/3").db == 3);
    CHECK(url("redis://[::1]:6392").host == "::1");
    CHECK(url("redis://[::1]:6392").port == 6392);
    CHECK(url("redis://[fe80::1]/2").host == "fe80::1");
    CHECK(url("redis://[fe80::1]/2").port == 6379);
    CHECK(url("redis://[fe80::1]/2").db == 2);
    CHECK(url("redis+cluster://[::1]:7000").cluster);
    for (const char* bad : {"redis://::1:6392", "redis://[::1", "redis://[::1]6392", "redis://[]:1"})
      CHECK(usage_error({"--redis", bad, "--redis-key", "k"}).find("--redis '") == 0);
    CHECK(usage_error({"--redis", "redis://::1", "--redis-key", "k"}).find("in brackets, such as redis://[::1]:6379") !=
          std::string::npos);
  }

  TEST_CASE("--version (as --help) wins over a bad value") {
    const char* args[] = {"tlbf-dedup", "--version", "-w", "0"};
    CHECK(!parse_options(4, args));
  }
}
