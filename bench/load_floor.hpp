// The load floor of the default filter (TLBF), shared by bench/ndjson_floor.cpp and
// bench/text_floor.cpp: what a decision identical to the TLBF's must cost at least, given its
// layout (probe value x_p = detail::run_probe(h, p) at bit reduce(x_p, bits) of the slice at
// position j + p for run j).
//
// Why a count of words is a floor. Runs use disjoint bits, so any search that answers "new"
// must read a zero bit of every accepted run; one that answers "seen" must read the k ones of
// some run. Slice-major (slices of their own sizes), taken one run at a time in age order, the
// fewest reads that prove the answer are: for each accepted run, its probes up to its first
// zero; for a duplicate, the same for the runs before the first run that holds the key, then
// that run's k ones. (The library's level-by-level search reads more for a duplicate: every
// run of the 64-run block to its first zero; that count is printed too.) Bit-sliced (the
// default: one read of a cell holds probe p of 64 runs in an era), the fewest are the reads of
// probes 0..p, one per era and 64 runs the runs cross, up to the first p after which no run
// holds every probe (k of them for a duplicate); the library reads on to the next multiple of
// 8 probes. A new key is then inserted: k read-modify-writes.
//
// Two steps:
//  1. trace (--trace-out TRACE): the input through the real filter (make_floor_filter(),
//     the program's defaults, so the program's decisions), and before each decision the
//     count above, from the filter's own slices (TimeLimitedFilter::slice_words() and slice_bit(), read-only)
//     with a copy of its probing; the copy's answer must equal the filter's, or the trace
//     stops with a message. Writes per record the count and the decision, and prints the
//     means and the filter's bits allocated on stderr.
//  2. load (--load TRACE): the floor's loop (floor_loop.hpp) with the filter replaced by
//     that many independent loads per record at pseudo-random words of one buffer of the
//     filter's bits (the mean over the records of its bits allocated), plus k
//     read-modify-writes for a record kept, and the decision read from the trace. The loads'
//     addresses come from the record's hash alone, never from a loaded word, so the CPU may
//     overlap all of them: full memory-level parallelism, a lower bound on the time of the
//     real reads (which depend level to level), at the filter's real size.
//
// Invariant: the load run's output is the program's, byte for byte (the decisions are the
// real filter's, in input order); bench/run.sh checks it with cmp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "floor_loop.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/detail/level_scan.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf_bench::floor {

// Per record: the words the decision must read and whether it was kept; and for the run,
// the buffer the load step reads.
struct LoadTrace {
  std::uint32_t k = 0;
  std::uint64_t bits = 0;  // the filter's bits allocated, mean over the records
  std::vector<std::uint16_t> loads;
  std::vector<std::uint8_t> keep;
};

[[noreturn]] inline void trace_fail(const std::string& why) {
  fmt::print(stderr, "load floor: {}\n", why);
  std::exit(1);
}

// count_reads() for the bit-sliced layout, whose slices it reads through slice_bit().
inline bool count_cell_reads(const tlbf::TimeLimitedFilter& f, tlbf::KeyHash h, std::size_t runs, unsigned& least,
                             unsigned& scan) {
  const std::uint32_t k = f.k();
  // The reads one probe takes: for each block of 64 runs, the eras its positions cross.
  unsigned per_probe = 0;
  for (std::size_t b = 0; b < runs; b += 64) {
    std::size_t first = b, last = std::min(runs, b + 64) - 1 + k - 1, offset = 0;
    for (std::size_t e = 0; e < f.era_count(); offset += f.era(e++).slices)
      per_probe += offset <= last && offset + f.era(e).slices > first;
  }
  std::vector<bool> alive(runs, true);
  std::size_t left = runs;
  least = scan = 0;
  for (std::uint32_t p = 0; p < k && left > 0; ++p) {
    least += per_probe;
    const std::uint64_t x = tlbf::detail::run_probe(h, p);
    for (std::size_t j = 0; j < runs; ++j)
      if (alive[j] && !f.slice_bit(j + p, x)) {
        alive[j] = false;
        --left;
      }
  }
  scan = runs == 0 ? 0 : std::min(k, (least / std::max(per_probe, 1u) + 7) / 8 * 8) * per_probe;
  return left > 0;
}

// Counts the reads of one decision by the real filter at `clock` (before it is made).
// Returns whether the key is present by the copied probing; `least` gets the one-run-at-a-
// time count, `scan` the library's search's (any_run_all_hit(), or the bit-sliced query's).
inline bool count_reads(const tlbf::TimeLimitedFilter& f, tlbf::KeyHash h, tlbf::Time clock, unsigned& least,
                        unsigned& scan) {
  const std::uint32_t k = f.k();
  const std::size_t n = f.slice_count();
  const tlbf::Time threshold = tlbf::detail::sat_sub(clock, 60 * tlbf::kSecond);  // make_floor_filter()'s span
  std::size_t runs = 0;  // accepted runs are the newest ones (the filter's accepted_runs())
  while (n >= k && runs <= n - k && f.slice_words(runs).run_last > threshold) ++runs;
  if (f.layout() == tlbf::TlbfLayout::bit_sliced) return count_cell_reads(f, h, runs, least, scan);
  least = scan = 0;
  bool found = false;
  unsigned block = 0;  // reads of this 64-run block
  for (std::size_t j = 0; j < runs; ++j) {
    unsigned reads = 0;
    bool all = true;
    for (std::uint32_t p = 0; p < k; ++p) {
      const tlbf::TimeLimitedFilter::SliceWords s = f.slice_words(j + p);
      ++reads;
      if (!tlbf::detail::test_bit(s.words, tlbf::reduce(tlbf::detail::run_probe(h, p), s.bits))) {
        all = false;
        break;
      }
    }
    if (!found) least += reads;
    found = found || all;
    block += reads;
    if ((j + 1) % 64 == 0 || j + 1 == runs) {
      scan += block;
      block = 0;
      if (found) break;
    }
  }
  return found;
}

// Step 1: parses the whole input, decides with the real filter, writes TRACE.
template <class Parser>
void write_trace(Parser& parser, double rate, const char* path) {
  const std::unique_ptr<tlbf::WindowFilter> owner = make_floor_filter("tlbf", rate);
  auto* f = dynamic_cast<tlbf::TimeLimitedFilter*>(owner.get());
  if (!f) trace_fail("the default filter is not a TLBF");
  LoadTrace t;
  t.k = f->k();
  double bits_sum = 0, least_new = 0, least_dup = 0, scan_new = 0, scan_dup = 0;
  std::uint64_t kept = 0, decided = 0;
  tlbf::Time clock = 0;
  Batch b;
  while (parser.fill(b)) {
    for (const Rec& r : b.recs) {
      if (r.t > clock) clock = r.t;
      unsigned least = 0, scan = 0;
      bool keep = true;
      if (r.t != kUnkeyed) {
        const bool present = count_reads(*f, r.h, clock, least, scan);
        keep = f->insert_if_absent(r.h, clock);
        if (present == keep)
          trace_fail(fmt::format("record {}: the copied probing disagrees with the filter", t.keep.size() + 1));
        if (least > 0xffff || scan > 0xffff) trace_fail("more than 65535 reads for one record");
        ++decided;
        kept += keep;
        (keep ? least_new : least_dup) += least;
        (keep ? scan_new : scan_dup) += scan;
        bits_sum += static_cast<double>(f->stats(clock).bits_allocated);
      }
      t.loads.push_back(static_cast<std::uint16_t>(least));
      t.keep.push_back(keep);
    }
  }
  const std::uint64_t dups = decided - kept;
  const auto mean = [](double sum, std::uint64_t n) { return n ? sum / static_cast<double>(n) : 0.0; };
  const double bits = mean(bits_sum, decided);
  t.bits = static_cast<std::uint64_t>(bits) / 64 * 64 + 64;
  const tlbf::FilterStats end = f->stats(clock);
  fmt::print(stderr,
             "load floor trace: records {} decided {} new {} dup {}; k {} l {}; words read per record (the least "
             "that proves the answer): new {:.1f} dup {:.1f} all {:.1f} (+ {} writes per new key); level-by-level "
             "search: new {:.1f} dup {:.1f}; filter bits allocated: mean {:.0f} ({:.1f} MB), at the end {}, peak {}\n",
             t.keep.size(), decided, kept, dups, f->k(), f->l(), mean(least_new, kept), mean(least_dup, dups),
             mean(least_new + least_dup, decided), f->k(), mean(scan_new, kept), mean(scan_dup, dups), bits, bits / 8e6,
             end.bits_allocated, end.peak_bits_allocated);
  std::FILE* out = std::fopen(path, "wb");
  if (!out) trace_fail(fmt::format("cannot write {}", path));
  const std::uint64_t head[3] = {t.k, t.bits, t.keep.size()};
  bool ok = std::fwrite(head, sizeof head, 1, out) == 1 &&
            std::fwrite(t.loads.data(), sizeof(std::uint16_t), t.loads.size(), out) == t.loads.size() &&
            std::fwrite(t.keep.data(), 1, t.keep.size(), out) == t.keep.size();
  ok = std::fclose(out) == 0 && ok;
  if (!ok) trace_fail(fmt::format("cannot write {}", path));
}

inline LoadTrace read_trace(const char* path) {
  std::FILE* in = std::fopen(path, "rb");
  if (!in) trace_fail(fmt::format("cannot read {}", path));
  std::uint64_t head[3];
  LoadTrace t;
  bool ok = std::fread(head, sizeof head, 1, in) == 1 && head[0] > 0 && head[1] >= 64;
  if (ok) {
    t.k = static_cast<std::uint32_t>(head[0]);
    t.bits = head[1];
    t.loads.resize(head[2]);
    t.keep.resize(head[2]);
    ok = std::fread(t.loads.data(), sizeof(std::uint16_t), head[2], in) == head[2] &&
         std::fread(t.keep.data(), 1, head[2], in) == head[2];
  }
  std::fclose(in);
  if (!ok) trace_fail(fmt::format("{} is not a load floor trace", path));
  return t;
}

// What the load step's loads read, summed where the compiler must keep it (a global), so that
// it keeps the loads.
inline std::uint64_t load_sink = 0;

// Step 2's judge: the trace's loads and writes on a buffer of the filter's size, its decision.
// The records must come in the order the trace was made in (the same file, the same parser).
class LoadJudge {
 public:
  explicit LoadJudge(const LoadTrace& t) : t_(&t), words_(t.bits / 64), buf_(new std::uint64_t[words_]()) {}
  bool operator()(const Rec& r, tlbf::Time) {
    const std::size_t i = next_++;
    if (i >= t_->keep.size()) trace_fail("the input has more records than the trace");
    std::uint64_t x = r.h.lo, step = r.h.hi | 1, acc = 0;
    for (unsigned q = t_->loads[i]; q > 0; --q, x += step) acc |= buf_[tlbf::reduce(x, words_)];
    const bool keep = t_->keep[i] != 0;
    if (keep && r.t != kUnkeyed)
      for (std::uint32_t q = 0; q < t_->k; ++q, x += step)
        buf_[tlbf::reduce(x, words_)] |= std::uint64_t{1} << (x & 63);
    load_sink += acc;
    return keep;
  }

 private:
  const LoadTrace* t_;
  std::uint64_t words_;
  std::shared_ptr<std::uint64_t[]> buf_;  // shared: the loop copies the judge
  std::size_t next_ = 0;
};

// A floor's main() hands its parser here first: writes the trace (trace_out) or runs the load
// floor from one (load); returns false, having done nothing, when neither is asked for.
template <class Parser>
bool run_load_step(Parser& parser, double rate, const char* trace_out, const char* load, int threads) {
  if (trace_out) {
    write_trace(parser, rate, trace_out);
    return true;
  }
  if (!load) return false;
  const LoadTrace trace = read_trace(load);
  run_floor(parser, LoadJudge(trace), threads);
  return true;
}

}  // namespace tlbf_bench::floor
