// The decider over a filter in this process (decider.hpp).
//
// LocalDecider<F> calls the library's batch entry points on F, the filter's own final class,
// chosen once by tlbf::visit_filter: the per-key verbs inline into the batch loop (the
// TLBF's query and insert share the key's probe hashes), and a class with its own member
// insert_if_absent_batch is called through it. A filter from outside the library arrives as
// tlbf::WindowFilter and is called through the virtual table. Every F makes the same
// decisions as the one-key verbs would; a batch stops right after the key whose decision
// made the memory cap bind, as the entry points promise.
#include <algorithm>
#include <type_traits>

#include "decide/decider.hpp"
#include "tlbf/visit.hpp"

namespace tlbf_dedup {
namespace {

template <class F>
class LocalDecider final : public Decider {
 public:
  LocalDecider(F& filter, Refresh refresh, std::uint64_t hash_seed)
      : Decider(hash_seed, false), filter_(filter), refresh_(refresh) {}

  std::size_t submit(const KeyBatch& keys, Answers& answers) override {
    bool* out = answers.reserve(keys.size);
    std::size_t taken;
    if (refresh_ == Refresh::yes) {
      taken = tlbf::contains_then_insert_batch(filter_, keys.hashes, keys.times, keys.size, out);
    } else {
      taken = tlbf::insert_if_absent_batch(filter_, keys.hashes, keys.times, keys.size, out);
      for (std::size_t i = 0; i < taken; ++i) out[i] = !out[i];  // fresh → duplicate
    }
    answers.commit(taken);
    return taken;
  }
  void flush(Answers&) override {}
  std::uint64_t cap_binds() const override { return filter_.cap_binds(); }
  tlbf::FilterStats stats(tlbf::Time now) override { return filter_.stats(now); }

 private:
  F& filter_;
  Refresh refresh_;
};

class UnaskedDecider final : public Decider {
 public:
  explicit UnaskedDecider(std::uint64_t hash_seed) : Decider(hash_seed, false) {}
  std::size_t submit(const KeyBatch& keys, Answers& answers) override {
    std::fill_n(answers.reserve(keys.size), keys.size, false);
    answers.commit(keys.size);
    return keys.size;
  }
  void flush(Answers&) override {}
  std::uint64_t cap_binds() const override { return 0; }
  tlbf::FilterStats stats(tlbf::Time) override { return {}; }
};

}  // namespace

std::unique_ptr<Decider> make_unasked_decider(std::uint64_t hash_seed) {
  return std::make_unique<UnaskedDecider>(hash_seed);
}

std::unique_ptr<Decider> make_local_decider(tlbf::WindowFilter& filter, Refresh refresh, std::uint64_t hash_seed) {
  std::unique_ptr<Decider> decider;
  tlbf::visit_filter(filter, [&](auto& concrete) {
    using F = std::remove_reference_t<decltype(concrete)>;
    decider = std::make_unique<LocalDecider<F>>(concrete, refresh, hash_seed);
  });
  return decider;
}

}  // namespace tlbf_dedup
