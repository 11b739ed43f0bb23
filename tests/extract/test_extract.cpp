// Key and time extraction (src/extract/extract.hpp) for lines and JSON records.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "extract/extract.hpp"
#include "input/record_reader.hpp"
#include "padded_record.hpp"

namespace {
using namespace tlbf_dedup;

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
    CHECK_FALSE(has_composite_key(re));

    // Two or more groups: a composite key, each group a part (masked and folded as parts are).
    ExtractConfig two;
    two.key_regex = "user=([a-z]+) .* (GET|POST)";
    two.ignore_case = true;
    CHECK(has_composite_key(two));
    auto groups = make_line_extractor(two, auto_time());
    const std::string want = parts({"ann", "get"});
    CHECK(key_of(*groups, "user=ann x GET /") == want);
    CHECK(key_of(*groups, "USER=ann y get /z") == want);
    CHECK(key_of(*groups, "user=ann x POST /") != want);
    CHECK(status_of(*groups, "user=ann") == ExtractStatus::missing_key);
    // The parts are length-prefixed: ("ab","c") and ("a","bc") differ.
    ExtractConfig split;
    split.key_regex = "^([a-c]+)-?([a-c]+)$";
    auto split_key = make_line_extractor(split, auto_time());
    CHECK(key_of(*split_key, "ab-c") != key_of(*split_key, "a-bc"));
    ExtractConfig masked;
    masked.key_regex = "(user [0-9]+) (did [a-z]+)";
    masked.mask = *KeyMask::parse("numbers", nullptr);
    auto masked_key = make_line_extractor(masked, auto_time());
    CHECK(key_of(*masked_key, "user 12 did x") == key_of(*masked_key, "user 345 did x"));

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

  TEST_CASE("json: dotted paths, literal dotted names, pointers") {
    ExtractConfig cfg;
    cfg.keys = {"a.b"};
    auto x = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*x, R"({"a":{"b":"v"}})") == "v");
    CHECK(key_of(*x, R"({"a":{"b":1},"a.b":"literal"})") == "literal");  // the literal member wins
    CHECK(key_of(*x, R"({"a.b":"literal","a":{"b":1}})") == "literal");
    CHECK(status_of(*x, R"({"a":{"c":1}})") == ExtractStatus::missing_key);
    CHECK(status_of(*x, R"({"a":5})") == ExtractStatus::missing_key);
    CHECK(status_of(*x, R"([1,2])") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"("text")") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"a":{"b":)") == ExtractStatus::malformed);
    CHECK(status_of(*x, "") == ExtractStatus::blank);
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

    cfg.keys = {"/a/b~2"};
    CHECK_THROWS_AS(make_json_extractor(cfg, auto_time()), SpecError);

    cfg.keys = {"id"};
    auto dupkey = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*dupkey, R"({"id":"1","id":"2"})") == "1");  // first occurrence

    ExtractConfig whole;
    auto w = make_json_extractor(whole, auto_time());
    CHECK(key_of(*w, R"({"a":1})") == R"({"a":1})");
  }

  TEST_CASE("json: dotted paths and pointers index arrays") {
    ExtractConfig cfg;
    cfg.keys = {"a.0.b"};
    auto dotted = make_json_extractor(cfg, auto_time());
    cfg.keys = {"/a/0/b"};
    auto pointer = make_json_extractor(cfg, auto_time());
    for (Extractor* x : {dotted.get(), pointer.get()}) {
      CHECK(key_of(*x, R"({"a":[{"b":"first"},{"b":"second"}]})") == "first");
      CHECK(key_of(*x, R"({"a":{"0":{"b":"named"}}})") == "named");  // an object is looked up by name
      CHECK(status_of(*x, R"({"a":[]})") == ExtractStatus::missing_key);
      CHECK(status_of(*x, R"({"a":["s"]})") == ExtractStatus::missing_key);
      CHECK(status_of(*x, R"({"a":"s"})") == ExtractStatus::missing_key);
    }
    cfg.keys = {"a.1"};
    auto second = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*second, R"({"a":["x","y"]})") == "y");
    CHECK(status_of(*second, R"({"a":["x"]})") == ExtractStatus::missing_key);
    cfg.keys = {"a.01"};  // not an index: no leading zeros, as in JSON pointers
    auto zero = make_json_extractor(cfg, auto_time());
    CHECK(status_of(*zero, R"({"a":["x","y"]})") == ExtractStatus::missing_key);
    cfg.keys = {"a.1.0"};
    auto nested = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*nested, R"({"a":[[],["in"]]})") == "in");
    cfg.keys = {"a.0.b"};  // a literal "0.b" in an element is found by the object rule
    auto literal = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*literal, R"({"a":{"0.b":"lit"}})") == "lit");
    CHECK(key_of(*literal, R"({"a.0":{"b":"lit2"}})") == "lit2");
  }

  TEST_CASE("json: keys are typed values") {
    ExtractConfig cfg;
    cfg.keys = {"k"};
    auto x = make_json_extractor(cfg, auto_time());
    auto key = [&](std::string_view value) { return key_of(*x, std::string(R"({"k":)") + std::string(value) + "}"); };
    using namespace json_key;
    CHECK(key(R"("1")") == "1");
    CHECK(key("1") == std::string{kNumber} + "1");
    CHECK(key("1") != key(R"("1")"));
    CHECK(key("null") == std::string{kNull});
    CHECK(key("null") != key(R"("null")"));
    CHECK(key("true") == std::string{kTrue});
    CHECK(key("true") != key(R"("true")"));
    CHECK(key("false") != key("true"));
    CHECK(key(R"("\u0041\n")") == "A\n");  // strings unescaped
    CHECK(key(R"("a\u0041")") == key(R"("aA")"));
    CHECK(key(R"("\/")") == key(R"("/")"));
    // Numbers by value: however written, an equal value is one key.
    CHECK(key("1.0") == key("1"));
    CHECK(key("10e-1") == key("1"));
    CHECK(key("0.1E+1") == key("1"));
    CHECK(key("-0") == key("0"));
    CHECK(key("-0.0e5") == key("0"));
    CHECK(key("12.50") == std::string{kNumber} + "125e-1");
    CHECK(key("1.5") != key("15"));
    CHECK(key("100") != key("1"));
    CHECK(key("-7") != key("7"));
    CHECK(key("18446744073709551617") != key("18446744073709551616"));  // exact beyond 64 bits
    // Integers of 8 digits and more take a word-at-a-time path; it must agree with the rest.
    CHECK(key("12345678901") == std::string{kNumber} + "12345678901");
    CHECK(key("1234567890.0") == key("1234567890"));
    CHECK(key("123456789e1") == key("1234567890"));
    CHECK(key("-12345678") == std::string{kNumber} + "-12345678");
    CHECK(key("1" + std::string(39, '0')) == key("1e39"));
    CHECK(key("1" + std::string(40, '0')) == key("1e40"));
    CHECK(status_of(*x, R"({"k":123456789012345x})") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"k":1234567890123-4})") == ExtractStatus::malformed);
    // Arrays in order, objects by content.
    CHECK(key("[1, 2]") == key("[1,2]"));
    CHECK(key("[1,2]") != key("[2,1]"));
    CHECK(key("[1,2]") != key("[[1,2]]"));
    CHECK(key(R"(["a","b"])") != key(R"(["ab"])"));
    CHECK(key(R"({"a":1,"b":[true,null]})") == key(R"({ "b" : [ true , null ] , "a" : 1.0 })"));
    CHECK(key(R"({"a":1})") != key(R"({"a":"1"})"));
    CHECK(key(R"({"a":{"x":1,"y":2}})") == key(R"({"a":{"y":2,"x":1}})"));
    CHECK(key(R"({"\u0061":1})") == key(R"({"a":1})"));
    CHECK(key(R"({"a":1,"a":2})") == key(R"({"a":1})"));  // the first of equal names, as paths find it
    CHECK(key(R"({"a":1,"a":2})") != key(R"({"a":2})"));
    CHECK(key("{}") != key("[]"));
    CHECK(key("[]") != key(R"("")"));
    // A value that is not JSON where the key is read is malformed, not a key.
    CHECK(status_of(*x, R"({"k":tru})") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"k":nul})") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"k":01})") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"k":1.})") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"k":[1,-]})") == ExtractStatus::malformed);
  }

  TEST_CASE("json: canonical numbers") {
    auto canon = [](std::string_view text) {
      std::string out;
      REQUIRE(append_canonical_number(out, text));
      return out;
    };
    CHECK(canon("0") == "0");
    CHECK(canon("-0") == "0");
    CHECK(canon("123") == "123");
    CHECK(canon("-123") == "-123");
    CHECK(canon("1.0") == "1");
    CHECK(canon("1.5e-3") == "15e-4");
    CHECK(canon("0.0015") == "15e-4");
    CHECK(canon("1e2") == "100");
    CHECK(canon("1E+2") == "100");
    CHECK(canon("1e40") == "1e40");  // 41 digits: beyond the plain form
    CHECK(canon("1" + std::string(40, '0')) == "1e40");
    CHECK(canon("1e39") == "1" + std::string(39, '0'));
    CHECK(canon("0e99999999999999999999") == "0");
    CHECK(canon("1e99999999999999999999") == "x1e99999999999999999999");
    for (std::string_view bad : {"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1 ", "--1", "1.5.2", "NaN"}) {
      std::string out = "keep";
      CHECK_MESSAGE(!append_canonical_number(out, bad), bad);
      CHECK(out == "keep");
    }
  }

  TEST_CASE("json: composite keys and --missing") {
    ExtractConfig cfg;
    cfg.keys = {"id", "q"};
    auto comp = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*comp, R"({"q":"x","id":7})") == parts({std::string{json_key::kNumber} + "7", "x"}));
    CHECK(key_of(*comp, R"({"id":"ab","q":"c"})") != key_of(*comp, R"({"id":"a","q":"bc"})"));
    PaddedRecord r(R"({"id":1})");
    Extracted e = comp->extract(r.rec);
    CHECK(e.status == ExtractStatus::missing_key);
    CHECK(e.absent_part == 2);
    CHECK(describe_missing_key(cfg, e) == "key part 2 (-k q) is absent");
    CHECK(describe_missing_key(cfg, e, InputFormat::json) ==  // JSON: the way out for logs that mix kinds of records
          "key part 2 (-k q) is absent; --missing null reads an absent part as null, so that records without some "
          "of the members still match on the others");

    cfg.missing = MissingMember::null;
    auto null = make_json_extractor(cfg, auto_time());
    const std::string null_part{json_key::kNull};
    CHECK(key_of(*null, R"({"id":"a"})") == parts({"a", null_part}));
    CHECK(key_of(*null, R"({"id":"a"})") == key_of(*null, R"({"id":"a","q":null})"));
    CHECK(key_of(*null, R"({"id":"a"})") != key_of(*null, R"({"id":"a","q":"null"})"));
    CHECK(key_of(*null, R"({"q":"a"})") != key_of(*null, R"({"id":"a"})"));
    PaddedRecord none(R"({"other":1})");
    Extracted n = null->extract(none.rec);
    CHECK(n.status == ExtractStatus::missing_key);  // every part absent: no key at all
    CHECK(describe_missing_key(cfg, n).find("every key part") != std::string::npos);
    CHECK(status_of(*null, R"({"id":"a","q":tru})") == ExtractStatus::malformed);  // broken is not absent

    cfg.keys = {"/a/3", "b.0"};  // absent through an index past the end, or through a scalar
    auto idx = make_json_extractor(cfg, auto_time());
    CHECK(key_of(*idx, R"({"a":[1],"b":["x"]})") == parts({null_part, "x"}));
    CHECK(key_of(*idx, R"({"a":[0,1,2,"y"],"b":7})") == parts({"y", null_part}));

    cfg.keys = {"id"};
    auto single = make_json_extractor(cfg, auto_time());
    PaddedRecord s(R"({"x":1})");
    Extracted se = single->extract(s.rec);
    CHECK(se.status == ExtractStatus::missing_key);
    CHECK(describe_missing_key(cfg, se) == "the key (-k id) is absent");
    CHECK(describe_missing_key(cfg, se, InputFormat::json) == "the key (-k id) is absent");  // a plain path: no hint

    // A part written as for lines gets a hint on JSON input, and only there.
    cfg.keys = {"id.orig_h,query"};
    auto comma = make_json_extractor(cfg, auto_time());
    PaddedRecord zeek(R"({"id.orig_h":"a","query":"q"})");
    Extracted ce = comma->extract(zeek.rec);
    CHECK(ce.status == ExtractStatus::missing_key);
    CHECK(describe_missing_key(cfg, ce, InputFormat::json) ==
          "the key (-k id.orig_h,query) is absent; in a JSON path a comma is part of the member name: for a "
          "composite key repeat -k (-k id.orig_h -k query)");
    CHECK(describe_missing_key(cfg, ce, InputFormat::lines) == "the key (-k id.orig_h,query) is absent");
    cfg.keys = {"uid", "3"};
    cfg.missing = MissingMember::error;
    auto field = make_json_extractor(cfg, auto_time());
    PaddedRecord numbered(R"({"uid":"a","x":1})");
    Extracted fe = field->extract(numbered.rec);
    CHECK(fe.absent_part == 2);
    CHECK(describe_missing_key(cfg, fe, InputFormat::json) ==
          "key part 2 (-k 3) is absent; the input is JSON, where -k 3 is a member named \"3\" (field numbers are "
          "for lines)");
  }

  TEST_CASE("json: a key nested deeper than kMaxKeyDepth has no key, and says so") {
    auto nested = [](unsigned n, char open, char close) { return std::string(n, open) + std::string(n, close); };
    ExtractConfig cfg;
    cfg.keys = {"id", "q"};
    cfg.missing = MissingMember::null;
    auto x = make_json_extractor(cfg, auto_time());
    CHECK(status_of(*x, R"({"id":)" + nested(kMaxKeyDepth, '[', ']') + "}") == ExtractStatus::ok);
    PaddedRecord r(R"({"q":1,"id":)" + nested(kMaxKeyDepth + 1, '[', ']') + "}");
    Extracted e = x->extract(r.rec);
    CHECK(e.status == ExtractStatus::too_deep);
    CHECK(e.absent_part == 1);
    CHECK(describe_missing_key(cfg, e) ==
          "key part 1 (-k id) nests arrays and objects deeper than 1024 levels, too "
          "deep to read");
    std::string objects;
    for (unsigned i = 0; i < 100000; ++i) objects += R"({"a":)";
    objects += "1" + std::string(100000, '}');
    CHECK(status_of(*x, R"({"q":)" + objects + "}") == ExtractStatus::too_deep);
    // Beside the key, depth is skipped without being read.
    CHECK(status_of(*x, R"({"z":)" + nested(100000, '[', ']') + R"(,"id":2})") == ExtractStatus::ok);
  }

  TEST_CASE("json: a NUL byte makes a record malformed, blanks alone make no record") {
    // simdjson reads {"id":1}\0... as {"id":1} and stops (issue 52, W20); a blank line of
    // NDJSON is no record (W4).
    using namespace std::string_literals;
    std::vector<ExtractConfig> configs(3);  // -k id, the whole record, --key-except x
    configs[0].keys = {"id"};
    configs[2].key_except = {"x"};
    for (const bool fast : {true, false}) {
      for (const ExtractConfig& cfg : configs) {
        auto x = fast ? make_json_extractor(cfg, auto_time()) : make_json_extractor_without_fast_path(cfg, auto_time());
        CHECK(status_of(*x, "{\"id\":1}\0{\"id\":1}"s) == ExtractStatus::malformed);
        CHECK(status_of(*x, "{\"id\":\"a\0b\"}"s) == ExtractStatus::malformed);
        CHECK(status_of(*x, "{\"id\":1}\0"s) == ExtractStatus::malformed);
        CHECK(status_of(*x, "\0"s) == ExtractStatus::malformed);
        CHECK(status_of(*x, "") == ExtractStatus::blank);
        CHECK(status_of(*x, " \t\r") == ExtractStatus::blank);
        CHECK(status_of(*x, "{\"id\":1}") == ExtractStatus::ok);
      }
    }
  }

  TEST_CASE("json: --key-except keys the record without its members, canonical") {
    ExtractConfig cfg;
    cfg.key_except = {"ts", "meta.host"};
    auto x = make_json_extractor(cfg, auto_time());
    // Member order, spacing, number spelling and the members left out do not matter.
    CHECK(key_of(*x, R"({"a":1,"ts":1})") == key_of(*x, "{\"ts\":2, \"a\": 1}"));
    CHECK(key_of(*x, R"({"a":1,"b":[1.0,"x"]})") == key_of(*x, R"({ "b" : [ 1 , "x" ] , "a" : 1e0 })"));
    CHECK(key_of(*x, R"({"a":1,"meta":{"host":"h1","app":"x"}})") ==
          key_of(*x, R"({"meta":{"app":"x","host":"h2"},"a":1})"));
    // What remains is compared whole: any other member, value or type splits.
    CHECK(key_of(*x, R"({"a":1,"ts":1})") != key_of(*x, R"({"a":"1","ts":1})"));
    CHECK(key_of(*x, R"({"a":1})") != key_of(*x, R"({"a":1,"b":null})"));
    CHECK(key_of(*x, R"({"a":1,"meta":{"app":"x"}})") != key_of(*x, R"({"a":1,"meta":{"app":"y"}})"));
    // Only members of objects on the path are left out: one inside an array stays.
    CHECK(key_of(*x, R"({"a":[{"ts":1}]})") != key_of(*x, R"({"a":[{"ts":2}]})"));
    CHECK(status_of(*x, "[1,2]") == ExtractStatus::malformed);
    CHECK(status_of(*x, R"({"a":1,)") == ExtractStatus::malformed);

    ExtractConfig masked = cfg;  // with --mask, string values are masked
    masked.mask = *KeyMask::parse("numbers", nullptr);
    auto m = make_json_extractor(masked, auto_time());
    CHECK(key_of(*m, R"({"msg":"user 12 left","ts":1})") == key_of(*m, R"({"ts":9,"msg":"user 345 left"})"));

    ExtractConfig lines = cfg;  // a line has no members to leave out
    CHECK_THROWS_AS(make_line_extractor(lines, auto_time()), SpecError);
  }

  TEST_CASE("json: --key-except reads a dotted path as -k does, a JSON pointer exactly") {
    ExtractConfig zeek;
    zeek.key_except = {"id.orig_p", "ts"};
    auto x = make_json_extractor(zeek, auto_time());
    // Zeek's flat member name, and the same path nested, are both left out.
    CHECK(key_of(*x, R"({"a":1,"id.orig_p":53,"ts":1})") == key_of(*x, R"({"a":1,"id.orig_p":54,"ts":2})"));
    CHECK(key_of(*x, R"({"a":1,"id":{"orig_p":53,"h":1}})") == key_of(*x, R"({"a":1,"id":{"orig_p":54,"h":1}})"));
    CHECK(key_of(*x, R"({"a":1,"id.orig_h":"x"})") != key_of(*x, R"({"a":1,"id.orig_h":"y"})"));
    CHECK(key_of(*x, R"({"a":1,"id":{"orig_p":53,"h":1}})") != key_of(*x, R"({"a":1,"id":{"orig_p":53,"h":2}})"));
    // Any split of the dots: "a.b" then c, a then "b.c".
    ExtractConfig deep;
    deep.key_except = {"a.b.c"};
    auto d = make_json_extractor(deep, auto_time());
    CHECK(key_of(*d, R"({"k":1,"a.b":{"c":1}})") == key_of(*d, R"({"k":1,"a.b":{"c":2}})"));
    CHECK(key_of(*d, R"({"k":1,"a":{"b.c":1}})") == key_of(*d, R"({"k":1,"a":{"b.c":2}})"));
    CHECK(key_of(*d, R"({"k":1,"a":{"b":{"c":1}}})") == key_of(*d, R"({"k":1,"a":{"b":{"c":2}}})"));
    // A pointer names exactly its segments (~1 is '/', ~0 is '~'); its dots are part of a name.
    ExtractConfig pointer;
    pointer.key_except = {"/id.orig_p", "/m/a~1b", "/m/c~0"};
    auto p = make_json_extractor(pointer, auto_time());
    CHECK(key_of(*p, R"({"a":1,"id.orig_p":53})") == key_of(*p, R"({"a":1,"id.orig_p":54})"));
    CHECK(key_of(*p, R"({"a":1,"id":{"orig_p":53}})") != key_of(*p, R"({"a":1,"id":{"orig_p":54}})"));
    CHECK(key_of(*p, R"({"m":{"a/b":1,"c~":1,"d":1}})") == key_of(*p, R"({"m":{"a/b":2,"c~":2,"d":1}})"));
    ExtractConfig stray;
    stray.key_except = {"/a~2"};
    CHECK_THROWS_AS(make_json_extractor(stray, auto_time()), SpecError);
    ExtractConfig dots;
    dots.key_except = {"a.b.c.d.e.f.g.h.i.j.k.l.m.n"};
    CHECK_THROWS_AS(make_json_extractor(dots, auto_time()), SpecError);
  }

  TEST_CASE("json: -i folds string content only") {
    ExtractConfig ic;
    ic.keys = {"u"};
    ic.ignore_case = true;
    auto fold = make_json_extractor(ic, auto_time());
    CHECK(key_of(*fold, R"({"u":"AbC"})") == "abc");
    CHECK(key_of(*fold, R"({"u":["AbC",{"K":"V"}]})") == key_of(*fold, R"({"u":["abc",{"K":"v"}]})"));
    CHECK(key_of(*fold, R"({"u":{"K":1}})") != key_of(*fold, R"({"u":{"k":1}})"));  // member names are not folded
    CHECK(key_of(*fold, R"({"u":1E3})") == key_of(*fold, R"({"u":1e3})"));

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

  TEST_CASE("json: the fast path for flat records decides every record as the lookups do") {
    // Records near the fast path's edges, then thousands of random edits of them (bytes that
    // matter to JSON inserted, deleted, swapped), each read by both extractors; each edit
    // right after its unedited record, so the fast path tries it first against the shape
    // that record left (FlatShape), and again after an edit of another record.
    std::vector<std::string> records = {
        R"({"ts":1763750000.001,"id":"k000000000001","host":"web-1","req":{"method":"GET","path":"/a"},"status":200})",
        R"({"id":"k1","ts":"2018-03-24T17:15:20Z"})",
        R"({ "ts" : 1446249499322 , "id" : 42 })",
        R"({"x":[1,{"y":"]"}],"id":"a\"b","ts":5})",
        R"({"id":"a","id":"b","ts":1,"ts":2})",
        R"({"i\u0064":"esc","id":"plain","ts":tru})",
        R"({"id":-7,"ts":null,"host":"h"})",
        R"({"id":"a","ts":1 x})",
        R"({"id":"a","ts":1}{"id":"b"})",
        R"({"id":"a","ts":1})"
        "}",
        R"({"id":"a" "ts":1})",
        R"({"id":1.5e3,"host":true,"ts":"t\n"})",
        R"(  {"id":"a","ts":1}  )",
        R"({"id":"a","ts":1)",
        R"({})",
        "{\"id\":\"\xff\",\"ts\":1}",
        "{\"id\":\"a\tb\",\"ts\":1}",
        "{\"ts\":\x01,\"id\":\"a\"}",
        // Scalars past 16 bytes, whose end is found in a later block of the scan.
        R"({"id":123456789012345678901234567890123,"ts":1})",
        R"({"ts":-1.2345678901234567890e+300 ,"id":"a"})",
        R"({"id":truefalsetruefalsetrue]"ts":1})",
    };
    std::vector<ExtractConfig> configs(6);
    configs[0].keys = {"id"};
    configs[0].time = "ts";
    configs[1].keys = {"id"};
    configs[2].time = "ts";
    configs[3].keys = {"id", "host"};
    configs[3].time = "ts";
    configs[4].keys = {"ts"};
    configs[4].time = "ts";
    configs[5].keys = {"id", "host"};
    configs[5].missing = MissingMember::null;
    std::vector<std::unique_ptr<Extractor>> fast, slow;
    for (const ExtractConfig& c : configs) {
      fast.push_back(make_json_extractor(c, auto_time()));
      slow.push_back(make_json_extractor_without_fast_path(c, auto_time()));
    }
    std::uint64_t rng = 0x9E3779B97F4A7C15;
    auto next = [&rng](std::size_t n) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      return static_cast<std::size_t>(rng % n);
    };
    const std::string alphabet = "{}[]\",:\\ \t\r\n0123456789.-etfnaid\x01\xff\xc3";
    const std::size_t seeds = records.size();
    std::vector<std::size_t> seed_of(seeds);
    for (std::size_t i = 0; i < seeds; ++i) seed_of[i] = i;
    for (int i = 0; i < 6000; ++i) {
      seed_of.push_back(next(seeds));
      std::string r = records[seed_of.back()];
      for (std::size_t edits = 1 + next(3); edits > 0 && !r.empty(); --edits) {
        const std::size_t at = next(r.size());
        switch (next(3)) {
          case 0:
            r.insert(at, 1, alphabet[next(alphabet.size())]);
            break;
          case 1:
            r.erase(at, 1);
            break;
          default:
            std::swap(r[at], r[next(r.size())]);
            break;
        }
      }
      records.push_back(r);
    }
    std::size_t fast_ok = 0;
    for (std::size_t r = 0; r < records.size(); ++r) {
      const std::string& text = records[r];
      for (std::size_t c = 0; c < configs.size(); ++c) {
        if (r % 2 == 0) {
          PaddedRecord seed(records[seed_of[r]], '\n');
          fast[c]->extract(seed.rec);
        }
        const char after = "\0\n}"[next(3)];  // simdjson checks balance when it is '}'
        PaddedRecord a(text, after), b(text, after);
        const Extracted x = fast[c]->extract(a.rec), y = slow[c]->extract(b.rec);
        INFO("config ", c, ", record ", text, ", after ", records[seed_of[r]]);
        REQUIRE(x.status == y.status);
        REQUIRE(x.absent_part == y.absent_part);
        REQUIRE(x.key == y.key);
        REQUIRE(x.time.parsed == y.time.parsed);
        REQUIRE(x.time.time == y.time.time);
        REQUIRE(x.time.present == y.time.present);
        REQUIRE(x.time.text == y.time.text);
        REQUIRE(x.time.date_only == y.time.date_only);
        fast_ok += x.status == ExtractStatus::ok;
      }
    }
    CHECK(fast_ok * 10 > records.size() * configs.size());  // the edits leave many records readable
  }
}
