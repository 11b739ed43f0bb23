// The large-array allocator (include/tlbf/detail/large_pages.hpp): arrays from kLargeBytes up
// start on a huge-page boundary whether or not the hint is wanted, smaller ones come from
// operator new, and a vector using it grows, shrinks and frees across the threshold (a
// mismatched free is an error the sanitizer build reports).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "tlbf/detail/large_pages.hpp"

namespace {

using Alloc = tlbf::detail::LargePageAllocator<std::uint64_t>;
constexpr std::size_t kLargeWords = Alloc::kLargeBytes / sizeof(std::uint64_t);

bool on_huge_page_boundary(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % Alloc::kHugePage == 0; }

}  // namespace

TEST_SUITE("large_pages") {
  TEST_CASE("a large array starts on a huge page, with the hint wanted or not") {
    for (const bool wanted : {true, false}) {
      CAPTURE(wanted);
      tlbf::use_large_pages(wanted);
      Alloc a;
      std::uint64_t* p = a.allocate(kLargeWords + 3);
      CHECK(on_huge_page_boundary(p));
      p[0] = 1;
      p[kLargeWords + 2] = 2;  // the whole array is usable
      CHECK(p[0] + p[kLargeWords + 2] == 3);
      a.deallocate(p, kLargeWords + 3);
    }
    tlbf::use_large_pages(true);
  }

  TEST_CASE("a vector keeps its words as it crosses the threshold both ways") {
    std::vector<std::uint64_t, Alloc> v(16, 7);
    v.resize(kLargeWords * 2, 9);
    CHECK(on_huge_page_boundary(v.data()));
    CHECK(v[15] == 7);
    CHECK(v[16] == 9);
    CHECK(v.back() == 9);
    v.resize(8);
    v.shrink_to_fit();
    CHECK(v.capacity() < kLargeWords);
    CHECK(v[7] == 7);
  }

  TEST_CASE("a size past what memory can address is refused, not wrapped") {
    Alloc a;
    CHECK_THROWS_AS(a.allocate(static_cast<std::size_t>(-1) / sizeof(std::uint64_t)), std::bad_alloc);
  }
}
