// Fuzzes the state-file loader (src/state/state_store.cpp) with whole files and, behind a valid
// header and checksum, with raw payloads, so the mutations reach the filters' own loaders
// instead of dying at the checksum.
//
// Input: one mode byte, then the data. An even mode byte feeds the data as a whole file; an
// odd one wraps it with frame_state_payload() first.
// Invariants checked: the loader either returns a filter or throws StateFileError (nothing
// else escapes, nothing crashes); what it returns encodes to a file that loads again to the
// same bytes, the same clock and the same answers; one of at most 32 MiB (a TLBF's slices
// at most 256 KiB) survives inserts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "state/state_store.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_state: invariant broken: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string framed;
  if (data[0] & 1) {
    framed = tlbf_dedup::frame_state_payload(rest);
    rest = framed;
  }
  tlbf_dedup::SavedState state;
  try {
    state = tlbf_dedup::load_state_bytes(rest, "fuzz-input");
  } catch (const tlbf_dedup::StateFileError&) {
    return 0;
  }
  require(state.filter != nullptr, "a successful load returns a filter");
  const std::string again = tlbf_dedup::encode_state(*state.filter, state.config, state.clock);
  tlbf_dedup::SavedState reloaded;
  try {
    reloaded = tlbf_dedup::load_state_bytes(again, "re-encoded");
  } catch (const tlbf_dedup::StateFileError& e) {
    std::fprintf(stderr, "fuzz_state: a loaded state does not load after saving: %s\n", e.what());
    std::abort();
  }
  require(reloaded.clock == state.clock, "the clock survives a round trip");
  require(tlbf_dedup::encode_state(*reloaded.filter, reloaded.config, reloaded.clock) == again,
          "saving a reloaded state gives the same bytes");
  const tlbf::FilterStats stats = state.filter->stats(state.clock);
  for (int i = 0; i < 32; ++i) {
    tlbf::KeyHash h = tlbf::hash_key(&i, sizeof i);
    require(state.filter->may_contain(h, state.clock) == reloaded.filter->may_contain(h, reloaded.clock),
            "a reloaded filter answers as the loaded one");
  }
  // The loaded filter must also survive use, not only queries. Not a filter of more than
  // 32 MiB, or a TLBF that may make slices over 256 KiB: each insert may end a generation (a
  // window of a few ticks), a pass or two over the newest era's cells (aging, folding), and a
  // file's generation counts may size the next slices for any rate within its cap. That is
  // the stream's cost, not a bug, and too slow for the fuzzer's timeout at that size.
  // (The clock is any int64 a file holds; step it without overflowing.)
  const auto* tlbf_filter = dynamic_cast<const tlbf::TimeLimitedFilter*>(state.filter.get());
  if (stats.bits_allocated / 8 > (std::uint64_t{32} << 20) ||
      (tlbf_filter != nullptr && tlbf_filter->max_slice_bits() / 8 > (std::uint64_t{256} << 10)))
    return 0;
  for (int i = 0; i < 8; ++i) {
    const tlbf::Time now = state.clock > INT64_MAX - 8 ? state.clock : state.clock + i;
    state.filter->insert(tlbf::hash_key(&i, sizeof i), now);
  }
  return 0;
}
