// SPDX-License-Identifier: MIT
// An allocator for the filters' large bit arrays: an array of at least kLargeBytes starts on
// a 2 MiB boundary and, on Linux, is marked for transparent huge pages (madvise), so that a
// probe into a filter of tens of megabytes does not also miss the TLB (a page walk per
// probe with 4 KiB pages). On Linux arrays from kMappedBytes are mappings of their own, given
// back to the system when freed (unless the host chose malloc, use_own_mappings()); smaller
// ones come from operator new. A host may turn the hint off (use_large_pages(false)): the
// Redis module does, as a forked save would copy 2 MiB for each page the server writes
// meanwhile.
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
#include <unistd.h>
#endif

namespace tlbf::detail {

// Whether large arrays are marked for huge pages (on unless a host said otherwise).
inline std::atomic<bool>& large_pages_wanted() {
  static std::atomic<bool> wanted{true};
  return wanted;
}
inline void use_large_pages(bool on) { large_pages_wanted().store(on, std::memory_order_relaxed); }

// Whether arrays from kMappedBytes are mappings of their own (Linux) or come from malloc: a
// host whose allocator accounts for the memory it serves (the Redis module: jemalloc's
// counts, MEMORY STATS) asks for malloc before its first filter. The choice is fixed at the
// first such array, so that every array is freed the way it was obtained: asking later
// changes nothing and returns false.
inline std::atomic<int>& mapping_choice() {
  static std::atomic<int> choice{0};  // 0 not fixed yet, 1 mappings, 2 malloc
  return choice;
}
inline bool use_own_mappings(bool on) {
  int unset = 0;
  const int want = on ? 1 : 2;
  return mapping_choice().compare_exchange_strong(unset, want) || unset == want;
}
inline bool own_mappings() {
  int unset = 0;
  mapping_choice().compare_exchange_strong(unset, 1);  // fixed now, at the default if no host chose
  return mapping_choice().load() == 1;
}

template <class T>
struct LargePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kLargeBytes = std::size_t{4} << 20;
  static constexpr std::size_t kMappedBytes = std::size_t{1} << 20;

  LargePageAllocator() = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > (static_cast<std::size_t>(-1) - 2 * kHugePage) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) return static_cast<T*>(::operator new(bytes));
    void* p = map(bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kLargeBytes && large_pages_wanted().load(std::memory_order_relaxed))
      ::madvise(p, span(bytes), MADV_HUGEPAGE);  // a hint: refused (no THP), the pages stay small
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) return ::operator delete(p);
#if defined(__linux__)
    if (own_mappings()) {
      ::munmap(p, span(bytes));
      return;
    }
#endif
    std::free(p);
  }
  template <class U>
  bool operator==(const LargePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const LargePageAllocator<U>&) const noexcept {
    return false;
  }

  // Gives the pages of `v` past its size back to the system when its array is a mapping of
  // its own, keeping the capacity (address space, no copy); otherwise shrinks it to fit.
  template <class Vector>
  static void release_unused(Vector& v) {
#if defined(__linux__)
    if (mapped(v.capacity() * sizeof(T)) && own_mappings()) {
      const auto base = reinterpret_cast<std::uintptr_t>(v.data());
      const std::size_t page = system_page();
      const std::uintptr_t from = (base + v.size() * sizeof(T) + page - 1) / page * page;
      const std::uintptr_t end = base + span(v.capacity() * sizeof(T));
      if (end > from) ::madvise(reinterpret_cast<void*>(from), end - from, MADV_DONTNEED);
      return;
    }
#endif
    v.shrink_to_fit();
  }

 private:
  static constexpr std::size_t kPage = 4096;
#if defined(__linux__)
  // madvise() wants the system's page boundaries (16 or 64 KiB on some arm64 kernels).
  static std::size_t system_page() {
    static const std::size_t page = [] {
      const long p = ::sysconf(_SC_PAGESIZE);
      return p > 0 ? static_cast<std::size_t>(p) : kPage;
    }();
    return page;
  }
#endif
  // Which arrays map() provides (the rest come from operator new): from kMappedBytes when
  // they are mappings of their own (Linux, own_mappings()), else from kLargeBytes
  // (aligned_alloc); and how many bytes from their start, whole huge pages from kLargeBytes.
  static bool mapped(std::size_t bytes) {
#if defined(__linux__)
    return bytes >= kMappedBytes ? own_mappings() : bytes >= kLargeBytes;
#else
    return bytes >= kLargeBytes;
#endif
  }
  static std::size_t span(std::size_t bytes) {
    const std::size_t unit = bytes >= kLargeBytes ? kHugePage : kPage;
    return (bytes + unit - 1) / unit * unit;
  }
  // span(bytes) bytes, on a huge-page boundary when large. On Linux a mapping of its own,
  // which deallocate() unmaps, unless a host chose malloc: from malloc, freeing a large
  // block raises glibc's mmap threshold to its size, later ones come from the heap, and a
  // heap that re-layouts leave full of freed blocks stays resident (a filter capped at 16
  // MiB held 38 MiB).
  static void* map(std::size_t bytes) {
    const std::size_t length = span(bytes);
#if defined(__linux__)
    if (!own_mappings()) {  // malloc's, aligned as before
      void* p = std::aligned_alloc(kHugePage, length);
      if (p == nullptr) throw std::bad_alloc();
      return p;
    }
    const std::size_t slack = bytes >= kLargeBytes ? kHugePage : 0;
    void* m = ::mmap(nullptr, length + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    if (slack == 0) return m;
    const auto start = reinterpret_cast<std::uintptr_t>(m);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned != start) ::munmap(m, aligned - start);  // the unaligned head, then the tail past the array
    if (start + slack != aligned) ::munmap(reinterpret_cast<void*>(aligned + length), start + slack - aligned);
    return reinterpret_cast<void*>(aligned);
#else
    void* p = std::aligned_alloc(kHugePage, length);
    if (p == nullptr) throw std::bad_alloc();
    return p;
#endif
  }
};

}  // namespace tlbf::detail

namespace tlbf {
using detail::use_large_pages;   // for hosts: the program leaves it on, the Redis module turns it off
using detail::use_own_mappings;  // likewise
}  // namespace tlbf
