// The record loop with a holding stage (src/output/holding_sink.cpp): --count and --keep
// last through the real reader, extractor and emitter, with a manual clock: window-close
// order, the time forms of JSON records, records without a key, the end of a run with and
// without a state, the memory cap, one thread or two. Nothing sleeps.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "output/holding_sink.hpp"
#include "output/printer.hpp"
#include "pipeline/run.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::RecordingDiagnostics;
using tlbf_dedup_test::TempFile;

constexpr tlbf::Duration kS = tlbf::kSecond;

struct Held {
  std::string out;
  RunStats stats;
  RecordingDiagnostics diagnostics;
  int saves = 0;
};

// -k `key` [-t `time`] --count (or as `hold` says) with a `span` window over `input`.
struct HoldRun {
  std::string key = "1", time;
  HoldConfig hold;
  PipelineConfig cfg;
  tlbf::Duration span = 5 * kS;
  bool state = false;  // a state hook that saves (and counts the saves)

  HoldRun() {
    hold.count = true;
    cfg.time_parser = TimeParser(TimeFormat::auto_detect, std::nullopt, 2017);
    cfg.output.count = true;
    cfg.threads = 1;
  }
  Held operator()(const std::string& input) {
    cfg.extract.keys = {key};
    cfg.extract.time = time;
    cfg.clock.window = span;
    hold.span = span;
    auto unasked = make_unasked_decider(0);  // the holder decides, as the program does it
    Holder holder(hold);
    ManualClock clock(kS);  // each arrival a second later, from 2030 on
    clock.advance(1893456000 * kS);
    TempFile in(input), out;
    Held h;
    StateHooks hooks;
    if (state) hooks.save = [&](tlbf::Time) { ++h.saves; };
    const int fd = out.open_for_writing();
    {
      RecordReader reader({in.path()}, '\n');
      Printer writer(fd, cfg.output);
      HoldingSink holding(holder, writer, cfg.extract.time, clock);
      Run p(cfg, *unasked, holding, 0, clock, h.diagnostics, hooks);
      static volatile int no_stop = 0;
      h.stats = p.run(reader, &no_stop);
    }
    ::close(fd);
    h.out = out.read();
    return h;
  }
};

}  // namespace

TEST_SUITE("pipeline holding") {
  TEST_CASE("each kept record once, with its count, as its window closes") {
    HoldRun run;
    run.key = "2";
    run.time = "1";
    const Held h = run("0 a x\n1 b x\n4 a y\n5 a z\n6 c x\n20 b x\n");
    // a's window [0, 5) holds 0 and 4; 5 starts a new one. b closes at 6, before c is held.
    CHECK(h.out == "2 0 a x\n1 1 b x\n1 5 a z\n1 6 c x\n1 20 b x\n");
    CHECK(h.stats.records == 6);
    CHECK(h.stats.duplicates == 1);
    CHECK(h.stats.emitted == 5);
    CHECK(h.stats.held.active);
    CHECK(h.stats.held.peak == 2);
    CHECK(h.stats.filter.keys_inserted == 5);
    CHECK(format_stats(h.stats, StatsFormat::json).find("\"held\":{\"peak\":2,") != std::string::npos);
  }

  TEST_CASE("keep last writes the last copy inside the window") {
    HoldRun run;
    run.key = "2";
    run.time = "1";
    run.hold.count = false;
    run.hold.keep = Keep::last;
    run.cfg.output.count = false;
    // a's window (from 0) closes before b's (from 2): its last copy comes out first.
    CHECK(run("0 a x\n1 a y\n2 b x\n3 a z\n").out == "3 a z\n2 b x\n");
  }

  TEST_CASE("JSON: members added, the times in the input's form, number or string") {
    HoldRun run;
    run.key = "id";
    run.time = "ts";
    // The second record is read through simdjson (an escape), the rest by the fast path.
    const Held h =
        run("{\"ts\":1763750000.5,\"id\":\"a\"}\n"
            "{\"ts\":1763750001,\"id\":\"a\",\"m\":\"\\u0041\"}\n"
            "{\"ts\":\"2025-11-21T18:33:30Z\",\"id\":\"b\"}\n");
    CHECK(h.out ==
          "{\"ts\":1763750000.5,\"id\":\"a\",\"dup_count\":2,\"first_seen\":1763750000.5,\"last_seen\":1763750001}\n"
          "{\"ts\":\"2025-11-21T18:33:30Z\",\"id\":\"b\",\"dup_count\":1,\"first_seen\":\"2025-11-21T18:33:30Z\","
          "\"last_seen\":\"2025-11-21T18:33:30Z\"}\n");
  }

  TEST_CASE("records without a key go out at once, untouched, and a missing line end is supplied between") {
    HoldRun run;
    run.key = "2";
    const Held h = run("x a\nlonely\nx a\nx b\nx a");
    CHECK(h.out == "lonely\n3 x a\n1 x b\n");
    CHECK(h.stats.missing_key == 1);
    run.cfg.on_error = OnError::drop;
    CHECK(run("x a\nlonely\n").out == "1 x a\n");
    // Out of input order, the last record (no line end) gets one when another follows it.
    HoldRun later;
    later.key = "2";
    later.time = "1";
    later.hold.keep = Keep::last;
    CHECK(later("1 a\n2 b\n3 a").out == "2 3 a\n1 2 b\n");
    CHECK(later("1 a\n2 b\n3 b").out == "1 1 a\n2 3 b");
  }

  TEST_CASE("at the end: written without a state, kept in a saved one, written with --drain or when none is saved") {
    HoldRun run;
    run.state = true;
    Held kept = run("a\nb\na\n");
    CHECK(kept.out.empty());
    CHECK(kept.saves == 1);
    run.hold.drain = true;
    Held drained = run("a\nb\na\n");
    CHECK(drained.out == "2 a\n1 b\n");
    CHECK(drained.saves == 1);
    run.state = false;
    run.hold.drain = false;
    CHECK(run("a\nb\na\n").out == "2 a\n1 b\n");
  }

  TEST_CASE(
      "a binding memory cap writes early, warns at once and in total, and --on-cap fail stops after writing all") {
    HoldRun run;
    run.key = "1";
    run.span = 3600 * kS;
    run.hold.max_bytes = 16 << 10;
    std::string in;
    for (int i = 0; i < 400; ++i) in += "key" + std::to_string(i) + " " + std::string(100, 'x') + "\n";
    const Held h = run(in);
    CHECK(h.stats.held.early > 0);
    CHECK(h.stats.emitted == 400);
    REQUIRE(h.diagnostics.warnings.size() == 2);
    CHECK(h.diagnostics.warnings[0].kind == WarningKind::memory_cap);
    CHECK(h.diagnostics.warnings[0].record > 0);
    CHECK(h.diagnostics.warnings[1].count == h.stats.held.early);
    run.cfg.on_cap = OnCap::fail;
    CHECK_THROWS_AS(run(in), CapError);
  }

  TEST_CASE("one thread or two, the same output") {
    std::string in;
    for (int i = 0; i < 20000; ++i) in += std::to_string(i / 10) + " k" + std::to_string(i * 7 % 300) + "\n";
    HoldRun run;
    run.key = "2";
    run.time = "1";
    run.span = 60 * kS;
    const std::string one = run(in).out;
    run.cfg.threads = 2;
    CHECK(run(in).out == one);
    CHECK(one.size() > 0);
  }
}
