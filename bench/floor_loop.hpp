// The loop the floor benchmarks run (bench/text_floor.cpp, bench/ndjson_floor.cpp): batches
// of whole records read and parsed by a format's parser, then decided in input order with the
// library's filter, kept records copied into a 1 MiB buffer written with write(2). With two
// threads the parser runs one batch ahead of the decisions on the other core, which still
// take the batches, and the records in them, in input order.
//
// A parser is a class with `bool fill(Batch&)`: it fills the batch with whole records (and
// their hash and time) and returns false once the input is exhausted and the batch holds
// nothing. It may keep bytes readable after `size` (padding a JSON parser needs).
//
// The decisions are the program's: the key's XXH3-128 hash with seed 0 (run.sh fixes the
// program's seed at 0 too), the clock the largest time seen so far, an untimed record judged
// at that clock, and make_filter() with the program's defaults for the window of 60 s. A
// floor that decides otherwise (the text floor's count-window filters, its records without a
// key) passes its own judge to run_floor(); the judge is a template argument, so the NDJSON
// floor's loop pays nothing for the text floor's cases.
#pragma once

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
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
#include "tlbf/types.hpp"

namespace tlbf_bench::floor {

constexpr std::size_t kChunk = std::size_t{1} << 20;

// One parsed record of a batch: where it is in the batch's buffer, its key's hash and time.
struct Rec {
  std::uint32_t off, len;
  tlbf::KeyHash h;
  tlbf::Time t;  // -1: no readable time (judged at the clock); kUnkeyed: no key
};

// The time of a record without a key, which the program passes through undecided. Below
// every time, so that it never moves the clock; a judge that can meet one must keep it.
constexpr tlbf::Time kUnkeyed = std::numeric_limits<tlbf::Time>::min();

// About 1 MiB of whole records and their parsed form.
struct Batch {
  std::vector<char> buf;
  std::size_t size = 0;
  std::vector<Rec> recs;
  bool last = false;
};

// Kept records, written in 1 MiB pieces; a failed write ends the process (a benchmark).
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
    for (std::size_t done = 0; done < buf_.size();) {
      const ssize_t w = ::write(1, buf_.data() + done, buf_.size() - done);
      if (w <= 0) std::exit(1);
      done += static_cast<std::size_t>(w);
    }
    buf_.clear();
  }

 private:
  std::string buf_;
};

// The program's judge: the filter at the clock. Without a filter (-a none) a coin toss on the
// hash keeps three records of four: what everything but the filter costs.
struct FilterJudge {
  tlbf::WindowFilter* filter;
  bool operator()(const Rec& r, tlbf::Time clock) const {
    return filter ? filter->insert_if_absent(r.h, clock) : (r.h.lo & 3) != 0;
  }
};

// Decides a batch's records in order with Judge (`bool(const Rec&, tlbf::Time clock)`, true
// to keep) and writes the kept ones.
template <class Judge>
class Decider {
 public:
  explicit Decider(Judge judge) : judge_(judge) {}
  void run(const Batch& b) {
    for (const Rec& r : b.recs) {
      if (r.t > clock_) clock_ = r.t;
      if (judge_(r, clock_)) {
        out_.put(b.buf.data() + r.off, r.len);
        ++emitted;
      }
    }
    records += b.recs.size();
  }
  void flush() { out_.flush(); }
  std::uint64_t records = 0, emitted = 0;

 private:
  Judge judge_;
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

inline double cpu_seconds(clockid_t which) {
  timespec ts{};
  clock_gettime(which, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The filter -a names (nullptr for none), with the program's defaults for a 60 s window.
inline std::unique_ptr<tlbf::WindowFilter> make_floor_filter(const std::string& algo, double rate) {
  if (algo == "none") return nullptr;
  tlbf::FilterConfig cfg;
  cfg.algorithm = *tlbf::parse_algorithm(algo);
  cfg.span = 60 * tlbf::kSecond;
  cfg.error_rate = rate;
  return tlbf::make_filter(cfg);
}

// Parses and decides the whole input with one thread or two, then prints records, emitted,
// wall and CPU seconds (per thread with two) on stderr.
template <class Parser, class Judge>
void run_floor(Parser& parser, Judge judge, int threads) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double main_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  double parse_cpu = 0;  // the producer thread's CPU time (two threads)
  Decider<Judge> decider(judge);
  if (threads == 1) {
    Batch b;
    while (parser.fill(b)) decider.run(b);
  } else {
    // Three batches circulate: one being parsed, one being decided, one waiting between.
    Channel free_batches, full_batches;
    for (int i = 0; i < 3; ++i) free_batches.push(std::make_unique<Batch>());
    std::thread producer([&] {
      const double start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
      for (bool last = false; !last;) {
        std::unique_ptr<Batch> b = free_batches.pop();
        if (!parser.fill(*b)) {
          b->recs.clear();
          b->last = true;
        }
        last = b->last;
        full_batches.push(std::move(b));
      }
      parse_cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
    });
    for (bool last = false; !last;) {
      std::unique_ptr<Batch> b = full_batches.pop();
      decider.run(*b);
      last = b->last;
      free_batches.push(std::move(b));
    }
    producer.join();
  }
  decider.flush();
  // With two threads the slower of the two is the wall time an otherwise idle 2-core machine
  // would see; the busy benchmark machine's wall time says little.
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  fmt::print(stderr, "records {} emitted {} wall {:.3f} s cpu {:.3f} s", decider.records, decider.emitted, wall,
             cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
  if (threads == 2)
    fmt::print(stderr, " (parse thread {:.3f} s, decide thread {:.3f} s)", parse_cpu,
               cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - main_start);
  fmt::print(stderr, "\n");
}

// The program's decisions with the filter -a names (nullptr for none).
template <class Parser>
void run_floor(Parser& parser, tlbf::WindowFilter* filter, int threads) {
  run_floor(parser, FilterJudge{filter}, threads);
}

}  // namespace tlbf_bench::floor
