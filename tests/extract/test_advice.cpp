// Advice for records without a readable key or time (src/extract/advice.hpp): the fields a
// record has, and a --time-format that reads the very text it is suggested for.
#include <doctest/doctest.h>

#include <string>

#include "extract/advice.hpp"

namespace {
using namespace tlbf_dedup;

// The suggestion, and the time it reads `text` as when given as --time-format.
std::string reading(const std::string& text) {
  const std::optional<std::string> p = suggest_time_format(text);
  if (!p) return "none";
  std::optional<TimePattern> compiled = TimePattern::compile(*p);
  REQUIRE(compiled);
  TimeParser parser(TimeFormat::pattern, std::move(compiled), 2000);
  const TimeReading t = parser.parse(text);
  REQUIRE(t.parsed);
  return *p + " " + format_rfc3339(t.time);
}

}  // namespace

TEST_SUITE("advice") {
  TEST_CASE("a --time-format that reads the text, for the shapes logs use") {
    CHECK(reading("2005.11.09") == "%Y.%m.%d 2005-11-09T00:00:00Z");
    CHECK(reading("2005-06-03-15.42.50.675872") == "%Y-%m-%d-%H.%M.%S.%f 2005-06-03T15:42:50.675872Z");
    CHECK(reading("20171223-22:15:35:11") == "%Y%m%d-%H:%M:%S:%f 2017-12-23T22:15:35.11Z");
    CHECK(reading("03-17 16:13:38.811") == "%m-%d %H:%M:%S.%f 2000-03-17T16:13:38.811Z");
    CHECK(reading("[10.30 16:49:06]") == "%m.%d %H:%M:%S 2000-10-30T16:49:06Z");
    CHECK(reading("081109 203615") == "%y%m%d %H%M%S 2008-11-09T20:36:15Z");
    CHECK(reading("28/02/2017 10:00:05") == "%d/%m/%Y %H:%M:%S 2017-02-28T10:00:05Z");
    CHECK(reading("12 March 2017 10:00 PM") == "%d %B %Y %I:%M %p 2017-03-12T22:00:00Z");
    CHECK(reading("2017.03.12 10:00:00 +0100") == "%Y.%m.%d %H:%M:%S %z 2017-03-12T09:00:00Z");
    CHECK(reading("no time here") == "none");
    CHECK(reading("") == "none");
  }

  TEST_CASE("a date that reads either way names both") {
    std::string other;
    CHECK(suggest_time_format("09-06-2017 20:10:1", &other) == "%m-%d-%Y %H:%M:%S");
    CHECK(other == "%d-%m-%Y %H:%M:%S");
    other.clear();
    CHECK(suggest_time_format("13-06-2017 20:10:01", &other) == "%d-%m-%Y %H:%M:%S");
    CHECK(other.empty());
  }

  TEST_CASE("the fields a record has: JSON members along the path, numbered line fields") {
    CHECK(describe_fields(R"({"eventVersion":"1.05","userIdentity":{"type":"IAMUser"},"eventSource":"s3"})",
                          InputFormat::json, -1,
                          "eventTime") == "its members: eventVersion, userIdentity, eventSource");
    CHECK(describe_fields(R"({"detail":{"a":1,"b":2},"x":3})", InputFormat::json, -1, "detail.time") ==
          "the members of detail: a, b");
    CHECK(describe_fields(R"({"a.b":{"c":1}})", InputFormat::json, -1, "a.b.d") == "the members of a.b: c");
    CHECK(describe_fields(R"({"detail":{"a":1}})", InputFormat::json, -1, "/detail/time") ==
          "the members of detail: a");
    CHECK(describe_fields("not json", InputFormat::json, -1) == "it is not a readable JSON object");
    CHECK(describe_fields("Mar 27 13:06:56 host sshd[1]: hello", InputFormat::lines, -1) ==
          R"(it has 6 fields: 1 "Mar", 2 "27", 3 "13:06:56", 4 "host", 5 "sshd[1]:", 6 "hello")");
    CHECK(describe_fields("a,b\n", InputFormat::lines, ',') == R"(it has 2 fields: 1 "a", 2 "b")");
    std::string many = "{";
    for (int i = 0; i < 20; ++i) many += (i ? ",\"m" : "\"m") + std::to_string(i) + "\":1";
    CHECK(describe_fields(many + "}", InputFormat::json, -1).find(", m11, ... (20 in all)") != std::string::npos);
  }

  TEST_CASE("why a JSON key or time is not read: where its path stops, what the record is") {
    // Issue 52, W2: a path through a scalar or past an array's end is not an absent member.
    CHECK(json_path_stop(R"({"a":{"b":{"c":1}}})", "a.b.c.d") == "a.b.c is the number 1, not an object");
    CHECK(json_path_stop(R"({"a":{"b":{"c":1}}})", "/a/b/c/d") == "/a/b/c is the number 1, not an object");
    CHECK(json_path_stop(R"({"a":"s"})", "a.0") == R"(a is the string "s", not an object or array)");
    CHECK(json_path_stop(R"({"a":null})", "a.b") == "a is null, not an object");
    CHECK(json_path_stop(R"({"a":[1,2]})", "a.5") == "a is an array of 2 elements, without element 5");
    CHECK(json_path_stop(R"({"a":[1,2]})", "a.x") == R"(a is an array, and "x" is not an index)");
    CHECK(json_path_stop(R"({"a.b":{"c":true}})", "a.b.c.d") == "a.b.c is true, not an object");
    // Of the readings of the dots, the one that goes furthest speaks; one that reaches a value,
    // or a member that is simply absent, leaves nothing to say.
    CHECK(json_path_stop(R"({"a":1,"a.b":{"c":2}})", "a.b.c.d") == "a.b.c is the number 2, not an object");
    CHECK(json_path_stop(R"({"a":1,"a.b":{"c":{"d":3}}})", "a.b.c.d") == "");
    CHECK(json_path_stop(R"({"a":{"c":1}})", "a.b") == "");
    CHECK(json_path_stop("[1]", "a.b") == "");
    CHECK(json_path_stop(R"({"t":{"x":1}})", "t") == "");
    CHECK(json_path_stop(R"({"t":{"x":1}})", "t", true) == "t is an object");
    CHECK(json_path_stop(R"({"t":[1]})", "/t", true) == "/t is an array");

    ExtractConfig cfg;
    cfg.keys = {"a.b.c.d"};
    Extracted x;
    x.status = ExtractStatus::missing_key;
    x.absent_part = 1;
    CHECK(describe_missing_key(cfg, x, InputFormat::json, R"({"a":{"b":{"c":1}}})") ==
          "the key (-k a.b.c.d) cannot be read: a.b.c is the number 1, not an object");
    CHECK(describe_missing_key(cfg, x, InputFormat::json, R"({"a":{"b":{}}})") == "the key (-k a.b.c.d) is absent");
    cfg.keys = {};
    cfg.key_except = {"x"};
    x.status = ExtractStatus::too_deep;
    x.absent_part = 0;
    CHECK(describe_missing_key(cfg, x, InputFormat::json) ==
          "the record nests arrays and objects deeper than 1024 levels, too deep to key (--key-except)");

    // A record that is valid JSON says what it is; a broken one, what broke.
    CHECK(describe_malformed_json("[1,2]") == "not a JSON object: an array");
    CHECK(describe_malformed_json("5") == "not a JSON object: the number 5");
    CHECK(describe_malformed_json(R"("s")") == R"(not a JSON object: the string "s")");
    CHECK(describe_malformed_json("null") == "not a JSON object: null");
    CHECK(describe_malformed_json(std::string("{\"id\":1}\0{\"id\":1}", 17)) ==
          "not a readable JSON object: a NUL byte at byte 9 (NUL is not JSON; -z reads records separated by NUL)");
    CHECK(describe_malformed_json(R"({"id":)") ==
          "not a readable JSON object (a comma, colon, brace or bracket missing or extra, or the record cut short)");
    CHECK(describe_malformed_json("{\"id\":\"\xff\"}") == "not a readable JSON object (invalid UTF-8)");
    CHECK(describe_malformed_json("not json") == "not a readable JSON object (a word that is not true, false or null)");
    // Deeper than simdjson's usual 1024 levels: valid, and read as such.
    const std::string deep = R"({"b":1,"a":)" + std::string(1100, '[') + std::string(1100, ']') + "}";
    CHECK(describe_malformed_json(deep).find("deeper than 1024 levels") != std::string::npos);
    CHECK(describe_fields(deep, InputFormat::json, -1) == "its members: b, a");
  }

  TEST_CASE("untimed advice fits the cause") {
    ExtractConfig cfg;
    cfg.time = "eventTime";
    TimeReading absent;
    CHECK(untimed_advice(cfg, R"({"a":1,"b":2})", InputFormat::json, absent) ==
          "-t eventTime is not in the record; its members: a, b");
    TimeReading present;
    present.present = true;
    present.text = "2005.11.09";
    CHECK(untimed_advice(cfg, "{}", InputFormat::json, present) == "--time-format '%Y.%m.%d' reads it");
    present.text = "01-02-2017 10:00:00";
    CHECK(untimed_advice(cfg, "{}", InputFormat::json, present) ==
          "--time-format '%m-%d-%Y %H:%M:%S' reads it (or '%d-%m-%Y %H:%M:%S', if the day comes first)");
    TimeReading container;  // an object where the time is: present to the eye, not as a time
    CHECK(untimed_advice(cfg, R"({"eventTime":{"s":1}})", InputFormat::json, container) ==
          "-t eventTime leads to no time: eventTime is an object");
    present.text = "garbage";
    CHECK(untimed_advice(cfg, "{}", InputFormat::json, present).find("name its format with --time-format") == 0);
    cfg.time = "7";
    CHECK(untimed_advice(cfg, "a b", InputFormat::lines, absent) ==
          R"(-t 7 is not in the record; it has 2 fields: 1 "a", 2 "b")");
  }

  TEST_CASE("sorting one input: a command where the time sorts as text, none where it does not") {
    ExtractConfig lines;
    lines.time = "1,2";
    CHECK(sort_advice(lines, InputFormat::lines, "", "2017-01-01 00:00:00", "logs/app.log") ==
          "sort it by time first: LC_ALL=C sort -s -b -k1,2 logs/app.log > logs/app.sorted.log");
    CHECK(sort_advice(lines, InputFormat::lines, "", "2017-01-01 00:00:00", "(stdin)") ==
          "sort it by time first: ... | LC_ALL=C sort -s -b -k1,2 | tlbf-dedup ...");
    lines.time = "3";
    lines.delimiter = ',';
    CHECK(sort_advice(lines, InputFormat::lines, "", "1485000000", "a.csv") ==
          "sort it by time first: LC_ALL=C sort -s -t ',' -k3,3 a.csv > a.sorted.csv");
    CHECK(sort_advice(lines, InputFormat::lines, "", "[10/Oct/2000:13:55:36", "access") ==
          "sort it by time first (its time text does not sort as text)");
    ExtractConfig json;
    json.time = "@timestamp";
    CHECK(sort_advice(json, InputFormat::json, R"({"@timestamp":"2017-01-01T00:00:00Z"})", "2017-01-01T00:00:00Z",
                      "e.ndjson") ==
          R"(sort it by time first: jq -c -s 'sort_by(.["@timestamp"])[]' e.ndjson > e.sorted.ndjson)");
    json.time = "event.created";
    CHECK(sort_advice(json, InputFormat::json, R"({"event":{"created":1}})", "1", "e") ==
          "sort it by time first: jq -c -s 'sort_by(.event.created)[]' e > e.sorted");
    json.time = "id.ts";  // a member literally named so, as Zeek writes id.orig_h
    CHECK(sort_advice(json, InputFormat::json, R"({"id.ts":1})", "1", "e") ==
          R"(sort it by time first: jq -c -s 'sort_by(.["id.ts"])[]' e > e.sorted)");
  }

  TEST_CASE("the tally of untimed records: the largest group, the first of those tied") {
    AdviceTally tally;
    CHECK_FALSE(tally.most_common());
    TimeReading present;
    present.present = true;
    const TimeReading absent;
    tally.add(present, "--time-format '%d-%b-%Y' reads it", "\"05-Mar-2024\"");
    tally.add(absent, "-t 1 is not in the record; it has 1 field: 1 \"a\"", "(field absent)");
    tally.add(absent, "-t 1 is not in the record; it has 1 field: 1 \"b\"", "(field absent)");
    CHECK(tally.most_common()->advice == "-t 1 is not in the record; it has 1 field: 1 \"a\"");
    CHECK(tally.most_common()->count == 2);  // records without the field are one group
    for (int i = 0; i < 3; ++i) tally.add(present, "--time-format '%Y.%m.%d' reads it", "\"2024.03.05\"");
    CHECK(tally.most_common()->advice == "--time-format '%Y.%m.%d' reads it");
    CHECK(tally.most_common()->example == "\"2024.03.05\"");
    CHECK(tally.most_common()->count == 3);
    CHECK(tally.first()->example == "\"05-Mar-2024\"");
    tally.add(present, "--time-format '%d-%b-%Y' reads it", "\"06-Mar-2024\"");
    tally.add(present, "--time-format '%d-%b-%Y' reads it", "\"07-Mar-2024\"");
    CHECK(tally.most_common() == tally.first());  // 3 and 3: the earlier group
    // Only so many kinds are kept; later ones are not counted, the kept ones still are.
    for (std::size_t i = 0; i < 2 * AdviceTally::kMostGroups; ++i)
      tally.add(present, "advice " + std::to_string(i), "x");
    for (int i = 0; i < 2; ++i) tally.add(present, "--time-format '%Y.%m.%d' reads it", "y");
    CHECK(tally.most_common()->count == 5);
  }
}
