// Key masks (src/extract/key_mask.hpp): each class's pattern as tlbf-dedup(1) states it, the order
// of precedence, and the masks inside line and JSON extraction (per part, string values only).
#include <doctest/doctest.h>

#include <string>

#include "extract/extract.hpp"
#include "extract/key_mask.hpp"
#include "input/record_reader.hpp"
#include "padded_record.hpp"

namespace {
using namespace tlbf_dedup;

KeyMask mask_of(std::string_view list) {
  std::string err;
  auto m = KeyMask::parse(list, &err);
  REQUIRE_MESSAGE(m.has_value(), err);
  return *m;
}

std::string masked(std::string_view list, std::string_view in) {
  std::string buf;
  return std::string(mask_of(list).apply(in, buf));
}

constexpr const char* kAll = "numbers,hex,uuid,ip,quoted";

std::string key_of(Extractor& x, std::string_view text) {
  const PaddedRecord r(text);
  Extracted e = x.extract(r.rec);
  REQUIRE(e.status == ExtractStatus::ok);
  return std::string(e.key);
}

TimeParser no_time() { return TimeParser(TimeFormat::auto_detect, std::nullopt, 2020); }
}  // namespace

TEST_SUITE("key_mask") {
  TEST_CASE("the list: names in any order, unknown and empty names refused") {
    CHECK(mask_of("hex,numbers").masks(MaskClass::numbers));
    CHECK_FALSE(mask_of("hex").masks(MaskClass::numbers));
    CHECK(mask_of(kAll).masks(MaskClass::quoted));
    std::string err;
    CHECK_FALSE(KeyMask::parse("numbers,ipv4", &err));
    CHECK(err == "unknown mask 'ipv4'");
    CHECK_FALSE(KeyMask::parse("numbers,", &err));
    CHECK(err == "an empty name in the list");
    CHECK_FALSE(KeyMask::parse("", &err));
    CHECK_FALSE(KeyMask().masks_anything());
  }

  TEST_CASE("numbers: digit runs with one fraction, inside words too") {
    CHECK(masked("numbers", "user 123 logged in") == "user <N> logged in");
    CHECK(masked("numbers", "user 123 logged in") == masked("numbers", "user 456 logged in"));
    CHECK(masked("numbers", "took 3.25 s") == "took <N> s");
    CHECK(masked("numbers", "v1.2.3") == "v<N>.<N>");
    CHECK(masked("numbers", "id42 -7 x.5") == "id<N> -<N> x.<N>");
    CHECK(masked("numbers", "no digits") == "no digits");
    CHECK(masked("numbers", "") == "");
    CHECK(masked("numbers", "12.") == "<N>.");
  }

  TEST_CASE("hex: 0x-prefixed, or 8+ hex digits with a decimal digit, as whole words") {
    CHECK(masked("hex", "at 0x7fef9fb9b6d ok") == "at <HEX> ok");
    CHECK(masked("hex", "0XAB") == "<HEX>");
    CHECK(masked("hex", "commit deadbeef01 and 1234abcd") == "commit <HEX> and <HEX>");
    CHECK(masked("hex", "deadbeef") == "deadbeef");  // no decimal digit: a word
    CHECK(masked("hex", "abc1234") == "abc1234");    // 7 digits
    CHECK(masked("hex", "xdeadbeef01 deadbeef01g 0x 0xg") == "xdeadbeef01 deadbeef01g 0x 0xg");
    CHECK(masked("hex", "12345678") == "<HEX>");  // hex before numbers, see the precedence test
  }

  TEST_CASE("uuid: 8-4-4-4-12 hex digits") {
    CHECK(masked("uuid", "req 123e4567-e89b-12d3-A456-426614174000 done") == "req <UUID> done");
    CHECK(masked("uuid", "123e4567-e89b-12d3-a456-42661417400") == "123e4567-e89b-12d3-a456-42661417400");
    CHECK(masked("uuid", "x123e4567-e89b-12d3-a456-426614174000") == "x123e4567-e89b-12d3-a456-426614174000");
    CHECK(masked("uuid", "123e4567_e89b-12d3-a456-426614174000") == "123e4567_e89b-12d3-a456-426614174000");
  }

  TEST_CASE("ip: IPv4 with a port, IPv6 in its common forms") {
    CHECK(masked("ip", "from 10.0.0.1 to 192.168.1.254:8080.") == "from <IP> to <IP>.");
    CHECK(masked("ip", "256.1.1.1 1.2.3 1.2.3.4.5 v1.2.3.4") == "256.1.1.1 1.2.3 1.2.3.4.5 v1.2.3.4");
    CHECK(masked("ip", "1.2.3.4:99999") == "<IP>:99999");
    CHECK(masked("ip", "::1 fe80::1%eth0 2001:db8::8a2e:370:7334 ::ffff:192.0.2.1") == "<IP> <IP> <IP> <IP>");
    CHECK(masked("ip", "2001:0db8:0000:0000:0000:ff00:0042:8329") == "<IP>");
    CHECK(masked("ip", "[2001:db8::1]:443 [::1]") == "<IP> <IP>");
    // Not addresses: times, MAC addresses, seven groups without "::", hex words without a digit.
    CHECK(masked("ip", "12:30:45 00:1a:2b:3c:4d:5e 1:2:3:4:5:6:7 add::bad") ==
          "12:30:45 00:1a:2b:3c:4d:5e 1:2:3:4:5:6:7 add::bad");
    CHECK(masked("ip", "at fe80::1: down") == "at <IP>: down");
  }

  TEST_CASE("quoted: contents of '...' and \"...\" at word boundaries, backslash escapes") {
    CHECK(masked("quoted", R"(open "a b.txt" as 'x')") == R"(open "<Q>" as '<Q>')");
    CHECK(masked("quoted", R"(say "a \"b\" c" now)") == R"(say "<Q>" now)");
    CHECK(masked("quoted", R"("" and '')") == R"("<Q>" and '<Q>')");
    CHECK(masked("quoted", "don't won't") == "don't won't");
    CHECK(masked("quoted", "unclosed \"x and 'y") == "unclosed \"x and 'y");
    CHECK(masked("quoted", "'a 'b' c'") == "'<Q>' c'");
    // An unclosed quote stays unclosed for later openings (the scan stays linear).
    CHECK(masked("quoted", "'a 'a 'a 'a") == "'a 'a 'a 'a");
  }

  TEST_CASE("precedence: quoted, uuid, ip, hex, numbers, leftmost match first") {
    CHECK(masked(kAll, R"(user "bob 42" id 123e4567-e89b-12d3-a456-426614174000 from 10.1.2.3 at 0x1f n=7)") ==
          R"(user "<Q>" id <UUID> from <IP> at <HEX> n=<N>)");
    CHECK(masked("numbers,ip", "10.1.2.3") == "<IP>");
    CHECK(masked("numbers", "10.1.2.3") == "<N>.<N>");
    CHECK(masked("numbers,hex", "1700000000 17") == "<HEX> <N>");
    CHECK(masked("numbers,uuid", "123e4567-e89b-12d3-a456-426614174000") == "<UUID>");
    // A placeholder is text: the literal one and a masked number are one key.
    CHECK(masked("numbers", "user <N>") == masked("numbers", "user 5"));
  }

  TEST_CASE("long adversarial keys stay linear and exact") {
    std::string quotes, colons, hexes;
    for (int i = 0; i < 20000; ++i) quotes += "'a ";
    for (int i = 0; i < 20000; ++i) colons += "1:";
    for (int i = 0; i < 20000; ++i) hexes += "abcdef ";
    CHECK(masked(kAll, quotes) == quotes);
    CHECK(masked("ip", colons) == colons);
    CHECK(masked(kAll, hexes) == hexes);
  }

  TEST_CASE("lines: each key part masked before joining and folding") {
    ExtractConfig cfg;
    cfg.mask = mask_of("numbers");
    auto whole = make_line_extractor(cfg, no_time());
    CHECK(key_of(*whole, "user 123 logged in") == key_of(*whole, "user 456 logged in"));
    CHECK(key_of(*whole, "user 123 logged in") != key_of(*whole, "user 456 logged out"));

    cfg.keys = {"2"};
    auto single = make_line_extractor(cfg, no_time());
    CHECK(key_of(*single, "a pid42 b") == "pid<N>");

    cfg.keys = {"1", "3"};
    cfg.ignore_case = true;
    auto composite = make_line_extractor(cfg, no_time());
    std::string expect;
    append_key_part(expect, "<n>x", false);
    append_key_part(expect, "y<n>", false);
    CHECK(key_of(*composite, "12X skip Y3") == expect);

    cfg.keys = {};
    cfg.ignore_case = false;
    cfg.key_regex = "msg=([^ ]*)";
    auto regex = make_line_extractor(cfg, no_time());
    CHECK(key_of(*regex, "t=1 msg=retry17 z") == "retry<N>");
  }

  TEST_CASE("json: string values masked after unescaping, names, numbers and structure untouched") {
    ExtractConfig cfg;
    cfg.mask = mask_of("numbers,quoted");
    cfg.keys = {"msg"};
    auto json = make_json_extractor(cfg, no_time());
    CHECK(key_of(*json, R"({"msg":"user 123 logged in"})") == "user <N> logged in");
    CHECK(key_of(*json, R"({"msg":"user \u0031\u0032 said \"hi\""})") == "user <N> said \"<Q>\"");
    // A number value is data, not text: it stays a number.
    CHECK(key_of(*json, R"({"msg":123})") != key_of(*json, R"({"msg":456})"));

    cfg.keys = {"o"};
    auto object = make_json_extractor(cfg, no_time());
    CHECK(key_of(*object, R"({"o":{"a1":"x 1","b":["y 2"]}})") == key_of(*object, R"({"o":{"b":["y 3"],"a1":"x 9"}})"));
    CHECK(key_of(*object, R"({"o":{"a1":"x"}})") != key_of(*object, R"({"o":{"a2":"x"}})"));

    cfg.keys = {"a", "b"};
    auto composite = make_json_extractor(cfg, no_time());
    CHECK(key_of(*composite, R"({"a":"n 1","b":"m 22"})") == key_of(*composite, R"({"a":"n 333","b":"m 4"})"));

    cfg.keys = {};
    auto whole = make_json_extractor(cfg, no_time());
    CHECK(key_of(*whole, R"({"n":1})") == R"({"<Q>":<N>})");
  }
}
