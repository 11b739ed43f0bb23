// SPDX-License-Identifier: MIT
// Running code compiled for a filter's concrete class, chosen once per call rather than per key.
//
//   tlbf::visit_filter(filter, [&](auto& f) { for (...) f.insert_if_absent(h, now); });
//
// calls the lambda with `f` as the filter's own final class (TimeLimitedFilter&, ...), so
// the verbs inside the loop are direct calls the compiler inlines; a filter defined outside
// the library arrives as WindowFilter& and is called through the virtual interface. The
// choice costs one virtual call (WindowFilter::accept) and no cast.
#pragma once

#include "tlbf/apbf.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf {

template <class Fn>
void visit_filter(WindowFilter& filter, Fn&& fn) {
  struct Call final : FilterVisitor {
    explicit Call(Fn& f) : fn(f) {}
    void visit(TimeLimitedFilter& f) override { fn(f); }
    void visit(AgePartitionedFilter& f) override { fn(f); }
    void visit(BasicGuardedEpochFilter<detail::SlicedSegments>& f) override { fn(f); }
    void visit(BasicGuardedEpochFilter<detail::SeparateSegments<false>>& f) override { fn(f); }
    void visit(BasicGuardedEpochFilter<detail::SeparateSegments<true>>& f) override { fn(f); }
    void visit(TimedEpochFilter& f) override { fn(f); }
    void visit(ExactWindow& f) override { fn(f); }
    void visit(WindowFilter& f) override { fn(f); }
    Fn& fn;
  };
  Call call(fn);
  filter.accept(call);
}

}  // namespace tlbf
