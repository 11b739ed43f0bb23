// Progress display for --progress.
//
// Invariant: it writes only to stderr, so it never mixes into the data on stdout, and costs
// nothing measurable per record. On a terminal one line is redrawn in place ("\r", the text,
// erase to the end of the line) at most five times a second, and finish() ends it with "\n";
// anywhere else (a log file, a pipe) every report is a whole line ended by "\n" alone, at
// most one every ten seconds plus the final one, so a captured log holds no "\r".
#include "report/progress.hpp"

#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

namespace tlbf_dedup {

Progress::Progress(std::uint64_t total_bytes, Clock& clock)
    : total_(total_bytes),
      clock_(&clock),
      start_ns_(clock.steady_ns()),
      last_ns_(start_ns_),
      terminal_(::isatty(STDERR_FILENO) == 1) {}

void Progress::maybe_draw(std::uint64_t bytes, std::uint64_t records, std::uint64_t emitted, bool force) {
  const std::int64_t now = clock_->steady_ns();
  const std::int64_t every = terminal_ ? 200 * tlbf::kMillisecond : 10 * tlbf::kSecond;
  if (!force && now - last_ns_ < every) return;
  last_ns_ = now;
  double secs = static_cast<double>(now - start_ns_) / 1e9;
  double mbps = secs > 0 ? static_cast<double>(bytes) / 1048576.0 / secs : 0;
  double rps = secs > 0 ? static_cast<double>(records) / secs : 0;
  std::string line;
  if (total_ > 0) {
    double frac = static_cast<double>(bytes) / static_cast<double>(total_);
    if (frac > 1) frac = 1;
    double eta = frac > 0 ? secs * (1 - frac) / frac : 0;
    line = fmt::format("{:5.1f}%  {} records, {} emitted  {:.1f} MiB/s  ETA {:.0f}s", frac * 100, records, emitted,
                       mbps, eta);
  } else {
    line = fmt::format("{} records, {} emitted  {:.0f} records/s  {:.1f} MiB/s", records, emitted, rps, mbps);
  }
  if (terminal_)
    std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::finish(std::uint64_t bytes, std::uint64_t records, std::uint64_t emitted) {
  maybe_draw(bytes, records, emitted, true);
  if (terminal_) std::fputc('\n', stderr);
}

}  // namespace tlbf_dedup
