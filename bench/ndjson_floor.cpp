// The floor of the NDJSON path: `tlbf-dedup -k id -t ts -w 60s` written as one tight loop,
// to measure how much of the program's time the filter alone would leave once framing, JSON
// reading and time parsing cost what they must. It is a measurement, not a second program:
// it reads only records whose `id` is a JSON string and whose `ts` parses as an epoch time,
// and stops with a message at the first record that is anything else, so it can never make a
// decision the program would not.
//
// Steps per 1 MiB read (bench/floor_loop.hpp drives them): frame each record with memchr,
// get `id` and `ts` (-p below), parse ts with the program's own epoch parser
// (parse_epoch_auto, which the program's time parser calls for a number), hash the key bytes
// as the program forms them for -k id on a string (the string's content, unescaped) with
// XXH3-128, then decide with the library's filter through make_filter() and write the kept
// records.
//
// -p chooses how `id` and `ts` are read:
//  - scan (the default, the fastest measured): the program's own scan without simdjson
//    (src/extract/json_scan.hpp, plain_ascii_record() and flat_scan()), which reads a common record
//    from its bytes exactly as simdjson would or declines; a declined record, or one whose id
//    is no string, goes to simdjson On-Demand as below.
//  - ondemand: every record through simdjson On-Demand, two find_field_unordered lookups.
//  - many: simdjson's iterate_many over each batch, the records' bounds from the stream.
//
// Invariant: the output is byte-identical to tlbf-dedup's on the inputs it accepts (same
// filter, same key bytes, same times, same clock rule: the largest time seen so far), with
// one thread or two; bench/run.sh checks it with cmp, so the time taken is a fair lower bound
// for the program's design.
//
// Usage: tlbf-bench-ndjson-floor [-a tlbf|gebf|exact|none] [-e RATE] [-j 1|2]
//        [-p scan|ondemand|many] [--trace-out TRACE | --load TRACE] FILE > OUT
// Prints records, emitted, wall and CPU seconds (per thread with -j 2) on stderr; exit 1 with
// a message when a record is not one it reads. `-a none` replaces the filter by a coin toss on
// the hash, which shows what everything but the filter costs. --trace-out and --load are the
// two steps of the default filter's load floor (bench/load_floor.hpp): the first writes the
// words each decision must read, and nothing on stdout; the second replaces the filter by
// those reads and the trace's decisions.
#include <fcntl.h>
#include <unistd.h>

#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/json_scan.hpp"
#include "extract/timestamp.hpp"
#include "floor_loop.hpp"
#include "load_floor.hpp"
#include "tlbf/hash.hpp"

namespace {

namespace od = simdjson::ondemand;
using tlbf_bench::floor::Batch;
using tlbf_bench::floor::kChunk;
using tlbf_bench::floor::Rec;

enum class Reading { scan, ondemand, many };

[[noreturn]] void reject(std::uint64_t record, const char* why) {
  std::fprintf(stderr,
               "tlbf-bench-ndjson-floor: record %llu: %s (the floor reads only records whose id is a string and "
               "whose ts is an epoch time)\n",
               static_cast<unsigned long long>(record), why);
  std::exit(1);
}

// The time as the program reads a ts number or string in epoch form; -1 never arises: a
// record whose ts does not parse is rejected.
tlbf::Time epoch_time(std::string_view text, std::uint64_t record) {
  const std::optional<tlbf::Time> t = tlbf_dedup::parse_epoch_auto(text);
  if (!t) reject(record, "ts is not an epoch time");
  return *t;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// `id` and `ts` of a document through On-Demand; the key's view lives in the parser's string
// buffer until its next document.
template <class Doc>
void read_document(Doc& doc, std::uint64_t record, std::string_view& id, std::string_view& ts) {
  od::object root;
  if (doc.get_object().get(root)) reject(record, "not a JSON object");
  od::value v;
  if (root.find_field_unordered("ts").get(v)) reject(record, "no ts");
  od::json_type type;
  if (v.type().get(type)) reject(record, "ts unreadable");
  if (type == od::json_type::string) {
    if (v.get_string().get(ts)) reject(record, "ts unreadable");
  } else {
    ts = v.raw_json_token();
    while (!ts.empty() && (is_blank(ts.back()) || ts.back() == '\n')) ts.remove_suffix(1);
  }
  // A number's token points into the record, a string into the parser's buffer: the time is
  // read before the key's string can overwrite it.
  if (root.find_field_unordered("id").get(v) || v.get_string().get(id)) reject(record, "no string id");
}

class Parser {
 public:
  Parser(int fd, Reading reading) : fd_(fd), reading_(reading) {}

  bool fill(Batch& b) {
    if (eof_ && carry_.empty()) return false;
    // simdjson reads up to SIMDJSON_PADDING bytes past a document, the scan 15.
    b.buf.resize(carry_.size() + kChunk + simdjson::SIMDJSON_PADDING);
    std::memcpy(b.buf.data(), carry_.data(), carry_.size());
    std::size_t have = carry_.size();
    carry_.clear();
    while (!eof_ && have < kChunk / 2) {
      const ssize_t n = ::read(fd_, b.buf.data() + have, b.buf.size() - simdjson::SIMDJSON_PADDING - have);
      if (n < 0) std::exit(1);
      if (n == 0) eof_ = true;
      have += static_cast<std::size_t>(n);
    }
    b.recs.clear();
    const char* base = b.buf.data();
    const char* end = base + have;
    // The whole lines of the batch; a last line without a newline counts at the end of input.
    const char* stop = end;
    if (!eof_) {
      stop = base;
      for (const char* q = end; q > base; --q)
        if (q[-1] == '\n') {
          stop = q;
          break;
        }
    }
    if (reading_ == Reading::many)
      read_many(b, stop);
    else
      read_lines(b, stop);
    b.size = static_cast<std::size_t>(stop - base);
    carry_.assign(stop, end);
    b.last = eof_ && carry_.empty();
    return true;
  }

 private:
  // Each line found with memchr, read by the scan or by On-Demand.
  void read_lines(Batch& b, const char* stop) {
    const char* base = b.buf.data();
    for (const char* p = base; p < stop;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(stop - p)));
      if (!nl) nl = stop;
      const char* line_end = nl < stop ? nl + 1 : nl;
      ++record_;
      std::string_view id, ts;
      const std::size_t n = static_cast<std::size_t>(nl - p);
      tlbf_dedup::Record record;
      record.data = p;
      record.size = n;
      if (reading_ == Reading::scan && tlbf_dedup::plain_ascii_record(record) &&
          tlbf_dedup::flat_scan(record, names_, found_, shape_) && found_[1].string) {
        ts = found_[0].text;
        id = found_[1].text;
      } else {
        od::document doc;
        if (parser_.iterate(p, n, static_cast<std::size_t>(b.buf.data() + b.buf.size() - p)).get(doc))
          reject(record_, "not JSON");
        read_document(doc, record_, id, ts);
      }
      const tlbf::Time t = epoch_time(ts, record_);
      b.recs.push_back(Rec{static_cast<std::uint32_t>(p - base), static_cast<std::uint32_t>(line_end - p),
                           tlbf::hash_key(id.data(), id.size()), t});
      p = line_end;
    }
  }

  // The batch's documents through iterate_many; each must be one line, as the program frames it.
  void read_many(Batch& b, const char* stop) {
    const char* base = b.buf.data();
    const std::size_t size = static_cast<std::size_t>(stop - base);
    if (size == 0) return;
    od::document_stream stream;
    if (parser_.iterate_many(base, size, size).get(stream)) reject(record_ + 1, "not JSON");
    std::size_t next = 0;  // where the next line starts
    for (auto it = stream.begin(); it != stream.end(); ++it) {
      ++record_;
      const std::size_t at = it.current_index();
      if (at != next) reject(record_, "not one document per line");
      auto doc = *it;
      std::string_view id, ts;
      read_document(doc, record_, id, ts);
      const tlbf::Time t = epoch_time(ts, record_);
      const char* nl = static_cast<const char*>(std::memchr(base + at, '\n', size - at));
      next = nl ? static_cast<std::size_t>(nl - base) + 1 : size;
      b.recs.push_back(Rec{static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(next - at),
                           tlbf::hash_key(id.data(), id.size()), t});
    }
    if (stream.truncated_bytes() != 0 || next != size) reject(record_ + 1, "not JSON");
  }

  int fd_;
  Reading reading_;
  bool eof_ = false;
  std::uint64_t record_ = 0;  // records read so far, for messages
  std::string carry_;
  od::parser parser_;
  const std::vector<std::string> names_{"ts", "id"};  // flat_scan()'s members, found_ in this order
  tlbf_dedup::FlatValue found_[2];
  tlbf_dedup::FlatShape shape_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "tlbf";
  double rate = 1e-5;
  int threads = 1;
  Reading reading = Reading::scan;
  bool usage_error = false;
  const char* path = nullptr;
  const char* trace_out = nullptr;
  const char* load = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-a" && i + 1 < argc) {
      algo = argv[++i];
    } else if (a == "-e" && i + 1 < argc) {
      rate = std::strtod(argv[++i], nullptr);
    } else if (a == "-j" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--trace-out" && i + 1 < argc) {
      trace_out = argv[++i];
    } else if (a == "--load" && i + 1 < argc) {
      load = argv[++i];
    } else if (a == "-p" && i + 1 < argc) {
      const std::string_view p = argv[++i];
      if (p == "scan")
        reading = Reading::scan;
      else if (p == "ondemand")
        reading = Reading::ondemand;
      else if (p == "many")
        reading = Reading::many;
      else
        usage_error = true;
    } else {
      path = argv[i];
    }
  }
  if (usage_error || !path || (trace_out && load) || (threads != 1 && threads != 2) ||
      (algo != "none" && !tlbf::parse_algorithm(algo))) {
    std::fprintf(stderr,
                 "usage: tlbf-bench-ndjson-floor [-a tlbf|gebf|exact|none] [-e RATE] [-j 1|2] [-p scan|ondemand|many] "
                 "[--trace-out TRACE | --load TRACE] FILE > OUT\n");
    return 2;
  }
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return 1;
  }
  Parser parser(fd, reading);
  if (!tlbf_bench::floor::run_load_step(parser, rate, trace_out, load, threads)) {
    const std::unique_ptr<tlbf::WindowFilter> filter = tlbf_bench::floor::make_floor_filter(algo, rate);
    tlbf_bench::floor::run_floor(parser, filter.get(), threads);
  }
  ::close(fd);
  return 0;
}
