// Slabs: parts of one block marked for huge pages, each lent to one container's array while
// that array fits in it, with the heap behind them. A read-ahead batch takes its arrays from
// a block of its own, so that their first touch costs one page fault per 2 MiB rather than
// one per 4 KiB (some 16 us each on a virtual machine that keeps shadow page tables; a run
// over 300,000 JSON records took 1,200 of them in its batches).
//
// Invariant: a slab is lent to at most one array at a time, and deallocate() gives back to
// the slab exactly the pointer it lent (anything else came from, and goes back to, the heap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "tlbf/detail/large_pages.hpp"

namespace tlbf_dedup {

struct Slab {
  std::byte* data = nullptr;
  std::size_t size = 0;
  bool lent = false;
};

// An allocator that lends its slab (if any) to the first array that fits while it is free.
template <class T>
class SlabAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  SlabAllocator() noexcept = default;
  explicit SlabAllocator(Slab* slab) noexcept : slab_(slab) {}
  template <class U>
  SlabAllocator(const SlabAllocator<U>& other) noexcept : slab_(other.slab()) {}

  T* allocate(std::size_t n) {
    if (slab_ != nullptr && !slab_->lent && n <= slab_->size / sizeof(T)) {
      slab_->lent = true;
      return reinterpret_cast<T*>(slab_->data);
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (slab_ != nullptr && reinterpret_cast<std::byte*>(p) == slab_->data) {
      slab_->lent = false;
      return;
    }
    std::allocator<T>().deallocate(p, n);
  }
  Slab* slab() const { return slab_; }
  // How many T the slab holds (0 without one).
  std::size_t room() const { return slab_ ? slab_->size / sizeof(T) : 0; }

  template <class U>
  bool operator==(const SlabAllocator<U>& other) const noexcept {
    return slab_ == other.slab();
  }
  template <class U>
  bool operator!=(const SlabAllocator<U>& other) const noexcept {
    return slab_ != other.slab();
  }

 private:
  Slab* slab_ = nullptr;
};

// A block of at least `bytes` on a huge-page boundary (4 MiB of address space at least, the
// library's threshold for the hint), marked for huge pages where the system has them; pages
// never touched stay unbacked.
class HugeBlock {
 public:
  explicit HugeBlock(std::size_t bytes) : bytes_(std::max(bytes, Allocator::kLargeBytes)) {
    data_ = Allocator().allocate(bytes_);
  }
  ~HugeBlock() { Allocator().deallocate(data_, bytes_); }
  HugeBlock(const HugeBlock&) = delete;
  HugeBlock& operator=(const HugeBlock&) = delete;

  std::byte* data() const { return data_; }

 private:
  // Arrays from kLargeBytes are on a huge-page boundary and marked (large_pages.hpp).
  using Allocator = tlbf::detail::LargePageAllocator<std::byte>;
  std::size_t bytes_;
  std::byte* data_;
};

}  // namespace tlbf_dedup
