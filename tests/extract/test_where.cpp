// --where and --where-regex (src/extract/where.hpp): parsing, comparing values as keys
// compare them, and the extractors' reading of them (JSON by the fast path and by simdjson's
// lookups alike, lines by field lists).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "extract/extract.hpp"
#include "extract/where.hpp"
#include "input/record_reader.hpp"
#include "padded_record.hpp"

namespace {
using namespace tlbf_dedup;

ExtractStatus status_of(Extractor& x, std::string_view text) {
  const PaddedRecord r(text);
  return x.extract(r.rec).status;
}

TimeParser auto_time() { return TimeParser(TimeFormat::auto_detect, std::nullopt, 2024); }

ExtractConfig where(std::vector<std::string> conditions, std::vector<std::string> keys = {"id"}) {
  ExtractConfig cfg;
  cfg.keys = std::move(keys);
  for (const std::string& c : conditions) cfg.where.push_back(WhereCondition::parse(c));
  return cfg;
}

// Both JSON extractors: with the fast path for flat records and without it.
std::vector<std::unique_ptr<Extractor>> json_extractors(const ExtractConfig& cfg) {
  std::vector<std::unique_ptr<Extractor>> out;
  out.push_back(make_json_extractor(cfg, auto_time()));
  out.push_back(make_json_extractor_without_fast_path(cfg, auto_time()));
  return out;
}
}  // namespace

TEST_SUITE("where") {
  TEST_CASE("parse: present, equals, differs, and the first '=' ends the path") {
    const WhereCondition present = WhereCondition::parse("alert.signature_id");
    CHECK(present.test == WhereCondition::Test::present);
    CHECK(present.path == "alert.signature_id");
    const WhereCondition eq = WhereCondition::parse("event_type=alert");
    CHECK(eq.test == WhereCondition::Test::equals);
    CHECK(eq.path == "event_type");
    CHECK(eq.value == "alert");
    CHECK(eq.number.empty());
    const WhereCondition ne = WhereCondition::parse("status!=200");
    CHECK(ne.test == WhereCondition::Test::differs);
    CHECK(ne.path == "status");
    CHECK(ne.number == "200");
    const WhereCondition rest = WhereCondition::parse("q=a=b");
    CHECK(rest.value == "a=b");
    CHECK(WhereCondition::parse("x=").value.empty());
    CHECK_THROWS_AS(WhereCondition::parse("=x"), SpecError);
    CHECK_THROWS_AS(WhereCondition::parse("!=x"), SpecError);
    CHECK_THROWS_AS(WhereCondition::parse(""), SpecError);
    CHECK_THROWS_WITH_AS(WhereCondition::parse("a==b"), doctest::Contains("write one '=' (a=b)"), SpecError);
  }

  TEST_CASE("values compare as keys do: strings by their text, numbers by their value") {
    const WhereCondition n = WhereCondition::parse("n=200");
    CHECK(n.holds(WhereFound::scalar, "200"));
    CHECK(n.holds(WhereFound::scalar, "200.0"));
    CHECK(n.holds(WhereFound::scalar, "2e2"));
    CHECK(n.holds(WhereFound::string, "200"));
    CHECK_FALSE(n.holds(WhereFound::string, "200.0"));
    CHECK_FALSE(n.holds(WhereFound::scalar, "201"));
    CHECK_FALSE(n.holds(WhereFound::container, ""));
    CHECK_FALSE(n.holds(WhereFound::absent, ""));
    const WhereCondition t = WhereCondition::parse("ok=true");
    CHECK(t.holds(WhereFound::scalar, "true"));
    CHECK(t.holds(WhereFound::string, "true"));
    CHECK_FALSE(t.holds(WhereFound::scalar, "false"));
    const WhereCondition ne = WhereCondition::parse("kind!=stats");
    CHECK(ne.holds(WhereFound::absent, ""));
    CHECK(ne.holds(WhereFound::container, ""));
    CHECK(ne.holds(WhereFound::string, "alert"));
    CHECK_FALSE(ne.holds(WhereFound::string, "stats"));
    const WhereCondition has = WhereCondition::parse("x");
    CHECK(has.holds(WhereFound::scalar, "null"));
    CHECK(has.holds(WhereFound::container, ""));
    CHECK_FALSE(has.holds(WhereFound::absent, ""));
  }

  TEST_CASE("JSON: both paths select alike, before the key is read") {
    for (auto& x : json_extractors(where({"event_type=alert"}))) {
      CHECK(status_of(*x, R"({"event_type":"alert","id":1})") == ExtractStatus::ok);
      CHECK(status_of(*x, R"({"id":1,"event_type":"dns"})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"({"event_type":"dns"})") == ExtractStatus::unmatched);  // no key: not read
      CHECK(status_of(*x, R"({"id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"({"event_type":"\u0061lert","id":1})") == ExtractStatus::ok);
      CHECK(status_of(*x, R"({"event_type":["alert"],"id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"({"event_type":"alert"})") == ExtractStatus::missing_key);
      CHECK(status_of(*x, R"({"event_type":tru})") == ExtractStatus::malformed);
      CHECK(status_of(*x, R"({"event_type":01,"id":1})") == ExtractStatus::malformed);
      CHECK(status_of(*x, R"({"event_type":1e2,"id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"(["alert"])") == ExtractStatus::malformed);
      CHECK(status_of(*x, "") == ExtractStatus::blank);
    }
    for (auto& x : json_extractors(where({"a.b!=1", "/c", "d=x y"}))) {
      CHECK(status_of(*x, R"({"a":{"b":2},"c":null,"d":"x y","id":1})") == ExtractStatus::ok);
      CHECK(status_of(*x, R"({"c":0,"d":"x y","id":1})") == ExtractStatus::ok);
      CHECK(status_of(*x, R"({"a":{"b":1.0},"c":0,"d":"x y","id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"({"a":{"b":2},"d":"x y","id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"({"a":{"b":2},"c":[],"d":"x","id":1})") == ExtractStatus::unmatched);
    }
  }

  TEST_CASE("--where-regex: on the record text, every pattern") {
    ExtractConfig cfg = where({}, {"id"});
    cfg.where_regex = {"\"kind\":\"a\"", "^\\{"};
    for (auto& x : json_extractors(cfg)) {
      CHECK(status_of(*x, R"({"kind":"a","id":1})") == ExtractStatus::ok);
      CHECK(status_of(*x, R"({"kind":"b","id":1})") == ExtractStatus::unmatched);
      CHECK(status_of(*x, R"( {"kind":"a","id":1})") == ExtractStatus::unmatched);
    }
    cfg.keys = {"2"};
    cfg.where_regex = {"^GET "};
    auto lines = make_line_extractor(cfg, auto_time());
    CHECK(status_of(*lines, "GET /a") == ExtractStatus::ok);
    CHECK(status_of(*lines, "POST /a") == ExtractStatus::unmatched);
    cfg.where_regex = {"("};
    CHECK_THROWS_WITH_AS(make_line_extractor(cfg, auto_time()), doctest::Contains("--where-regex '('"), SpecError);
  }

  TEST_CASE("lines: field lists, joined as -k joins them") {
    auto x = make_line_extractor(where({"1=GET"}, {"2"}), auto_time());
    CHECK(status_of(*x, "GET /a") == ExtractStatus::ok);
    CHECK(status_of(*x, "  GET /a") == ExtractStatus::ok);
    CHECK(status_of(*x, "POST /a") == ExtractStatus::unmatched);
    CHECK(status_of(*x, "GET") == ExtractStatus::missing_key);
    auto joined = make_line_extractor(where({"1,3=a c"}, {"2"}), auto_time());
    CHECK(status_of(*joined, "a b c") == ExtractStatus::ok);
    CHECK(status_of(*joined, "a b d") == ExtractStatus::unmatched);
    auto present = make_line_extractor(where({"4"}, {"1"}), auto_time());
    CHECK(status_of(*present, "a b c d") == ExtractStatus::ok);
    CHECK(status_of(*present, "a b c") == ExtractStatus::unmatched);
    auto differs = make_line_extractor(where({"1!=GET"}, {"2"}), auto_time());
    CHECK(status_of(*differs, "GET /a") == ExtractStatus::unmatched);
    CHECK(status_of(*differs, "POST /a") == ExtractStatus::ok);
    CHECK(status_of(*differs, "") == ExtractStatus::missing_key);  // selected (no field 1), no key
    CHECK_THROWS_WITH_AS(make_line_extractor(where({"method=GET"}, {"2"}), auto_time()),
                         doctest::Contains("--where 'method': not a field list"), SpecError);
  }
}
