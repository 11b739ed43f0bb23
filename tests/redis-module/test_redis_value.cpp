// The Redis module's server-independent parts (redis-module/): the TLBF.* argument rules, the
// filter value's semantics, and its byte form, which must round-trip exactly and refuse
// every damaged, truncated or newer input by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "filter_params.hpp"
#include "filter_value.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/shard.hpp"

using tlbf_redis::CommandError;
using tlbf_redis::FilterParams;
using tlbf_redis::FilterValue;

namespace {

std::vector<std::string_view> words(std::initializer_list<std::string_view> w) { return w; }

FilterParams small_params(tlbf::Algorithm a = tlbf::Algorithm::tlbf) {
  FilterParams p;
  p.algorithm = a;
  p.window_ms = 10'000;
  p.error_rate = 1e-3;
  p.capacity = 1000;
  p.shards = 3;
  return p;
}

std::string item(int i) { return "item-" + std::to_string(i); }

constexpr std::uint64_t kSeed = 0x5eed;

// Fills a value with keys at increasing times over two windows, so that some slices expire.
void fill(FilterValue& v, int n) {
  for (int i = 0; i < n; ++i) v.insert_if_absent(item(i), std::int64_t{i} * 20);
}

std::string refusal(std::string_view bytes) {
  try {
    FilterValue::decode(bytes);
  } catch (const tlbf::state_error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_SUITE("redis.params") {
  TEST_CASE("RESERVE options in any order and any letter case, optional ones defaulted") {
    const FilterParams p =
        tlbf_redis::parse_reserve_options(words({"capacity", "500", "Error", "0.01", "WINDOW", "60000"})).params;
    CHECK(p.window_ms == 60000);
    CHECK(p.error_rate == doctest::Approx(0.01));
    CHECK(p.capacity == 500);
    CHECK(p.algorithm == tlbf::Algorithm::tlbf);
    CHECK(p.max_memory == tlbf_redis::kDefaultMaxMemory);
    CHECK(p.shards == 1);

    const FilterParams q =
        tlbf_redis::parse_reserve_options(words({"WINDOW", "1", "ERROR", "1e-5", "CAPACITY", "1", "ALGORITHM", "GEBF",
                                                 "MAXMEMORY", "4096", "SHARDS", "16384"}))
            .params;
    CHECK(q.algorithm == tlbf::Algorithm::gebf);
    CHECK(q.max_memory == 4096);
    CHECK(q.shards == 16384);
  }

  TEST_CASE("RESERVE refuses every bad option with a message naming it") {
    struct Bad {
      std::vector<std::string_view> args;
      std::string mentions;
    };
    const std::vector<Bad> cases = {
        {{}, "required"},
        {{"WINDOW", "1000", "ERROR", "0.01"}, "required"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY"}, "has no value"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "WINDOW", "5"}, "given twice"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "COLOR", "red"}, "unknown option 'COLOR'"},
        {{"WINDOW", "0", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "-5", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "1.5", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "ten", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "+10", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", " 10", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "10 ", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "99999999999999999999999", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "9223372036854775807", "ERROR", "0.01", "CAPACITY", "10"}, "WINDOW"},
        {{"WINDOW", "1000", "ERROR", "0", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "1", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "-0.1", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "nan", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "inf", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "0.01x", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "", "CAPACITY", "10"}, "ERROR"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "0"}, "CAPACITY"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "281474976710657"}, "CAPACITY"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "ALGORITHM", "apbf"}, "ALGORITHM"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "MAXMEMORY", "4095"}, "MAXMEMORY"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "SHARDS", "0"}, "SHARDS"},
        {{"WINDOW", "1000", "ERROR", "0.01", "CAPACITY", "10", "SHARDS", "16385"}, "SHARDS"},
    };
    for (const Bad& c : cases) {
      CAPTURE(c.mentions);
      std::string message;
      try {
        tlbf_redis::parse_reserve_options(c.args);
      } catch (const CommandError& e) {
        message = e.what();
      }
      CHECK(message.find(c.mentions) != std::string::npos);
    }
  }

  TEST_CASE("a long bad value is quoted cut short") {
    const std::string huge(5000, '7');
    std::string message;
    try {
      tlbf_redis::parse_reserve_options(words({"WINDOW", huge, "ERROR", "0.01", "CAPACITY", "10"}));
    } catch (const CommandError& e) {
      message = e.what();
    }
    CHECK(message.find("...") != std::string::npos);
    CHECK(message.size() < 200);
  }

  TEST_CASE("a bad value is quoted as one line of printable text") {
    std::string message;
    try {
      tlbf_redis::parse_reserve_options(
          words({"WINDOW", std::string_view("1\0\xff'\\\r\n", 7), "ERROR", "0.01", "CAPACITY", "10"}));
    } catch (const CommandError& e) {
      message = e.what();
    }
    CHECK(message.find(R"(got '1\x00\xff\x27\x5c\x0d\x0a')") != std::string::npos);
  }

  TEST_CASE("TIME is * or whole milliseconds >= 0") {
    CHECK(tlbf_redis::parse_time("*").server_clock);
    CHECK(tlbf_redis::parse_time("0").ms == 0);
    CHECK(tlbf_redis::parse_time("1700000000123").ms == 1700000000123);
    CHECK(tlbf_redis::parse_time(std::to_string(tlbf_redis::kMaxMillis)).ms == tlbf_redis::kMaxMillis);
    for (const char* bad : {"", "-1", "1.5", "**", "now", "12a", "9223372036854775807"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(tlbf_redis::parse_time(bad), CommandError);
    }
  }

  TEST_CASE("a time more than one window ahead of the server clock is refused, up to one window is not") {
    CHECK_NOTHROW(tlbf_redis::check_not_ahead(1000 + 500, 1000, 500));
    CHECK_THROWS_AS(tlbf_redis::check_not_ahead(1000 + 501, 1000, 500), CommandError);
    CHECK_NOTHROW(tlbf_redis::check_not_ahead(0, 1000, 500));  // the past is always accepted
    CHECK_NOTHROW(tlbf_redis::check_not_ahead(tlbf_redis::kMaxMillis, tlbf_redis::kMaxMillis - 1, 1));
  }

  TEST_CASE("keywords match in any letter case, and only whole") {
    CHECK(tlbf_redis::is_keyword("time", "TIME"));
    CHECK(tlbf_redis::is_keyword("TiMe", "TIME"));
    CHECK_FALSE(tlbf_redis::is_keyword("TIMES", "TIME"));
    CHECK_FALSE(tlbf_redis::is_keyword("TIM", "TIME"));
  }
}

TEST_SUITE("redis.value") {
  TEST_CASE("an item is new once, a duplicate inside the window, and new again after it") {
    FilterValue v(small_params(), kSeed);
    const std::string h = "alpha";
    CHECK(v.clock_ms() == -1);
    CHECK(v.insert_if_absent(h, 1000));
    CHECK(v.clock_ms() == 1000);
    CHECK_FALSE(v.insert_if_absent(h, 1000 + 9999));
    CHECK(v.may_contain(h, 1000 + 9999));
    // A duplicate changes nothing, not even the clock.
    CHECK(v.clock_ms() == 1000);
    CHECK_FALSE(v.may_contain(h, 1000 + 10'000));
    CHECK(v.insert_if_absent(h, 1000 + 10'000));
  }

  TEST_CASE("the clock never goes back: an earlier time counts as the latest") {
    FilterValue v(small_params(), kSeed);
    const std::string a = "a", b = "b";
    CHECK(v.insert_if_absent(a, 50'000));
    CHECK(v.insert_if_absent(b, 1));  // judged at 50'000
    CHECK(v.clock_ms() == 50'000);
    CHECK(v.may_contain(b, 50'000 + 9999));
  }

  TEST_CASE("a batch answers as its items one by one, a repeat inside it a duplicate, for every algorithm") {
    for (tlbf::Algorithm a : {tlbf::Algorithm::tlbf, tlbf::Algorithm::gebf}) {
      CAPTURE(static_cast<int>(a));
      FilterValue one(small_params(a), kSeed), batch(small_params(a), kSeed);
      // 40 batches of 100 items, a quarter repeats of the last 300 items, over 3 windows.
      std::vector<std::string> names;
      for (int b = 0; b < 40; ++b) {
        const std::int64_t t = std::int64_t{b} * 750;
        std::vector<std::string> items;
        for (int i = 0; i < 100; ++i)
          items.push_back(i % 4 == 0 && names.size() > 300 ? names[names.size() - 1 - (i * 7) % 300]
                                                           : item(b * 100 + i));
        std::vector<std::string_view> views(items.begin(), items.end());
        bool fresh[100];
        batch.insert_if_absent_batch(views.data(), views.size(), t, fresh);
        int kept = 0;
        for (std::size_t i = 0; i < items.size(); ++i) {
          CHECK(fresh[i] == one.insert_if_absent(items[i], t));
          kept += fresh[i];
        }
        CHECK(batch.clock_ms() == one.clock_ms());
        if (b > 4) CHECK(kept < 100);  // repeats inside the window were caught
        names.insert(names.end(), items.begin(), items.end());
      }
      CHECK(batch.encode() == one.encode());
      bool none[1];
      batch.insert_if_absent_batch(nullptr, 0, 99'000, none);  // an empty batch moves no clock
      CHECK(batch.clock_ms() == 39 * 750);
    }
  }

  TEST_CASE("items hash as tlbf-dedup hashes key bytes with the filter's seed") {
    FilterValue v(small_params(), kSeed);
    CHECK(v.insert_if_absent("GET /index.html", 1000));
    CHECK(v.filter().may_contain(tlbf::hash_key(std::string_view("GET /index.html"), kSeed), 1000 * 1'000'000));
  }

  TEST_CASE("a CAPACITY that would start the filter capped by MAXMEMORY is refused") {
    FilterParams p = small_params();
    p.capacity = 100'000'000;
    p.max_memory = 1 << 20;
    CHECK_THROWS_AS(FilterValue(p, kSeed), CommandError);
    p.capacity = 1000;
    CHECK_NOTHROW(FilterValue(p, kSeed));
  }

  TEST_CASE("INFO: the parameters, then the statistics under the names of tlbf-dedup --stats") {
    FilterValue v(small_params(), kSeed);
    fill(v, 300);
    std::vector<std::string> names;
    for (const auto& f : v.info()) names.push_back(f.name);
    const std::vector<std::string> expected = {"algorithm",
                                               "window_ms",
                                               "error_rate",
                                               "capacity",
                                               "max_memory",
                                               "shards",
                                               "clock_ms",
                                               "k",
                                               "l",
                                               "slices",
                                               "slice0_bits",
                                               "bits_allocated",
                                               "peak_bits_allocated",
                                               "keys_inserted",
                                               "live_keys",
                                               "bits_per_key",
                                               "memory_capped",
                                               "cap_evictions"};
    CHECK(names == expected);
    const auto fields = v.info();
    CHECK(std::get<std::string>(fields[0].value) == "tlbf");
    CHECK(std::get<long long>(fields[5].value) == 3);
    CHECK(std::get<long long>(fields[6].value) == 299 * 20);
    CHECK(std::get<long long>(fields[13].value) == 300);  // every item was new
    CHECK(v.memory_bytes() * 8 >= static_cast<std::size_t>(std::get<long long>(fields[11].value)));
    CHECK(std::get<long long>(fields[12].value) >= std::get<long long>(fields[11].value));  // the peak
  }

  TEST_CASE("shards: every item has one shard in range, and S shards share items evenly") {
    const std::uint32_t shards = 3;
    std::vector<int> count(shards);
    const int n = 30'000;
    for (int i = 0; i < n; ++i) {
      const std::uint32_t s = tlbf::shard_of(tlbf::item_hash(item(i)), shards);
      REQUIRE(s < shards);
      ++count[s];
    }
    for (int c : count) CHECK(std::abs(c - n / 3) < n / 30);  // within 10% of a third
    CHECK(tlbf::shard_of(tlbf::item_hash("x"), 1) == 0);
  }
}

TEST_SUITE("redis.encoding") {
  TEST_CASE("encode then decode answers every query and INFO field identically") {
    for (tlbf::Algorithm a : {tlbf::Algorithm::tlbf, tlbf::Algorithm::gebf}) {
      CAPTURE(static_cast<int>(a));
      FilterValue v(small_params(a), kSeed);
      fill(v, 2000);
      const std::string bytes = v.encode();
      const auto w = FilterValue::decode(bytes);
      CHECK(w->params() == v.params());
      CHECK(w->clock_ms() == v.clock_ms());
      CHECK(w->seed() == kSeed);
      CHECK(w->encode() == bytes);
      const std::int64_t now = v.clock_ms();
      for (int i = 0; i < 4000; ++i) REQUIRE(w->may_contain(item(i), now) == v.may_contain(item(i), now));
      const auto vi = v.info(), wi = w->info();
      for (std::size_t i = 0; i < vi.size(); ++i) CHECK(vi[i].value == wi[i].value);
    }
  }

  TEST_CASE("a value before its first insert round-trips too") {
    FilterValue v(small_params(), kSeed);
    CHECK(FilterValue::decode(v.encode())->clock_ms() == -1);
  }

  TEST_CASE("every flipped byte, every truncation and trailing bytes are refused") {
    FilterValue v(small_params(), kSeed);
    fill(v, 50);
    const std::string good = v.encode();
    // Every header byte and a sample of the rest (the checksum covers the payload as a whole).
    for (std::size_t i = 0; i < good.size(); i += (i < 64 ? 1 : 97)) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ 0x5a);
      CAPTURE(i);
      CHECK(refusal(bad) != "accepted");
    }
    for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{23}, good.size() / 2, good.size() - 1}) {
      CAPTURE(n);
      CHECK(refusal(good.substr(0, n)) != "accepted");
    }
    CHECK(refusal(good + "x") != "accepted");
  }

  TEST_CASE("the library reads only a filter of the reserved kind, and no TLBF whose k + l wraps") {
    FilterValue v(small_params(), kSeed);
    const std::string good = v.encode();
    const std::size_t library = 16 + 53;  // the library's bytes: tag, marker 0, format, layout, k, l, ...
    auto with = [&](std::size_t at, std::uint32_t x) {
      std::string bytes = good;
      for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(x >> (8 * i));
      bytes.resize(bytes.size() - 8);
      const std::uint64_t sum = XXH3_64bits(bytes.data() + 16, bytes.size() - 16);
      for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(sum >> (8 * i)));
      return bytes;
    };
    const std::uint32_t k = v.filter().stats(0).k;
    // l = 2^32 - k: k + l is 0 in 32 bits, which the library's loader refuses before any
    // division by it.
    CHECK(refusal(with(library + 11, static_cast<std::uint32_t>(0) - k)).find("tlbf k or l out of range") !=
          std::string::npos);
    // The APBF's tag (2) in front of the TLBF's bytes: refused before its loader runs.
    CHECK(refusal(with(library, 2)) == "corrupted (the filter is not the reserved algorithm)");
  }

  TEST_CASE("the refusals name the problem") {
    FilterValue v(small_params(), kSeed);
    std::string bytes = v.encode();
    CHECK(refusal("GARBAGE!GARBAGE!GARBAGE!") == "not a TLBF value (wrong magic bytes)");
    std::string newer = bytes;
    newer[8] = 3;
    CHECK(refusal(newer).find("newer") != std::string::npos);
    std::string flagged = bytes;
    flagged[12] = 1;
    CHECK(refusal(flagged) == "corrupted (unknown flags)");
    std::string damaged = bytes;
    damaged[30] = static_cast<char>(damaged[30] ^ 1);
    CHECK(refusal(damaged) == "corrupted (checksum mismatch)");
  }
}
