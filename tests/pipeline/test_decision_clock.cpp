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
  std::string untimed_advice(const TimeReading&) override { return "the advice"; }
  std::string late_advice(const TimeReading&, std::uint64_t behind) override {
    return "hold it for " + readable_duration(behind);
  }
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
  TEST_CASE("the clock is the largest time accepted, a record behind it is late, warned at once past jitter") {
    ManualClock wall;
    wall.advance(1000 * kS);
    ClockPolicy policy;
    policy.window = 10 * kS;  // jitter: up to 100 ms behind
    DecisionClock clock(policy, "1", 0, wall);
    clock.refresh_future_limit();
    Warnings w;
    CHECK(clock.accept(at(100 * kS), w) == TimeVerdict::accepted);
    CHECK(clock.accept(at(100 * kS - 50 * tlbf::kMillisecond), w) == TimeVerdict::late);
    CHECK(w.seen.empty());  // jitter: counted only
    CHECK(clock.accept(at(95 * kS), w) == TimeVerdict::late);
    REQUIRE(w.seen.size() == 1);
    CHECK(w.seen[0].first == WarningKind::late);
    CHECK(w.seen[0].second.find(" is 5s behind the clock (1970-01-01T00:01:40Z)") != std::string::npos);
    CHECK(w.seen[0].second.find("hold it for 5s") != std::string::npos);
    CHECK(clock.accept(at(80 * kS), w) == TimeVerdict::late);
    CHECK(w.seen.size() == 1);  // once
    CHECK(clock.now() == 100 * kS);
    CHECK(clock.accept(at(101 * kS), w) == TimeVerdict::accepted);
    RunStats s;
    clock.count_into(s);
    CHECK(s.late == 3);
    CHECK(s.max_lateness_ns == 20 * kS);
  }

  TEST_CASE("late records past 1 % of the first thousand are warned about again, with their share") {
    ManualClock wall;
    wall.advance(100000 * kS);
    ClockPolicy policy;
    policy.window = 60 * kS;
    for (const int every : {50, 200}) {  // 2 % late, then 0.5 %
      DecisionClock clock(policy, "1", 0, wall);
      clock.refresh_future_limit();
      Warnings w;
      for (int i = 1; i <= 3000; ++i) clock.accept(at(i % every == 0 ? (i - 3) * kS : i * kS), w);
      if (every == 50) {
        REQUIRE(w.seen.size() == 2);
        CHECK(w.seen[1].second.find("of the first 10") != std::string::npos);
        CHECK(w.seen[1].second.find("(2.0%) were late, behind the clock by up to 2s: hold it for 2s") !=
              std::string::npos);
      } else {
        CHECK(w.seen.size() == 1);  // the first at once only
      }
      RunStats s;
      clock.count_into(s);
      CHECK(s.late == static_cast<std::uint64_t>(3000 / every));
    }
  }

  TEST_CASE("a count window's jitter is a second") {
    ManualClock wall;
    wall.advance(1000 * kS);
    DecisionClock clock(ClockPolicy{}, "1", 0, wall);
    clock.refresh_future_limit();
    Warnings w;
    clock.accept(at(100 * kS), w);
    clock.accept(at(99 * kS + 1), w);
    CHECK(w.seen.empty());
    clock.accept(at(99 * kS - 1), w);
    CHECK(w.seen.size() == 1);
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
    REQUIRE(w.seen.size() == 1);
    CHECK(w.seen[0].second.find("judged at the current clock (the advice; further ones") != std::string::npos);
    const std::string message = clock.no_time_error("in.txt", 1000).what();
    CHECK(message.find("in.txt: none of the first 1000 records has a readable time at -t 1") == 0);
    CHECK(message.find("(the first: (field absent)): the advice; or give --allow-untimed") != std::string::npos);
    CHECK(message.find("Nothing was written (the 1000 records read were held back") != std::string::npos);
  }
}
