// Round trips and truncation handling of the state primitives (include/tlbf/serialize.hpp).
#include <doctest/doctest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tlbf/serialize.hpp"

TEST_SUITE("serialize") {
  TEST_CASE("integers, doubles and byte strings round-trip little-endian") {
    tlbf::ByteWriter w;
    w.u8(0xAB);
    w.u32(0x01020304u);
    w.u64(0x1122334455667788ull);
    w.i64(-5);
    w.f64(0.1);
    w.bytes("key");
    w.words({1, std::numeric_limits<std::uint64_t>::max()});
    const std::string& d = w.data();
    CHECK(static_cast<unsigned char>(d[1]) == 0x04);  // least significant byte first
    tlbf::ByteReader r(d);
    CHECK(r.u8() == 0xAB);
    CHECK(r.u32() == 0x01020304u);
    CHECK(r.u64() == 0x1122334455667788ull);
    CHECK(r.i64() == -5);
    CHECK(r.f64() == 0.1);
    CHECK(r.bytes() == "key");
    auto words = r.words(16);
    REQUIRE(words.size() == 2);
    CHECK(words[1] == std::numeric_limits<std::uint64_t>::max());
    CHECK(r.at_end());
  }

  TEST_CASE("word arrays are saved as u64 writes them, and read back whole or refused") {
    const std::vector<std::uint64_t> words{0x0102030405060708ull, 0, ~std::uint64_t{0}, 0x8000000000000001ull};
    tlbf::ByteWriter bulk, one_by_one;
    bulk.word_array(words.data(), words.size());
    for (std::uint64_t x : words) one_by_one.u64(x);
    CHECK(bulk.data() == one_by_one.data());
    CHECK(static_cast<unsigned char>(bulk.data()[0]) == 0x08);  // least significant byte first

    std::vector<std::uint64_t> back(words.size());
    tlbf::ByteReader r(bulk.data());
    r.word_array(back.data(), back.size());
    CHECK(back == words);
    CHECK(r.at_end());

    const std::string cut = bulk.data().substr(0, bulk.data().size() - 1);
    tlbf::ByteReader short_input(cut);
    CHECK_THROWS_AS(short_input.word_array(back.data(), back.size()), tlbf::state_error);
    tlbf::ByteReader empty("");
    empty.word_array(back.data(), 0);  // nothing to read is not a truncation
    CHECK(empty.at_end());
  }

  TEST_CASE("every truncation is refused with state_error") {
    tlbf::ByteWriter w;
    w.u64(42);
    w.bytes("payload");
    w.words({7, 8, 9});
    const std::string full = w.data();
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
      tlbf::ByteReader r(std::string_view(full).substr(0, cut));
      CHECK_THROWS_AS((r.u64(), r.bytes(), r.words(100)), tlbf::state_error);
    }
  }

  TEST_CASE("a corrupted length cannot ask for more words than the input holds") {
    tlbf::ByteWriter w;
    w.u64(std::uint64_t{1} << 60);
    tlbf::ByteReader r(w.data());
    CHECK_THROWS_AS(r.words(std::uint64_t{1} << 62), tlbf::state_error);
  }

  // A format described once: the same function writes and reads it.
  struct Sample {
    std::uint32_t a = 0, b = 0;
    std::int64_t t = 0;
    bool on = false;
    std::optional<std::uint32_t> maybe;
    std::vector<std::uint64_t> bits;
    template <class Self, class Archive>
    static void visit_fields(Self& s, Archive& ar) {
      ar.version(7, "unknown sample version");
      ar.u32(s.a, s.b);
      ar.i64(s.t);
      ar.flag(s.on);
      ar.optional_u32(s.maybe);
      ar.words(s.bits, 4);
    }
  };

  TEST_CASE("visit_fields: Saver and Loader agree field by field") {
    const Sample in{1, 0xFFFFFFFFu, -3, true, 9u, {5, 6}};
    tlbf::ByteWriter w;
    tlbf::Saver saver(w);
    Sample::visit_fields(in, saver);
    // version, 2 x u32, i64, flag, optional (flag + u32), word count + 2 words
    CHECK(w.data().size() == 1 + 8 + 8 + 1 + 5 + 8 + 16);
    tlbf::ByteReader r(w.data());
    tlbf::Loader loader(r);
    Sample out;
    Sample::visit_fields(out, loader);
    CHECK(r.at_end());
    CHECK(out.a == 1);
    CHECK(out.b == 0xFFFFFFFFu);
    CHECK(out.t == -3);
    CHECK(out.on);
    CHECK(out.maybe == std::optional<std::uint32_t>(9u));
    CHECK(out.bits == std::vector<std::uint64_t>{5, 6});
  }

  TEST_CASE("the Loader refuses what no Saver writes") {
    const Sample in;
    tlbf::ByteWriter w;
    tlbf::Saver saver(w);
    Sample::visit_fields(in, saver);
    const std::string good = w.take();
    auto load = [](std::string bytes) {
      tlbf::ByteReader r(bytes);
      tlbf::Loader loader(r);
      Sample s;
      Sample::visit_fields(s, loader);
    };
    CHECK_NOTHROW(load(good));
    std::string bad_version = good;
    bad_version[0] = 8;
    CHECK_THROWS_WITH_AS(load(bad_version), "unknown sample version", tlbf::state_error);
    std::string bad_flag = good;
    bad_flag[1 + 8 + 8] = 2;
    CHECK_THROWS_AS(load(bad_flag), tlbf::state_error);
    std::string absent_but_set = good;
    absent_but_set[1 + 8 + 8 + 1 + 1] = 1;  // the optional's value while its flag says absent
    CHECK_THROWS_AS(load(absent_but_set), tlbf::state_error);
    std::string too_many_words = good;
    too_many_words[1 + 8 + 8 + 1 + 5] = 5;  // more than the 4 words allowed
    CHECK_THROWS_AS(load(too_many_words), tlbf::state_error);
  }
}
