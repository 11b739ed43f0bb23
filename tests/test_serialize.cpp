// Round trips and truncation handling of the state primitives (include/tlbf/serialize.hpp).
#include <doctest/doctest.h>

#include <limits>

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
}
