// The checks of a run's first records (src/pipeline/first_checks.hpp) on their own: with -t,
// output is held until a record has a time; a run where none had one ends having written
// nothing, with UntimedInput; one where a record had a time lets what was held go in order.
#include <doctest/doctest.h>

#include <string>

#include "output/memory_sink.hpp"
#include "pipeline/first_checks.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::RecordingDiagnostics;

struct NoWarnings final : RecordWarnings {
  void warn(WarningKind, std::string) override {}
  std::string untimed_advice(const TimeReading&) override { return {}; }
  std::string late_advice(const TimeReading&, std::uint64_t) override { return {}; }
};

TimeReading reading(bool parsed, tlbf::Time t = 0) {
  TimeReading r;
  r.present = true;
  r.parsed = parsed;
  r.time = t;
  return r;
}

// The checks of a run with -t 1, over a sink in memory.
struct Checks {
  Checks()
      : cfg(config()),
        clock(cfg.clock, cfg.extract.time, 0, wall),
        checks(cfg, sink, clock, diagnostics, [this] { ++drains; }) {
    sink.start(SinkStart{nullptr, false, false, false, &stats.emitted});
  }
  static PipelineConfig config() {
    PipelineConfig c;
    c.extract.keys = {"2"};
    c.extract.time = "1";
    return c;
  }
  void write(const char* bytes) {
    sink.passed(OutRecord{bytes, std::string_view(bytes).size() - 1, InputFormat::lines, true});
  }

  PipelineConfig cfg;
  ManualClock wall;
  DecisionClock clock;
  MemorySink sink;
  RecordingDiagnostics diagnostics;
  RunStats stats;
  int drains = 0;
  FirstChecks checks;
  NoWarnings warnings;
};

}  // namespace

TEST_SUITE("first_checks") {
  TEST_CASE("a run where no record had a time writes nothing and ends with UntimedInput") {
    Checks c;
    c.clock.accept(reading(false), c.warnings);
    c.checks.clocked(1);
    CHECK(c.sink.holding);
    c.write("no time here\n");
    CHECK_FALSE(c.checks.end(false, c.stats));
    CHECK(c.sink.entries.empty());
    CHECK(c.stats.emitted == 0);
    CHECK(c.drains == 1);  // the records waiting for answers went into the hold first
    CHECK_THROWS_AS(c.checks.fail(c.stats, "in.log"), UntimedInput);
  }

  TEST_CASE("once a record has a time, what was held goes out in order") {
    Checks c;
    c.clock.accept(reading(false), c.warnings);
    c.checks.clocked(1);
    c.write("first\n");
    c.clock.accept(reading(true, 5 * tlbf::kSecond), c.warnings);
    c.checks.clocked(2);
    CHECK_FALSE(c.sink.holding);
    c.write("second\n");
    CHECK(c.checks.end(false, c.stats));
    REQUIRE(c.sink.entries.size() == 2);
    CHECK(c.sink.entries[0].bytes == "first\n");
    CHECK(c.stats.emitted == 2);
  }

  TEST_CASE("a run stopped by a signal does not fail the time check") {
    Checks c;
    c.clock.accept(reading(false), c.warnings);
    c.checks.clocked(1);
    c.write("read before the signal\n");
    CHECK(c.checks.end(true, c.stats));
    CHECK(c.sink.entries.size() == 1);
  }
}
