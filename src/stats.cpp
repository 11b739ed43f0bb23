// Rendering of the run's counters for --stats.
//
// Invariant: the text and JSON forms carry the same fields under the same names (JSON keys
// are the text labels with spaces as underscores), so a script can switch between them.
#include "stats.hpp"

#include <fmt/format.h>

namespace tlbf_dedup {
namespace {

// ,"top":[...] and the sketch's figures for --top, nothing without it.
std::string top_json(const TopReport& top) {
  if (top.counters == 0) return {};
  std::string keys;
  for (const TopKey& k : top.keys)
    keys += fmt::format("{}{{\"key\":{},\"count\":{},\"overestimate\":{},\"truncated\":{}}}", keys.empty() ? "" : ",", k.key,
                        k.count, k.overestimate, k.truncated ? "true" : "false");
  return fmt::format(",\"top\":[{}],\"top_counted\":{},\"top_counters\":{},\"top_bound\":{}", keys, top.added, top.counters,
                     top.bound);
}

}  // namespace

std::string format_stats(const RunStats& s, StatsFormat format) {
  const tlbf::FilterStats& f = s.filter;
  double rate = s.seconds > 0 ? static_cast<double>(s.records) / s.seconds : 0;
  if (format == StatsFormat::json) {
    return fmt::format(
        "{{\"records\":{},\"emitted\":{},\"duplicates\":{},\"errors\":{},\"malformed\":{},\"missing_key\":{},"
        "\"untimed\":{},\"future\":{},\"late\":{},\"jumps_forward\":{},\"jumps_back\":{},\"date_only\":{},\"bytes_in\":{},\"bytes_out\":{},\"seconds\":{:.6f},\"records_per_second\":{:.0f},"
        "\"filter\":{{\"algorithm\":\"{}\",\"k\":{},\"l\":{},\"slices\":{},\"slice0_bits\":{},\"bits_allocated\":{},"
        "\"keys_inserted\":{},\"live_keys\":{},\"bits_per_key\":{:.2f},\"memory_capped\":{},\"cap_evictions\":{}}}{}}}\n",
        s.records, s.emitted, s.duplicates, s.errors(), s.malformed, s.missing_key, s.untimed, s.future, s.late,
        s.jumps_forward, s.jumps_back, s.date_only, s.bytes_in, s.bytes_out,
        s.seconds, rate, f.algorithm, f.k, f.l, f.slices, f.slice0_bits, f.bits_allocated, f.keys_inserted, f.live_keys,
        f.bits_per_live_key, f.memory_capped ? "true" : "false", f.cap_evictions, top_json(s.top));
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
  out += fmt::format("filter       {} k={} l={} slices={} memory={:.1f} KiB\n", f.algorithm, f.k, f.l, f.slices,
                     static_cast<double>(f.bits_allocated) / 8192.0);
  out += fmt::format("keys         {} inserted, {} live, {:.2f} bits per key\n", f.keys_inserted, f.live_keys, f.bits_per_live_key);
  out += fmt::format("memory cap   {}{}\n", f.memory_capped ? "reached" : "not reached",
                     f.cap_evictions ? fmt::format(" ({} early evictions)", f.cap_evictions) : std::string());
  return out + format_top(s.top);
}

std::string format_top(const TopReport& top) {
  if (top.counters == 0) return {};
  std::string out = fmt::format("top          {} key(s) by duplicates (top counted {}, top counters {}, top bound {}: each "
                                "count is at most its overestimate above the true one, no overestimate exceeds the bound)\n",
                                top.keys.size(), top.added, top.counters, top.bound);
  for (const TopKey& k : top.keys)
    out += fmt::format("  {:>10} overestimate {:<6} {}{}\n", k.count, k.overestimate, k.key, k.truncated ? " (truncated)" : "");
  return out;
}

}  // namespace tlbf_dedup
