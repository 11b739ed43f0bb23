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

}  // namespace

TEST_SUITE("stats") {
  TEST_CASE("memory is reported as the final size and the peak") {
    RunStats r;
    r.filter.algorithm = "gebf";
    r.filter.k = 9;
    r.filter.bits_allocated = 8192 * 10;
    r.filter.peak_bits_allocated = 8192 * 40;
    const std::string text = format_stats(r, StatsFormat::text);
    CHECK(has(text, "filter       gebf k=9 l=0 slices=0 memory=10.0 KiB peak=40.0 KiB\n"));
    CHECK(has(text, "memory cap   not reached\n"));
    const std::string json = format_stats(r, StatsFormat::json);
    CHECK(has(json, "\"bits_allocated\":81920,\"peak_bits_allocated\":327680,"));
    CHECK(has(json, "\"k\":9,"));
    CHECK(has(json, "\"bits_per_key\":"));
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
    CHECK(has(text, "filter       exact memory=3.9 KiB peak=7.8 KiB\n"));
    CHECK(has(text, "40.00 bytes per key\n"));
    CHECK_FALSE(has(text, " k="));
    const std::string json = format_stats(r, StatsFormat::json);
    CHECK(has(json, "\"bytes_per_key\":40.00,"));
    CHECK_FALSE(has(json, "\"k\":"));
    CHECK_FALSE(has(json, "\"slices\":"));
  }

  TEST_CASE("a binding cap names the window kept: a time, or keys for a count window") {
    RunStats r;
    r.filter.algorithm = "gebf";
    r.filter.memory_capped = true;
    r.filter.cap_evictions = 7;
    r.filter.effective_span = 12 * tlbf::kSecond + 500 * tlbf::kMillisecond;
    CHECK(has(format_stats(r, StatsFormat::text), "memory cap   reached (7 early evictions; window kept: 12.5s)\n"));
    CHECK(has(format_stats(r, StatsFormat::json),
              "\"memory_capped\":true,\"cap_evictions\":7,\"effective_window_ns\":12500000000}"));
    r.filter.effective_span = 0;
    r.filter.effective_count = 3000;
    CHECK(has(format_stats(r, StatsFormat::text), "window kept: 3000 keys)\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"effective_window_keys\":3000}"));
  }

  TEST_CASE("a cap that kept only the current instant says 0s, not the whole window") {
    RunStats r;
    r.filter.algorithm = "exact";
    r.filter.memory_capped = true;
    r.filter.cap_evictions = 5;
    CHECK(tlbf_dedup::cap_window(r.filter) == "0s");
    CHECK(has(format_stats(r, StatsFormat::text), "memory cap   reached (5 early evictions; window kept: 0s)\n"));
    CHECK(has(format_stats(r, StatsFormat::json), "\"cap_evictions\":5,\"effective_window_ns\":0}"));
    r.filter.memory_capped = false;
    r.filter.cap_evictions = 0;
    CHECK_FALSE(has(format_stats(r, StatsFormat::json), "effective_window"));
  }
}
