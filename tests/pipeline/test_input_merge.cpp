// The time-ordered source (src/pipeline/input_merge.hpp): held records come out as they went
// in (bytes, keys kept inside or outside the record, time texts, hashes), earliest first, on
// the judging thread or read ahead; and a record over the memory cap alone, which is never
// held, goes out where holding it would have put it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/input_merge.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::TempFile;

struct Seen {
  std::string bytes, key, time_text;
  tlbf::KeyHash hash;
  tlbf::Time time;
  ExtractStatus status;

  bool operator==(const Seen& o) const {
    return bytes == o.bytes && key == o.key && time_text == o.time_text && hash == o.hash && time == o.time &&
           status == o.status;
  }
};

// A sink that keeps a copy of every record it is handed.
class Collect final : public BatchSink {
 public:
  std::size_t take(const RecordBatch& b) override {
    for (std::size_t i = 0, k = 0; i < b.size(); ++i) {
      const SourceRecord& r = b[i];
      Seen s{std::string(r.bytes), "", std::string(r.time.text), {}, r.time.time, r.status};
      if (r.keyed) {
        s.key = b.keys()[k];
        s.hash = b.hashes()[k++];
      }
      seen.push_back(s);
    }
    return b.size();
  }
  bool stopped() const override { return false; }
  void release_records() override {}
  int input_paused() override { return -1; }
  void reached_end(const std::string&) override {}

  std::vector<Seen> seen;
};

SourceConfig config(std::vector<std::string> keys, const char* time) {
  SourceConfig c;
  c.extract.keys = std::move(keys);
  c.extract.time = time;
  return c;
}

struct Run {
  std::vector<Seen> seen;
  MergeStats stats;
};

Run merge(const std::string& path, const SourceConfig& cfg, MergeConfig m, bool ahead) {
  const KeyHasher hasher(7);
  ManualClock clock;
  InputMerge in({path}, ReaderConfig{}, m, cfg, hasher, clock);
  Collect sink;
  static volatile int no_stop = 0;
  in.run(sink, &no_stop, ahead);
  return {sink.seen, in.stats()};
}

std::vector<std::string> bytes_of(const std::vector<Seen>& seen) {
  std::vector<std::string> out;
  for (const Seen& s : seen) out.push_back(s.bytes);
  return out;
}

}  // namespace

TEST_SUITE("input_merge") {
  TEST_CASE("held JSON records keep their bytes, keys made outside them, time texts and hashes") {
    // Composite keys are encoded outside the record; numbers as times; a tenth arrive late.
    std::vector<std::pair<int, std::string>> rows;
    std::string in;
    for (int i = 0; i < 20000; ++i) {
      const int t = i % 10 == 3 ? i - 37 : i;
      const std::string row = "{\"ts\":" + std::to_string(t) + ",\"a\":" + std::to_string(i % 501) + ",\"b\":\"" +
                              std::string(static_cast<std::size_t>(i % 97), 'x') + "\"}\n";
      rows.emplace_back(t, row);
      in += row;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string sorted;
    for (const auto& r : rows) sorted += r.second;
    TempFile displaced(in), ordered(sorted);
    const SourceConfig cfg = config({"a", "b"}, "ts");
    MergeConfig hold;
    hold.lateness = 100 * tlbf::kSecond;
    const Run want = merge(ordered.path(), cfg, MergeConfig{}, false);
    REQUIRE(want.seen.size() == 20000);
    CHECK(want.stats.held_most == 0);
    for (bool ahead : {false, true}) {
      CAPTURE(ahead);
      const Run got = merge(displaced.path(), cfg, hold, ahead);
      CHECK(got.stats.held_most > 50);
      CHECK(got.stats.released_early == 0);
      CHECK(got.seen == want.seen);
    }
  }

  TEST_CASE("a record over the memory cap alone goes out where holding it would have put it") {
    const std::string big(5000, 'z');
    TempFile f("10 a\n12 b\n11 c " + big + "\n13 d\n30 e\n40 f\n15 g\n");
    MergeConfig m;
    m.lateness = 5 * tlbf::kSecond;
    m.max_held_bytes = 1000;
    for (bool ahead : {false, true}) {
      CAPTURE(ahead);
      const Run r = merge(f.path(), config({"2"}, "1"), m, ahead);
      // 10 a went early to make room, then c itself; 15 g came after 40 f moved the
      // watermark to 35: too late to hold, out at once.
      CHECK(bytes_of(r.seen) ==
            std::vector<std::string>{"10 a\n", "11 c " + big + "\n", "12 b\n", "13 d\n", "30 e\n", "15 g\n", "40 f\n"});
      CHECK(r.stats.released_early == 2);
      CHECK(r.seen[1].key == "c");
      CHECK(r.seen[1].time == 11 * tlbf::kSecond);
    }
  }

  TEST_CASE("records over the cap together: the oldest goes early, and the watermark with it") {
    // Times 100, 99, ..., 51, one record each, every one later than the lateness allows for.
    std::string in;
    for (int i = 0; i < 50; ++i) in += std::to_string(100 - i) + " k" + std::to_string(i) + "\n";
    TempFile f(in);
    MergeConfig m;
    m.lateness = 1000 * tlbf::kSecond;
    m.max_held_bytes = 800;  // 100..90 fit (64 + 7 bytes, then 64 + 6 each: 771), not 89 too
    const Run r = merge(f.path(), config({"2"}, "1"), m, false);
    // 100..89 held, then the earliest (89) went early; the records after it are behind it,
    // too late to hold: out at once; the held ones at the end, in time order.
    std::vector<std::string> want;
    for (int t = 89; t >= 51; --t) want.push_back(std::to_string(t) + " k" + std::to_string(100 - t) + "\n");
    for (int t = 90; t <= 100; ++t) want.push_back(std::to_string(t) + " k" + std::to_string(100 - t) + "\n");
    CHECK(bytes_of(r.seen) == want);
    CHECK(r.stats.released_early == 1);
    CHECK(r.stats.held_most == 12);
  }
}
