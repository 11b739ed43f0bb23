// The count-window age-partitioned Bloom filter (include/tlbf/apbf.hpp): the run query and
// the jump-back query (for format-1 slices), the sizing that keeps the last window_count
// inserts, forgetting within one generation of the window, the memory cap, full clearing of
// recycled slices, parameter checks, saved state (including format 1), and the bit-sliced
// layout decision for decision against a slice-major reference, whose saved form it must write
// byte for byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <random>

#include "filter_checks.hpp"
#include "tlbf/apbf.hpp"
#include "tlbf/detail/age_partitioned.hpp"
#include "tlbf/serialize.hpp"

namespace {

using filter_checks::key;
constexpr auto kTag = static_cast<std::uint8_t>(tlbf::Algorithm::apbf);

using filter_checks::count_config;

tlbf::FilterConfig count_config(std::uint64_t window, std::uint32_t k, std::uint32_t l) {
  tlbf::FilterConfig cfg = count_config(window, 0.01);
  cfg.k = k;
  cfg.l = l;
  return cfg;
}

// A straightforward slice-major APBF: the layout the library kept before its slices were
// bit-sliced. Slice s of the ring is a word array of its own, position 0 is the slice at
// `head`, and a query tries every accepted run probe by probe. Given a library filter's sizing
// (k, l, slice bits m, generation g) it decides as that filter must, and writes the format-2
// saved form field by field from the description at the top of apbf.hpp, so the library's
// save() can be compared with it byte for byte.
class SliceMajorReference {
 public:
  SliceMajorReference(const tlbf::AgePartitionedFilter& f, std::uint64_t window)
      : k_(f.k()),
        l_(f.l()),
        window_(window),
        bits_(f.slice(0).bits),
        generation_(f.generation()),
        slices_(f.slices(), std::vector<std::uint64_t>(bits_ / 64)),
        last_(f.slices()) {}

  bool may_contain(tlbf::KeyHash h) const {
    std::vector<std::uint64_t> x(k_);
    tlbf::detail::run_probes(h, k_, x.data());
    for (std::uint32_t j = 0; j <= l_ && accepted(j); ++j) {
      bool all = true;
      for (std::uint32_t p = 0; p < k_ && all; ++p)
        all = tlbf::detail::test_bit(slices_[physical(j + p)].data(), tlbf::reduce(x[p], bits_));
      if (all) return true;
    }
    return false;
  }
  bool insert_if_absent(tlbf::KeyHash h) {
    if (may_contain(h)) return false;
    if (gen_count_ == generation_) shift();
    std::vector<std::uint64_t> x(k_);
    tlbf::detail::run_probes(h, k_, x.data());
    for (std::uint32_t p = 0; p < k_; ++p)
      tlbf::detail::set_bit(slices_[physical(p)].data(), tlbf::reduce(x[p], bits_));
    ++gen_count_;
    ++inserted_;
    last_[head_] = inserted_;
    return true;
  }

  std::string saved() const {
    tlbf::ByteWriter w;
    w.u8(kTag);
    w.u32(0);
    w.u8(2);
    w.u32(k_);
    w.u32(l_);
    for (std::uint64_t v : {window_, bits_, generation_, gen_count_}) w.u64(v);
    w.u32(head_);
    w.u64(inserted_);
    w.u64(cap_evictions_);
    std::vector<std::uint64_t> words;
    for (const auto& s : slices_) words.insert(words.end(), s.begin(), s.end());
    w.words(words);
    for (std::uint64_t last : last_) w.u64(last);
    w.u64(0);  // no format-1 slices
    return w.take();
  }
  std::uint64_t ones(std::uint32_t pos) const {
    return tlbf::detail::count_ones(slices_[physical(pos)].data(), slices_[physical(pos)].size());
  }
  std::uint64_t run_last(std::uint32_t pos) const { return last_[physical(pos)]; }
  std::uint64_t cap_evictions() const { return cap_evictions_; }

 private:
  std::uint32_t physical(std::uint32_t pos) const { return (head_ + pos) % static_cast<std::uint32_t>(slices_.size()); }
  bool accepted(std::uint32_t j) const {
    const std::uint64_t last = last_[physical(j)];
    return last != 0 && last + window_ > inserted_;
  }
  // The oldest slice is cleared and becomes the newest; a run still inside the configured
  // window that loses its oldest slice is the memory cap binding.
  void shift() {
    const std::uint64_t lost = last_[physical(l_)];
    if (lost != 0 && lost + window_ > inserted_ + 1) ++cap_evictions_;
    head_ = head_ == 0 ? static_cast<std::uint32_t>(slices_.size()) - 1 : head_ - 1;
    std::fill(slices_[head_].begin(), slices_[head_].end(), 0);
    last_[head_] = 0;
    gen_count_ = 0;
  }

  std::uint32_t k_, l_;
  std::uint64_t window_, bits_, generation_;
  std::vector<std::vector<std::uint64_t>> slices_;  // per physical slice
  std::vector<std::uint64_t> last_;                 // per physical slice
  std::uint32_t head_ = 0;
  std::uint64_t gen_count_ = 0, inserted_ = 0, cap_evictions_ = 0;
};

// Keys as integers. A decision names a new key, or one inserted between `lo` and `hi` - 1
// inserts ago (0 = the last insert), in one of two ranges with its share of the decisions;
// the caller reports each insert back, so distances count what a count window counts.
class DecisionStream {
 public:
  struct Range {
    double share = 0;
    std::uint64_t lo = 0, hi = 0;
  };
  enum class From { fresh, first_range, second_range };
  struct Decision {
    std::uint64_t key;
    From from;
  };
  DecisionStream(Range first, Range second)
      : first_(first), second_(second), ring_(std::max({first.hi, second.hi, std::uint64_t{1}})) {}

  Decision next() {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (u < first_.share && pick(first_)) return {picked_, From::first_range};
    if (u >= first_.share && u < first_.share + second_.share && pick(second_)) return {picked_, From::second_range};
    return {new_keys_++, From::fresh};
  }
  void record_insert(std::uint64_t key) { ring_[inserted_++ % ring_.size()] = key; }

 private:
  bool pick(const Range& r) {
    const std::uint64_t hi = std::min(r.hi, inserted_);
    if (hi <= r.lo) return false;
    picked_ = ring_[(inserted_ - 1 - (r.lo + rng_() % (hi - r.lo))) % ring_.size()];
    return true;
  }
  Range first_, second_;
  std::vector<std::uint64_t> ring_;
  std::uint64_t inserted_ = 0, new_keys_ = 0, picked_ = 0;
  std::mt19937_64 rng_{42};
};

}  // namespace

TEST_SUITE("apbf") {
  TEST_CASE("the jump-back query finds k consecutive hits exactly when they exist") {
    for (std::size_t slices = 1; slices <= 12; ++slices) {
      for (std::uint32_t k = 1; k <= slices; ++k) {
        for (std::uint32_t pattern = 0; pattern < (1u << slices); ++pattern) {
          bool run = false;
          for (std::size_t start = 0; start + k <= slices && !run; ++start) {
            bool all = true;
            for (std::size_t i = start; i < start + k; ++i) all = all && ((pattern >> i) & 1u);
            run = all;
          }
          const bool found =
              tlbf::detail::jump_back_query(slices, k, [&](std::size_t pos) { return ((pattern >> pos) & 1u) != 0; });
          if (found != run) {
            INFO("slices=" << slices << " k=" << k << " pattern=" << pattern);
            CHECK(found == run);
          }
        }
      }
    }
  }

  TEST_CASE("the run query finds an accepted run of k hits exactly when one exists") {
    std::mt19937_64 rng(7);
    for (std::size_t slices = 1; slices <= 10; ++slices) {
      for (std::uint32_t k = 1; k <= slices; ++k) {
        for (int trial = 0; trial < 300; ++trial) {
          // hit[pos][p]: mostly hits, so that full runs occur; the first `accepted` runs count.
          std::vector<std::vector<bool>> hit(slices, std::vector<bool>(k));
          for (auto& row : hit)
            for (std::size_t p = 0; p < k; ++p) row[p] = rng() % 5 != 0;
          const std::size_t accepted = rng() % (slices + 2);
          bool expect = false;
          for (std::size_t j = 0; j + k <= slices && j < accepted; ++j) {
            bool all = true;
            for (std::uint32_t p = 0; p < k; ++p) all = all && hit[j + p][p];
            expect = expect || all;
          }
          const bool found = tlbf::detail::any_run_hit(
              slices, k, [&](std::size_t j) { return j < accepted; },
              [&](std::size_t pos, std::uint32_t p) { return static_cast<bool>(hit[pos][p]); },
              [&](std::size_t pos, std::uint32_t p) { CHECK((pos < slices && p < k)); });
          if (found != expect) {
            INFO("slices=" << slices << " k=" << k << " accepted=" << accepted << " trial=" << trial);
            CHECK(found == expect);
          }
        }
      }
    }
  }

  TEST_CASE("prefetch() changes no decision and no state") {
    filter_checks::check_prefetch_is_a_hint(
        [] { return std::make_unique<tlbf::AgePartitionedFilter>(count_config(1000, 4, 3)); }, 0);
  }

  TEST_CASE("sizing: l generations cover the window and a generation fills slices to one half") {
    for (std::uint64_t window : {1ull, 2ull, 7ull, 100ull, 1000ull, 12345ull, 1000000ull}) {
      for (auto [k, l] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{4, 3}, {6, 14}, {1, 1}, {17, 13}}) {
        tlbf::AgePartitionedFilter f(count_config(window, k, l));
        const tlbf::FilterStats s = f.stats(0);
        INFO("window=" << window << " k=" << k << " l=" << l);
        CHECK(s.slices == k + l);
        CHECK(s.slice0_bits % 64 == 0);
        CHECK(f.generation() == (window + l - 1) / l);
        CHECK(tlbf::detail::half_fill_capacity(s.slice0_bits) >= f.generation() * k);
        // Not oversized: one word less would not hold a generation's k inserts at fill 1/2.
        CHECK((s.slice0_bits == 64 || tlbf::detail::half_fill_capacity(s.slice0_bits - 64) < f.generation() * k));
        CHECK_FALSE(s.memory_capped);
      }
    }
  }

  TEST_CASE("slice(position) refuses a position past the oldest slice instead of wrapping") {
    tlbf::AgePartitionedFilter f(count_config(100, 4, 3));
    CHECK_NOTHROW(f.slice(f.slices() - 1));
    CHECK_THROWS_AS(f.slice(f.slices()), std::out_of_range);
  }

  TEST_CASE("the last window_count inserts are always reported") {
    for (std::uint64_t window : {1ull, 10ull, 1000ull}) {
      tlbf::AgePartitionedFilter f(count_config(window, 0.01));
      std::uint64_t misses = 0;
      for (std::uint64_t i = 0; i < 30000; ++i) {
        f.insert(key(i), 0);
        for (std::uint64_t back : {std::uint64_t{0}, window / 2, window - 1})
          if (back <= i && !f.may_contain(key(i - back), 0)) ++misses;
      }
      INFO("window " << window);
      CHECK(misses == 0);
    }
  }

  TEST_CASE("a key is forgotten once window_count + g - 1 later inserts follow it") {
    // The run of its generation is refused from then on; another run holds it only by
    // chance (k bits at other hashes), so it is reported at the false-positive rate at most.
    for (std::uint64_t window : {2ull, 50ull, 2000ull}) {
      tlbf::AgePartitionedFilter f(count_config(window, 0.01));
      const std::uint64_t later = window + f.generation() - 1;
      std::uint64_t reported = 0, checked = 0, edge_misses = 0;
      for (std::uint64_t i = 0; i < 60000; ++i) {
        f.insert(key(i), 0);
        if (i >= later) {
          ++checked;
          reported += f.may_contain(key(i - later), 0);
        }
        if (i + 1 >= window) edge_misses += !f.may_contain(key(i + 1 - window), 0);  // window_count - 1 later
      }
      const double rate = static_cast<double>(reported) / static_cast<double>(checked);
      MESSAGE("apbf window " << window << " k=" << f.k() << " l=" << f.l() << " g=" << f.generation()
                             << ": keys with window + g - 1 later inserts reported at " << rate);
      CHECK(edge_misses == 0);
      CHECK(rate <= 1.5 * 0.01);
    }
  }

  TEST_CASE("A, 80 other keys, A with a window of 2: the second A is new") {
    tlbf::AgePartitionedFilter f(count_config(2, 1e-5));
    CHECK(f.insert_if_absent(key(0), 0));
    for (std::uint64_t i = 1; i <= 80; ++i) f.insert_if_absent(key(i), 0);
    CHECK(f.insert_if_absent(key(0), 0));
    // and within the window it is a duplicate
    CHECK(f.insert_if_absent(key(500), 0));
    CHECK(f.insert_if_absent(key(501), 0));
    CHECK_FALSE(f.insert_if_absent(key(500), 0));
  }

  TEST_CASE("a memory cap shortens the window, keeps the error rate, and says so") {
    tlbf::FilterConfig cfg = count_config(100000, 0.01);
    cfg.max_memory_bytes = 16384;
    tlbf::AgePartitionedFilter f(cfg);
    tlbf::FilterStats s = f.stats(0);
    CHECK(s.memory_capped);
    CHECK(s.bits_allocated <= 16384 * 8);
    CHECK(s.effective_count > 0);
    CHECK(s.effective_count < 100000);
    CHECK(f.cap_binds() == 0);  // nothing lost yet
    std::uint64_t misses = 0, fp = 0;
    std::uint64_t first_bind = 0;
    for (std::uint64_t i = 0; i < 200000; ++i) {
      f.insert(key(i), 0);
      if (first_bind == 0 && f.cap_binds() > 0) first_bind = i + 1;
      if (i >= s.effective_count - 1) misses += !f.may_contain(key(i + 1 - s.effective_count), 0);
      fp += f.may_contain(key((std::uint64_t{1} << 62) + i), 0);
    }
    MESSAGE("capped apbf: effective window " << s.effective_count << ", first bound after " << first_bind
                                             << " inserts, " << f.stats(0).cap_evictions
                                             << " generations dropped early");
    CHECK(misses == 0);  // the shortened window holds in full
    CHECK(first_bind > s.effective_count);
    CHECK(first_bind <= s.effective_count + 2 * f.generation());
    CHECK(static_cast<double>(fp) / 200000 <= 1.5 * 0.01);  // unique keys are not dropped more often
    CHECK(f.stats(0).peak_bits_allocated == f.stats(0).bits_allocated);
  }

  TEST_CASE("regression e (apbf): the recycled slice is cleared in full") {
    tlbf::AgePartitionedFilter f(count_config(5000, 4, 3));
    std::uint64_t shifts = 0;
    for (std::uint64_t i = 0; i < 40000; ++i) {
      const tlbf::SliceView oldest = f.slice(f.slices() - 1);
      const bool about_to_shift = f.slice(0).inserts == f.generation();
      f.insert(key(i), 0);
      if (about_to_shift) {
        ++shifts;
        const tlbf::SliceView fresh = f.slice(0);
        CHECK(fresh.run_last == static_cast<std::int64_t>(i + 1));  // a new run, of this insert
        CHECK(fresh.inserts == 1);
        CHECK(fresh.ones <= 1);                                // only the bit of the insert just made
        if (shifts > 8) CHECK(oldest.ones > oldest.bits / 4);  // it held real data before
      }
    }
    CHECK(shifts > 20);
  }

  TEST_CASE("apbf refuses bad parameters, naming them") {
    auto refuses = [](const tlbf::FilterConfig& cfg, const std::string& name) {
      try {
        tlbf::AgePartitionedFilter f(cfg);
        FAIL("accepted a bad " << name);
      } catch (const tlbf::invalid_parameter& e) {
        INFO(e.what());
        CHECK(e.parameter() == name);
        CHECK(std::string(e.what()).find(e.value()) != std::string::npos);
      }
    };
    refuses(count_config(0, 0.01), "window_count");
    refuses(count_config(100, 0.0), "error_rate");
    refuses(count_config(100, 1.0), "error_rate");
    refuses(count_config(100, std::nan("")), "error_rate");
    refuses(count_config(100, 0, 3), "k");
    refuses(count_config(100, 3, 0), "l");
    refuses(count_config(100, 40, 30), "max_kl");
    tlbf::FilterConfig only_k = count_config(100, 0.01);
    only_k.k = 4;
    refuses(only_k, "l");
    tlbf::FilterConfig tiny = count_config(1000000, 0.01);
    tiny.max_memory_bytes = 100;  // not one word per slice
    refuses(tiny, "max_memory_bytes");
    refuses(count_config((std::uint64_t{1} << 62) + 1, 0.01), "window_count");  // as a saved state would be
  }

  TEST_CASE("a window of 10^14 keys or more is sized at once: the cap binds, nothing hangs") {
    // The sizing search once stepped 64 bits at a time from the largest slice towards g k
    // half-fill inserts: 10^14 keys took hours, deaf to signals.
    for (std::uint64_t window : {std::uint64_t{100000000000000}, std::uint64_t{1} << 62}) {
      CAPTURE(window);
      tlbf::FilterConfig cfg = count_config(window, 1e-5);
      cfg.max_memory_bytes = 1 << 20;
      tlbf::AgePartitionedFilter f(cfg);
      const tlbf::FilterStats s = f.stats(0);
      CHECK(s.memory_capped);
      CHECK(s.effective_count > 0);
      CHECK(s.effective_count < window);
      CHECK(s.bits_allocated <= cfg.max_memory_bytes * 8);
      f.insert(tlbf::hash_key("a"), 0);
      CHECK(f.may_contain(tlbf::hash_key("a"), 0));
    }
  }

  TEST_CASE("insert_if_absent and statistics") {
    tlbf::AgePartitionedFilter f(count_config(100, 0.001));
    CHECK(f.insert_if_absent(key(1), 0));
    CHECK_FALSE(f.insert_if_absent(key(1), 0));
    for (std::uint64_t i = 2; i < 500; ++i) f.insert(key(i), 0);
    const tlbf::FilterStats s = f.stats(0);
    CHECK(s.algorithm == "apbf");
    CHECK(s.keys_inserted == 499);
    CHECK(s.live_keys == 100);
    CHECK(s.k == f.k());
    CHECK(s.l == f.l());
    CHECK(s.bits_allocated == s.slice0_bits * (f.k() + f.l()));
    CHECK(s.bits_per_live_key == doctest::Approx(static_cast<double>(s.bits_allocated) / 100));
    CHECK_FALSE(s.memory_capped);
  }

  TEST_CASE("the bit-sliced layout decides, saves and loads as the slice-major reference") {
    // The TLBF's layouts at 1e-5 and 1e-3, one slot short of a 64-bit cell, a large k, small
    // layouts with many false positives, k = 1 and k + l = 2, windows not a multiple of l,
    // and k + l = 70, which stays slice by slice. (With k = 1 every run probes one position,
    // so inserts soon cover every key when there are more than a few runs: no edge to test.)
    struct Case {
      std::uint32_t k, l;
      std::uint64_t window;
    };
    const Case cases[] = {{21, 43, 5000}, {15, 49, 3000}, {22, 41, 4321}, {40, 24, 2000}, {3, 5, 400},
                          {7, 20, 1000},  {2, 6, 600},    {1, 1, 50},     {4, 60, 777},   {30, 40, 3000}};
    constexpr std::uint64_t kDecisions = 150000, kSaveEvery = 25013;
    for (const Case& c : cases) {
      for (const bool capped : {false, true}) {
        INFO("k=" << c.k << " l=" << c.l << " window=" << c.window << " capped=" << capped);
        tlbf::FilterConfig cfg = count_config(c.window, c.k, c.l);
        cfg.max_kl = std::max(cfg.max_kl, c.k + c.l);
        // Capped: the slices get half the memory they ask for, and the window what they hold.
        if (capped) cfg.max_memory_bytes = tlbf::AgePartitionedFilter(cfg).stats(0).bits_allocated / 16;
        auto f = std::make_unique<tlbf::AgePartitionedFilter>(cfg);
        REQUIRE(f->stats(0).memory_capped == capped);
        SliceMajorReference ref(*f, c.window);
        const std::uint64_t g = f->generation();
        // Repeats inside the window, and keys from g inserts before its edge to 2g after: the
        // window rule accepts the first, refuses the last, and decides by run in between.
        DecisionStream stream({0.25, 0, c.window}, {0.25, c.window > g ? c.window - g : 0, c.window + 2 * g});
        std::uint64_t disagree = 0, edge_dup = 0, edge_new = 0, round_trips = 0, inserts = 0;
        for (std::uint64_t i = 0; i < kDecisions; ++i) {
          const DecisionStream::Decision d = stream.next();
          const bool is_new = f->insert_if_absent(key(d.key), 0);
          disagree += is_new != ref.insert_if_absent(key(d.key));
          if (is_new) stream.record_insert(d.key);
          inserts += is_new;
          if (d.from == DecisionStream::From::second_range) (is_new ? edge_new : edge_dup) += 1;
          // A key never inserted: false positives must agree too, through both verbs.
          const tlbf::KeyHash never = key((std::uint64_t{1} << 62) + i);
          disagree += f->may_contain(never, 0) != ref.may_contain(never);
          if (i % kSaveEvery == kSaveEvery - 1) {
            // Mid-stream: the saved form is the slice-major one byte for byte, the slices look
            // the same from outside, and the filter goes on as the copy loaded from it.
            const std::string bytes = filter_checks::saved(*f);
            CHECK(bytes == ref.saved());
            for (std::uint32_t pos = 0; pos < f->slices(); ++pos) {
              CHECK(f->slice(pos).ones == ref.ones(pos));
              CHECK(f->slice(pos).run_last == static_cast<std::int64_t>(ref.run_last(pos)));
            }
            f = filter_checks::load<tlbf::AgePartitionedFilter>(bytes, kTag);
            ++round_trips;
          }
        }
        CHECK(disagree == 0);
        CHECK(round_trips == kDecisions / kSaveEvery);
        CHECK(filter_checks::saved(*f) == ref.saved());
        CHECK(f->stats(0).keys_inserted == inserts);
        CHECK(f->stats(0).cap_evictions == ref.cap_evictions());
        if (capped) {
          // The cap took generations from the window (but k = l = 1 in 64 bits per slice is
          // full after 64 inserts, and inserts stop before a second shift).
          if (c.k > 1) CHECK(ref.cap_evictions() > 0);
        } else {
          CHECK(edge_dup > 0);  // both sides of the window's edge were reached
          CHECK(edge_new > 0);
        }
      }
    }
  }

  TEST_CASE("the 64 x 64 bit transpose of the saved form's slices moves every bit to its mirror") {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 20; ++round) {
      std::uint64_t rows[64], before[64];
      for (auto& r : rows) r = round == 0 ? 0 : rng() & rng();  // sparse rows, and all zero once
      if (round == 1) rows[0] = rows[63] = ~std::uint64_t{0};   // the corners' rows full
      std::copy(rows, rows + 64, before);
      tlbf::detail::RunCells::transpose_bits(rows);
      int wrong = 0;
      for (unsigned r = 0; r < 64; ++r)
        for (unsigned c = 0; c < 64; ++c) wrong += ((rows[c] >> r) & 1) != ((before[r] >> c) & 1);
      CHECK(wrong == 0);
    }
  }

  TEST_CASE("bit-sliced cells take and give back slices in any groups of positions") {
    // Cells of every width from 2 to 64 (a cell straddles words unless S divides 64), slices
    // given in and taken out in groups of one, a few and all, in scrambled position order;
    // dense slices, and sparse ones, which are given in bit by bit rather than transposed.
    std::mt19937_64 rng(11);
    for (std::uint32_t s = 2; s <= 64; s += (s < 8 ? 1 : 7))
      for (const bool sparse : {false, true}) {
        INFO("S=" << s << " sparse=" << sparse);
        const std::uint64_t cells = 192, words = cells / 64;
        std::vector<std::uint64_t> slices(std::size_t{s} * words);
        for (auto& w : slices) w = sparse ? (rng() & rng() & rng() & rng() & rng()) : rng();
        std::vector<std::uint32_t> order(s);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), rng);
        tlbf::detail::RunCells in;
        in.reset(s, cells);
        // order[i]'s slice is slices[order[i]]: given in groups of 3 (sparse) or all at once
        // (dense: past kSparseBlockBits from S = 5 on, so transposed).
        const std::uint32_t group = sparse ? 3 : s;
        for (std::uint32_t i = 0; i < s; i += group) {
          const std::uint32_t n = std::min(group, s - i);
          std::vector<std::uint64_t> given;
          for (std::uint32_t g = 0; g < n; ++g)
            given.insert(given.end(), slices.begin() + order[i + g] * words,
                         slices.begin() + (order[i + g] + 1) * words);
          in.copy_slices_in(&order[i], n, given.data());
        }
        for (std::uint32_t pos = 0; pos < s; ++pos) {
          std::uint64_t ones = 0;
          for (std::uint64_t w = 0; w < words; ++w)
            ones += static_cast<std::uint64_t>(__builtin_popcountll(slices[pos * words + w]));
          CHECK(in.ones_at(pos) == ones);  // ones_at() reads the cells bit by bit
        }
        std::vector<std::uint64_t> all(slices.size());
        std::vector<std::uint32_t> positions(s);
        std::iota(positions.begin(), positions.end(), 0u);
        in.copy_slices_out(positions.data(), s, all.data());
        CHECK(all == slices);
        std::vector<std::uint64_t> one(words);
        in.copy_slices_out(&order[s - 1], 1, one.data());
        CHECK(std::equal(one.begin(), one.end(), slices.begin() + order[s - 1] * words));
      }
  }

  TEST_CASE("save and load give a filter that answers and evolves identically") {
    tlbf::AgePartitionedFilter f(count_config(3000, 0.01));
    for (std::uint64_t i = 0; i < 10000; ++i) f.insert(key(i), 0);
    filter_checks::check_round_trip(f, kTag, 0, 0);
  }

  TEST_CASE("a format-1 state keeps answering for its keys for one window, then retires") {
    // Format 1 as written before generation-keyed probes: slice j used probe hash j, and the
    // jump-back query found k consecutive hits. Built here from its documented layout.
    const std::uint32_t k = 4, l = 3;
    const std::uint64_t window = 300, bits = 64 * 8;
    const std::uint64_t g = tlbf::detail::half_fill_capacity(bits) / k;
    std::vector<std::uint64_t> words((k + l) * bits / 64, 0);
    const std::uint64_t old_keys = 250;  // within one generation cycle: all still in the window
    std::uint32_t head = 0;
    std::uint64_t in_gen = 0;
    for (std::uint64_t i = 0; i < old_keys; ++i) {
      if (in_gen == g) {
        head = head == 0 ? k + l - 1 : head - 1;
        std::fill_n(words.begin() + head * (bits / 64), bits / 64, 0);
        in_gen = 0;
      }
      for (std::uint32_t pos = 0; pos < k; ++pos) {
        const std::uint32_t j = (head + pos) % (k + l);
        tlbf::detail::set_bit(&words[j * (bits / 64)], tlbf::reduce(tlbf::probe_hash(key(i), j), bits));
      }
      ++in_gen;
    }
    tlbf::ByteWriter w;
    w.u8(kTag);
    w.u32(k);
    w.u32(l);
    w.u64(window);
    w.u64(bits);
    w.u64(in_gen);
    w.u32(head);
    w.u64(old_keys);
    w.words(words);
    const std::string v1 = w.take();
    auto f = filter_checks::load<tlbf::AgePartitionedFilter>(v1, kTag);
    CHECK(f->legacy_slice_count() == k + l);
    std::uint64_t misses = 0;
    for (std::uint64_t i = old_keys - window + 10; i < old_keys; ++i) misses += !f->may_contain(key(i), 0);
    CHECK(misses == 0);
    // Saved again, it is format 2 with the legacy slices, and loads to the same answers.
    const std::string v2 = filter_checks::saved(*f);
    auto g2 = filter_checks::load<tlbf::AgePartitionedFilter>(v2, kTag);
    CHECK(filter_checks::saved(*g2) == v2);
    // New inserts: the old keys stay while they are among the last `window`, then retire.
    for (std::uint64_t i = 0; i < window; ++i) {
      f->insert(key(1000000 + i), 0);
      const std::uint64_t oldest_in_window = old_keys + i + 1 - window;
      if (oldest_in_window < old_keys && !f->may_contain(key(oldest_in_window), 0)) ++misses;
    }
    CHECK(misses == 0);
    for (std::uint64_t i = 0; i < 2 * g; ++i) f->insert(key(2000000 + i), 0);
    CHECK(f->legacy_slice_count() == 0);
    CHECK(f->may_contain(key(1000000 + window - 1), 0));
  }

  TEST_CASE("damaged saved state is refused or still loads into a working filter") {
    tlbf::AgePartitionedFilter f(count_config(200, 4, 3));
    for (std::uint64_t i = 0; i < 700; ++i) f.insert(key(i), 0);
    filter_checks::check_damaged_state(f, kTag, 0, 0);
  }
}
