// The state file: a filter, the configuration it was built from and the clock, kept across
// runs (--state) and written periodically (--checkpoint).
//
// Invariant: a state file on disk is always either absent or complete. Saving writes a
// temporary file beside the target, syncs it, renames it over the target and syncs the
// directory, so a crash at any moment leaves the old state or the new one, never a mix.
// Loading never modifies the file and refuses, with a StateFileError naming the file and
// the problem, anything that is not a complete state file of a version this program reads.
// The byte layout is in docs/state.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// One command-line option that decides what a key or a record's time is (-k, -t, ...), as
// given: its long name and its values in order (none for a flag).
struct RecordedOption {
  std::string name;
  std::vector<std::string> values;
  bool operator==(const RecordedOption& o) const { return name == o.name && values == o.values; }
};

// What the run that saved the filter was made of, beside the FilterConfig: the keys' hash
// seed and the key and time options it was given. The store keeps them without knowing
// what they mean.
struct RunRecord {
  std::uint64_t hash_seed = 0;  // format 1 files had none: their keys were hashed with 0
  // The key and time options given (empty: none, i.e. whole-record keys and the wall
  // clock); nullopt: unknown (a format 1 file).
  std::optional<std::vector<RecordedOption>> key_time_options;
};

struct SavedState {
  std::unique_ptr<tlbf::WindowFilter> filter;
  tlbf::FilterConfig config;
  tlbf::Time clock = 0;
  RunRecord run;
  // The records a --count or --keep last run held, in the holder's own form (format 3 on);
  // nullopt: a state of a run that held none.
  std::optional<std::string> held;
};

// The message names the file and the problem.
class StateFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The format version this program writes; it reads every version up to this one. Version 3
// added the held records of a --count or --keep last run; version 4 has version 3's fields,
// the held records behind a presence byte, and says that the filter inside may be in a format
// that older programs do not know (the TLBF's bit-sliced eras), so that they refuse it as newer.
inline constexpr std::uint32_t kStateFormatVersion = 4;

// The state in the file `path` leads to (resolve_state_path()); nullopt when there is none.
// Reads no more bytes than the file's header declares. Throws StateFileError on any other
// problem, naming `path`.
std::optional<SavedState> load_state_file(const std::string& path);

// --state-reset: the file `path` leads to, when there is one, is a state file (it begins with
// the format's magic) or empty, so that a reset replaces no other file. Throws StateFileError
// naming `path` otherwise.
void check_state_reset(const std::string& path);

// Atomic and durable (see above), into the file `path` leads to, so a symbolic link to the
// state stays one; throws StateFileError. `held`: the held records' bytes of a run that holds
// them, or nullopt.
void save_state_file(const std::string& path, const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg,
                     tlbf::Time clock, const RunRecord& run = {},
                     const std::optional<std::string_view>& held = std::nullopt);

// The complete file contents save_state_file() writes (format kStateFormatVersion; a run
// whose key_time_options are unknown is written as one given none).
std::string encode_state(const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg, tlbf::Time clock,
                         const RunRecord& run = {}, const std::optional<std::string_view>& held = std::nullopt);

// Parses complete file contents; `name` is the file name used in messages.
SavedState load_state_bytes(std::string_view bytes, const std::string& name);

// Wraps an arbitrary payload in a valid header (of format `version`) and checksum, so tests
// and the fuzzer can reach the payload parser with bytes no correct writer would produce.
std::string frame_state_payload(std::string_view payload, std::uint32_t version = kStateFormatVersion);

}  // namespace tlbf_dedup
