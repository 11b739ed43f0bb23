// Rendering of the run's counters for --stats.
//
// Invariants: the text and JSON forms carry the same facts (JSON keys are the text labels
// with spaces as underscores where a line holds one value), so a script can switch between
// them; the text's values start in one column. Memory is the filter's peak, the most it held
// during the run, beside its final size. Fields that mean nothing for a filter or a run are
// left out rather than printed as zero: the exact filter has no k, l or slices and reports
// bytes per key; memory per live key only where the keys, not the sizing (-c, -n), account
// for the memory. When a memory cap bound, the window the filter still kept (the shortest at
// any bind in this run, as warned) is named: a time for a time window, a number of keys for a
// count window.
#include "report/stats.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/duration.hpp"

namespace tlbf_dedup {
namespace {

bool is_exact(const tlbf::FilterStats& f) { return f.algorithm == "exact"; }
bool is_tagged(const tlbf::FilterStats& f) { return f.algorithm == "tagged"; }
std::uint64_t peak_bits(const tlbf::FilterStats& f) { return std::max(f.peak_bits_allocated, f.bits_allocated); }
double per_key(const tlbf::FilterStats& f) { return is_exact(f) ? f.bits_per_live_key / 8.0 : f.bits_per_live_key; }

// A cap that bound made the filter drop keys inside the window (else it only kept the filter
// smaller than asked for, and the whole window holds).
bool cap_lost_keys(const tlbf::FilterStats& f) { return f.memory_capped && f.cap_evictions > 0; }

// Memory per live key says something of the keys when they fill at least half of what the
// filter was sized for, or the cap holds the memory to them; below, it mostly says what -c
// reserved.
bool per_key_means_something(const RunStats& s) {
  const tlbf::FilterStats& f = s.filter;
  if (f.live_keys == 0) return false;
  return s.sizing.keys == 0 || cap_lost_keys(f) || f.live_keys >= s.sizing.keys / 2;
}

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

std::string filter_json(const RunStats& s) {
  const tlbf::FilterStats& f = s.filter;
  std::string shape = is_exact(f) ? std::string()
                                  : fmt::format("\"k\":{},\"l\":{},\"slices\":{},\"slice0_bits\":{},", f.k, f.l,
                                                f.slices, f.slice0_bits);
  if (is_tagged(f))
    shape = fmt::format("\"slots\":{},\"load\":{:.3f},\"tables\":{},\"slack_seconds\":{:.9f},", f.slots, f.load,
                        f.slices, static_cast<double>(f.slack) / 1e9);
  // What the filter was sized for, under the name of TLBF.INFO (docs/redis.md) or of -n.
  std::string sizing;
  if (s.sizing.keys > 0)
    sizing = fmt::format(",\"{}\":{}", s.sizing.count_window ? "window_count" : "capacity", s.sizing.keys);
  if (per_key_means_something(s))
    sizing += fmt::format(",\"{}\":{:.2f}", is_exact(f) ? "bytes_per_key" : "bits_per_key", per_key(f));
  std::string window;
  if (cap_lost_keys(f)) {
    if (f.effective_count > 0)
      window = fmt::format(",\"effective_window_keys\":{}", f.effective_count);
    else
      window = fmt::format(",\"effective_window_ns\":{}", f.effective_span);
  }
  return fmt::format(
      "\"filter\":{{\"algorithm\":\"{}\",{}\"bits_allocated\":{},\"peak_bits_allocated\":{},\"keys_inserted\":{},"
      "\"live_keys\":{}{},\"memory_capped\":{},\"cap_evictions\":{}{}}}",
      f.algorithm, shape, f.bits_allocated, peak_bits(f), f.keys_inserted, f.live_keys, sizing,
      f.memory_capped ? "true" : "false", f.cap_evictions, window);
}

// --lateness, when given: the member "lateness" and a comma.
std::string lateness_json(const RunStats& s) {
  if (s.lateness == 0) return "";
  return fmt::format("\"lateness\":{{\"ns\":{},\"held_most\":{},\"held_most_bytes\":{},\"released_early\":{}}},",
                     s.lateness, s.held_most, s.held_most_bytes, s.released_early);
}

std::string stats_json(const RunStats& s, double rate) {
  return fmt::format(
      "{{\"records\":{},\"emitted\":{},\"duplicates\":{},{}\"errors\":{},\"malformed\":{},\"missing_"
      "key\":{},"
      "\"untimed\":{},\"future\":{},\"late\":{},\"max_lateness_ns\":{},{}\"jumps_forward\":{},\"jumps_back\":{},\"date_"
      "only\":{},"
      "\"bytes_in\":{},\"bytes_out\":{},\"seconds\":{:.6f},\"records_per_second\":{:.0f},{}{}{}}}\n",
      s.records, s.emitted, s.duplicates, s.selecting ? fmt::format("\"unmatched\":{},", s.unmatched) : "", s.errors(),
      s.malformed, s.missing_key, s.untimed, s.future, s.late, s.max_lateness_ns, lateness_json(s), s.jumps_forward,
      s.jumps_back, s.date_only, s.bytes_in, s.bytes_out, s.seconds, rate, filter_json(s), held_json(s.held),
      top_json(s.top));
}

// The text form's line: the label, then its value from the same column.
void line(std::string& out, const char* label, const std::string& value) {
  out += fmt::format("{:<14}{}\n", label, value);
}

// What the keys line says after the counts: memory per live key, or what the memory is for.
std::string keys_text(const RunStats& s) {
  const tlbf::FilterStats& f = s.filter;
  std::string out = fmt::format("{} inserted, {} live", f.keys_inserted, f.live_keys);
  if (per_key_means_something(s))
    return out + fmt::format(", {:.2f} {} per live key", per_key(f), is_exact(f) ? "bytes" : "bits");
  if (s.sizing.keys == 0) return out;
  if (s.sizing.count_window)
    return out + fmt::format(" (the memory is sized for a window of {} keys, -n)", s.sizing.keys);
  return out + fmt::format(" (the memory is sized for {} keys per window, -c)", s.sizing.keys);
}

std::string cap_text(const RunStats& s) {
  const tlbf::FilterStats& f = s.filter;
  if (!f.memory_capped) return "not reached";
  if (!cap_lost_keys(f)) return "reached, no key lost: the whole window kept, in less memory than -c asked for";
  return fmt::format("reached ({} early evictions; window kept: {}{})", f.cap_evictions, cap_window(f),
                     s.cap_binds > 0 ? " at its shortest" : "");
}

std::string stats_text(const RunStats& s, double rate) {
  const tlbf::FilterStats& f = s.filter;
  std::string out;
  line(out, "records", std::to_string(s.records));
  line(out, "emitted", std::to_string(s.emitted));
  line(out, "duplicates", std::to_string(s.duplicates));
  if (s.selecting) line(out, "passed", fmt::format("{} (not matched by --where)", s.unmatched));
  line(out, "errors",
       s.errors() == 0 ? "0"
                       : fmt::format("{} (malformed {}, missing key {}): {}", s.errors(), s.malformed, s.missing_key,
                                     s.errors_went));
  line(out, "untimed", std::to_string(s.untimed));
  line(out, "future", std::to_string(s.future));
  line(out, "late", s.late ? fmt::format("{} (by up to {})", s.late, readable_duration(s.max_lateness_ns)) : "0");
  if (s.lateness > 0)
    line(out, "lateness",
         fmt::format("{}: held up to {} records ({} bytes){}",
                     readable_duration(static_cast<std::uint64_t>(s.lateness)), s.held_most, s.held_most_bytes,
                     s.released_early ? fmt::format(", {} let go early for memory", s.released_early) : ""));
  line(out, "jumps forward", std::to_string(s.jumps_forward));
  line(out, "jumps back", std::to_string(s.jumps_back));
  line(out, "date only", std::to_string(s.date_only));
  line(out, "bytes in", std::to_string(s.bytes_in));
  line(out, "bytes out", std::to_string(s.bytes_out));
  line(out, "seconds", fmt::format("{:.3f} ({:.0f} records/s)", s.seconds, rate));
  const std::string memory =
      fmt::format("memory={:.1f} KiB peak={:.1f} KiB", static_cast<double>(f.bits_allocated) / 8192.0,
                  static_cast<double>(peak_bits(f)) / 8192.0);
  if (is_exact(f))
    line(out, "filter", fmt::format("{} {}", f.algorithm, memory));
  else if (is_tagged(f))
    line(out, "filter",
         fmt::format("{} slots={} load={:.2f} tables={} slack={:.3f}s {}", f.algorithm, f.slots, f.load, f.slices,
                     static_cast<double>(f.slack) / 1e9, memory));
  else
    line(out, "filter", fmt::format("{} k={} l={} slices={} {}", f.algorithm, f.k, f.l, f.slices, memory));
  line(out, "keys", keys_text(s));
  line(out, "memory cap", cap_text(s));
  if (s.held.active)
    line(out, "held",
         fmt::format("{} at most at once, {:.1f} KiB at most; {} written early (--max-memory)", s.held.peak,
                     static_cast<double>(s.held.peak_bytes) / 1024.0, s.held.early));
  return out + format_top(s.top);
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

bool narrower_window(const tlbf::FilterStats& a, const tlbf::FilterStats& b) {
  if (a.effective_count > 0 || b.effective_count > 0) return a.effective_count < b.effective_count;
  return a.effective_span < b.effective_span;
}

std::string format_stats(const RunStats& s, StatsFormat format) {
  const double rate = s.seconds > 0 ? static_cast<double>(s.records) / s.seconds : 0;
  return format == StatsFormat::json ? stats_json(s, rate) : stats_text(s, rate);
}

std::string format_top(const TopReport& top) {
  if (top.counters == 0) return {};
  std::string out = fmt::format(
      "top           {} key(s) with the most duplicates, of {} duplicates counted in {} counters (a count is at "
      "most its overestimate above the true one; every overestimate at most {})\n",
      top.keys.size(), top.added, top.counters, top.bound);
  for (const TopKey& k : top.keys)
    out += fmt::format("  {:>10} overestimate {:<6} {}{}\n", k.count, k.overestimate, k.key,
                       k.truncated ? " (truncated)" : "");
  return out;
}

}  // namespace tlbf_dedup
