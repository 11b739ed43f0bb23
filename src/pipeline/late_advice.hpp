// What to do about late records (the late warnings of decision_clock.hpp), by their cause: a
// saved state's clock that an earlier run set past them, inputs read one after another
// (--no-merge) that overlap in time, or one input out of time order (--lateness that would
// have held them, or sorting it). The first cause is remembered: the total at exit repeats it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

class LateAdvice {
 public:
  // `lateness`: the run's --lateness; `merged`: its inputs are merged by time.
  LateAdvice(tlbf::Duration lateness, bool merged) : lateness_(lateness), merged_(merged) {}

  // The advice for a record of `input`, `behind` ns behind the clock; `before`: the input of
  // the timed record before it ("" when it is the run's first), `at_saved_clock`: the clock is
  // still the one a saved state started at; `sort`: how to sort `input` by time.
  std::string advise(const std::string& input, const std::string& before, bool at_saved_clock, std::uint64_t behind,
                     const std::function<std::string()>& sort);
  // What to do about late records up to `behind` ns behind the clock, by the first advice's cause.
  std::string fix(std::uint64_t behind) const;

 private:
  tlbf::Duration lateness_;
  bool merged_;
  bool inputs_overlap_ = false;  // late records came from inputs read one after another
  bool at_saved_clock_ = false;  // ... or were behind the clock a state was saved with
};

}  // namespace tlbf_dedup
