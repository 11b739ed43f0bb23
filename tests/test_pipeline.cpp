// The record loop (src/pipeline.hpp) with a manual clock, a recording diagnostics sink and
// real filters: window semantics, refresh, untimed records, bad records and their warnings,
// output modes, the state hooks and checkpoint timing. Nothing sleeps.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline.hpp"
#include "test_helpers_cli.hpp"
#include "tlbf/factory.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::RecordingDiagnostics;
using tlbf_dedup_test::TempFile;

struct Run {
  std::string out;
  std::string input_path;
  RunStats stats;
  tlbf::Time clock = 0;
  int saves = 0;
  std::vector<tlbf::Time> saved_at_steady;  // the steady clock at each save
  RecordingDiagnostics diagnostics;
};

Run run(const std::string& input, PipelineConfig cfg, tlbf::FilterConfig fc = {}, StateHooks hooks = {},
        ManualClock* clock = nullptr) {
  if (fc.span == 0 && fc.window_count == 0) fc.span = 5 * tlbf::kSecond;
  if (fc.algorithm == tlbf::Algorithm::tlbf && !fc.is_time_window()) fc.algorithm = tlbf::Algorithm::exact;
  ManualClock still;
  if (!clock) clock = &still;
  auto filter = tlbf::make_filter(fc);
  TempFile in(input), out;
  Run r;
  r.input_path = in.path();
  int fd = out.open_for_writing();
  {
    RecordReader reader({in.path()}, '\n');
    Writer writer(fd);
    auto save = hooks.save;
    hooks.save = [&](const tlbf::WindowFilter& f, tlbf::Time c) {
      ++r.saves;
      r.saved_at_steady.push_back(clock->steady_ns());
      if (save) save(f, c);
    };
    Pipeline p(cfg, *filter, 0, *clock, r.diagnostics, hooks);
    static volatile int no_stop = 0;
    r.stats = p.run(reader, writer, &no_stop);
    r.clock = p.clock();
  }
  ::close(fd);
  r.out = out.read();
  return r;
}

PipelineConfig keyed(const char* key, const char* time = "") {
  PipelineConfig c;
  c.extract.keys = {key};
  c.extract.time = time;
  c.time_parser = TimeParser(TimeFormat::auto_detect, std::nullopt, 2017);
  return c;
}

tlbf::FilterConfig exact(tlbf::Duration span) {
  tlbf::FilterConfig fc;
  fc.algorithm = tlbf::Algorithm::exact;
  fc.span = span;
  return fc;
}
}  // namespace

TEST_SUITE("pipeline") {
  constexpr tlbf::Duration kS = tlbf::kSecond;

  TEST_CASE("age < window is a duplicate, at the window it is new, the anchor is the emitted copy") {
    Run r = run("0 a\n4 a\n5 a\n9 a\n10 a\n", keyed("2", "1"), exact(5 * kS));
    CHECK(r.out == "0 a\n5 a\n10 a\n");
    CHECK(r.stats.records == 5);
    CHECK(r.stats.emitted == 3);
    CHECK(r.stats.duplicates == 2);
    CHECK(r.clock == 10 * kS);
  }

  TEST_CASE("refresh renews the key on every occurrence") {
    PipelineConfig c = keyed("2", "1");
    c.refresh = Refresh::yes;
    Run r = run("0 a\n4 a\n8 a\n12 a\n18 a\n", c, exact(5 * kS));
    CHECK(r.out == "0 a\n18 a\n");
  }

  TEST_CASE("the clock never goes back, untimed records are judged at it and counted") {
    Run r = run("100 a\n50 b\n102 b\nx a\n200 a\nbad c\n", keyed("2", "1"), exact(10 * kS));
    // "50 b" is judged at 100, so "102 b" (age 2) is a duplicate; "x a" is untimed at 102.
    CHECK(r.out == "100 a\n50 b\n200 a\nbad c\n");
    CHECK(r.stats.untimed == 2);
    CHECK(r.stats.errors() == 0);
    CHECK(r.clock == 200 * kS);
  }

  TEST_CASE("without -t the injected wall clock decides") {
    PipelineConfig c;
    ManualClock clock(2 * kS);
    Run r = run("a\na\na\na\n", c, exact(5 * kS), {}, &clock);
    // Arrivals at 2, 4, 6, 8 s: 4 is a duplicate of 2, 6 too (age 4), 8 is new (age 6).
    CHECK(r.out == "a\na\n");
    CHECK(r.stats.duplicates == 2);
  }

  TEST_CASE("bad records: pass (never remembered), drop, fail") {
    const std::string in = "{\"k\":1}\nnot json\n{\"x\":1}\nnot json\n{\"k\":1}\n";
    PipelineConfig c = keyed("k");
    c.format = InputFormat::json;
    Run pass = run(in, c, exact(5 * kS));
    CHECK(pass.out == "{\"k\":1}\nnot json\n{\"x\":1}\nnot json\n");
    CHECK(pass.stats.malformed == 2);
    CHECK(pass.stats.missing_key == 1);
    c.on_error = OnError::drop;
    Run drop = run(in, c, exact(5 * kS));
    CHECK(drop.out == "{\"k\":1}\n");
    c.on_error = OnError::fail;
    CHECK_THROWS_WITH_AS(run(in, c, exact(5 * kS)), doctest::Contains("record 2"), RecordError);
  }

  TEST_CASE("auto format: JSON when the first non-blank record starts with '{'") {
    PipelineConfig c = keyed("k");
    Run r = run("\n  {\"k\":1}\n{\"k\":1}\n", c, exact(5 * kS));
    CHECK(r.out == "\n  {\"k\":1}\n");
    PipelineConfig l = keyed("1");
    Run lines = run("k 1\nk 2\n", l, exact(5 * kS));
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
    hooks.save = [&](const tlbf::WindowFilter&, tlbf::Time c) { saved_clock = c; };
    Run r = run("7 a\n9 b\n", keyed("2", "1"), exact(5 * kS), hooks);
    CHECK(r.saves == 1);
    CHECK(saved_clock == 9 * kS);
  }

  TEST_CASE("statistics") {
    Run r = run("a\r\nb\na", keyed("1"), exact(5 * kS));
    CHECK(r.stats.bytes_in == 6);
    CHECK(r.stats.bytes_out == 5);
    CHECK(r.stats.filter.algorithm == "exact");
    CHECK(format_stats(r.stats, StatsFormat::text).find("duplicates   1") != std::string::npos);
    CHECK(format_stats(r.stats, StatsFormat::json).find("\"duplicates\":1,") != std::string::npos);
  }

  TEST_CASE("warnings reach the diagnostics: the first bad record of each kind at once, totals at the end") {
    const std::string in = "{\"k\":1,\"t\":5}\nnot json\n{\"x\":1}\nnot json\n{\"k\":2}\n{\"x\":2}\n";
    PipelineConfig c = keyed("k", "t");
    c.format = InputFormat::json;
    Run r = run(in, c, exact(5 * kS));
    const std::vector<Warning>& w = r.diagnostics.warnings;
    REQUIRE(w.size() == 5);
    // At once, with the file and the record number.
    CHECK(w[0].kind == WarningKind::malformed_record);
    CHECK(w[0].file == r.input_path);
    CHECK(w[0].record == 2);
    CHECK(w[0].message.find("record 2: not a readable JSON object (passed through") != std::string::npos);
    CHECK(w[1].kind == WarningKind::missing_key);
    CHECK(w[1].record == 3);
    // At the end, totals: no file, no record, the count.
    CHECK(w[2].kind == WarningKind::malformed_record);
    CHECK(w[2].record == 0);
    CHECK(w[2].count == 2);
    CHECK(w[3].kind == WarningKind::missing_key);
    CHECK(w[3].count == 2);
    CHECK(w[4].kind == WarningKind::untimed);
    CHECK(w[4].count == 1);  // {"k":2} has no t
    CHECK(w[4].message.find("at -t t") != std::string::npos);
    // Then the summary, once, with the run's counters.
    REQUIRE(r.diagnostics.summaries.size() == 1);
    CHECK(r.diagnostics.summaries[0].records == 6);
    CHECK(r.diagnostics.summaries[0].malformed == 2);
  }

  TEST_CASE("a clean run warns nothing and still reports its summary") {
    Run r = run("1 a\n2 b\n", keyed("2", "1"), exact(5 * kS));
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
    hooks.save = [](const tlbf::WindowFilter&, tlbf::Time) {};
    hooks.every = 10000 * kS;
    ManualClock clock(kS);
    Run r = run(in, PipelineConfig{}, exact(5 * kS), hooks, &clock);
    CHECK(r.saves == 3);
    CHECK(r.saved_at_steady == std::vector<tlbf::Time>{12288 * kS, 24576 * kS, 25000 * kS});
    CHECK(r.stats.seconds == doctest::Approx(25000.0));

    // A longer interval than the run: only the final save.
    hooks.every = 30000 * kS;
    ManualClock slow(kS);
    CHECK(run(in, PipelineConfig{}, exact(5 * kS), hooks, &slow).saves == 1);
  }
}
