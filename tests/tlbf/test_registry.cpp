// The filter registry (include/tlbf/registry.hpp): the library's algorithms by name and tag,
// and an algorithm added from outside it, a toy defined here and nowhere else, which becomes
// selectable by -a, is built, decides through the program's local decider and is saved and
// loaded through the state file with one class and one registry entry.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/options.hpp"
#include "decide/decider.hpp"
#include "state/state_store.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/registry.hpp"
#include "tlbf/visit.hpp"

namespace {

using tlbf::Time;

// The toy: every key's last insert time, kept for ever; a key is present while its last
// insert is younger than the span. Its saved form: i64 span, u64 count, then per key u64 lo,
// u64 hi, i64 time.
class ToyWindow final : public tlbf::WindowFilter {
 public:
  explicit ToyWindow(const tlbf::FilterConfig& cfg) : span_(cfg.span) {}
  static std::unique_ptr<ToyWindow> load(tlbf::ByteReader& in) {
    tlbf::FilterConfig cfg;
    cfg.span = in.i64();
    auto f = std::make_unique<ToyWindow>(cfg);
    for (std::uint64_t n = in.u64(); n > 0; --n) {
      const std::uint64_t lo = in.u64(), hi = in.u64();
      f->last_[{lo, hi}] = in.i64();
    }
    return f;
  }

  bool may_contain(tlbf::KeyHash h, Time now) const override {
    const auto it = last_.find({h.lo, h.hi});
    return it != last_.end() && now - it->second < span_;
  }
  void insert(tlbf::KeyHash h, Time now) override { last_[{h.lo, h.hi}] = now; }
  tlbf::FilterStats stats(Time) const override {
    tlbf::FilterStats s;
    s.algorithm = "toy";
    s.keys_inserted = last_.size();
    return s;
  }
  void save(tlbf::ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(kTag));
    out.i64(span_);
    out.u64(last_.size());
    for (const auto& [key, time] : last_) {
      out.u64(key.first);
      out.u64(key.second);
      out.i64(time);
    }
  }

  static constexpr auto kTag = static_cast<tlbf::Algorithm>(200);

 private:
  tlbf::Duration span_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, Time> last_;
};

// The toy's own check of its parameters: it is exact, and takes no error rate.
void check_toy(const tlbf::FilterConfig& cfg) {
  if (cfg.error_rate != tlbf::FilterConfig{}.error_rate)
    throw tlbf::invalid_parameter("error_rate", tlbf::parameter_value(cfg.error_rate),
                                  "the toy is exact and takes no error rate");
}

// The toy's one registry entry: a time window only.
const tlbf::FilterEntry kToyEntry{
    "toy", ToyWindow::kTag, true, false, tlbf::make_as<ToyWindow>, tlbf::load_as<ToyWindow>, nullptr, check_toy};

// Registered for one test case only, so other tests see the library's list.
struct ToyRegistered {
  ToyRegistered() { tlbf::register_filter(kToyEntry); }
  ~ToyRegistered() { tlbf::unregister_filter(ToyWindow::kTag); }
};

tlbf_dedup::Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tlbf-dedup");
  auto o = tlbf_dedup::parse_options(static_cast<int>(args.size()), args.data());
  REQUIRE(o);
  return *o;
}

std::string usage_error(std::vector<const char*> args) {
  args.insert(args.begin(), "tlbf-dedup");
  try {
    tlbf_dedup::parse_options(static_cast<int>(args.size()), args.data());
  } catch (const tlbf_dedup::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// Decides `keys` (one a millisecond from `start`) through the program's local decider: true
// for a new key.
std::vector<bool> decide(tlbf::WindowFilter& f, const std::vector<std::string>& keys, Time start) {
  auto decider = tlbf_dedup::make_local_decider(f, tlbf_dedup::Refresh::no, 7);
  std::vector<tlbf::KeyHash> hashes;
  std::vector<Time> times;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    hashes.push_back(decider->hasher()(keys[i]));
    times.push_back(start + static_cast<Time>(i) * tlbf::kMillisecond);
  }
  const std::vector<std::string_view> bytes(keys.begin(), keys.end());
  tlbf_dedup::Answers answers;
  REQUIRE(decider->submit({hashes.data(), times.data(), bytes.data(), keys.size()}, answers) == keys.size());
  decider->flush(answers);
  std::vector<bool> fresh;
  while (!answers.empty()) fresh.push_back(!answers.take());
  return fresh;
}

}  // namespace

TEST_SUITE("registry") {
  TEST_CASE("the library's algorithms by name and by tag, in the program's order") {
    std::vector<std::string> names;
    for (const tlbf::FilterEntry& e : tlbf::filter_registry()) {
      names.emplace_back(e.name);
      CHECK(tlbf::find_filter(e.tag) == &e);
      CHECK(tlbf::parse_algorithm(e.name) == e.tag);
      CHECK(tlbf::algorithm_name(e.tag) == e.name);
    }
    CHECK(names == std::vector<std::string>{"tlbf", "apbf", "gebf", "exact", "tagged"});
    CHECK(tlbf::algorithm_names() == "tlbf, apbf, gebf, exact or tagged");
    CHECK(tlbf::algorithm_names(false, true) == "apbf, gebf or exact");
    CHECK(!tlbf::parse_algorithm("toy"));
    CHECK(tlbf::algorithm_name(ToyWindow::kTag) == "unknown");
  }

  TEST_CASE("a name or a tag registered twice is refused") {
    const ToyRegistered toy;
    tlbf::FilterEntry again = kToyEntry;
    CHECK_THROWS_AS(tlbf::register_filter(again), tlbf::invalid_parameter);
    again.name = "toy2";
    CHECK_THROWS_AS(tlbf::register_filter(again), tlbf::invalid_parameter);
    again.tag = static_cast<tlbf::Algorithm>(201);
    again.make = nullptr;
    CHECK_THROWS_AS(tlbf::register_filter(again), tlbf::invalid_parameter);
    CHECK(!tlbf::find_filter("toy2"));
  }

  TEST_CASE("a toy algorithm, one class and one entry: chosen by -a, built, decided, saved and loaded") {
    CHECK(usage_error({"-a", "toy"}).find("expected tlbf, apbf, gebf, exact or tagged") != std::string::npos);
    const ToyRegistered toy;

    // -a toy, through the program's option parsing, and the window it takes.
    const tlbf_dedup::Options o = parse({"-a", "toy", "-w", "10s"});
    REQUIRE(o.filter.algorithm == ToyWindow::kTag);
    CHECK(usage_error({"-a", "toy", "-n", "10"}).find("needs a time window; use apbf, gebf or exact") !=
          std::string::npos);
    CHECK(usage_error({"-a", "bogus"}).find("expected tlbf, apbf, gebf, exact, tagged or toy") != std::string::npos);
    // Its own check of its parameters, once they are all read, named as options.
    CHECK(usage_error({"-a", "toy", "-e", "0.01"}).find("-e/--error-rate '0.01': the toy is exact") !=
          std::string::npos);

    // Built by the factory, decided by the program's local decider (visited as WindowFilter&).
    std::unique_ptr<tlbf::WindowFilter> filter = tlbf::make_filter(o.filter);
    REQUIRE(dynamic_cast<ToyWindow*>(filter.get()) != nullptr);
    int visited_as_interface = 0;
    tlbf::visit_filter(*filter, [&](auto& f) {
      visited_as_interface += std::is_same<std::decay_t<decltype(f)>, tlbf::WindowFilter>::value;
    });
    CHECK(visited_as_interface == 1);
    CHECK(decide(*filter, {"a", "b", "a"}, 0) == std::vector<bool>{true, true, false});

    // Saved in a state file and loaded back: the same algorithm, the same answers.
    const std::string bytes = tlbf_dedup::encode_state(*filter, o.filter, 5 * tlbf::kSecond);
    tlbf_dedup::SavedState loaded = tlbf_dedup::load_state_bytes(bytes, "toy.state");
    CHECK(loaded.config.algorithm == ToyWindow::kTag);
    REQUIRE(dynamic_cast<ToyWindow*>(loaded.filter.get()) != nullptr);
    CHECK(tlbf_dedup::encode_state(*loaded.filter, loaded.config, loaded.clock) == bytes);
    CHECK(decide(*loaded.filter, {"a", "c"}, 5 * tlbf::kSecond) == std::vector<bool>{false, true});
    // Past the window, the toy forgets: its own answers, not another filter's.
    CHECK(decide(*loaded.filter, {"b"}, 30 * tlbf::kSecond) == std::vector<bool>{true});
  }

  TEST_CASE("a state of an algorithm no longer registered is refused") {
    std::string bytes;
    {
      const ToyRegistered toy;
      tlbf::FilterConfig cfg;
      cfg.algorithm = ToyWindow::kTag;
      cfg.span = tlbf::kSecond;
      bytes = tlbf_dedup::encode_state(*tlbf::make_filter(cfg), cfg, 0);
    }
    CHECK_THROWS_AS(tlbf_dedup::load_state_bytes(bytes, "toy.state"), tlbf_dedup::StateFileError);
  }
}
