// The floor of the text path: `tlbf-dedup -k 3 -t 1 -w 60s` written as one tight loop, to
// measure how much of the program's time the filter alone would leave once reading, field
// splitting and time parsing cost what they must. It is a measurement, not a second program:
// it handles only the generated benchmark format (blank-separated fields, key = field 3,
// time = field 1 in epoch seconds with a fraction) and skips every option and check.
//
// Steps per 1 MiB read: find each line with memchr, the first three fields with memchr on
// ' ', parse the time as digits and a fraction without a library call, hash the key with
// XXH3-128 (together: "parse"); then decide with the library's own filter through
// make_filter() and the virtual WindowFilter interface (exactly what the program calls), and
// copy kept lines into a 1 MiB output buffer written with write(2) ("decide").
// With -j 2 the parse step runs on a second thread, one 1 MiB batch ahead of the decide
// step, which still takes the batches, and the records in them, in input order: the
// pipelining that proposal 1 of docs/performance.md asks the program for.
//
// Invariant: the output is byte-identical to tlbf-dedup's on these inputs (same filter, same
// keys, same times, same clock rule: the largest time seen so far), with one thread or two;
// run.sh checks it with cmp, so the time taken is a fair lower bound for the program's design.
//
// Usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|apbf|sliced|none] [-e RATE] [-n COUNT] [-j 1|2] FILE > OUT
// Prints records, emitted, wall and CPU seconds (per thread with -j 2) on stderr. `-a none` replaces the filter by a
// coin toss on the hash, which shows what everything but the filter costs.
// `-a apbf` and `-a sliced` replace the time window by a count window of COUNT inserts (-n; about
// the new keys of 60 s), with the TLBF's (k, l) for the rate: the library's APBF and the
// bit-sliced prototype of bench/sliced_filter.hpp (called directly, not through the interface),
// to price that layout on this path. Their output is not the program's (a count window).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "tlbf/config.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

#include "sliced_filter.hpp"

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

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

class Output {
 public:
  Output() { buf_.reserve(kChunk + 65536); }
  ~Output() { flush(); }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  void put(const char* p, std::size_t n) {
    if (buf_.size() + n > kChunk) flush();
    buf_.append(p, n);
  }
  void flush() {
    const char* p = buf_.data();
    std::size_t left = buf_.size();
    while (left > 0) {
      ssize_t w = ::write(1, p, left);
      if (w <= 0) std::exit(1);
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    buf_.clear();
  }

 private:
  std::string buf_;
};

// One parsed line of a batch: where it is in the batch's buffer, its key's hash and time.
struct Rec {
  std::uint32_t off, len;
  tlbf::KeyHash h;
  tlbf::Time t;  // -1: no readable time
  bool keyed;    // false: fewer than three fields, passed through as the program does
};

// About 1 MiB of whole lines and their parsed records.
struct Batch {
  std::vector<char> buf;
  std::size_t size = 0;
  std::vector<Rec> recs;
  bool last = false;
};

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
    Rec r{static_cast<std::uint32_t>(p - base), static_cast<std::uint32_t>(line_end - p), {}, -1, false};
    // Fields 1..3 (single blanks in this format).
    const char* f1e = static_cast<const char*>(std::memchr(p, ' ', static_cast<std::size_t>(nl - p)));
    const char* f2e = f1e ? static_cast<const char*>(std::memchr(f1e + 1, ' ', static_cast<std::size_t>(nl - f1e - 1))) : nullptr;
    if (f2e) {
      const char* f3 = f2e + 1;
      const char* f3e = static_cast<const char*>(std::memchr(f3, ' ', static_cast<std::size_t>(nl - f3)));
      if (!f3e) f3e = nl;
      r.t = parse_epoch_seconds(p, f1e);
      r.h = tlbf::hash_key(f3, static_cast<std::size_t>(f3e - f3));
      r.keyed = true;
    }
    return r;
  }

  int fd_;
  bool eof_ = false;
  std::string carry_;
};

// Decides a batch's records in order and writes the kept ones.
class Decider {
 public:
  Decider(tlbf::WindowFilter* filter, tlbf_bench::BitSlicedFilter* sliced) : filter_(filter), sliced_(sliced) {}
  void run(const Batch& b) {
    for (const Rec& r : b.recs) {
      bool keep = true;
      if (r.keyed) {
        if (r.t > clock_) clock_ = r.t;
        keep = sliced_ ? sliced_->insert_if_absent(r.h)
               : filter_ ? filter_->insert_if_absent(r.h, clock_)
                         : (r.h.lo & 3) != 0;
      }
      if (keep) {
        out_.put(b.buf.data() + r.off, r.len);
        ++emitted;
      }
    }
    records += b.recs.size();
  }
  void flush() { out_.flush(); }
  std::uint64_t records = 0, emitted = 0;

 private:
  tlbf::WindowFilter* filter_;
  tlbf_bench::BitSlicedFilter* sliced_;
  tlbf::Time clock_ = 0;
  Output out_;
};

// A blocking queue of batches between the two threads.
class Channel {
 public:
  void push(std::unique_ptr<Batch> b) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(std::move(b));
    }
    cv_.notify_one();
  }
  std::unique_ptr<Batch> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !q_.empty(); });
    std::unique_ptr<Batch> b = std::move(q_.front());
    q_.pop_front();
    return b;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Batch>> q_;
};

double cpu_seconds(clockid_t which) {
  timespec ts{};
  clock_gettime(which, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "tlbf";
  double rate = 1e-5;
  int threads = 1;
  std::uint64_t count = 0;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-a" && i + 1 < argc) algo = argv[++i];
    else if (a == "-e" && i + 1 < argc) rate = std::strtod(argv[++i], nullptr);
    else if (a == "-j" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "-n" && i + 1 < argc) count = std::strtoull(argv[++i], nullptr, 10);
    else path = argv[i];
  }
  const bool counted = algo == "apbf" || algo == "sliced";
  if (!path || (threads != 1 && threads != 2) || (counted && count == 0) ||
      (algo != "none" && algo != "sliced" && !tlbf::parse_algorithm(algo))) {
    std::fprintf(stderr,
                 "usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|apbf|sliced|none] [-e RATE] [-n COUNT] [-j 1|2] FILE > OUT\n"
                 "  (-n COUNT, the count window, is needed by apbf and sliced)\n");
    return 2;
  }
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return 1;
  }

  std::unique_ptr<tlbf::WindowFilter> filter;
  std::unique_ptr<tlbf_bench::BitSlicedFilter> sliced;
  if (algo != "none") {
    if (counted) {
      const tlbf::SliceLayout layout = tlbf::TimeLimitedFilter::choose_layout(rate, tlbf::FilterConfig{}.max_kl);
      std::unique_ptr<tlbf::AgePartitionedFilter> apbf = tlbf_bench::make_apbf(layout.k, layout.l, count);
      if (algo == "sliced") sliced = std::make_unique<tlbf_bench::BitSlicedFilter>(tlbf_bench::BitSlicedFilter::like(*apbf, count));
      else filter = std::move(apbf);
    } else {
      tlbf::FilterConfig cfg;
      cfg.algorithm = *tlbf::parse_algorithm(algo);
      cfg.span = 60 * tlbf::kSecond;
      cfg.error_rate = rate;
      filter = tlbf::make_filter(cfg);
    }
  }

  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double main_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  double parse_cpu = 0;  // the producer thread's CPU time (-j 2)
  Parser parser(fd);
  Decider decider(filter.get(), sliced.get());
  if (threads == 1) {
    Batch b;
    while (parser.fill(b)) decider.run(b);
  } else {
    // Three batches circulate: one being parsed, one being decided, one waiting between.
    Channel free_batches, full_batches;
    for (int i = 0; i < 3; ++i) free_batches.push(std::make_unique<Batch>());
    std::thread producer([&] {
      const double start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
      for (;;) {
        std::unique_ptr<Batch> b = free_batches.pop();
        if (!parser.fill(*b)) {
          b->recs.clear();
          b->last = true;
        }
        const bool last = b->last;
        full_batches.push(std::move(b));
        if (last) break;
      }
      parse_cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
    });
    for (;;) {
      std::unique_ptr<Batch> b = full_batches.pop();
      decider.run(*b);
      const bool last = b->last;
      free_batches.push(std::move(b));
      if (last) break;
    }
    producer.join();
  }
  decider.flush();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  const double main_cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - main_start;
  // With two threads the slower of the two is the wall time an otherwise idle 2-core machine
  // would see; the busy benchmark machine's wall time says little.
  fmt::print(stderr, "records {} emitted {} wall {:.3f} s cpu {:.3f} s", decider.records, decider.emitted, wall, cpu);
  if (threads == 2) fmt::print(stderr, " (parse thread {:.3f} s, decide thread {:.3f} s)", parse_cpu, main_cpu);
  fmt::print(stderr, "\n");
  return 0;
}
