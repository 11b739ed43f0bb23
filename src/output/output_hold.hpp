// Output held back while a run may still fail for want of time: with -t, until a record has a
// readable time, what the emitter writes goes to an anonymous file instead of the output, so
// that a run stopped by the untimed check (none of the first 1000 records timed) writes
// nothing, and `... | gzip > out` is not left holding the input as if deduplicated.
//
// Invariant: the bytes reach the output once, in the order written, or never; the hold's
// writer has the output's buffer size, so a segment that fits one fits the other.
#pragma once

#include <cstdint>

#include "base/atomic_file.hpp"
#include "output/emitter.hpp"
#include "output/writer.hpp"

namespace tlbf_dedup {

class OutputHold {
 public:
  // Throws OutputError when no anonymous file can be made.
  explicit OutputHold(const OutputMode& mode);

  Writer& writer() { return writer_; }
  Emitter& emitter() { return emitter_; }
  // Writes every byte held to `out`, in order, then flushes `out` (so that it has all its
  // room again).
  void release_into(Writer& out);

 private:
  Fd file_;
  Writer writer_;
  Emitter emitter_;
};

}  // namespace tlbf_dedup
