// The floor of the text path: `tlbf-dedup -k 3 -t 1 -w 60s` written as one tight loop, to
// measure how much of the program's time the filter alone would leave once reading, field
// splitting and time parsing cost what they must. It is a measurement, not a second program:
// it handles only the generated benchmark format (blank-separated fields, key = field 3,
// time = field 1 in epoch seconds with a fraction) and skips every option and check.
//
// Steps per 1 MiB read: find each line with memchr, the first three fields with memchr on
// ' ', parse the time as digits and a fraction without a library call, hash the key with
// XXH3-128, decide with the library's own filter through make_filter() and the virtual
// WindowFilter interface (exactly what the program calls), and copy kept lines into a 1 MiB
// output buffer written with write(2). The decision order is the input order.
//
// Invariant: the output is byte-identical to tlbf-dedup's on these inputs (same filter, same
// keys, same times, same clock rule: the largest time seen so far), which run.sh can check
// with cmp; so the time it takes is a fair lower bound for the program's design.
//
// Usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|none] [-e RATE] FILE > OUT
// Prints records, emitted and the CPU seconds on stderr. `-a none` replaces the filter by a
// coin toss on the hash, which shows what everything but the filter costs.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "tlbf/config.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"

#include "common.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "tlbf";
  double rate = 1e-5;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-a" && i + 1 < argc) algo = argv[++i];
    else if (a == "-e" && i + 1 < argc) rate = std::strtod(argv[++i], nullptr);
    else path = argv[i];
  }
  if (!path) {
    std::fprintf(stderr, "usage: tlbf-bench-text-floor [-a tlbf|gebf|exact|none] [-e RATE] FILE > OUT\n");
    return 2;
  }
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return 1;
  }

  std::unique_ptr<tlbf::WindowFilter> filter;
  if (algo != "none") {
    tlbf::FilterConfig cfg;
    cfg.algorithm = *tlbf::parse_algorithm(algo);
    cfg.span = 60 * tlbf::kSecond;
    cfg.error_rate = rate;
    filter = tlbf::make_filter(cfg);
  }

  const double t_start = tlbf_bench::cpu_seconds();
  std::vector<char> buf(2 * kChunk);
  std::size_t have = 0;
  std::uint64_t records = 0, emitted = 0;
  tlbf::Time clock = 0;
  Output out;
  for (;;) {
    ssize_t n = ::read(fd, buf.data() + have, kChunk);
    if (n < 0) return 1;
    have += static_cast<std::size_t>(n);
    const char* p = buf.data();
    const char* end = p + have;
    // At end of input a last line without a newline still counts.
    const bool eof = n == 0;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!nl) {
        if (!eof) break;
        nl = end;
      }
      const char* line_end = nl < end ? nl + 1 : nl;
      ++records;
      // Fields 1..3 (single blanks in this format).
      const char* f1e = static_cast<const char*>(std::memchr(p, ' ', static_cast<std::size_t>(nl - p)));
      const char* f2e = f1e ? static_cast<const char*>(std::memchr(f1e + 1, ' ', static_cast<std::size_t>(nl - f1e - 1))) : nullptr;
      bool keep = true;
      if (f2e) {
        const char* f3 = f2e + 1;
        const char* f3e = static_cast<const char*>(std::memchr(f3, ' ', static_cast<std::size_t>(nl - f3)));
        if (!f3e) f3e = nl;
        tlbf::Time t = parse_epoch_seconds(p, f1e);
        if (t > clock) clock = t;
        tlbf::KeyHash h = tlbf::hash_key(f3, static_cast<std::size_t>(f3e - f3));
        if (filter) keep = filter->insert_if_absent(h, clock);
        else keep = (h.lo & 3) != 0;
      }
      if (keep) {
        out.put(p, static_cast<std::size_t>(line_end - p));
        ++emitted;
      }
      p = line_end;
    }
    if (eof) break;
    have = static_cast<std::size_t>(end - p);
    std::memmove(buf.data(), p, have);
  }
  out.flush();
  const double total = tlbf_bench::cpu_seconds() - t_start;
  fmt::print(stderr, "records {} emitted {} cpu {:.3f} s ({:.1f} M records/s of CPU)\n", records, emitted, total,
             static_cast<double>(records) / total / 1e6);
  return 0;
}
