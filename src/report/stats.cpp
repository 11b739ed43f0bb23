// Rendering of the run's counters for --stats.
//
// Invariants: the text and JSON forms carry the same facts (JSON keys are the text labels
// with spaces as underscores where a line holds one value), so a script can switch between
// them. Memory is the filter's peak, the most it held during the run, beside its final size.
// Fields that mean nothing for a filter are left out rather than printed as zero: the exact
// filter has no k, l or slices and reports bytes per key. When a memory cap bound, the
// window the filter still kept (the shortest since it was created) is named: a time for a
// time window, a number of keys for a count window.
#include "report/stats.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace tlbf_dedup {
namespace {

bool is_exact(const tlbf::FilterStats& f) { return f.algorithm == "exact"; }
std::uint64_t peak_bits(const tlbf::FilterStats& f) { return std::max(f.peak_bits_allocated, f.bits_allocated); }
double per_key(const tlbf::FilterStats& f) { return is_exact(f) ? f.bits_per_live_key / 8.0 : f.bits_per_live_key; }

// ,"top":[...] and the sketch's figures for --top, nothing without it.
std::string top_json(const TopReport& top) {
  if (top.counters == 0) return {};
  std::string keys;
  for (const TopKey& k : top.keys)
    keys += fmt::format("{}{{\"key\":{},\"count\":{},\"overestimate\":{},\"truncated\":{}}}", keys.empty() ? "" : ",",
                        k.key, k.count, k.overestimate, k.truncated ? "true" : "false");
  return fmt::format(",\"top\":[{}],\"top_counted\":{},\"top_counters\":{},\"top_bound\":{}", keys, top.added,
                     top.counters, top.bound);
}

// ,"held":{...} with --count or --keep last, nothing without.
std::string held_json(const HeldReport& h) {
  if (!h.active) return {};
  return fmt::format(",\"held\":{{\"peak\":{},\"peak_bytes\":{},\"written_early\":{}}}", h.peak, h.peak_bytes, h.early);
}

}  // namespace

std::string cap_window(const tlbf::FilterStats& f) {
  if (f.effective_span >= tlbf::kSecond) return fmt::format("{:.1f}s", static_cast<double>(f.effective_span) / 1e9);
  if (f.effective_span > 0) return fmt::format("{:.1f}ms", static_cast<double>(f.effective_span) / 1e6);
  if (f.effective_count > 0) return fmt::format("{} keys", f.effective_count);
  // A count window keeps at least the newest key, so a bound cap with neither field set is a
  // time window shrunk to the current instant: every key kept has the clock's time (records
  // stamped alike, or late ones judged at the clock).
  if (f.memory_capped) return "0s";
  return "the whole window";
}

std::string format_stats(const RunStats& s, StatsFormat format) {
  const tlbf::FilterStats& f = s.filter;
  double rate = s.seconds > 0 ? static_cast<double>(s.records) / s.seconds : 0;
  if (format == StatsFormat::json) {
    std::string shape = is_exact(f) ? std::string()
                                    : fmt::format("\"k\":{},\"l\":{},\"slices\":{},\"slice0_bits\":{},", f.k, f.l,
                                                  f.slices, f.slice0_bits);
    std::string window;
    if (f.effective_span > 0) window = fmt::format(",\"effective_window_ns\":{}", f.effective_span);
    if (f.effective_count > 0)
      window = fmt::format(",\"effective_window_keys\":{}", f.effective_count);
    else if (f.memory_capped && f.effective_span == 0)
      window = ",\"effective_window_ns\":0";
    return fmt::format(
        "{{\"records\":{},\"emitted\":{},\"duplicates\":{},\"errors\":{},\"malformed\":{},\"missing_key\":{},"
        "\"untimed\":{},\"future\":{},\"late\":{},\"jumps_forward\":{},\"jumps_back\":{},\"date_only\":{},"
        "\"bytes_in\":{},\"bytes_out\":{},\"seconds\":{:.6f},\"records_per_second\":{:.0f},"
        "\"filter\":{{\"algorithm\":\"{}\",{}\"bits_allocated\":{},\"peak_bits_allocated\":{},"
        "\"keys_inserted\":{},\"live_keys\":{},\"{}\":{:.2f},\"memory_capped\":{},\"cap_evictions\":{}{}}}{}{}}}\n",
        s.records, s.emitted, s.duplicates, s.errors(), s.malformed, s.missing_key, s.untimed, s.future, s.late,
        s.jumps_forward, s.jumps_back, s.date_only, s.bytes_in, s.bytes_out, s.seconds, rate, f.algorithm, shape,
        f.bits_allocated, peak_bits(f), f.keys_inserted, f.live_keys, is_exact(f) ? "bytes_per_key" : "bits_per_key",
        per_key(f), f.memory_capped ? "true" : "false", f.cap_evictions, window, held_json(s.held), top_json(s.top));
  }
  std::string out;
  out += fmt::format("records      {}\n", s.records);
  out += fmt::format("emitted      {}\n", s.emitted);
  out += fmt::format("duplicates   {}\n", s.duplicates);
  out += fmt::format("errors       {} (malformed {}, missing key {})\n", s.errors(), s.malformed, s.missing_key);
  out += fmt::format("untimed      {}\n", s.untimed);
  out += fmt::format("future       {}\n", s.future);
  out += fmt::format("late         {}\n", s.late);
  out += fmt::format("jumps forward {}\n", s.jumps_forward);
  out += fmt::format("jumps back   {}\n", s.jumps_back);
  out += fmt::format("date only    {}\n", s.date_only);
  out += fmt::format("bytes in     {}\n", s.bytes_in);
  out += fmt::format("bytes out    {}\n", s.bytes_out);
  out += fmt::format("seconds      {:.3f} ({:.0f} records/s)\n", s.seconds, rate);
  const std::string memory =
      fmt::format("memory={:.1f} KiB peak={:.1f} KiB", static_cast<double>(f.bits_allocated) / 8192.0,
                  static_cast<double>(peak_bits(f)) / 8192.0);
  if (is_exact(f))
    out += fmt::format("filter       {} {}\n", f.algorithm, memory);
  else
    out += fmt::format("filter       {} k={} l={} slices={} {}\n", f.algorithm, f.k, f.l, f.slices, memory);
  out += fmt::format("keys         {} inserted, {} live, {:.2f} {} per key\n", f.keys_inserted, f.live_keys, per_key(f),
                     is_exact(f) ? "bytes" : "bits");
  if (f.memory_capped)
    out += fmt::format("memory cap   reached ({} early evictions; window kept: {})\n", f.cap_evictions, cap_window(f));
  else
    out += "memory cap   not reached\n";
  if (s.held.active)
    out += fmt::format("held         {} at most at once, {:.1f} KiB at most; {} written early (--max-memory)\n",
                       s.held.peak, static_cast<double>(s.held.peak_bytes) / 1024.0, s.held.early);
  return out + format_top(s.top);
}

std::string format_top(const TopReport& top) {
  if (top.counters == 0) return {};
  std::string out = fmt::format(
      "top          {} key(s) by duplicates (top counted {}, top counters {}, top bound {}: each "
      "count is at most its overestimate above the true one, no overestimate exceeds the bound)\n",
      top.keys.size(), top.added, top.counters, top.bound);
  for (const TopKey& k : top.keys)
    out += fmt::format("  {:>10} overestimate {:<6} {}{}\n", k.count, k.overestimate, k.key,
                       k.truncated ? " (truncated)" : "");
  return out;
}

}  // namespace tlbf_dedup
