// SPDX-License-Identifier: MIT
// An allocator for the filters' large bit arrays: an array of at least kLargeBytes starts on
// a 2 MiB boundary and, on Linux, is marked for transparent huge pages (madvise), so that a
// probe into a filter of tens of megabytes does not also miss the TLB (a page walk per
// probe with 4 KiB pages). Smaller arrays come from operator new as usual. A host may turn
// the hint off (use_large_pages(false)): the Redis module does, as a forked save would copy
// 2 MiB for each page the server writes meanwhile.
//
// Invariant: deallocate(p, n) frees p the way allocate(n) obtained it (the choice depends on
// n alone), and the memory is uninitialised as with std::allocator; pages never written stay
// unbacked (the hint asks for huge pages where they are touched, nothing more).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tlbf::detail {

// Whether large arrays are marked for huge pages (on unless a host said otherwise).
inline std::atomic<bool>& large_pages_wanted() {
  static std::atomic<bool> wanted{true};
  return wanted;
}
inline void use_large_pages(bool on) { large_pages_wanted().store(on, std::memory_order_relaxed); }

template <class T>
struct LargePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kLargeBytes = std::size_t{4} << 20;

  LargePageAllocator() = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > (static_cast<std::size_t>(-1) - kHugePage) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kLargeBytes) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (large_pages_wanted().load(std::memory_order_relaxed))
      ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: refused (no THP), the pages stay small
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kLargeBytes) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const LargePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const LargePageAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace tlbf::detail

namespace tlbf {
using detail::use_large_pages;  // for hosts: the program leaves it on, the Redis module turns it off
}  // namespace tlbf
