// The floor of the text path: `tlbf-dedup -k 3 -t 1 -w 60s` written as one tight loop, to
// measure how much of the program's time the filter alone would leave once reading, field
// splitting and time parsing cost what they must. It is a measurement, not a second program:
// it handles only the generated benchmark format (blank-separated fields, key = field 3,
// time = field 1 in epoch seconds with a fraction) and skips every option and check.
//
// Steps per 1 MiB read (bench/floor_loop.hpp drives them): find each line with memchr, the first three fields with
// memchr on ' ', parse the time as digits and a fraction without a library call, hash the key with XXH3-128 (together:
// "parse"); then decide with the library's own filter through make_filter() and the virtual WindowFilter interface
// (exactly what the program calls), and copy kept lines into a 1 MiB output buffer written with write(2) ("decide").
// With -j 2 the parse step runs on a second thread, one 1 MiB batch ahead of the decide
// step, which still takes the batches, and the records in them, in input order: the
// pipelining that proposal 1 of docs/performance.md asks the program for.
//
// Invariant: the output is byte-identical to tlbf-dedup's on these inputs (same filter, same
// keys, same times, same clock rule: the largest time seen so far), with one thread or two;
// run.sh checks it with cmp, so the time taken is a fair lower bound for the program's design.
//
// Usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|apbf|none] [-e RATE] [-n COUNT] [-j 1|2] FILE > OUT
// Prints records, emitted, wall and CPU seconds (per thread with -j 2) on stderr. `-a none` replaces the filter by a
// coin toss on the hash, which shows what everything but the filter costs.
// `-a apbf` replaces the time window by a count window of COUNT inserts (-n; about the new keys
// of 60 s), with the TLBF's (k, l) for the rate: the library's APBF, bit-sliced at k + l <= 64,
// which prices that layout on this path against the TLBF's. Its output is not the program's
// (a count window).
// --trace-out TRACE and --load TRACE [-j 1|2] FILE are the two steps of the default filter's
// load floor (bench/load_floor.hpp): the words each decision must read, then those reads in
// place of the filter, with the trace's decisions.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "tlbf/apbf.hpp"
#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/registry.hpp"
#include "tlbf/time_limited.hpp"

#include "floor_loop.hpp"
#include "load_floor.hpp"

namespace {

using tlbf_bench::floor::Batch;
using tlbf_bench::floor::kChunk;
using tlbf_bench::floor::Rec;

// "1763750000.001" -> nanoseconds; nullopt-free: a malformed time gives -1 (judged at the
// current clock, as the program does for untimed records).
tlbf::Time parse_epoch_seconds(const char* p, const char* end) {
  std::int64_t whole = 0;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) whole = whole * 10 + (*p++ - '0');
  std::int64_t frac = 0, scale = 1'000'000'000;
  if (p < end && *p == '.') {
    ++p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10 && scale > 1) {
      scale /= 10;
      frac += (*p++ - '0') * scale;
    }
  }
  return p == end ? whole * tlbf::kSecond + frac : -1;
}

// Reads the file into batches of whole lines (the part line at a batch's end moves on to
// the next) and parses every line.
class Parser {
 public:
  explicit Parser(int fd) : fd_(fd) {}

  // Fills b; returns false once the input is exhausted and b holds nothing.
  bool fill(Batch& b) {
    if (eof_ && carry_.empty()) return false;
    b.buf.resize(carry_.size() + kChunk);
    std::memcpy(b.buf.data(), carry_.data(), carry_.size());
    std::size_t have = carry_.size();
    carry_.clear();
    while (!eof_ && have < kChunk / 2) {
      ssize_t n = ::read(fd_, b.buf.data() + have, b.buf.size() - have);
      if (n < 0) std::exit(1);
      if (n == 0) eof_ = true;
      have += static_cast<std::size_t>(n);
    }
    b.recs.clear();
    const char* base = b.buf.data();
    const char* p = base;
    const char* end = base + have;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!nl) {
        // A last line without a newline still counts at the end of input.
        if (!eof_) break;
        nl = end;
      }
      const char* line_end = nl < end ? nl + 1 : nl;
      b.recs.push_back(parse(base, p, nl, line_end));
      p = line_end;
    }
    b.size = static_cast<std::size_t>(p - base);
    carry_.assign(p, end);
    b.last = eof_ && carry_.empty();
    return true;
  }

 private:
  static Rec parse(const char* base, const char* p, const char* nl, const char* line_end) {
    Rec r{static_cast<std::uint32_t>(p - base),
          static_cast<std::uint32_t>(line_end - p),
          {},
          tlbf_bench::floor::kUnkeyed};
    // Fields 1..3 (single blanks in this format); fewer than three leave the line unkeyed,
    // passed through as the program does.
    const char* f1e = static_cast<const char*>(std::memchr(p, ' ', static_cast<std::size_t>(nl - p)));
    const char* f2e =
        f1e ? static_cast<const char*>(std::memchr(f1e + 1, ' ', static_cast<std::size_t>(nl - f1e - 1))) : nullptr;
    if (f2e) {
      const char* f3 = f2e + 1;
      const char* f3e = static_cast<const char*>(std::memchr(f3, ' ', static_cast<std::size_t>(nl - f3)));
      if (!f3e) f3e = nl;
      r.t = parse_epoch_seconds(p, f1e);
      r.h = tlbf::hash_key(f3, static_cast<std::size_t>(f3e - f3));
    }
    return r;
  }

  int fd_;
  bool eof_ = false;
  std::string carry_;
};

// The text floor's judge: a line without a key is kept; otherwise the program's judge.
struct TextJudge {
  tlbf_bench::floor::FilterJudge program;
  bool operator()(const Rec& r, tlbf::Time clock) const {
    if (r.t == tlbf_bench::floor::kUnkeyed) return true;
    return program(r, clock);
  }
};

// The library's APBF with layout (k, l) and a count window.
std::unique_ptr<tlbf::WindowFilter> make_apbf(std::uint32_t k, std::uint32_t l, std::uint64_t window) {
  tlbf::FilterConfig cfg;
  cfg.algorithm = tlbf::Algorithm::apbf;
  cfg.window_count = window;
  cfg.k = k;
  cfg.l = l;
  return std::make_unique<tlbf::AgePartitionedFilter>(cfg);
}

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "tlbf";
  double rate = 1e-5;
  int threads = 1;
  std::uint64_t count = 0;
  const char* path = nullptr;
  const char* trace_out = nullptr;
  const char* load = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-a" && i + 1 < argc)
      algo = argv[++i];
    else if (a == "-e" && i + 1 < argc)
      rate = std::strtod(argv[++i], nullptr);
    else if (a == "-j" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--trace-out" && i + 1 < argc)
      trace_out = argv[++i];
    else if (a == "--load" && i + 1 < argc)
      load = argv[++i];
    else if (a == "-n" && i + 1 < argc)
      count = std::strtoull(argv[++i], nullptr, 10);
    else
      path = argv[i];
  }
  const bool counted = algo == "apbf";
  if (!path || (trace_out && load) || (threads != 1 && threads != 2) || (counted && count == 0) ||
      (algo != "none" && !tlbf::parse_algorithm(algo))) {
    std::fprintf(stderr,
                 "usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|apbf|none] [-e RATE] [-n COUNT] [-j 1|2] "
                 "[--trace-out TRACE | --load TRACE] FILE > OUT\n"
                 "  (-n COUNT, the count window, is needed by apbf)\n");
    return 2;
  }
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return 1;
  }

  std::unique_ptr<tlbf::WindowFilter> filter;
  if (counted) {
    const tlbf::SliceLayout layout = tlbf::TimeLimitedFilter::choose_layout(rate, tlbf::FilterConfig{}.max_kl);
    filter = make_apbf(layout.k, layout.l, count);
  } else if (!trace_out && !load) {  // the load floor's steps make their own filter or none
    filter = tlbf_bench::floor::make_floor_filter(algo, rate);
  }

  Parser parser(fd);
  // The load floor's trace keeps a line without a key, as TextJudge does.
  if (!tlbf_bench::floor::run_load_step(parser, rate, trace_out, load, threads))
    tlbf_bench::floor::run_floor(parser, TextJudge{{filter.get()}}, threads);
  ::close(fd);
  return 0;
}
