// Functions whose only effect is a prefetch, compiled with the project's flags for
// prefetch_kept.cmake, which reads their object code: each must still hold a prefetch
// instruction. GCC deletes a call to a function that only prefetches with __builtin_prefetch
// (the function is found "const"), which silently turned the filters' prefetching off.
#include <cstddef>
#include <cstdint>

#include "tlbf/detail/prefetch.hpp"
#include "tlbf/detail/run_cells.hpp"
#include "tlbf/time_limited.hpp"

namespace {
[[gnu::noinline]] void hint_lines(const std::uint64_t* words, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) tlbf::detail::prefetch(words + 8 * i);
}
}  // namespace

// The primitive, called through a function of its own.
extern "C" void tlbf_check_prefetch_call(const std::uint64_t* words, std::size_t n) { hint_lines(words, n); }

// The bit-sliced cells' hint, which the TLBF's batch calls for each probe of the keys ahead.
extern "C" void tlbf_check_prefetch_cells(const tlbf::detail::RunCells& c, std::uint64_t at) { c.prefetch_bit(at); }

// The TLBF's prefetch verb, as the batch entry points call it (on the layout's final class).
extern "C" void tlbf_check_prefetch_tlbf(const tlbf::BitSlicedTimeLimitedFilter& f, const tlbf::KeyHash& h) {
  f.prefetch(h);
}
