// The pipeline's two times, behind one interface so that tests drive them by hand and never
// sleep (ninja's Builder takes its DiskInterface the same way).
//
// Wall time is what an untimed run judges records at (no -t); steady time only measures
// intervals: checkpoints, --progress and the run's seconds. Neither is read anywhere else in
// src/; the library reads no clock at all.
#pragma once

#include <chrono>
#include <cstdint>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds since the Unix epoch.
  virtual tlbf::Time wall_ns() = 0;
  // Nanoseconds from an arbitrary origin; never goes back.
  virtual std::int64_t steady_ns() = 0;
};

class SystemClock final : public Clock {
 public:
  tlbf::Time wall_ns() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t steady_ns() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace tlbf_dedup
