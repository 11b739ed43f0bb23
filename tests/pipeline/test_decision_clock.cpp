// The decision clock (src/pipeline/decision_clock.hpp) on its own: it never goes back, judges
// late, future and untimed records as its policy says, warns once per kind with the caller's
// record, and stops a run without times after the probe.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "pipeline/decision_clock.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;

constexpr tlbf::Duration kS = tlbf::kSecond;

struct Warnings final : RecordWarnings {
  void warn(WarningKind kind, std::string what) override { seen.emplace_back(kind, std::move(what)); }
  std::vector<std::pair<WarningKind, std::string>> seen;
};

TimeReading at(tlbf::Time t) {
  TimeReading r;
  r.parsed = r.present = true;
  r.time = t;
  return r;
}

}  // namespace

TEST_SUITE("decision_clock") {
  TEST_CASE("the clock is the largest time accepted, a record behind it by more than the window is late") {
    ManualClock wall;
    wall.advance(1000 * kS);
    ClockPolicy policy;
    policy.window = 10 * kS;
    DecisionClock clock(policy, "1", 0, wall);
    clock.refresh_future_limit();
    Warnings w;
    CHECK(clock.accept(at(100 * kS), w) == TimeVerdict::accepted);
    CHECK(clock.accept(at(95 * kS), w) == TimeVerdict::accepted);  // behind, inside the window
    CHECK(clock.now() == 100 * kS);
    CHECK(clock.accept(at(80 * kS), w) == TimeVerdict::late);
    CHECK(clock.now() == 100 * kS);
    CHECK(w.seen.empty());
    RunStats s;
    clock.count_into(s);
    CHECK(s.late == 1);
  }

  TEST_CASE("a stamp beyond --max-future is judged as untimed and warned about once") {
    ManualClock wall;
    wall.advance(1000 * kS);
    DecisionClock clock(ClockPolicy{}, "1", 0, wall);
    clock.refresh_future_limit();
    Warnings w;
    CHECK(clock.accept(at(500 * kS), w) == TimeVerdict::accepted);
    CHECK(clock.accept(at(1000 * kS + 25 * ClockPolicy::kHour), w) == TimeVerdict::future);
    CHECK(clock.accept(at(1000 * kS + 26 * ClockPolicy::kHour), w) == TimeVerdict::future);
    CHECK(clock.now() == 500 * kS);
    REQUIRE(w.seen.size() == 1);
    CHECK(w.seen[0].first == WarningKind::future_time);
  }

  TEST_CASE("without -t the wall clock at each arrival, never going back") {
    ManualClock wall(2 * kS);
    DecisionClock clock(ClockPolicy{}, "", 10 * kS, wall);
    clock.arrive();  // the wall clock says 2 s: the saved 10 s stays
    CHECK(clock.now() == 10 * kS);
    for (int i = 0; i < 5; ++i) clock.arrive();
    CHECK(clock.now() == 12 * kS);
  }

  TEST_CASE("the untimed probe: the first kUntimedProbe records without a time stop the run") {
    ManualClock wall;
    DecisionClock clock(ClockPolicy{}, "1", 0, wall);
    Warnings w;
    TimeReading none;
    for (std::uint64_t i = 1; i < ClockPolicy::kUntimedProbe; ++i) CHECK(clock.accept(none, w) == TimeVerdict::untimed);
    CHECK_FALSE(clock.probe_failed());
    clock.accept(none, w);
    CHECK(clock.probe_failed());
    CHECK(clock.found_no_time());
    CHECK(w.seen.size() == 1);
    const std::string message = clock.no_time_error("in.txt", 1000).what();
    CHECK(message.find("in.txt: none of the first 1000 records has a readable time at -t 1") == 0);
  }
}
