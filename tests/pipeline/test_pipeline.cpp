// The record loop (src/pipeline/pipeline.hpp) with a manual clock, a recording diagnostics sink and
// real filters: window semantics, refresh, untimed records, bad records and their warnings,
// output modes, the state hooks and checkpoint timing. Nothing sleeps.
#include <doctest/doctest.h>

#include <csignal>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "output/memory_sink.hpp"
#include "output/printer.hpp"
#include "pipeline/run.hpp"
#include "test_helpers_cli.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/hash.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::RecordingDiagnostics;
using tlbf_dedup_test::TempFile;

struct Outcome {
  std::string out;
  std::string input_path;
  RunStats stats;
  tlbf::Time clock = 0;
  int saves = 0;
  std::vector<tlbf::Time> saved_at_steady;  // the steady clock at each save
  RecordingDiagnostics diagnostics;
};

// Runs the pipeline over `inputs`, each one a file read in order (as tlbf-dedup FILE...),
// deciding with a filter made from `fc` (the hash seed `seed`), or with `later` when given.
Outcome run(const std::vector<std::string>& inputs, PipelineConfig cfg, tlbf::FilterConfig fc = {},
            StateHooks hooks = {}, ManualClock* clock = nullptr, Decider* later = nullptr, std::uint64_t seed = 0) {
  if (fc.span == 0 && fc.window_count == 0) fc.span = 5 * tlbf::kSecond;
  if (fc.algorithm == tlbf::Algorithm::tlbf && !fc.is_time_window()) fc.algorithm = tlbf::Algorithm::exact;
  if (cfg.clock.window == 0) cfg.clock.window = fc.span;  // as the program does
  ManualClock still;  // stands in 2030, so that the record times here are not in the future
  still.advance(1893456000 * tlbf::kSecond);
  if (!clock) clock = &still;
  auto filter = tlbf::make_filter(fc);
  auto local = make_local_decider(*filter, cfg.refresh, seed);
  std::vector<std::unique_ptr<TempFile>> files;
  std::vector<std::string> paths;
  for (const std::string& input : inputs) {
    files.push_back(std::make_unique<TempFile>(input));
    paths.push_back(files.back()->path());
  }
  TempFile out;
  Outcome r;
  r.input_path = paths.front();
  int fd = out.open_for_writing();
  {
    RecordReader reader(paths, '\n');
    Printer writer(fd, cfg.output);
    auto save = hooks.save;
    hooks.save = [&](tlbf::Time c) {
      ++r.saves;
      r.saved_at_steady.push_back(clock->steady_ns());
      if (save) save(c);
    };
    Run p(cfg, later ? *later : *local, writer, 0, *clock, r.diagnostics, hooks);
    static volatile int no_stop = 0;
    r.stats = p.run(reader, &no_stop);
    r.clock = p.clock();
  }
  ::close(fd);
  r.out = out.read();
  return r;
}

Outcome run(const std::string& input, PipelineConfig cfg, tlbf::FilterConfig fc = {}, StateHooks hooks = {},
            ManualClock* clock = nullptr) {
  return run(std::vector<std::string>{input}, std::move(cfg), fc, std::move(hooks), clock);
}

std::vector<WarningKind> kinds(const Outcome& r) {
  std::vector<WarningKind> out;
  for (const Warning& w : r.diagnostics.warnings) out.push_back(w.kind);
  return out;
}

PipelineConfig keyed(const char* key, const char* time = "") {
  PipelineConfig c;
  c.extract.keys = {key};
  c.extract.time = time;
  c.time_parser = TimeParser(TimeFormat::auto_detect, std::nullopt, 2017);
  return c;
}

// -k 2 -t 1 with a 5 s window, on `threads` threads.
PipelineConfig on_threads(int threads) {
  PipelineConfig c = keyed("2", "1");
  c.threads = threads;
  c.clock.window = 5 * tlbf::kSecond;
  return c;
}

tlbf::FilterConfig exact(tlbf::Duration span) {
  tlbf::FilterConfig fc;
  fc.algorithm = tlbf::Algorithm::exact;
  fc.span = span;
  return fc;
}

// A filter outside the library that keeps every hash it is asked about, in order, and
// answers as an exact set without expiry.
class HashLog final : public tlbf::WindowFilter {
 public:
  bool may_contain(tlbf::KeyHash h, tlbf::Time) const override {
    asked.push_back(h);
    return seen_.count(h) > 0;
  }
  void insert(tlbf::KeyHash h, tlbf::Time) override { seen_.insert(h); }
  tlbf::FilterStats stats(tlbf::Time) const override { return {}; }
  void save(tlbf::ByteWriter&) const override {}

  mutable std::vector<tlbf::KeyHash> asked;

 private:
  struct ByLow {
    std::size_t operator()(tlbf::KeyHash h) const { return static_cast<std::size_t>(h.lo); }
  };
  std::unordered_set<tlbf::KeyHash, ByLow> seen_;
};
}  // namespace

TEST_SUITE("pipeline") {
  constexpr tlbf::Duration kS = tlbf::kSecond;

  TEST_CASE("age < window is a duplicate, at the window it is new, the anchor is the emitted copy") {
    Outcome r = run("0 a\n4 a\n5 a\n9 a\n10 a\n", keyed("2", "1"), exact(5 * kS));
    CHECK(r.out == "0 a\n5 a\n10 a\n");
    CHECK(r.stats.records == 5);
    CHECK(r.stats.emitted == 3);
    CHECK(r.stats.duplicates == 2);
    CHECK(r.clock == 10 * kS);
  }

  // The sink is handed every record in input order, a judged one with its key, hash, the
  // time it was judged at and its answer; no bytes are written anywhere.
  TEST_CASE("the sink gets each record with its key, hash, time and answer, in order") {
    PipelineConfig c = keyed("2", "1");
    c.threads = 1;
    c.clock.window = 5 * kS;
    auto filter = tlbf::make_filter(exact(5 * kS));
    auto decider = make_local_decider(*filter, Refresh::no, 3);
    c.top = 2;                                  // (the keys' bytes are kept only where something reads them)
    TempFile input("0 a\n4 a\n5\n5 b\n6 a\n");  // the third has no key
    RecordReader reader({input.path()}, '\n');
    ManualClock clock;
    clock.advance(1893456000 * kS);
    RecordingDiagnostics diagnostics;
    MemorySink sink;
    static volatile int no_stop = 0;
    Run p(c, *decider, sink, 0, clock, diagnostics);
    const RunStats stats = p.run(reader, &no_stop);
    CHECK(stats.duplicates == 1);
    CHECK((sink.how.stop == &no_stop));
    CHECK_FALSE(sink.holding);
    REQUIRE(sink.entries.size() == 5);
    using K = MemorySink::Kind;
    const tlbf::Time at[] = {0, 4 * kS, 5 * kS, 5 * kS, 6 * kS};
    for (std::size_t i : {0, 1, 3, 4}) {
      CAPTURE(i);
      const MemorySink::Entry& e = sink.entries[i];
      CHECK(e.kind == K::decided);
      CHECK(e.at == at[i]);
      CHECK(e.hash == decider->hasher()(e.key));
    }
    CHECK(sink.entries[0].bytes == "0 a\n");
    CHECK(sink.entries[3].key == "b");
    CHECK(sink.entries[1].dup);
    CHECK_FALSE(sink.entries[0].dup);
    CHECK_FALSE(sink.entries[3].dup);
    CHECK(sink.entries[2].kind == K::undecided);  // --on-error pass
    CHECK(sink.entries[2].bytes == "5\n");
    CHECK_FALSE(sink.entries[4].dup);  // 6 s after the first a, outside the window
  }

  TEST_CASE("refresh renews the key on every occurrence") {
    PipelineConfig c = keyed("2", "1");
    c.refresh = Refresh::yes;
    Outcome r = run("0 a\n4 a\n8 a\n12 a\n18 a\n", c, exact(5 * kS));
    CHECK(r.out == "0 a\n18 a\n");
  }

  TEST_CASE("the clock never goes back, untimed records are judged at it and counted") {
    Outcome r = run("100 a\n50 b\n102 b\nx a\n200 a\nbad c\n", keyed("2", "1"), exact(10 * kS));
    // "50 b" is judged at 100, so "102 b" (age 2) is a duplicate; "x a" is untimed at 102.
    CHECK(r.out == "100 a\n50 b\n200 a\nbad c\n");
    CHECK(r.stats.untimed == 2);
    CHECK(r.stats.errors() == 0);
    CHECK(r.clock == 200 * kS);
  }

  TEST_CASE("without -t the injected wall clock decides") {
    PipelineConfig c;
    ManualClock clock(2 * kS);
    Outcome r = run("a\na\na\na\n", c, exact(5 * kS), {}, &clock);
    // Arrivals at 2, 4, 6, 8 s: 4 is a duplicate of 2, 6 too (age 4), 8 is new (age 6).
    CHECK(r.out == "a\na\n");
    CHECK(r.stats.duplicates == 2);
  }

  TEST_CASE("bad records: pass (never remembered), drop, fail") {
    const std::string in = "{\"k\":1}\nnot json\n{\"x\":1}\nnot json\n{\"k\":1}\n";
    PipelineConfig c = keyed("k");
    c.format = InputFormat::json;
    Outcome pass = run(in, c, exact(5 * kS));
    CHECK(pass.out == "{\"k\":1}\nnot json\n{\"x\":1}\nnot json\n");
    CHECK(pass.stats.malformed == 2);
    CHECK(pass.stats.missing_key == 1);
    c.on_error = OnError::drop;
    Outcome drop = run(in, c, exact(5 * kS));
    CHECK(drop.out == "{\"k\":1}\n");
    c.on_error = OnError::fail;
    CHECK_THROWS_WITH_AS(run(in, c, exact(5 * kS)), doctest::Contains("record 2"), RecordError);
  }

  TEST_CASE("auto format: JSON when the first non-blank record starts with '{'") {
    PipelineConfig c = keyed("k");
    Outcome r = run("\n  {\"k\":1}\n{\"k\":1}\n", c, exact(5 * kS));
    CHECK(r.out == "\n  {\"k\":1}\n");
    PipelineConfig l = keyed("1");
    Outcome lines = run("k 1\nk 2\n", l, exact(5 * kS));
    CHECK(lines.out == "k 1\n");
  }

  TEST_CASE("mark and only-dups") {
    PipelineConfig c = keyed("1");
    c.output.mark = true;
    CHECK(run("a\nb\na\n", c, exact(5 * kS)).out == "new\ta\nnew\tb\ndup\ta\n");
    c.output.only_dups = true;
    CHECK(run("a\nb\na\n", c, exact(5 * kS)).out == "dup\ta\n");
    PipelineConfig d = keyed("1");
    d.output.only_dups = true;
    CHECK(run("a\nb\na\nb\nc\n", d, exact(5 * kS)).out == "a\nb\n");
  }

  TEST_CASE("count window") {
    tlbf::FilterConfig fc;
    fc.algorithm = tlbf::Algorithm::exact;
    fc.window_count = 2;
    CHECK(run("a\nb\na\nc\nd\na\n", keyed("1"), fc).out == "a\nb\nc\nd\na\n");
  }

  TEST_CASE("the state hook runs once at the end with the final clock") {
    StateHooks hooks;
    tlbf::Time saved_clock = -1;
    hooks.save = [&](tlbf::Time c) { saved_clock = c; };
    Outcome r = run("7 a\n9 b\n", keyed("2", "1"), exact(5 * kS), hooks);
    CHECK(r.saves == 1);
    CHECK(saved_clock == 9 * kS);
  }

  TEST_CASE("statistics") {
    Outcome r = run("a\r\nb\na", keyed("1"), exact(5 * kS));
    CHECK(r.stats.bytes_in == 6);
    CHECK(r.stats.bytes_out == 5);
    CHECK(r.stats.filter.algorithm == "exact");
    CHECK(format_stats(r.stats, StatsFormat::text).find("duplicates    1\n") != std::string::npos);
    CHECK(format_stats(r.stats, StatsFormat::json).find("\"duplicates\":1,") != std::string::npos);
  }

  TEST_CASE("warnings reach the diagnostics: the first bad record of each kind at once, totals at the end") {
    const std::string in = "{\"k\":1,\"t\":5}\nnot json\n{\"x\":1}\nnot json\n{\"k\":2}\n{\"x\":2}\n";
    PipelineConfig c = keyed("k", "t");
    c.format = InputFormat::json;
    Outcome r = run(in, c, exact(5 * kS));
    const std::vector<Warning>& w = r.diagnostics.warnings;
    REQUIRE(w.size() == 7);
    // At once, with the file and the record number.
    CHECK(w[0].kind == WarningKind::malformed_record);
    CHECK(w[0].file == r.input_path);
    CHECK(w[0].record == 2);
    CHECK(w[0].message.find("record 2: not a readable JSON object (a word that is not true, false or null) (passed "
                            "through") != std::string::npos);
    CHECK(w[1].kind == WarningKind::missing_key);
    CHECK(w[1].record == 3);
    CHECK(w[1].message.find("record 3: the key (-k k) is absent") != std::string::npos);  // names the -k
    CHECK(w[2].kind == WarningKind::untimed);                                             // {"k":2} has no t
    CHECK(w[2].record == 5);
    CHECK(w[2].message.find("record 5: no readable time at -t t: (field absent)") != std::string::npos);
    // Four of the six records have no key: nothing was deduplicated among most of them.
    CHECK(w[3].kind == WarningKind::missing_key);
    CHECK(w[3].record == 0);
    CHECK(w[3].count == 4);
    CHECK(w[3].message.find("4 of the first 6 records have no key, so they are passed through without being "
                            "deduplicated (the first, record 2 of ") == 0);
    // At the end, totals: no file, no record, the count.
    CHECK(w[4].kind == WarningKind::malformed_record);
    CHECK(w[4].record == 0);
    CHECK(w[4].count == 2);
    CHECK(w[5].kind == WarningKind::missing_key);
    CHECK(w[5].count == 2);
    CHECK(w[6].kind == WarningKind::untimed);
    CHECK(w[6].count == 1);
    CHECK(w[6].message.find("at -t t") != std::string::npos);
    // Then the summary, once, with the run's counters.
    REQUIRE(r.diagnostics.summaries.size() == 1);
    CHECK(r.diagnostics.summaries[0].records == 6);
    CHECK(r.diagnostics.summaries[0].malformed == 2);
  }

  TEST_CASE("a binding memory cap is warned about at the record that made it bind, and totalled at the end") {
    // 20,000 distinct keys, one per millisecond, against an exact filter capped at 64 KiB
    // (about 1,500 keys): the cap binds long before the 60 s window is full.
    std::string in;
    for (int i = 0; i < 20000; ++i) in += std::to_string(i / 1000.0) + " k" + std::to_string(i) + "\n";
    tlbf::FilterConfig fc = exact(60 * kS);
    fc.max_memory_bytes = 64 * 1024;
    Outcome r = run(in, keyed("2", "1"), fc);
    CHECK(r.stats.emitted == 20000);  // the cap gives up window length, never a unique record
    const std::vector<Warning>& w = r.diagnostics.warnings;
    REQUIRE(w.size() == 2);
    CHECK(w[0].kind == WarningKind::memory_cap);
    CHECK(w[0].record > 1000);
    CHECK(w[0].record < 5000);
    CHECK(w[0].message.find("record " + std::to_string(w[0].record) +
                            ": the memory cap (--max-memory) bound: the filter now keeps the last ") !=
          std::string::npos);
    CHECK(w[0].message.find("s of the window; older duplicates may pass, no unique record is lost") !=
          std::string::npos);
    CHECK(w[1].kind == WarningKind::memory_cap);
    CHECK(w[1].record == 0);
    CHECK(w[1].count == 20000 - w[0].record + 1);  // every later new key evicted one
    REQUIRE(r.diagnostics.summaries.size() == 1);
    CHECK(r.diagnostics.summaries[0].filter.memory_capped);
    CHECK(r.diagnostics.summaries[0].filter.peak_bits_allocated <= 64 * 1024 * 8);
  }

  TEST_CASE("--on-cap fail stops the run at the record that made the cap bind, after writing it") {
    std::string in;
    for (int i = 0; i < 20000; ++i) in += std::to_string(i) + " k" + std::to_string(i) + "\n";
    tlbf::FilterConfig fc = exact(0);
    fc.span = 0;
    fc.window_count = 100000;
    fc.max_memory_bytes = 64 * 1024;
    PipelineConfig c = keyed("2", "1");
    c.on_cap = OnCap::fail;
    CHECK_THROWS_WITH_AS(run(in, c, fc), doctest::Contains("keys (--on-cap fail)"), CapError);
  }

  TEST_CASE("a clean run warns nothing and still reports its summary") {
    Outcome r = run("1 a\n2 b\n", keyed("2", "1"), exact(5 * kS));
    CHECK(r.diagnostics.warnings.empty());
    CHECK(r.diagnostics.summaries.size() == 1);
  }

  TEST_CASE("checkpoints follow the injected steady clock") {
    // Every record is one wall-clock arrival that moves the manual clock 1 s. Checkpoints
    // are looked at every 4096 records, so with --checkpoint 10000s the first is due at
    // record 12288 (12288 s since the start), the next 12288 records later; then the final save.
    std::string in;
    for (int i = 0; i < 25000; ++i) in += "k" + std::to_string(i % 7) + "\n";
    StateHooks hooks;
    hooks.save = [](tlbf::Time) {};
    hooks.every = 10000 * kS;
    ManualClock clock(kS);
    Outcome r = run(in, PipelineConfig{}, exact(5 * kS), hooks, &clock);
    CHECK(r.saves == 3);
    CHECK(r.saved_at_steady == std::vector<tlbf::Time>{12288 * kS, 24576 * kS, 25000 * kS});
    CHECK(r.stats.seconds == doctest::Approx(25000.0));

    // A longer interval than the run: only the final save.
    hooks.every = 30000 * kS;
    ManualClock slow(kS);
    CHECK(run(in, PipelineConfig{}, exact(5 * kS), hooks, &slow).saves == 1);
  }

  TEST_CASE("a stamp beyond --max-future is judged as untimed and does not move the clock") {
    // The reproduction: a 2099 stamp used to freeze the clock, so the second b, four
    // days after the first, was judged a duplicate.
    const std::string in =
        "{\"id\":\"z\",\"ts\":\"2099-01-01T00:00:00Z\"}\n"
        "{\"id\":\"b\",\"ts\":\"2020-01-01T00:01:00Z\"}\n"
        "{\"id\":\"b\",\"ts\":\"2020-01-05T00:01:00Z\"}\n";
    ManualClock wall;
    wall.advance(1700000000 * kS);  // November 2023
    Outcome r = run(in, keyed("id", "ts"), exact(60 * kS), {}, &wall);
    CHECK(r.out == in);
    CHECK(r.stats.future == 1);
    CHECK(r.stats.duplicates == 0);
    // The future stamp at once, and its total; the four days between the b's are a jump
    // forward (over 100 x 60 s), counted only.
    REQUIRE(kinds(r) == std::vector<WarningKind>{WarningKind::future_time, WarningKind::future_time});
    CHECK(r.stats.jumps_forward == 1);
    const Warning& w = r.diagnostics.warnings[0];
    CHECK(w.record == 1);
    CHECK(w.file == r.input_path);
    CHECK(w.message.find("\"2099-01-01T00:00:00Z\" is more than --max-future 1d ahead") != std::string::npos);
    // Without a limit, the stamp captures the clock as before.
    PipelineConfig unlimited = keyed("id", "ts");
    unlimited.clock.max_future.reset();
    CHECK(run(in, unlimited, exact(60 * kS), {}, &wall).stats.duplicates == 1);
  }

  TEST_CASE("a late record is warned once with the record, its lateness and advice, jumps forward only counted") {
    // Two hosts' logs concatenated: 0..2 s, then 5000..5002 s, then back to 3 s, and again.
    PipelineConfig c = keyed("2", "1");
    c.clock.jump = 100 * kS;
    Outcome r = run("0 a\n1 b\n5000 c\n5001 a\n3 d\n4 a\n5002 e\n6 f\n", c, exact(10 * kS));
    CHECK(r.stats.jumps_forward == 2);
    CHECK(r.stats.jumps_back == 2);
    CHECK(r.stats.late == 3);  // 3 d, 4 a, 6 f: judged at the clock 5001 and 5002
    CHECK(r.stats.max_lateness_ns == 4998 * kS);
    CHECK(r.out == "0 a\n1 b\n5000 c\n5001 a\n3 d\n5002 e\n6 f\n");
    // A jump forward alone is a quiet spell: counted, not warned about.
    REQUIRE(kinds(r) == std::vector<WarningKind>{WarningKind::late, WarningKind::late});
    CHECK(r.diagnostics.warnings[0].record == 5);
    CHECK(r.diagnostics.warnings[0].message.find("\"3\" is 1h23m behind the clock (1970-01-01T01:23:21Z)") !=
          std::string::npos);
    CHECK(r.diagnostics.warnings[0].message.find(" is not in time order: --lateness 2h holds records that long to "
                                                 "judge them in time order; or sort it by time first: LC_ALL=C sort "
                                                 "-s -b -k1,1 ") != std::string::npos);
    CHECK(r.diagnostics.warnings[1].count == 3);  // the total at the end
    CHECK(r.diagnostics.warnings[1].message ==
          "3 record(s) were late, behind the clock by up to 1h23m (judged at the clock; 3 by more than 100ms): "
          "--lateness 2h holds records that long to judge them in time order");
    CHECK(readable_duration(66177601500000) == "18h22m");
    CHECK(readable_duration(7532 * kS) == "2h5m");
    CHECK(readable_duration(3600 * kS) == "1h");
    CHECK(readable_duration(3 * 86400 * kS + 4 * 3600 * kS + 5 * kS) == "3d4h");
    CHECK(readable_duration(400 * 86400 * kS) == "400d");
    CHECK(readable_duration(452 * kS) == "7m32s");
    CHECK(readable_duration(12500 * tlbf::kMillisecond) == "12.5s");
    CHECK(readable_duration(12 * kS) == "12s");
    CHECK(readable_duration(250 * tlbf::kMillisecond) == "250ms");
    CHECK(readable_duration(20 * tlbf::kMicrosecond) == "20us");
    CHECK(readable_duration(UINT64_MAX) == "centuries");
    // The default threshold is max(1 h, 100 x window): 1 h for a 10 s window, 100 m for 60 s.
    ClockPolicy policy;
    policy.window = 10 * kS;
    CHECK(policy.jump_threshold() == 3600 * kS);
    policy.window = 60 * kS;
    CHECK(policy.jump_threshold() == 6000 * kS);
  }

  TEST_CASE("untimed input is loud: the first at once with its value, and a run with no time stops") {
    Outcome r = run("2017-05-16 x\nnot-a-time y\n3 z\n", keyed("2", "1"), exact(10 * kS));
    REQUIRE(r.diagnostics.warnings.size() >= 2);
    CHECK(r.diagnostics.warnings[0].kind == WarningKind::date_only);
    CHECK(r.diagnostics.warnings[0].message.find("\"2017-05-16\" at -t 1 is a date without a time of day") !=
          std::string::npos);
    CHECK(r.diagnostics.warnings[1].kind == WarningKind::untimed);
    CHECK(r.diagnostics.warnings[1].record == 2);
    CHECK(r.diagnostics.warnings[1].message.find("record 2: no readable time at -t 1: \"not-a-time\"") !=
          std::string::npos);

    // None of 1000 records has a time: stop after the 1000th, its output written.
    std::string spark;
    for (int i = 0; i < 1200; ++i) spark += "17-06-09T20:10:40 k" + std::to_string(i) + "\n";
    CHECK_THROWS_WITH_AS(run(spark, keyed("2", "1"), exact(10 * kS)),
                         doctest::Contains("none of the first 1000 records has a readable time at -t 1"), UntimedInput);
    // Fewer records: the same, at the end.
    CHECK_THROWS_AS(run("x a\ny b\n", keyed("2", "1"), exact(10 * kS)), UntimedInput);
    // --allow-untimed: judged at the clock, counted.
    PipelineConfig allowed = keyed("2", "1");
    allowed.clock.allow_untimed = true;
    CHECK(run(spark, allowed, exact(10 * kS)).stats.untimed == 1200);
    // One readable time among them is enough.
    CHECK(run("5 a\n" + spark, keyed("2", "1"), exact(10 * kS)).stats.untimed == 1200);
  }

  TEST_CASE("each input starts the year of year-less stamps again") {
    // With --year 2023 each file's December stamp is in 2023; within a file, January after
    // December is the next year (rollover keeps both lines, an hour and more apart).
    PipelineConfig c = keyed("1", "2-");
    c.clock.year = 2023;
    c.time_parser = TimeParser(TimeFormat::auto_detect, std::nullopt, 2023);
    Outcome r = run(std::vector<std::string>{"a Dec 31 23:59:50\na Jan  1 05:00:00\n", "b Dec 31 23:59:59\n"}, c,
                    exact(60 * kS));
    CHECK(r.out == "a Dec 31 23:59:50\na Jan  1 05:00:00\nb Dec 31 23:59:59\n");
    CHECK(r.stats.jumps_back == 1);  // the second file starts a year earlier: warned
    // Without --year, the year comes from the file's modification time (now, here: 2020s).
    c.clock.year.reset();
    Outcome m = run(std::vector<std::string>{"a Dec 31 23:59:50\na Jan  1 05:00:00\n"}, c, exact(60 * kS));
    CHECK(m.out == "a Dec 31 23:59:50\na Jan  1 05:00:00\n");
    CHECK(m.clock > 1577836800 * kS);  // after 2020-01-01: the year was not 1970
  }

  // Decisions are made ahead of the output in batches, but never past a write that can fail:
  // when downstream closes the pipe, the run has counted and decided the records up to the
  // one whose write failed and none after it, and the state is saved at that one's time.
  TEST_CASE("a closed pipe: the records counted and decided end at the write that failed") {
    std::signal(SIGPIPE, SIG_IGN);
    std::string in;
    std::uint64_t bytes = 0, failing = 0;  // the write of record `failing` finds a full buffer
    for (int i = 0; i < 60000; ++i) {
      const std::string line = std::to_string(i / 10) + " key-" + std::to_string(i) + std::string(60, '.') + "\n";
      in += line;
      if (!failing && (bytes += line.size()) > 4096) failing = static_cast<std::uint64_t>(i) + 1;
    }
    TempFile input(in);
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      const PipelineConfig c = on_threads(threads);
      HashLog filter;
      auto decider = make_local_decider(filter, Refresh::no, 7);
      tlbf::Time saved = -1;
      StateHooks hooks;
      hooks.save = [&](tlbf::Time clock) { saved = clock; };
      int fds[2];
      REQUIRE(::pipe(fds) == 0);
      ::close(fds[0]);
      {
        RecordReader reader({input.path()}, '\n');
        Printer writer(fds[1], c.output, 4096);  // full after some 50 records, inside a batch
        ManualClock clock;
        clock.advance(1893456000 * kS);
        RecordingDiagnostics diagnostics;
        Run p(c, *decider, writer, 0, clock, diagnostics, hooks);
        static volatile int no_stop = 0;
        CHECK_THROWS_AS(p.run(reader, &no_stop), BrokenPipe);
        REQUIRE(diagnostics.summaries.size() == 1);
        const std::uint64_t counted = diagnostics.summaries[0].records;
        // Read ahead, the writer is flushed when the first batch (its first record) is done.
        CHECK(counted == (threads == 1 ? failing : 1));
        CHECK(filter.asked.size() == counted);
        // Records decided as kept may not have reached the reader: no last save.
        CHECK(saved == -1);
      }
      ::close(fds[1]);
    }
  }

  // With --threads 2 the producer hashes the keys; the filter must be asked with the very
  // hashes one thread asks with (the run's seed, the same key bytes), record by record.
  TEST_CASE("read-ahead asks the filter with the key hashed with the run's seed, as one thread does") {
    constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15u;
    std::string in = "1 a\nnokey\n2 b\n\n3 a\n";
    for (int i = 0; i < 9000; ++i) in += std::to_string(4 + i / 100) + " k" + std::to_string(i % 500) + "\n";
    std::vector<tlbf::KeyHash> expected;
    for (const char* k : {"a", "b", "a"}) expected.push_back(tlbf::hash_key(std::string_view(k), kSeed));
    for (int i = 0; i < 9000; ++i) expected.push_back(tlbf::hash_key("k" + std::to_string(i % 500), kSeed));
    TempFile input(in);
    std::string outputs[2];
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      const PipelineConfig c = on_threads(threads);
      HashLog filter;
      TempFile out;
      int fd = out.open_for_writing();
      {
        RecordReader reader({input.path()}, '\n');
        Printer writer(fd, c.output);
        ManualClock clock;
        clock.advance(1893456000 * kS);
        RecordingDiagnostics diagnostics;
        auto decider = make_local_decider(filter, Refresh::no, kSeed);
        Run p(c, *decider, writer, 0, clock, diagnostics);
        static volatile int no_stop = 0;
        const RunStats stats = p.run(reader, &no_stop);
        CHECK(stats.duplicates == 1 + (9000 - 500));
      }
      ::close(fd);
      outputs[threads - 1] = out.read();
      REQUIRE(filter.asked.size() == expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(filter.asked[i].lo == expected[i].lo);
        CHECK(filter.asked[i].hi == expected[i].hi);
      }
    }
    CHECK(outputs[0] == outputs[1]);
  }
}

namespace {

// A decider that answers later, as a remote filter does: it keeps the keys it is given and
// answers them three at a time (or all at flush()), from an exact filter. After `lose_after`
// answered keys, it answers no more and throws DecisionsLost, as a lost server does.
class BatchingDecider final : public Decider {
 public:
  explicit BatchingDecider(std::size_t lose_after = SIZE_MAX) : Decider(0, true), lose_after_(lose_after) {
    tlbf::FilterConfig fc;
    fc.span = 5 * tlbf::kSecond;
    fc.algorithm = tlbf::Algorithm::exact;
    filter_ = tlbf::make_filter(fc);
  }
  std::size_t submit(const KeyBatch& keys, Answers& answers) override {
    for (std::size_t i = 0; i < keys.size; ++i) {
      waiting_.emplace_back(std::string(keys.keys[i]), keys.times[i]);
      if (waiting_.size() == 3) flush(answers);
    }
    return keys.size;
  }
  void flush(Answers& answers) override {
    for (; !waiting_.empty(); waiting_.pop_front()) {
      if (answered_ == lose_after_) throw DecisionsLost("lost");
      ++answered_;
      answers.push(!filter_->insert_if_absent(hasher()(waiting_.front().first), waiting_.front().second));
    }
  }
  std::uint64_t cap_binds() const override { return 0; }
  tlbf::FilterStats stats(tlbf::Time now) override { return filter_->stats(now); }

 private:
  std::unique_ptr<tlbf::WindowFilter> filter_;
  std::deque<std::pair<std::string, tlbf::Time>> waiting_;
  std::size_t answered_ = 0, lose_after_;
};

}  // namespace

TEST_SUITE("pipeline with a decider that answers later") {
  // Keyless records (passed) and blank ones are written behind the records still waiting for
  // their answers: the output is the one a filter that answers at once gives.
  TEST_CASE("output in input order, as a filter that answers at once writes it") {
    const std::string in = "1 a\nb\n2 c\n\n3 a\n4 d\n5 c\nnokey\n6 e\n7 a\n";
    for (bool mark : {false, true}) {
      PipelineConfig c = keyed("2");
      c.output.mark = mark;
      tlbf::FilterConfig fc;
      fc.algorithm = tlbf::Algorithm::exact;
      BatchingDecider later;
      Outcome deferred = run(std::vector<std::string>{in}, c, fc, {}, nullptr, &later);
      Outcome at_once = run(in, c, fc);
      CHECK(deferred.out == at_once.out);
      CHECK(deferred.stats.duplicates == 3);
      CHECK(deferred.stats.emitted == at_once.stats.emitted);
    }
  }

  // The records answered before the loss are written; the ones after it are not.
  TEST_CASE("a lost decider: what was answered is written, then DecisionsLost") {
    PipelineConfig c;
    c.format = InputFormat::lines;
    BatchingDecider later(4);
    TempFile input("a\nb\na\nc\nd\ne\nf\n");
    TempFile out;
    int fd = out.open_for_writing();
    {
      RecordReader reader({input.path()}, '\n');
      Printer writer(fd, c.output);
      ManualClock clock;
      RecordingDiagnostics diagnostics;
      Run p(c, later, writer, 0, clock, diagnostics);
      static volatile int no_stop = 0;
      CHECK_THROWS_AS(p.run(reader, &no_stop), DecisionsLost);
    }
    ::close(fd);
    CHECK(out.read() == "a\nb\nc\n");
  }
}
