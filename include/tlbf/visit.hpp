// SPDX-License-Identifier: MIT
// Running code compiled for a filter's concrete class, chosen once per call rather than per key.
//
//   tlbf::visit_filter(filter, [&](auto& f) { for (...) f.insert_if_absent(h, now); });
//
// calls the lambda with `f` as the filter's own final class (BitSlicedTimeLimitedFilter&,
// ...), so the verbs inside the loop are direct calls the compiler inlines; a filter not in
// VisitedFilters (filter.hpp), such as one registered from outside the library, arrives as
// WindowFilter& and is called through the virtual interface. The choice costs one virtual
// call (WindowFilter::accept) and no cast. A caller's lambda is written once for every class:
// adding a filter to the library changes no caller.
#pragma once

#include "tlbf/apbf.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/tagged.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf {

namespace detail {
// FilterVisitor with visit(F&) calling fn(f), one layer per class of the list.
template <class Fn, class List>
struct VisitCall;
template <class Fn>
struct VisitCall<Fn, FilterClasses<>> : FilterVisitor {
  explicit VisitCall(Fn& f) : fn(f) {}
  Fn& fn;
};
template <class Fn, class F, class... Rest>
struct VisitCall<Fn, FilterClasses<F, Rest...>> : VisitCall<Fn, FilterClasses<Rest...>> {
  using VisitCall<Fn, FilterClasses<Rest...>>::VisitCall;
  using VisitCall<Fn, FilterClasses<Rest...>>::visit;  // (the other classes' overloads stay visible)
  void visit(F& f) override { this->fn(f); }
};
}  // namespace detail

template <class Fn>
void visit_filter(WindowFilter& filter, Fn&& fn) {
  detail::VisitCall<Fn, VisitedFilters> call(fn);
  filter.accept(call);
}

}  // namespace tlbf
