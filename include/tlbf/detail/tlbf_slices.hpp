// SPDX-License-Identifier: MIT
// The TLBF's slices (time_limited.hpp): each slice's metadata (its size, insert count, stamps)
// and, in the slice-major layout, its words; the list of them, oldest first, from which the
// oldest is dropped without moving the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf {
namespace detail {

inline constexpr Time kTlbfNever = std::numeric_limits<Time>::min();  // no insert yet: not live

// Slice-major slices own their words; bit-sliced ones live in their era's cells. 64 bytes
// apart, so the slice-major query finds the slice at a position with a shift.
struct alignas(64) TlbfSlice {
  std::vector<std::uint64_t> words;
  std::uint64_t bits = 0;
  std::uint64_t inserts = 0;
  // Bit-sliced: the inserts an upsampled slice's fill stands for beyond its own. Upsampling
  // by c copies each bit c times, so a slice that held n inserts (n + upsampled before)
  // is as full as one of c times its old size that took c times as many; its capacity
  // left is counted from that (fill_inserts()), or it would end its generations past the
  // layout's fill and raise the false-positive rate. A fold keeps it: n inserts in m / c
  // bits fill them as the folded bits are filled.
  std::uint64_t upsampled = 0;
  Time stamp = kTlbfNever;     // last update
  Time own_last = kTlbfNever;  // last insert of the generation that opened this slice
};
// The slices, oldest first, in one array: dropping the oldest moves the start, and the
// live ones are moved down only when the dropped ones outnumber them, so a shift does not
// move every slice (at 10^3 live keys a shift comes every 23 records).
class TlbfSliceList {
 public:
  std::size_t size() const { return v_.size() - head_; }
  bool empty() const { return size() == 0; }
  TlbfSlice& operator[](std::size_t i) { return v_[head_ + i]; }
  const TlbfSlice& operator[](std::size_t i) const { return v_[head_ + i]; }
  const TlbfSlice& at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("tlbf: no such slice");
    return (*this)[i];
  }
  TlbfSlice& front() { return v_[head_]; }
  const TlbfSlice& front() const { return v_[head_]; }
  TlbfSlice& back() { return v_.back(); }
  const TlbfSlice& back() const { return v_.back(); }
  TlbfSlice* data() { return v_.data() + head_; }
  const TlbfSlice* data() const { return v_.data() + head_; }
  TlbfSlice* begin() { return data(); }
  TlbfSlice* end() { return v_.data() + v_.size(); }
  const TlbfSlice* begin() const { return data(); }
  const TlbfSlice* end() const { return v_.data() + v_.size(); }
  void assign(std::size_t n, const TlbfSlice& x) {
    v_.assign(n, x);
    head_ = 0;
  }
  void resize(std::size_t n) {
    compact();
    v_.resize(n);
  }
  void emplace_back() {
    if (head_ >= size()) compact();
    v_.emplace_back();
  }
  TlbfSliceList& operator=(std::vector<TlbfSlice>&& v) {
    v_ = std::move(v);
    head_ = 0;
    return *this;
  }
  // Drops the oldest slice (its words freed: the caller took what it keeps).
  void pop_front() { v_[head_++] = TlbfSlice{}; }

 private:
  void compact() {
    v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  std::vector<TlbfSlice> v_;
  std::size_t head_ = 0;
};

}  // namespace detail
}  // namespace tlbf
