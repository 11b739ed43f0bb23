// SPDX-License-Identifier: MIT
// The filter registry: every algorithm a program can build, found by its name or by the tag its
// saved form starts with. An entry says all that the world outside the class needs to know of
// an algorithm: its name (-a NAME), its tag, the windows it takes and any further check of its
// parameters, how to build one, how to load one and (optionally) how much a filled window
// takes. make_filter(), load_filter(), the program's -a and its state file go through it, so
// adding an algorithm is its class plus one entry: in builtin_filters() for the library's own,
// or register_filter() for one defined elsewhere (a test's, a program's).
//
// Names and tags are unique. The registry is read by any thread; register_filter() and
// unregister_filter() are for a program's start (or a test) before filters are made.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/apbf.hpp"
#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/exact.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/gebf.hpp"
#include "tlbf/serialize.hpp"
#include "tlbf/tagged.hpp"
#include "tlbf/time_limited.hpp"
#include "tlbf/types.hpp"

namespace tlbf {

struct FilterEntry {
  std::string_view name;  // what -a takes, and what the entry is listed by
  Algorithm tag;          // the saved form's first byte; a value of its own per entry
  bool time_window;       // takes a time window (span > 0)
  bool count_window;      // takes a count window (window_count > 0)
  // Builds a filter for a configuration whose window it takes (checked before it is called);
  // throws invalid_parameter for a parameter it refuses.
  std::unique_ptr<WindowFilter> (*make)(const FilterConfig&);
  // Loads the payload its filters' save() wrote after the tag byte; throws state_error.
  std::unique_ptr<WindowFilter> (*load)(ByteReader&);
  // Bits of data a filled window takes (window_bytes_for()), nothing allocated: nullopt for a
  // configuration whose size does not follow the rate it measures, null for an algorithm
  // whose size never does.
  std::optional<std::uint64_t> (*window_bits)(const FilterConfig&) = nullptr;
  // The algorithm's own check of the parameters it uses (beyond the window, and beyond what
  // its constructor checks), run by check_parameters(): the program's once every filter
  // option is read, make_filter()'s before it builds. Throws invalid_parameter naming the
  // field. May be null.
  void (*check)(const FilterConfig&) = nullptr;

  bool takes(const FilterConfig& cfg) const { return cfg.is_time_window() ? time_window : count_window; }
};

// An entry's make and load for a class F with a constructor from FilterConfig and a static
// load(ByteReader&).
template <class F>
std::unique_ptr<WindowFilter> make_as(const FilterConfig& cfg) {
  return std::make_unique<F>(cfg);
}
template <class F>
std::unique_ptr<WindowFilter> load_as(ByteReader& in) {
  return F::load(in);
}

// The library's algorithms, in the order the program lists them.
inline std::vector<FilterEntry> builtin_filters() {
  return {
      {"tlbf", Algorithm::tlbf, true, false,
       [](const FilterConfig& c) -> std::unique_ptr<WindowFilter> { return TimeLimitedFilter::make(c); },
       load_as<TimeLimitedFilter>,
       [](const FilterConfig& c) -> std::optional<std::uint64_t> { return TimeLimitedFilter::window_bits_for(c); }},
      {"apbf", Algorithm::apbf, false, true, make_as<AgePartitionedFilter>, load_as<AgePartitionedFilter>},
      {"gebf", Algorithm::gebf, true, true,
       [](const FilterConfig& c) -> std::unique_ptr<WindowFilter> {
         if (c.is_time_window()) return std::make_unique<TimedEpochFilter>(c);
         return GuardedEpochFilter::make(c);
       },
       load_gebf,
       [](const FilterConfig& c) -> std::optional<std::uint64_t> {
         if (!c.is_time_window()) return std::nullopt;
         return TimedEpochFilter::window_bits_for(c);
       }},
      {"exact", Algorithm::exact, true, true, make_as<ExactWindow>, load_as<ExactWindow>},
      {"tagged", Algorithm::tagged, true, false, make_as<TaggedFilter>, load_as<TaggedFilter>,
       [](const FilterConfig& c) -> std::optional<std::uint64_t> { return TaggedFilter::window_bits_for(c); }},
  };
}

namespace detail {
inline std::vector<FilterEntry>& filter_entries() {
  static std::vector<FilterEntry> entries = builtin_filters();
  return entries;
}
}  // namespace detail

inline const std::vector<FilterEntry>& filter_registry() { return detail::filter_entries(); }

inline const FilterEntry* find_filter(std::string_view name) {
  for (const FilterEntry& e : filter_registry())
    if (e.name == name) return &e;
  return nullptr;
}
inline const FilterEntry* find_filter(Algorithm tag) {
  for (const FilterEntry& e : filter_registry())
    if (e.tag == tag) return &e;
  return nullptr;
}

// Adds an algorithm; throws invalid_parameter when its name or tag is taken, or it lacks a
// name, a window, a factory or a loader.
inline void register_filter(const FilterEntry& entry) {
  const std::string name(entry.name);
  if (entry.name.empty() || !entry.make || !entry.load || !(entry.time_window || entry.count_window))
    throw invalid_parameter("algorithm", name, "a registry entry needs a name, a window, make and load");
  if (find_filter(entry.name)) throw invalid_parameter("algorithm", name, "is registered already");
  if (find_filter(entry.tag))
    throw invalid_parameter("algorithm", name,
                            "takes the tag of " + std::string(find_filter(entry.tag)->name) + ", which is registered");
  detail::filter_entries().push_back(entry);
}
// Removes the algorithm of this tag, if any.
inline void unregister_filter(Algorithm tag) {
  auto& v = detail::filter_entries();
  v.erase(std::remove_if(v.begin(), v.end(), [tag](const FilterEntry& e) { return e.tag == tag; }), v.end());
}

inline std::string_view algorithm_name(Algorithm a) {
  const FilterEntry* e = find_filter(a);
  return e ? e->name : "unknown";
}
inline std::optional<Algorithm> parse_algorithm(std::string_view name) {
  const FilterEntry* e = find_filter(name);
  return e ? std::optional<Algorithm>(e->tag) : std::nullopt;
}

// The names of the algorithms that take a time window (`time`), a count window (`count`) or
// either (both), as a list for a message: "tlbf, apbf, gebf or exact".
inline std::string algorithm_names(bool time = true, bool count = true) {
  std::vector<std::string_view> names;
  for (const FilterEntry& e : filter_registry())
    if ((time && e.time_window) || (count && e.count_window)) names.push_back(e.name);
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += i + 1 == names.size() ? " or " : ", ";
    list += names[i];
  }
  return list;
}

// The entry of cfg.algorithm when it takes cfg's window; throws invalid_parameter naming
// "algorithm" otherwise (an unknown tag, or tlbf with a count window).
inline const FilterEntry& check_algorithm(const FilterConfig& cfg) {
  const FilterEntry* e = find_filter(cfg.algorithm);
  if (!e)
    throw invalid_parameter("algorithm", parameter_value(std::uint32_t{static_cast<std::uint8_t>(cfg.algorithm)}),
                            "unknown algorithm");
  if (!e->takes(cfg)) {
    const bool time = cfg.is_time_window();
    throw invalid_parameter("algorithm", std::string(e->name),
                            std::string(time ? "needs a count window; use " : "needs a time window; use ") +
                                algorithm_names(time, !time) + (time ? " for a time window" : " for a count window"));
  }
  return *e;
}

// check_algorithm(), then the entry's own check of its parameters.
inline const FilterEntry& check_parameters(const FilterConfig& cfg) {
  const FilterEntry& e = check_algorithm(cfg);
  if (e.check) e.check(cfg);
  return e;
}

}  // namespace tlbf
