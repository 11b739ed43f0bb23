// Tables read by column name (src/extract/extract_table.hpp): how rows split (RFC 4180 for
// CSV), the header's map from names to columns, Zeek's # lines, and rows that cannot be read.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "extract/extract.hpp"
#include "extract/extract_table.hpp"
#include "input/record_reader.hpp"
#include "padded_record.hpp"

namespace {
using namespace tlbf_dedup;

TimeParser auto_time() { return TimeParser(TimeFormat::auto_detect, std::nullopt, 2017); }

Extracted extract(Extractor& x, std::string_view text) {
  PaddedRecord r(text);
  Extracted e = x.extract(r.rec);
  if (!e.key.empty() && e.key.data() >= r.buf.data() && e.key.data() < r.buf.data() + r.buf.size())
    e.key = {};  // (a view into the record, gone with it: key_of() copies it first)
  return e;
}

std::string key_of(Extractor& x, std::string_view text) {
  PaddedRecord r(text);
  const Extracted e = x.extract(r.rec);
  REQUIRE(e.status == ExtractStatus::ok);
  return std::string(e.key);
}

std::vector<std::string> split(std::string_view text, char sep = ',', bool quoted = true) {
  std::vector<std::string_view> fields;
  std::string scratch;
  REQUIRE(split_row(text, TableDialect{sep, quoted}, UINT32_MAX, fields, scratch));
  return std::vector<std::string>(fields.begin(), fields.end());
}

std::string parts(std::initializer_list<std::string_view> ps) {
  std::string out;
  for (auto p : ps) append_key_part(out, p, false);
  return out;
}

using Fields = std::vector<std::string>;
}  // namespace

TEST_SUITE("extract_table") {
  TEST_CASE("CSV rows split as RFC 4180 says") {
    CHECK(split("a,b,c") == Fields{"a", "b", "c"});
    CHECK(split("a,,c,") == Fields{"a", "", "c", ""});
    CHECK(split("\"a,b\",c") == Fields{"a,b", "c"});
    CHECK(split("\"say \"\"hi\"\"\",x") == Fields{"say \"hi\"", "x"});
    CHECK(split("\"two\nlines\",x") == Fields{"two\nlines", "x"});
    CHECK(split("\"a\"b,c") == Fields{"ab", "c"});  // text after the closing quote, as Python reads it
    CHECK(split("a\"b,c") == Fields{"a\"b", "c"});  // a quote inside an unquoted field is a quote
    CHECK(split("\"a,b\"\t\"c", '\t', false) == Fields{"\"a,b\"", "\"c"});  // TSV: no quoting
    std::vector<std::string_view> fields;
    std::string scratch;
    CHECK_FALSE(split_row("a,\"open", TableDialect{',', true}, UINT32_MAX, fields, scratch));
    REQUIRE(split_row("a,b,c,d", TableDialect{',', true}, 2, fields, scratch));
    CHECK(fields.size() == 2);
  }

  TEST_CASE("the header names the columns, and a field number still works") {
    ExtractConfig cfg;
    cfg.keys = {"user", "3"};
    auto x = make_table_extractor(InputFormat::csv, cfg, auto_time());
    CHECK(extract(*x, "id,user,action").status == ExtractStatus::blank);
    CHECK(key_of(*x, "1,alice,\"login, web\"") == parts({"alice", "login, web"}));
    CHECK(key_of(*x, "2,\"alice\",login, web") == parts({"alice", "login"}));
    const Extracted short_row = extract(*x, "3,bob");
    CHECK(short_row.status == ExtractStatus::missing_key);
    CHECK(short_row.absent_part == 2);
  }

  TEST_CASE("one column: its value, the time from a column, --where by name") {
    ExtractConfig cfg;
    cfg.keys = {"host"};
    cfg.time = "at";
    cfg.where = {WhereCondition::parse("status=up")};
    auto x = make_table_extractor(InputFormat::tsv, cfg, auto_time());
    CHECK(extract(*x, "at\thost\tstatus").status == ExtractStatus::blank);
    PaddedRecord r("2017-01-01T00:00:05Z\tweb1\tup");
    const Extracted e = x->extract(r.rec);
    REQUIRE(e.status == ExtractStatus::ok);
    CHECK(e.key == "web1");
    CHECK(e.time.value() == 1483228805 * tlbf::kSecond);
    CHECK(extract(*x, "2017-01-01T00:00:06Z\tweb1\tdown").status == ExtractStatus::unmatched);
  }

  TEST_CASE("--key-except: every other column, a part each") {
    ExtractConfig cfg;
    cfg.key_except = {"id"};
    auto x = make_table_extractor(InputFormat::csv, cfg, auto_time());
    (void)extract(*x, "id,a,b");
    CHECK(key_of(*x, "1,x,y") == parts({"x", "y"}));
    CHECK(key_of(*x, "2,x,y") == parts({"x", "y"}));
  }

  TEST_CASE("a name the header lacks is an error naming the nearest") {
    ExtractConfig cfg;
    cfg.keys = {"qurey"};
    auto x = make_table_extractor(InputFormat::tsv, cfg, auto_time());
    PaddedRecord header("ts\tquery\tanswers\tqtype");
    try {
      (void)x->extract(header.rec);
      FAIL("no error");
    } catch (const SpecError& e) {
      CHECK(std::string(e.what()) ==
            "-k/--key 'qurey': no column of that name in the header (nearest: query, qtype, ts)");
    }
    CHECK(nearest_columns("id.orig", {"ts", "id.orig_h", "id.resp_h"}) == "id.orig_h, id.resp_h, ts");
  }

  TEST_CASE("each input's first record is its header") {
    ExtractConfig cfg;
    cfg.keys = {"b"};
    auto x = make_table_extractor(InputFormat::csv, cfg, auto_time());
    (void)extract(*x, "a,b");
    CHECK(key_of(*x, "1,x") == "x");
    x->start_input();
    CHECK(extract(*x, "b,a").status == ExtractStatus::blank);
    CHECK(key_of(*x, "y,2") == "y");
  }

  TEST_CASE("Zeek: # lines are headers, #fields starts a new map") {
    ExtractConfig cfg;
    cfg.keys = {"id.orig_h", "query"};
    auto x = make_table_extractor(InputFormat::zeek, cfg, auto_time());
    CHECK(extract(*x, "1.0\t10.0.0.1\texample.com").status == ExtractStatus::missing_key);  // before any #fields
    CHECK(extract(*x, "#separator \\x09").status == ExtractStatus::blank);
    CHECK(extract(*x, "#fields\tts\tid.orig_h\tquery").status == ExtractStatus::blank);
    CHECK(extract(*x, "#types\ttime\taddr\tstring").status == ExtractStatus::blank);
    CHECK(key_of(*x, "1.0\t10.0.0.1\texample.com") == parts({"10.0.0.1", "example.com"}));
    CHECK(extract(*x, "#close\t2018-03-23-09-00-00").status == ExtractStatus::blank);
    CHECK(extract(*x, "#fields\tquery\tid.orig_h").status == ExtractStatus::blank);
    CHECK(key_of(*x, "example.com\t10.0.0.1") == parts({"10.0.0.1", "example.com"}));
  }

  TEST_CASE("rows that cannot be read are malformed") {
    ExtractConfig cfg;
    cfg.keys = {"a"};
    auto x = make_table_extractor(InputFormat::csv, cfg, auto_time());
    (void)extract(*x, "a,b");
    CHECK(extract(*x, "\"open,1\n2,3").status == ExtractStatus::malformed);
    CHECK(extract(*x, std::string_view("x\0y,1", 5)).status == ExtractStatus::malformed);
    CHECK(describe_malformed_row(std::string_view("x\0y", 3)) == "not a readable row: a NUL byte at byte 2");
  }

  TEST_CASE("options tables do not take") {
    ExtractConfig cfg;
    cfg.missing = MissingMember::null;
    CHECK_THROWS_AS(make_table_extractor(InputFormat::csv, cfg, auto_time()), SpecError);
  }
}
