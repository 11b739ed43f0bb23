// The record source (src/pipeline/record_source.hpp): one loop that yields the same records,
// with the same places, keys, hashes and times, whether it runs on the judging thread or
// reads ahead on its own; leading blank records held until the format is known; an error
// after the records before it; and batches whose views follow their copies.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline/record_source.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::TempFile;

struct Seen {
  std::string bytes, key, time_text, input;
  std::uint64_t number;
  ExtractStatus status;
  bool continues, replayed, json, parsed;
  tlbf::KeyHash hash;
  tlbf::Time time;

  bool operator==(const Seen& o) const {
    return bytes == o.bytes && key == o.key && time_text == o.time_text && input == o.input && number == o.number &&
           status == o.status && continues == o.continues && replayed == o.replayed && json == o.json &&
           parsed == o.parsed && hash == o.hash && time == o.time;
  }
};

// A sink that keeps a copy of every record it is handed.
class Collect final : public BatchSink {
 public:
  std::size_t take(const RecordBatch& b) override {
    batches.push_back(b.size());
    detected.push_back(b.format_detected);
    for (std::size_t i = 0, k = 0; i < b.size(); ++i) {
      const SourceRecord& r = b[i];
      Seen s{std::string(r.bytes), "",         std::string(r.time.text),      b.names[r.input], r.number, r.status,
             r.continues,          r.replayed, b.format == InputFormat::json, r.time.parsed,    {},       r.time.time};
      if (r.keyed) {
        s.key = b.keys()[k];
        s.hash = b.hashes()[k++];
      }
      seen.push_back(s);
    }
    return b.size();
  }
  bool stopped() const override { return false; }
  void release_records() override { ++released; }
  int input_paused() override { return -1; }
  void reached_end(const std::string& name) override { end = name; }

  std::vector<Seen> seen;
  std::vector<std::size_t> batches;
  std::vector<bool> detected;
  int released = 0;
  std::string end;
};

SourceConfig config(const char* key, const char* time = "") {
  SourceConfig c;
  c.extract.keys = {key};
  c.extract.time = time;
  c.time_parser = TimeParser(TimeFormat::auto_detect, std::nullopt, 2017);
  return c;
}

// Runs a source over `paths`, on this thread or reading ahead.
Collect collect(const std::vector<std::string>& paths, const SourceConfig& cfg, bool ahead) {
  const KeyHasher hasher(42);
  ManualClock clock;
  RecordSource source(cfg, hasher, clock);
  RecordReader reader(paths, '\n');
  Collect sink;
  static volatile int no_stop = 0;
  if (ahead)
    source.run_ahead(reader, sink);
  else
    source.run(reader, sink, &no_stop);
  return sink;
}

}  // namespace

TEST_SUITE("record_source") {
  TEST_CASE("inline and read ahead yield the same records, places, keys, hashes and times") {
    std::string a, b;
    for (int i = 0; i < 10000; ++i) a += std::to_string(i) + " key" + std::to_string(i % 77) + "\n";
    for (int i = 0; i < 3000; ++i) b += std::to_string(i) + (i % 100 == 7 ? "\n" : " k" + std::to_string(i) + "\n");
    TempFile fa(a), fb(b);
    const Collect one = collect({fa.path(), fb.path()}, config("2", "1"), false);
    const Collect two = collect({fa.path(), fb.path()}, config("2", "1"), true);
    REQUIRE(one.seen.size() == 13000);
    CHECK(one.seen == two.seen);
    CHECK(one.end == fb.path());
    CHECK(two.end == fb.path());
    const Seen& first = one.seen[0];
    CHECK(first.key == "key0");
    CHECK(first.hash == KeyHasher(42)("key0"));
    CHECK(first.time_text == "0");
    CHECK(first.input == fa.path());
    const Seen& later = one.seen[10000 + 107];
    CHECK(later.input == fb.path());
    CHECK(later.number == 108);
    CHECK(later.status == ExtractStatus::missing_key);
    // The first batch ends with the first record, later ones when full.
    CHECK(one.batches.front() == 1);
    CHECK(two.batches.front() == 1);
    CHECK(two.batches.at(1) == RecordBatch::kItems);
  }

  TEST_CASE("auto format: leading blank records are held, then judged before the first record, as JSON") {
    TempFile f("\n  \n{\"k\":\"a\"}\n\n{\"k\":\"b\"}\n");
    for (bool ahead : {false, true}) {
      const Collect c = collect({f.path()}, config("k"), ahead);
      REQUIRE(c.seen.size() == 5);
      CHECK(c.seen[0].replayed);
      CHECK(c.seen[0].number == 1);
      CHECK(c.seen[1].replayed);
      CHECK(c.seen[1].bytes == "  \n");
      CHECK(c.seen[2].key == "a");
      CHECK_FALSE(c.seen[2].replayed);
      CHECK(c.seen[2].json);
      CHECK(c.seen[0].status == ExtractStatus::blank);  // no record in JSON
      CHECK_FALSE(c.seen[3].replayed);                  // blank after the format is known: the same
      CHECK(c.seen[3].status == ExtractStatus::blank);
      CHECK(c.detected.front());
    }
  }

  TEST_CASE("an input of blank records only is lines, and its blank records keep their numbers") {
    TempFile blank("\n\n"), next("{\"k\":1}\n");
    const Collect c = collect({blank.path(), next.path()}, config("1"), false);
    REQUIRE(c.seen.size() == 3);
    CHECK(c.seen[0].replayed);
    CHECK(c.seen[1].number == 2);
    CHECK_FALSE(c.seen[2].json);  // lines, chosen when the first input ended
    CHECK(c.seen[2].key == "{\"k\":1}");
    CHECK_FALSE(c.detected.front());
  }

  TEST_CASE("each input counts year-less stamps from its own year again") {
    SourceConfig cfg = config("1", "2-");
    cfg.year = 2023;
    TempFile a("a Dec 31 23:59:50\na Jan  1 05:00:00\n"), b("b Dec 31 23:59:59\n");
    const Collect c = collect({a.path(), b.path()}, cfg, false);
    REQUIRE(c.seen.size() == 3);
    REQUIRE(c.seen[0].parsed);
    CHECK(c.seen[0].time_text == "Dec 31 23:59:50");
    CHECK(c.seen[1].time > c.seen[0].time);                       // January of 2024: the year rolled over
    CHECK(c.seen[2].time == c.seen[0].time + 9 * tlbf::kSecond);  // the next input is in 2023 again
  }

  TEST_CASE("an error of the reader comes after the records before it") {
    TempFile a("x\ny\n");
    for (bool ahead : {false, true}) {
      const KeyHasher hasher(1);
      ManualClock clock;
      RecordSource source(config("1"), hasher, clock);
      RecordReader reader({a.path(), "/nonexistent/input"}, '\n');
      Collect sink;
      static volatile int no_stop = 0;
      if (ahead)
        CHECK_THROWS_AS(source.run_ahead(reader, sink), InputError);
      else
        CHECK_THROWS_AS(source.run(reader, sink, &no_stop), InputError);
      CHECK(sink.seen.size() == 2);
      CHECK(sink.end.empty());
    }
  }

  TEST_CASE("a limit (--explain) stops reading after that many records") {
    TempFile f("a\nb\nc\nd\n");
    SourceConfig cfg = config("1");
    cfg.limit = 2;
    const Collect c = collect({f.path()}, cfg, false);
    CHECK(c.seen.size() == 2);
    CHECK(c.end == f.path());
  }

  TEST_CASE("a batch holds more than kItems records, its arrays moved past their slabs") {
    RecordBatch b;
    const std::size_t n = RecordBatch::kItems + 100;
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < n; ++i) texts.push_back("r" + std::to_string(i) + "\n");
    for (std::size_t i = 0; i < n; ++i) {
      SourceRecord& r = b.append(b.keep(b.bytes, texts[i]));
      r.number = i;
      b.append_key(r.bytes.substr(0, 1), {i, i});
    }
    REQUIRE(b.size() == n);
    REQUIRE(b.keyed() == n);
    for (std::size_t i : {std::size_t{0}, RecordBatch::kItems - 1, RecordBatch::kItems, n - 1}) {
      CHECK(b[i].bytes == texts[i]);
      CHECK(b[i].number == i);
      CHECK(b.hashes()[i].lo == i);
      CHECK(b.keys()[i] == "r");
    }
  }

  TEST_CASE("views into copies held before the store took its slab follow it there") {
    RecordBatch b;
    b.bytes.assign("abc\n");  // in the string itself, below its slab
    b.append(std::string_view(b.bytes));
    const std::string_view second = b.keep(b.bytes, "def\n");
    CHECK(b[0].bytes == "abc\n");
    CHECK(b[0].bytes.data() == b.bytes.data());
    CHECK(second == "def\n");
  }

  TEST_CASE("a batch's views follow its copies when they move, and a grown batch is shrunk back") {
    RecordBatch b;
    const std::string_view bytes = b.keep(b.bytes, "abc def\n");
    SourceRecord& r = b.append(bytes);
    r.time.text = b.keep(b.side, "2024");
    b.append_key({r.bytes.data() + 4, 3}, {});
    const std::string big(4 * RecordBatch::kBytes, 'x');  // more than the block holds
    b.keep(b.bytes, big);                                 // moves the bytes
    b.keep(b.side, big);                                  // and the side
    CHECK(b[0].bytes == "abc def\n");
    CHECK(b.keys()[0] == "def");
    CHECK(b[0].time.text == "2024");
    CHECK(b[0].bytes.data() == b.bytes.data());
    b.clear();
    CHECK(b.bytes.capacity() < 4 * RecordBatch::kBytes);  // back in its slab
    CHECK(b.empty());
    CHECK(b.keyed() == 0);
  }
}
