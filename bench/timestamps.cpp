// The cost of reading one record's time: TimeParser (what the extractors call per record) on
// the timestamp forms real logs have, in auto-detection and with the fixed format named, next
// to the bare pure parser of that form, which is the peer each TimeParser figure is divided by.
//
// Each form gets --count stamps of consecutive instants one to three seconds apart (as a log
// writes them, so the branch predictor sees what it sees in production, not one string over
// and over), and each figure is the median over --reps passes of thread CPU time per parse
// (common.hpp says why CPU time). Every parsed time feeds a sink, and the table shows how many
// stamps parsed, so a form the parser does not know cannot pass for a fast one.
//
// The program uses only TimeParser(format, pattern, year) and the parse_* functions, so the
// same source builds against an older tree, and two builds can be compared in one run.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "common.hpp"
#include "extract/timestamp.hpp"

namespace {

using tlbf::Time;
using tlbf_bench::cpu_seconds;
using tlbf_bench::median;
using tlbf_dedup::TimeFormat;
using tlbf_dedup::TimeParser;
using tlbf_dedup::TimePattern;

constexpr int kYear = 2017;

struct Fields {
  int year, month, day, hour, minute, second, weekday, millis;
};

Fields fields_of(std::int64_t secs, int millis) {
  const std::time_t t = secs;
  std::tm tm{};
  gmtime_r(&t, &tm);
  return {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_wday, millis};
}

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

// One timestamp form: how to write an instant in it, the fixed format that names it (auto
// when only auto-detection reads it), and the bare parser that is the peer.
struct Form {
  const char* name;
  std::function<std::string(std::int64_t secs, int millis)> write;
  TimeFormat fixed;
  std::function<std::optional<Time>(std::string_view)> bare;
};

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buf[96];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return std::string(buf, static_cast<std::size_t>(n));
}

std::vector<Form> forms() {
  using namespace tlbf_dedup;
  auto fixed_year = [](std::string_view s) { return parse_auto(s, kYear); };
  return {
      {"epoch seconds.millis", [](std::int64_t s, int ms) { return printf_string("%" PRId64 ".%03d", s, ms); },
       TimeFormat::epoch, [](std::string_view s) { return parse_epoch(s, tlbf::kSecond); }},
      {"epoch milliseconds", [](std::int64_t s, int ms) { return printf_string("%" PRId64 "%03d", s, ms); },
       TimeFormat::epoch_ms, [](std::string_view s) { return parse_epoch(s, tlbf::kMillisecond); }},
      {"rfc3339 (Zeek)",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%04d-%02d-%02dT%02d:%02d:%02d.%03d123Z", f.year, f.month, f.day, f.hour, f.minute,
                              f.second, ms);
       },
       TimeFormat::rfc3339, [](std::string_view s) { return parse_rfc3339(s); }},
      {"log4j comma fraction",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%04d-%02d-%02d %02d:%02d:%02d,%03d", f.year, f.month, f.day, f.hour, f.minute, f.second,
                              ms);
       },
       TimeFormat::rfc3339, [](std::string_view s) { return parse_rfc3339(s); }},
      {"clf, bracketed",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("[%02d/%s/%04d:%02d:%02d:%02d +0000]", f.day, kMonths[f.month - 1], f.year, f.hour,
                              f.minute, f.second);
       },
       TimeFormat::clf, [](std::string_view s) { return parse_clf(s.substr(1, s.size() - 2)); }},
      {"syslog",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%s %2d %02d:%02d:%02d", kMonths[f.month - 1], f.day, f.hour, f.minute, f.second);
       },
       TimeFormat::syslog, [](std::string_view s) { return parse_syslog(s, kYear); }},
      {"ctime",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%s %s %02d %02d:%02d:%02d %04d", kDays[f.weekday], kMonths[f.month - 1], f.day, f.hour,
                              f.minute, f.second, f.year);
       },
       TimeFormat::ctime, [](std::string_view s) { return parse_ctime(s); }},
      {"yy/mm/dd (Spark)",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%02d/%02d/%02d %02d:%02d:%02d", f.year % 100, f.month, f.day, f.hour, f.minute,
                              f.second);
       },
       TimeFormat::auto_detect, fixed_year},
      {"yyyy/mm/dd",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%04d/%02d/%02d %02d:%02d:%02d", f.year, f.month, f.day, f.hour, f.minute, f.second);
       },
       TimeFormat::auto_detect, fixed_year},
      {"rfc2822",
       [](std::int64_t s, int ms) {
         Fields f = fields_of(s, ms);
         return printf_string("%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[f.weekday], f.day, kMonths[f.month - 1],
                              f.year, f.hour, f.minute, f.second);
       },
       TimeFormat::auto_detect, fixed_year},
  };
}

volatile std::int64_t sink = 0;

// Median CPU nanoseconds per call of `parse` over the stamps, and how many parsed.
template <class Parse>
std::pair<double, std::size_t> measure(const std::vector<std::string>& stamps, int reps, Parse&& parse) {
  std::vector<double> per_call;
  std::size_t parsed = 0;
  for (int r = 0; r < reps; ++r) {
    std::int64_t acc = 0;
    parsed = 0;
    const double start = cpu_seconds();
    for (const std::string& s : stamps) {
      const std::optional<Time> t = parse(std::string_view(s));
      parsed += t.has_value();
      acc += t.value_or(0);
    }
    per_call.push_back((cpu_seconds() - start) * 1e9 / static_cast<double>(stamps.size()));
    sink = sink + acc;
  }
  return {median(per_call), parsed};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 200000;
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--count" && i + 1 < argc) {
      count = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: tlbf-bench-timestamps [--count N] [--reps N]\n");
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  fmt::print("== TimeParser per record, {} stamps per form, median of {} passes, CPU ns per parse ==\n", count, reps);
  fmt::print("{:<22} {:>10} {:>10} {:>10} {:>8} {:>8} {:>9}\n", "form", "bare", "auto", "fixed", "auto/b", "fixed/b",
             "parsed");
  for (const Form& form : forms()) {
    std::vector<std::string> stamps;
    stamps.reserve(count);
    std::int64_t secs = 1489000000;  // 2017-03-08
    for (std::size_t i = 0; i < count; ++i) {
      secs += 1 + static_cast<std::int64_t>(i % 3);
      stamps.push_back(form.write(secs, static_cast<int>(i * 7 % 1000)));
    }
    TimeParser auto_parser(TimeFormat::auto_detect, std::nullopt, kYear);
    TimeParser fixed_parser(form.fixed, std::nullopt, kYear);
    const auto bare = measure(stamps, reps, form.bare);
    const auto automatic = measure(stamps, reps, [&](std::string_view s) { return auto_parser(s).value(); });
    const auto fixed = measure(stamps, reps, [&](std::string_view s) { return fixed_parser(s).value(); });
    fmt::print("{:<22} {:>10.1f} {:>10.1f} {:>10.1f} {:>8.2f} {:>8.2f} {:>9}\n", form.name, bare.first, automatic.first,
               fixed.first, automatic.first / bare.first, fixed.first / bare.first,
               fmt::format("{}/{}", automatic.second, stamps.size()));
  }
  return 0;
}
