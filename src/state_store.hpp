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

#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

struct SavedState {
  std::unique_ptr<tlbf::WindowFilter> filter;
  tlbf::FilterConfig config;
  tlbf::Time clock = 0;
};

// The message names the file and the problem.
class StateFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The format version this program writes; it reads every version up to this one.
inline constexpr std::uint32_t kStateFormatVersion = 1;

// nullopt when `path` does not exist; throws StateFileError on any other problem.
std::optional<SavedState> load_state_file(const std::string& path);

// Atomic and durable (see above); throws StateFileError.
void save_state_file(const std::string& path, const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg,
                     tlbf::Time clock);

// The complete file contents save_state_file() writes.
std::string encode_state(const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg, tlbf::Time clock);

// Parses complete file contents; `name` is the file name used in messages.
SavedState load_state_bytes(std::string_view bytes, const std::string& name);

// Wraps an arbitrary payload in a valid header and checksum, so tests and the fuzzer can
// reach the payload parser with bytes no correct writer would produce.
std::string frame_state_payload(std::string_view payload);

}  // namespace tlbf_dedup
