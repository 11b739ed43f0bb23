// What to do about late records (src/pipeline/late_advice.hpp): the advice fits the cause, the
// lateness it names is rounded up to the unit of its size with the run's own added, and the
// total at exit repeats the first cause.
#include <doctest/doctest.h>

#include <string>

#include "pipeline/late_advice.hpp"

using namespace tlbf_dedup;

namespace {
constexpr std::uint64_t kMs = tlbf::kMillisecond, kS = tlbf::kSecond;
const auto kSort = [] { return std::string("sort it"); };
}  // namespace

TEST_SUITE("late_advice") {
  TEST_CASE("one input out of order: --lateness rounded up to its unit, or sort it") {
    LateAdvice a(0, false);
    CHECK(a.advise("x.log", "x.log", false, 4300 * kMs, kSort) ==
          "x.log is not in time order: --lateness 5s holds records that long to judge them in time order; or sort it");
    CHECK(a.fix(300 * kMs) == "--lateness 300ms holds records that long to judge them in time order");
    CHECK(a.fix(90 * kS) == "--lateness 2m holds records that long to judge them in time order");
    CHECK(a.fix(86402 * kS) == "--lateness 25h holds records that long to judge them in time order");
    LateAdvice held(10 * kS, true);  // the run's own lateness is added
    CHECK(held.fix(4 * kS) == "--lateness 14s holds records that long to judge them in time order");
  }

  TEST_CASE("inputs read one after another that overlap: leave out --no-merge, then and at exit") {
    LateAdvice a(0, false);
    CHECK(a.advise("old.log", "new.log", false, kS, kSort).find("leave out --no-merge to merge them by time") !=
          std::string::npos);
    CHECK(a.fix(kS) == "leave out --no-merge to merge the inputs by time");
    LateAdvice merged(0, true);  // merged inputs: a late record is its own input's disorder
    CHECK(merged.advise("old.log", "new.log", false, kS, kSort).find("old.log is not in time order") == 0);
  }

  TEST_CASE("behind a saved state's clock: the state is the cause, not the order") {
    LateAdvice a(0, false);
    const std::string saved = "the clock was saved by an earlier run (--state) that read later records";
    CHECK(a.advise("x.log", "", false, kS, kSort) == saved);
    CHECK(a.fix(kS) == saved);
    LateAdvice b(0, false);
    CHECK(b.advise("x.log", "x.log", true, kS, kSort) == saved);
  }
}
