// Clocking a segment's records (segment.hpp).
#include "pipeline/segment.hpp"

namespace tlbf_dedup {

std::size_t Segment::clock(const RecordBatch& b, std::size_t from, std::size_t end, Clocking c) {
  reset(first_key + keyed, b.size() - from);
  std::uint64_t records = c.stats.records;
  const std::uint64_t stop_at =
      records < ClockPolicy::kUntimedProbe ? ClockPolicy::kUntimedProbe : (records | 4095) + 1;
  std::size_t i = from, n = 0;
  while (i < end) {  // (a stop signal is looked at between segments)
    const SourceRecord& r = b[i++];
    if (r.continues || r.status == ExtractStatus::blank) continue;  // bytes, no record
    ++records;
    bool last = false;
    if (r.keyed) {
      warnings_for = i - 1;
      verdict = c.timed ? c.clock.accept(r.time, c.warnings) : (c.clock.arrive(), TimeVerdict::accepted);
      times[n++] = c.clock.now();
      last = verdict == TimeVerdict::untimed && c.clock.probe_failed();  // the run reads no further
    } else {
      // A record without a key still tells the time: it moves the clock (judging nothing).
      if (c.timed && r.time.parsed) {
        warnings_for = i - 1;
        c.clock.accept(r.time, c.warnings);
      }
      last = c.fatal && r.status != ExtractStatus::unmatched;  // --on-error fail: the run ends at this record
    }
    if (last || records == stop_at) {
      checkpoint = (records & 4095) == 0 && !r.replayed;
      break;
    }
  }
  c.stats.records = records;
  if (i > from) c.stats.bytes_in += b.bytes_between(from, i);
  keyed = n;
  return i;
}

}  // namespace tlbf_dedup
