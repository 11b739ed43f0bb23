// Key and time extraction (src/extract.hpp) for lines and JSON records.
#include <doctest/doctest.h>

#include <string>

#include "extract.hpp"
#include "record_reader.hpp"

namespace {
using namespace tlbf_dedup;

// A record with the reader's guarantee of readable padding after it.
struct PaddedRecord {
  explicit PaddedRecord(std::string_view text) : buf(text) {
    buf.append(RecordReader::kTailPadding, '\0');
    rec.data = buf.data();
    rec.size = text.size();
    rec.term_len = 0;
  }
  std::string buf;
  Record rec;
};

TimeParser auto_time() { return TimeParser(TimeFormat::auto_detect, std::nullopt, 2017); }

std::string key_of(Extractor& x, std::string_view text) {
  PaddedRecord r(text);
  Extracted e = x.extract(r.rec);
  REQUIRE(e.status == ExtractStatus::ok);
  return std::string(e.key);
}

ExtractStatus status_of(Extractor& x, std::string_view text) {
  PaddedRecord r(text);
  return x.extract(r.rec).status;
}

std::optional<tlbf::Time> time_of(Extractor& x, std::string_view text) {
  PaddedRecord r(text);
  return x.extract(r.rec).time.value();
}

std::string parts(std::initializer_list<std::string_view> ps) {
  std::string out;
  for (auto p : ps) append_key_part(out, p, false);
  return out;
}
}  // namespace

TEST_SUITE("extract") {
  TEST_CASE("lines: whole record, field lists, composite keys") {
    ExtractConfig cfg;
    auto whole = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*whole, "  a b  ") == "  a b  ");

    cfg.keys = {"1,6-10"};
    auto apache = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*apache, R"(1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326 x)") ==
          R"(1.2.3.4 "GET /a HTTP/1.0" 200 2326)");

    cfg.keys = {"2", "1"};
    auto comp = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*comp, "x y") == parts({"y", "x"}));
    // ("ab","c") and ("a","bc") differ.
    cfg.keys = {"1", "2"};
    auto two = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*two, "ab c") != key_of(*two, "a bc"));

    cfg.keys = {"3"};
    auto third = make_line_extractor(cfg, auto_time());
    CHECK(status_of(*third, "a b") == ExtractStatus::missing_key);
    cfg.keys = {"2-"};
    auto open = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*open, "a b  c") == "b c");
    CHECK(status_of(*open, "a") == ExtractStatus::missing_key);
  }

  TEST_CASE("lines: delimiter, regex, ignore-case") {
    ExtractConfig cfg;
    cfg.keys = {"2"};
    cfg.delimiter = ',';
    auto csv = make_line_extractor(cfg, auto_time());
    CHECK(key_of(*csv, "a,b c,d") == "b c");
    CHECK(key_of(*csv, "a,,d") == "");

    ExtractConfig re;
    re.key_regex = "id=([0-9]+)";
    auto rx = make_line_extractor(re, auto_time());
    CHECK(key_of(*rx, "GET /x?id=42&y=1") == "42");
    CHECK(status_of(*rx, "no id here") == ExtractStatus::missing_key);
    CHECK(key_of(*rx, std::string("\0id=7", 5)) == "7");  // NUL bytes before the match
    re.key_regex = "[a-z]+";
    auto whole_match = make_line_extractor(re, auto_time());
    CHECK(key_of(*whole_match, "12 abc 34") == "abc");
    re.key_regex = "(";
    CHECK_THROWS_AS(make_line_extractor(re, auto_time()), SpecError);

    ExtractConfig ic;
    ic.ignore_case = true;
    auto fold = make_line_extractor(ic, auto_time());
    CHECK(key_of(*fold, "HeLLo \xC3\x84") == "hello \xC3\x84");  // only ASCII folds

    // A composite key folds its parts, never its length prefixes: 84 = 'T' and 65 = 'A'.
    ExtractConfig ic2;
    ic2.ignore_case = true;
    ic2.keys = {"1", "2"};
    auto fold2 = make_line_extractor(ic2, auto_time());
    const std::string p1(84, 'X'), p2(65, 'y');
    CHECK(key_of(*fold2, p1 + " " + p2) == parts({std::string(84, 'x'), p2}));

    ExtractConfig bad;
    bad.keys = {"a.b"};
    CHECK_THROWS_AS(make_line_extractor(bad, auto_time()), SpecError);
  }

  TEST_CASE("lines: time fields joined by one space") {
    ExtractConfig cfg;
    cfg.keys = {"1"};
    cfg.time = "4,5";
    auto x = make_line_extractor(cfg, auto_time());
    CHECK(x->wants_time());
    CHECK(time_of(*x, "h - - [10/Oct/2000:13:55:36 -0700] r") == 971211336 * tlbf::kSecond);
    CHECK_FALSE(time_of(*x, "h - - junk junk r"));
    CHECK_FALSE(time_of(*x, "h - -"));  // too few fields: untimed, key still fine
    PaddedRecord short_rec("h - -");
    CHECK(x->extract(short_rec.rec).status == ExtractStatus::ok);
  }

  TEST_CASE("json: dotted paths, literal dotted names, pointers, value kinds") {
    ExtractConfig cfg;
    cfg.keys = {"a.b"};
    auto x = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*x, R"({"a":{"b":"v"}})") == "v");
    CHECK(key_of(*x, R"({"a":{"b":1},"a.b":"literal"})") == "literal");  // the literal member wins
    CHECK(key_of(*x, R"({"a.b":"literal","a":{"b":1}})") == "literal");
    CHECK(key_of(*x, R"({"a":{"b":12.50}})") == "12.50");  // numbers as written
    CHECK(key_of(*x, R"({"a":{"b":[1, 2]}})") == "[1, 2]");
    CHECK(key_of(*x, R"({"a":{"b":{"c":true}}})") == R"({"c":true})");
    CHECK(key_of(*x, R"({"a":{"b":"\u0041\n"}})") == "A\n");  // strings unescaped
    CHECK(key_of(*x, R"({"a":{"b":null}})") == "null");
    CHECK(status_of(*x, R"({"a":{"c":1}})") == ExtractStatus::missing_key);
    CHECK(status_of(*x, R"({"a":5})") == ExtractStatus::missing_key);
    CHECK(status_of(*x, R"([1,2])") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"("text")") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"a":{"b":)") == ExtractStatus::malformed);
    CHECK(status_of(*x, "") == ExtractStatus::malformed);
    CHECK(status_of(*x, "{\"a\":{\"b\":\"\xff\"}}") == ExtractStatus::malformed);

    cfg.keys = {"x.y.z"};
    auto deep = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*deep, R"({"x":{"y.z":"mixed"}})") == "mixed");
    CHECK(key_of(*deep, R"({"x.y":{"z":"mixed2"}})") == "mixed2");
    CHECK(key_of(*deep, R"({"x":{"y":{"z":"nested"}}})") == "nested");
    CHECK(key_of(*deep, R"({"x":{"q":1,"y":{"z":"after"}}})") == "after");

    cfg.keys = {"/a/b~1c"};
    auto ptr = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*ptr, R"({"a":{"b/c":"p"}})") == "p");

    cfg.keys = {"id", "q"};
    auto comp = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*comp, R"({"q":"x","id":7})") == parts({"7", "x"}));
    CHECK(key_of(*comp, R"({"id":"ab","q":"c"})") != key_of(*comp, R"({"id":"a","q":"bc"})"));

    cfg.keys = {"id"};
    auto dupkey = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*dupkey, R"({"id":1,"id":2})") == "1");  // first occurrence

    ExtractConfig whole;
    auto w = make_json_extractor(whole, auto_time());
    CHECK(key_of(*w, R"({"a":1})") == R"({"a":1})");

    ExtractConfig ic;
    ic.keys = {"u"};
    ic.ignore_case = true;
    auto fold = make_json_extractor(ic, auto_time());
    CHECK(key_of(*fold, R"({"u":"AbC"})") == "abc");

    ExtractConfig ic2;
    ic2.keys = {"u", "v"};
    ic2.ignore_case = true;
    auto fold2 = make_json_extractor(ic2, auto_time());
    const std::string long_part(84, 'Q');
    CHECK(key_of(*fold2, R"({"u":")" + long_part + R"(","v":"AbC"})") == parts({std::string(84, 'q'), "abc"}));
  }

  TEST_CASE("json: times from numbers and strings, time before key in the buffer") {
    ExtractConfig cfg;
    cfg.keys = {"k"};
    cfg.time = "t";
    auto x = make_json_extractor(cfg, auto_time());
    CHECK(time_of(*x, R"({"k":1,"t":1446249499322})") == 1446249499322 * tlbf::kMillisecond);
    CHECK(time_of(*x, R"({"k":1,"t":1763750000.001})") == 1763750000 * tlbf::kSecond + 1000000);
    CHECK(time_of(*x, R"({"k":1,"t":"2018-03-24T17:15:20Z"})") == 1521911720 * tlbf::kSecond);
    CHECK_FALSE(time_of(*x, R"({"k":1,"t":"soon"})"));
    CHECK_FALSE(time_of(*x, R"({"k":1,"t":[1]})"));
    CHECK_FALSE(time_of(*x, R"({"k":1})"));
    // A string key read after a string time must not be overwritten by it.
    CHECK(key_of(*x, R"({"t":"2018-03-24T17:15:20Z","k":"key"})") == "key");
    CHECK(key_of(*x, R"({"k":"key","t":"2018-03-24T17:15:20Z"})") == "key");

    ExtractConfig bad;
    bad.key_regex = "x";
    CHECK_THROWS_AS(make_json_extractor(bad, auto_time()), SpecError);
  }
}
