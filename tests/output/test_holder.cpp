// The holding stage (src/output/holder.hpp, held_table.hpp): counts against an exact oracle
// that groups each key's copies by window, keep-last, count windows, the memory cap's early
// writes, and the saved form (round trip, and damaged bytes refused).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "output/holder.hpp"
#include "tlbf/hash.hpp"

namespace {
using namespace tlbf_dedup;

// What a sink was handed, in order: (record bytes, count, first time, last time).
struct Written {
  std::string bytes;
  std::uint64_t count;
  tlbf::Time first, last;
  bool operator==(const Written& o) const {
    return std::tie(bytes, count, first, last) == std::tie(o.bytes, o.count, o.first, o.last);
  }
};

class Recorder final : public HeldSink {
 public:
  void write_held(const CountedRecord& r) override {
    out.push_back(Written{std::string(r.bytes), r.count, r.first.at, r.last.at});
  }
  std::vector<Written> out;
};

struct Event {
  tlbf::Time at;
  std::string key;
  std::string record;  // with its terminator
};

Copy copy_of(const Event& e) {
  return Copy{e.key,
              tlbf::hash_key(e.key),
              e.record,
              e.record.size() - 1,
              InputFormat::lines,
              SeenTime{SeenForm::clock, {}, e.at, std::nullopt}};
}

HoldConfig time_window(tlbf::Duration span, WindowFrom from = WindowFrom::first_copy, Keep keep = Keep::first) {
  HoldConfig c;
  c.count = true;
  c.keep = keep;
  c.span = span;
  c.from = from;
  return c;
}

std::vector<Written> hold_all(Holder& h, const std::vector<Event>& events) {
  Recorder r;
  for (const Event& e : events) h.take(copy_of(e), r);
  h.close_all(r);
  return r.out;
}

// The oracle: each key's copies in groups, a group ending at its window's close (from its
// first copy, or its last with `from` last_copy); the groups in the order of their closes,
// equal closes in the order they were set.
std::vector<Written> oracle(const std::vector<Event>& events, tlbf::Duration span, WindowFrom from, Keep keep) {
  struct Group {
    Written w;
    tlbf::Time close;
    std::size_t set_at;  // the event that set `close`
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> open;  // key -> its open group
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    auto it = open.find(e.key);
    if (it != open.end() && e.at < groups[it->second].close) {
      Group& g = groups[it->second];
      ++g.w.count;
      g.w.last = e.at;
      if (keep == Keep::last) g.w.bytes = e.record;
      if (from == WindowFrom::last_copy) {
        g.close = e.at + span;
        g.set_at = i;
      }
      continue;
    }
    open[e.key] = groups.size();
    groups.push_back(Group{Written{e.record, 1, e.at, e.at}, e.at + span, i});
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return std::tie(a.close, a.set_at) < std::tie(b.close, b.set_at);
  });
  std::vector<Written> out;
  for (const Group& g : groups) out.push_back(g.w);
  return out;
}

// A bursty stream: times that never go back, keys from a small set so that most repeat.
std::vector<Event> stream(std::uint32_t seed, std::size_t n, std::size_t keys) {
  std::mt19937 rng(seed);
  std::vector<Event> events;
  tlbf::Time t = 1000 * tlbf::kSecond;
  for (std::size_t i = 0; i < n; ++i) {
    t += (rng() % 10 == 0) ? tlbf::kSecond * (rng() % 20) : tlbf::kMillisecond * (rng() % 300);
    const std::string key = "k" + std::to_string(rng() % keys);
    events.push_back(Event{t, key, key + " #" + std::to_string(i) + "\n"});
  }
  return events;
}

}  // namespace

TEST_SUITE("holder") {
  constexpr tlbf::Duration kS = tlbf::kSecond;

  TEST_CASE("the table: every key found until removed, equal hashes of different keys apart") {
    HeldTable t;
    std::map<std::string, std::uint32_t> oracle;
    std::mt19937 rng(7);
    for (int round = 0; round < 20000; ++round) {
      const std::string key = "key" + std::to_string(rng() % 3000);
      const tlbf::KeyHash h = tlbf::hash_key(key);
      const auto it = oracle.find(key);
      REQUIRE(t.find(h, key) == (it == oracle.end() ? HeldTable::kNone : it->second));
      if (it == oracle.end()) {
        oracle[key] = t.add(h, round, {key, "record"});
      } else if (rng() % 2) {
        t.remove(it->second);
        oracle.erase(it);
      }
    }
    CHECK(t.size() == oracle.size());
    // Two keys with one hash are two entries, told apart by their bytes.
    HeldTable c;
    const tlbf::KeyHash same{42, 43};
    const std::uint32_t a = c.add(same, 1, {"a"}), b = c.add(same, 2, {"b"});
    CHECK(c.find(same, "a") == a);
    CHECK(c.find(same, "b") == b);
    c.remove(a);
    CHECK(c.find(same, "a") == HeldTable::kNone);
    CHECK(c.find(same, "b") == b);
  }

  TEST_CASE("the table keeps its entries in close order and counts their memory") {
    HeldTable t;
    const std::uint64_t empty = t.bytes();
    const std::string big(1000, 'x');
    const std::uint32_t a = t.add(tlbf::hash_key("a"), 1, {"a", big}), b = t.add(tlbf::hash_key("b"), 2, {"b"});
    CHECK(t.bytes() > empty + 1000);
    CHECK(t.bytes_with(500) > t.bytes() + 500);
    CHECK(t.head() == a);
    t.renew(a, 3);
    CHECK(t.head() == b);
    CHECK(t.next(b) == a);
    const std::uint64_t before = t.bytes();
    t.remove(a);
    CHECK(t.bytes() < before - 1000);
  }

  TEST_CASE("counts match the oracle on bursty streams: from the first copy, from the last, keeping the last") {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      const std::vector<Event> events = stream(seed, 3000, 40);
      for (WindowFrom from : {WindowFrom::first_copy, WindowFrom::last_copy})
        for (Keep keep : {Keep::first, Keep::last}) {
          CAPTURE(seed);
          Holder h(time_window(5 * kS, from, keep));
          const std::vector<Written> got = hold_all(h, events);
          CHECK(got == oracle(events, 5 * kS, from, keep));
          CHECK(h.empty());
        }
    }
  }

  TEST_CASE("a copy at exactly the window starts a new record, and records come out as their windows close") {
    Holder h(time_window(10 * kS));
    Recorder r;
    CHECK_FALSE(h.take(copy_of({100 * kS, "a", "a1\n"}), r).dup);
    CHECK(h.take(copy_of({109 * kS, "a", "a2\n"}), r).dup);
    CHECK_FALSE(h.take(copy_of({105 * kS, "b", "b1\n"}), r).dup);
    CHECK(r.out.empty());
    CHECK(h.next_close() == 110 * kS);
    CHECK_FALSE(h.take(copy_of({110 * kS, "a", "a3\n"}), r).dup);
    REQUIRE(r.out.size() == 1);
    CHECK(r.out[0] == Written{"a1\n", 2, 100 * kS, 109 * kS});
    h.close_until(115 * kS, r);  // b's window closes at 115
    REQUIRE(r.out.size() == 2);
    CHECK(r.out[1].bytes == "b1\n");
    h.close_all(r);
    CHECK(r.out.back() == Written{"a3\n", 1, 110 * kS, 110 * kS});
  }

  TEST_CASE("a count window closes after N more inserts, and with --refresh every copy is one") {
    HoldConfig c;
    c.count = true;
    c.window_count = 2;
    Holder h(c);
    std::vector<Event> events;
    for (const char* k : {"a", "b", "a", "c", "d", "a"}) events.push_back(Event{0, k, std::string(k) + "\n"});
    std::vector<Written> got = hold_all(h, events);
    REQUIRE(got.size() == 5);
    CHECK(got[0].bytes == "a\n");
    CHECK(got[0].count == 2);
    CHECK(got[4].bytes == "a\n");
    CHECK(got[4].count == 1);
    c.from = WindowFrom::last_copy;
    Holder renewing(c);
    events.clear();
    for (const char* k : {"a", "a", "a", "b", "b", "a"}) events.push_back(Event{0, k, std::string(k) + "\n"});
    got = hold_all(renewing, events);
    REQUIRE(got.size() == 3);  // a a a (renewed), b b, then a: two inserts after the last a
    CHECK(got[0].count == 3);
    CHECK(got[1].count == 2);
    CHECK(got[2].count == 1);
  }

  TEST_CASE("continuation lines join the held copy, not a duplicate kept as the first") {
    Holder h(time_window(10 * kS));
    Recorder r;
    h.take(copy_of({1 * kS, "a", "a head\n"}), r);
    CHECK(h.continue_last("  at x\n", 1));
    h.take(copy_of({2 * kS, "a", "a again\n"}), r);
    CHECK_FALSE(h.continue_last("  at y\n", 1));
    h.close_all(r);
    REQUIRE(r.out.size() == 1);
    CHECK(r.out[0].bytes == "a head\n  at x\n");
    CHECK(r.out[0].count == 2);
  }

  TEST_CASE("the memory cap writes the records that close first, early, and loses no copy") {
    HoldConfig c = time_window(3600 * kS);
    c.max_bytes = 64 << 10;
    Holder h(c);
    const std::vector<Event> events = stream(3, 20000, 5000);
    Recorder r;
    std::uint64_t early = 0;
    for (const Event& e : events) early += h.take(copy_of(e), r).early;
    CHECK(early > 0);
    CHECK(h.stats().early == early);
    CHECK(h.stats().peak_bytes <= c.max_bytes + 16384);  // (an array may grow past it by its own size at most)
    h.close_all(r);
    std::uint64_t copies = 0;
    for (const Written& w : r.out) copies += w.count;
    CHECK(copies == events.size());
    REQUIRE(h.stats().shortest_early.has_value());
  }

  TEST_CASE("a record over the memory cap by itself is written at once, new or the last copy kept") {
    const std::string big(70000, 'a');
    for (Keep keep : {Keep::first, Keep::last}) {
      HoldConfig c = time_window(3600 * kS, WindowFrom::first_copy, keep);
      c.max_bytes = 64 << 10;
      Holder h(c);
      Recorder r;
      // Alone in an empty table: written with its count of one, counted as written early.
      HoldVerdict v = h.take(copy_of({1 * kS, "big", big + "\n"}), r);
      CHECK(v.early == 1);
      REQUIRE(r.out.size() == 1);
      CHECK(r.out[0] == Written{big + "\n", 1, 1 * kS, 1 * kS});
      CHECK(h.empty());
      // A small record is held as usual; a big last copy of it under --keep last goes at once.
      CHECK(h.take(copy_of({2 * kS, "k", "small\n"}), r).early == 0);
      v = h.take(copy_of({3 * kS, "k", big + "x\n"}), r);
      CHECK(v.dup);
      if (keep == Keep::last) {
        CHECK(v.early == 1);
        REQUIRE(r.out.size() == 2);
        CHECK(r.out[1] == Written{big + "x\n", 2, 2 * kS, 3 * kS});
      }
      h.close_all(r);
      std::uint64_t copies = 0;
      for (const Written& w : r.out) copies += w.count;
      CHECK(copies == 3);
      CHECK(h.stats().early == (keep == Keep::last ? 2 : 1));
      REQUIRE(h.stats().shortest_early.has_value());
      CHECK(*h.stats().shortest_early == 0);
    }
  }

  TEST_CASE("saved and loaded mid-stream, the holder goes on as if it had not stopped") {
    const std::vector<Event> events = stream(11, 2000, 30);
    for (WindowFrom from : {WindowFrom::first_copy, WindowFrom::last_copy}) {
      Holder whole(time_window(5 * kS, from));
      const std::vector<Written> expected = hold_all(whole, events);
      Holder first(time_window(5 * kS, from));
      Recorder r;
      for (std::size_t i = 0; i < 1000; ++i) first.take(copy_of(events[i]), r);
      tlbf::ByteWriter saved;
      first.save(saved);
      Holder second(time_window(5 * kS, from));
      second.load(saved.data());
      for (std::size_t i = 1000; i < events.size(); ++i) second.take(copy_of(events[i]), r);
      second.close_all(r);
      CHECK(r.out == expected);
      tlbf::ByteWriter again;
      second.save(again);
      Holder empty(time_window(5 * kS, from));
      empty.load(again.data());
      CHECK(empty.empty());
    }
  }

  TEST_CASE("damaged held records are refused, never half loaded") {
    Holder h(time_window(5 * kS));
    Recorder r;
    h.take(copy_of({1 * kS, "a", "a\n"}), r);
    h.take(copy_of({2 * kS, "b", "b\n"}), r);
    tlbf::ByteWriter saved;
    h.save(saved);
    const std::string good = saved.data();
    Holder target(time_window(5 * kS));
    CHECK_THROWS_AS(target.load(good.substr(0, good.size() - 1)), tlbf::state_error);
    CHECK_THROWS_AS(target.load(good + "x"), tlbf::state_error);
    std::string version = good;
    version[0] = 9;
    CHECK_THROWS_AS(target.load(version), tlbf::state_error);
    std::string huge = good;
    huge[9 + 7] = '\x7f';  // the record count's top byte
    CHECK_THROWS_AS(target.load(huge), tlbf::state_error);
    // Crafted fields a checksum does not catch: a count about to wrap, a bare time of no text.
    constexpr std::size_t kFirst = 1 + 8 + 8, kCount = kFirst + 16 + 24, kFirstForm = kCount + 8 + 1;
    std::string wraps = good;
    for (std::size_t i = 0; i < 8; ++i) wraps[kCount + i] = '\xff';
    CHECK_THROWS_WITH_AS(target.load(wraps), doctest::Contains("count out of range"), tlbf::state_error);
    std::string bare = good;
    REQUIRE(bare[kFirstForm] == static_cast<char>(SeenForm::clock));
    bare[kFirstForm] = static_cast<char>(SeenForm::bare);
    CHECK_THROWS_WITH_AS(target.load(bare), doctest::Contains("time text"), tlbf::state_error);
    CHECK(target.empty());
    target.load(good);
    CHECK_FALSE(target.empty());
  }
}
