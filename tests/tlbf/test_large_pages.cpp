// The large-array allocator (include/tlbf/detail/large_pages.hpp): arrays from kLargeBytes up
// start on a huge-page boundary whether or not the hint is wanted, smaller ones come from
// operator new, and a vector using it grows, shrinks and frees across the threshold (a
// mismatched free is an error the sanitizer build reports). On Linux a mapped array's pages
// go back to the system when it is freed or narrowed, whatever malloc did before.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "tlbf/detail/large_pages.hpp"

namespace {

using Alloc = tlbf::detail::LargePageAllocator<std::uint64_t>;
constexpr std::size_t kLargeWords = Alloc::kLargeBytes / sizeof(std::uint64_t);

bool on_huge_page_boundary(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % Alloc::kHugePage == 0; }

#if defined(__linux__)
// The pages of [p, p + bytes) (p page-aligned): -1 when some page is not mapped at all,
// else how many are resident.
long resident_pages(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((bytes + page - 1) / page);
  if (::mincore(const_cast<void*>(p), bytes, in.data()) != 0) return errno == ENOMEM ? -1 : -2;
  long n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}
#endif

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

#if defined(__linux__)
  TEST_CASE("a mapped array is unmapped when freed, after malloc raised its own threshold") {
    Alloc a;
    // Through malloc, freeing this block would send the next ones below 16 MiB to the heap.
    std::uint64_t* big = a.allocate(4 * kLargeWords);
    std::memset(big, 1, Alloc::kLargeBytes * 4);
    a.deallocate(big, 4 * kLargeWords);
    for (const std::size_t words : {Alloc::kMappedBytes / 8, kLargeWords / 4, 2 * kLargeWords}) {
      CAPTURE(words);
      std::uint64_t* p = a.allocate(words);
      std::memset(p, 1, words * 8);
      const std::size_t bytes = words * 8 / 4096 * 4096;  // whole pages within the array
      CHECK(resident_pages(p, bytes) == static_cast<long>(bytes / 4096));
      a.deallocate(p, words);
      CHECK(resident_pages(p, bytes) == -1);
    }
  }

  TEST_CASE("the choice of mappings or malloc is fixed at the first mapped array") {
    Alloc a;
    std::uint64_t* p = a.allocate(Alloc::kMappedBytes / 8);  // fixes it, at mappings unless already fixed
    CHECK(tlbf::use_own_mappings(true));                     // what it is: accepted
    CHECK_FALSE(tlbf::use_own_mappings(false));              // too late: refused, nothing changes
    a.deallocate(p, Alloc::kMappedBytes / 8);                // freed as it was obtained
    CHECK(resident_pages(p, Alloc::kMappedBytes) == -1);
  }

  TEST_CASE("narrowing a mapped array gives its tail pages back and keeps its words") {
    std::vector<std::uint64_t, Alloc> v(2 * kLargeWords, 5);
    const std::uint64_t* data = v.data();
    const std::size_t capacity = v.capacity();
    v.resize(kLargeWords / 2);
    Alloc::release_unused(v);
    CHECK(v.data() == data);  // no copy
    CHECK(v.capacity() == capacity);
    CHECK(v.front() == 5);
    CHECK(v.back() == 5);
    CHECK(resident_pages(data + kLargeWords, Alloc::kLargeBytes) == 0);
    v.resize(kLargeWords, 7);  // the tail is usable again
    CHECK(v.back() == 7);
    std::vector<std::uint64_t, Alloc> small(512, 3);  // from operator new: shrunk instead
    small.resize(8);
    Alloc::release_unused(small);
    CHECK(small.capacity() == 8);
    CHECK(small.back() == 3);
  }
#endif
}
