// --progress: a one-line progress report on stderr, redrawn at most a few times a second.
#pragma once

#include <cstdint>

#include "base/clock.hpp"

namespace tlbf_dedup {

class Progress {
 public:
  // `total_bytes` 0 = unknown (pipes): rates only; otherwise percent and ETA.
  Progress(std::uint64_t total_bytes, Clock& clock);
  // Cheap to call per record: redraws only when enough time has passed.
  void update(std::uint64_t bytes, std::uint64_t records, std::uint64_t emitted) {
    if ((++calls_ & 1023) == 0) maybe_draw(bytes, records, emitted, false);
  }
  void finish(std::uint64_t bytes, std::uint64_t records, std::uint64_t emitted);

 private:
  void maybe_draw(std::uint64_t bytes, std::uint64_t records, std::uint64_t emitted, bool force);

  std::uint64_t total_;
  std::uint64_t calls_ = 0;
  Clock* clock_;
  std::int64_t start_ns_, last_ns_;
  bool terminal_;  // stderr is a terminal: redraw one line in place
};

}  // namespace tlbf_dedup
