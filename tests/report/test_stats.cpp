// The --stats report (src/report/stats.cpp): peak memory beside the final size, the exact filter
// without the Bloom-filter fields and with bytes per key, and the window a binding memory cap
// still kept, in text and JSON alike.
#include <doctest/doctest.h>

#include <string>

#include "report/stats.hpp"

namespace {

using tlbf_dedup::RunStats;
using tlbf_dedup::StatsFormat;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The statistics of an `algorithm` filter whose memory cap bound, dropping `evictions` keys or
// slices inside the window (0: it only kept the filter smaller than asked for).
RunStats capped(const char* algorithm, std::uint64_t evictions) {
  RunStats r;
  r.filter.algorithm = algorithm;
  r.filter.memory_capped = true;
  r.filter.cap_evictions = evictions;
  return r;
}

}  // namespace

TEST_SUITE("stats") {
  TEST_CASE("memory is reported as the final size and the peak") {
    RunStats r;
    r.filter.algorithm = "gebf";
    r.filter.k = 9;
    r.filter.bits_allocated = 8192 * 10;
    r.filter.peak_bits_allocated = 8192 * 40;
    const std::string text = format_stats(r, StatsFormat::text);
    CHECK(has(text, "filter        gebf k=9 l=0 slices=0 memory=10.0 KiB peak=40.0 KiB\n"));
    CHECK(has(text, "memory cap    not reached\n"));
    const std::string json = format_stats(r, StatsFormat::json);
    CHECK(has(json, "\"bits_allocated\":81920,\"peak_bits_allocated\":327680,"));
    CHECK(has(json, "\"k\":9,"));
    CHECK_FALSE(has(json, "\"bits_per_key\":"));  // no live key to measure by
  }

  TEST_CASE("a filter that does not track its peak reports its size as the peak") {
    RunStats r;
    r.filter.algorithm = "tlbf";
    r.filter.bits_allocated = 8192 * 3;
    CHECK(has(format_stats(r, StatsFormat::text), "memory=3.0 KiB peak=3.0 KiB"));
  }

  TEST_CASE("exact: bytes per key, no k, l or slices") {
    RunStats r;
    r.filter.algorithm = "exact";
    r.filter.bits_allocated = 8 * 4000;
    r.filter.peak_bits_allocated = 8 * 8000;
    r.filter.live_keys = 100;
    r.filter.bits_per_live_key = 320;
    const std::string text = format_stats(r, StatsFormat::text);
    CHECK(has(text, "filter        exact memory=3.9 KiB peak=7.8 KiB\n"));
    CHECK(has(text, "100 live, 40.00 bytes per live key\n"));
    CHECK_FALSE(has(text, " k="));
    const std::string json = format_stats(r, StatsFormat::json);
    CHECK(has(json, "\"bytes_per_key\":40.00,"));
    CHECK_FALSE(has(json, "\"k\":"));
    CHECK_FALSE(has(json, "\"slices\":"));
  }

  TEST_CASE("a binding cap names the window kept: a time, or keys for a count window") {
    RunStats r = capped("gebf", 7);
    r.filter.effective_span = 12 * tlbf::kSecond + 500 * tlbf::kMillisecond;
    CHECK(has(format_stats(r, StatsFormat::text), "memory cap    reached (7 early evictions; window kept: 12.5s)\n"));
    CHECK(has(format_stats(r, StatsFormat::json),
              "\"memory_capped\":true,\"cap_evictions\":7,\"effective_window_ns\":12500000000}"));
    r.filter.effective_span = 0;
    r.filter.effective_count = 3000;
    CHECK(has(format_stats(r, StatsFormat::text), "window kept: 3000 keys)\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"effective_window_keys\":3000}"));
  }

  TEST_CASE("a cap that kept only the current instant says 0s, not the whole window") {
    RunStats r = capped("exact", 5);
    CHECK(tlbf_dedup::cap_window(r.filter) == "0s");
    CHECK(has(format_stats(r, StatsFormat::text), "memory cap    reached (5 early evictions; window kept: 0s)\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"cap_evictions\":5,\"effective_window_ns\":0}"));
    r.filter.memory_capped = false;
    r.filter.cap_evictions = 0;
    CHECK_FALSE(has(format_stats(r, StatsFormat::json), "effective_window"));
  }

  TEST_CASE("every value of the text form starts in one column") {
    RunStats r;
    r.filter.algorithm = "tlbf";
    r.top.counters = 100;
    const std::string text = format_stats(r, StatsFormat::text);
    std::size_t lines = 0;
    for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
      const std::string line = text.substr(at, text.find('\n', at) - at);
      if (line.rfind("  ", 0) == 0) continue;  // a --top key under its heading
      CAPTURE(line);
      CHECK(line.size() > 14);
      CHECK(line[13] == ' ');
      CHECK(line[14] != ' ');
      ++lines;
    }
    CHECK(lines == 17);
  }

  TEST_CASE("memory per live key only where the keys account for the memory, else what it is sized for") {
    RunStats r;
    r.filter.algorithm = "tlbf";
    r.filter.bits_allocated = 8 * 564224;
    r.filter.keys_inserted = 2;
    r.filter.live_keys = 2;
    r.filter.bits_per_live_key = 2256896;
    r.sizing = tlbf_dedup::FilterSizing{100000, false};
    std::string text = format_stats(r, StatsFormat::text);
    CHECK(has(text, "keys          2 inserted, 2 live (the memory is sized for 100000 keys per window, -c)\n"));
    CHECK_FALSE(has(text, "per live key"));
    std::string json = format_stats(r, StatsFormat::json);
    CHECK(has(json, "\"live_keys\":2,\"capacity\":100000,\"memory_capped\""));
    r.sizing = tlbf_dedup::FilterSizing{1000, true};
    CHECK(has(format_stats(r, StatsFormat::text), "(the memory is sized for a window of 1000 keys, -n)\n"));
    r.sizing = tlbf_dedup::FilterSizing{100000, false};
    r.filter.live_keys = 60000;
    r.filter.bits_per_live_key = 75.2;
    CHECK(has(format_stats(r, StatsFormat::text), "keys          2 inserted, 60000 live, 75.20 bits per live key\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"capacity\":100000,\"bits_per_key\":75.20,"));
  }

  TEST_CASE("errors say what became of them: none, a bare 0") {
    RunStats r;
    CHECK(has(format_stats(r, StatsFormat::text), "errors        0\n"));
    r.malformed = 1;
    r.missing_key = 2;
    CHECK(has(format_stats(r, StatsFormat::text), "errors        3 (malformed 1, missing key 2): passed through\n"));
    r.errors_went = "dropped";
    CHECK(has(format_stats(r, StatsFormat::text), "(malformed 1, missing key 2): dropped\n"));
  }

  TEST_CASE("the --top header says what its figures are") {
    tlbf_dedup::TopReport top;
    top.counters = 100;
    top.added = 7;
    top.bound = 1;
    top.keys.resize(2);
    CHECK(has(tlbf_dedup::format_top(top),
              "top           2 key(s) with the most duplicates, of 7 duplicates counted in 100 counters (a count is "
              "at most its overestimate above the true one; every overestimate at most 1)\n"));
  }

  TEST_CASE("a cap that lost no key says so, and names no window") {
    RunStats r = capped("tlbf", 0);  // slices kept smaller than -c asked for, nothing dropped
    CHECK(has(format_stats(r, StatsFormat::text),
              "memory cap    reached, no key lost: the whole window kept, in less memory than -c asked for\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"memory_capped\":true,\"cap_evictions\":0}"));
  }

  TEST_CASE("a cap that bound in this run names the shortest window kept") {
    RunStats r = capped("tlbf", 3);
    r.filter.effective_span = 1100 * tlbf::kMillisecond;
    r.cap_binds = 3;
    CHECK(has(format_stats(r, StatsFormat::text), "(3 early evictions; window kept: 1.1s at its shortest)\n"));
    tlbf::FilterStats a, b;
    a.effective_span = 2 * tlbf::kSecond;
    b.effective_span = 3 * tlbf::kSecond;
    CHECK(tlbf_dedup::narrower_window(a, b));
    CHECK_FALSE(tlbf_dedup::narrower_window(b, a));
    a.effective_count = 10;
    b.effective_count = 5;
    CHECK(tlbf_dedup::narrower_window(b, a));
  }
}
