// The tagged filter (tlbf/tagged.hpp) judged by its promises against an exact oracle, a hash
// map of key -> last insert time, over streams of 10^6 inserts and more with a manual clock:
// no false negatives inside the window (every record whose key was inserted less than a span
// ago, and the oldest insert still inside the window at every step) on a steady rate, a 10x
// burst, a ramp, idle gaps, periodic keys at 1.0 and 1.05 windows and a jump of the rate by
// 10^6x; records whose key is a window plus the slack old (or new) reported at most at
// 1.5 x the target; the measured false-positive rate on 10^6 distinct keys at 1e-2, 1e-3
// and 1e-5, also under a memory cap that binds; the slot width's bound; growth and
// right-sizing by whole tables, and bits per live key through bursts, a ramp and idle gaps
// within 1.5x of steady; save/load.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "filter_checks.hpp"
#include "tlbf/tagged.hpp"

namespace {

using filter_checks::key;
using tlbf::Duration;
using tlbf::Time;
using tlbf::detail::Kernel;

// Whether this processor runs a kernel (the portable one runs everywhere).
bool runs_here(Kernel k) { return k <= tlbf::detail::best_kernel(); }
constexpr Duration kSec = tlbf::kSecond;
constexpr Duration kUs = tlbf::kMicrosecond;

tlbf::FilterConfig tagged_config(Duration span, double error_rate, std::uint64_t capacity) {
  return filter_checks::time_config(span, error_rate, capacity);
}

// Keys no test inserts.
tlbf::KeyHash absent_key(std::uint64_t i) { return key((std::uint64_t{1} << 62) + i); }

struct Outcome {
  std::uint64_t records = 0, inserts = 0, false_negatives = 0, edge_checks = 0;
  std::uint64_t beyond = 0, beyond_reported = 0;    // keys beyond window + slack, or new
  std::uint64_t at_span = 0, at_span_reported = 0;  // copies at exactly the span's age
};

struct Event {
  Time t;
  std::uint64_t id;
};

enum class Refresh { no, yes };

// Feeds the events to the filter as the program does (insert_if_absent, or insert-always
// with Refresh::yes) and judges every answer by the oracle.
Outcome judge(tlbf::TaggedFilter& f, Duration span, const std::vector<Event>& events, Refresh refresh = Refresh::no) {
  Outcome o;
  const Duration slack = f.slack();
  std::unordered_map<std::uint64_t, Time> last;
  last.reserve(events.size());
  std::deque<std::pair<Time, std::uint64_t>> inserted;
  for (const Event& e : events) {
    const tlbf::KeyHash h = key(e.id);
    const auto it = last.find(e.id);
    const bool seen = it != last.end();
    const Duration age = seen ? e.t - it->second : 0;
    bool reported;
    if (refresh == Refresh::yes) {
      reported = f.may_contain(h, e.t);
      f.insert(h, e.t);
    } else {
      reported = !f.insert_if_absent(h, e.t);
    }
    ++o.records;
    if (seen && age < span && !reported) ++o.false_negatives;
    if (!seen || age >= span + slack) {
      ++o.beyond;
      o.beyond_reported += reported;
    }
    if (seen && age == span) {
      ++o.at_span;
      o.at_span_reported += reported;
    }
    if (refresh == Refresh::yes || !reported) {
      last[e.id] = e.t;
      inserted.emplace_back(e.t, e.id);
      ++o.inserts;
    }
    while (!inserted.empty() && e.t - inserted.front().first >= span) inserted.pop_front();
    if (!inserted.empty()) {
      const auto& [t, id] = inserted.front();
      if (last[id] == t) {  // its latest insert
        ++o.edge_checks;
        if (!f.may_contain(key(id), e.t)) ++o.false_negatives;
      }
    }
  }
  return o;
}

double rate(std::uint64_t hits, std::uint64_t of) {
  return of ? static_cast<double>(hits) / static_cast<double>(of) : 0;
}

void report(const std::string& what, const Outcome& o, const tlbf::TaggedFilter& f, Time now) {
  const tlbf::TaggedShape s = f.shape(now);
  MESSAGE(what << ": " << o.records << " records, " << o.inserts << " inserts, " << o.edge_checks
               << " window-edge checks, " << o.false_negatives << " false negatives; beyond window + slack "
               << o.beyond_reported << " of " << o.beyond << " reported (" << rate(o.beyond_reported, o.beyond) << "); "
               << s.tables << " tables, " << s.slots << " slots, load " << s.load << ", "
               << f.stats(now).bits_per_live_key << " bits per live key");
}

// Record ids: a quarter repeat one of the last 60,000 ids (ages spread over a few windows),
// the rest new; one record step(i) after the one before.
std::vector<Event> stream(std::uint64_t n, const std::function<Duration(std::uint64_t)>& step, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> ring;
  std::uint64_t fresh = 0;
  std::vector<Event> ev(n);
  Time now = kSec;
  for (std::uint64_t i = 0; i < n; ++i) {
    now += step(i);
    std::uint64_t id = ring.size() == 60000 && rng() % 4 == 0 ? ring[rng() % ring.size()] : fresh++;
    if (ring.size() < 60000)
      ring.push_back(id);
    else
      ring[i % 60000] = id;
    ev[i] = {now, id};
  }
  return ev;
}

// `keys` keys repeating every `period` (fixed phases, on whole microseconds) among keys seen
// once per period, until n records.
std::vector<Event> periodic(Duration period, std::uint64_t keys, std::uint64_t once, std::uint64_t n) {
  std::mt19937_64 rng(11);
  std::vector<Event> ev;
  std::uint64_t fresh = keys;
  for (Time base = kSec; ev.size() < n; base += period) {
    std::mt19937_64 phases(5);
    for (std::uint64_t k = 0; k < keys; ++k)
      ev.push_back({base + static_cast<Time>(phases() % (period / kUs)) * kUs, k});
    for (std::uint64_t u = 0; u < once; ++u) ev.push_back({base + static_cast<Time>(rng() % period), fresh++});
  }
  std::sort(ev.begin(), ev.end(),
            [](const Event& a, const Event& b) { return a.t < b.t || (a.t == b.t && a.id < b.id); });
  return ev;
}

// 20,000 records a 1 s span at the base rate.
constexpr Duration kSpan = kSec;
constexpr Duration kBase = 50 * kUs;
constexpr std::uint64_t kRecords = 1400000;  // > 10^6 inserts

void check_profile(const std::string& what, double target, const std::function<Duration(std::uint64_t)>& step,
                   Refresh refresh = Refresh::no) {
  tlbf::TaggedFilter f(tagged_config(kSpan, target, 1000));
  const std::vector<Event> ev = stream(kRecords, step);
  const Outcome o = judge(f, kSpan, ev, refresh);
  report(what, o, f, ev.back().t);
  CHECK(o.inserts >= 1000000);
  CHECK(o.false_negatives == 0);
  CHECK(o.edge_checks > 1000000);
  CHECK(o.beyond > 500000);
  CHECK(rate(o.beyond_reported, o.beyond) <= 1.5 * target);
}

}  // namespace

TEST_SUITE("tagged") {
  TEST_CASE(
      "tagged: the block geometry keeps one table's false-positive bound within the target, with the most slots") {
    for (const double e : {0.1, 0.05, 0.02, 1e-2, 1e-3, 5e-4, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9, 1e-12}) {
      CAPTURE(e);
      const tlbf::detail::QuotientLayout l = tlbf::TaggedFilter::layout_for(e, 5);
      CHECK(tlbf::TaggedFilter::fpr_bound(l) <= e);
      CHECK(tlbf::detail::QuotientLayout::fits(l.slots(), l.buckets(), 5, l.tail_bits()));
      // No geometry of one more slot keeps within e.
      const std::uint32_t more = l.slots() + 1;
      for (std::uint32_t tail = 0; tail <= 42; ++tail) {
        const int room = 512 - static_cast<int>((17 + tail) * more);
        if (room < 1) break;
        const auto buckets = static_cast<std::uint32_t>(std::min(63 - static_cast<int>(l.slots()), room));
        if (!tlbf::detail::QuotientLayout::fits(more, buckets, 5, tail)) continue;
        CHECK(tlbf::TaggedFilter::fpr_bound(tlbf::detail::QuotientLayout(more, buckets, 5, tail)) > e);
      }
    }
    CHECK(tlbf::TaggedFilter::layout_for(1e-3, 5).slots() == 28);
    CHECK(tlbf::TaggedFilter::layout_for(1e-5, 5).slots() == 21);
    // A steady window of 10^6 keys: 512 bits over the slots a block at the target load, for
    // the 1/16 more keys live late in an epoch (the slack's); within 22 and 30 bits a key.
    const double at_1e3 =
        static_cast<double>(tlbf::TaggedFilter::window_bits_for(tagged_config(kSec, 1e-3, 1000000))) / 1e6;
    const double at_1e5 =
        static_cast<double>(tlbf::TaggedFilter::window_bits_for(tagged_config(kSec, 1e-5, 1000000))) / 1e6;
    MESSAGE("bits a key at 1e-3: " << at_1e3 << ", at 1e-5: " << at_1e5);
    CHECK(at_1e3 > 512.0 / 28);
    CHECK(at_1e3 <= 22);
    CHECK(at_1e5 <= 30);
  }

  TEST_CASE(
      "tagged: a block's inserts, queries, probes, live counts, erases and purges agree with a list of its slots") {
    std::mt19937_64 rng(4);
    struct Geometry {
      std::uint32_t slots, buckets, tag_bits, tail_bits;
    };
    // (20/44/6: tails that fit 128 bits from word 1, the general path of tails() and set_tails())
    for (const Geometry g :
         {Geometry{28, 36, 5, 0}, Geometry{21, 29, 5, 6}, Geometry{29, 19, 5, 0}, Geometry{16, 32, 5, 13},
          Geometry{9, 51, 6, 30}, Geometry{8, 40, 5, 42}, Geometry{20, 44, 5, 6}}) {
      CAPTURE(g.slots);
      const tlbf::detail::QuotientLayout l(g.slots, g.buckets, g.tag_bits, g.tail_bits);
      std::uint32_t full = 0;
      for (int trial = 0; trial < 4000; ++trial) {
        tlbf::detail::TaggedBlock b, fast, wide;  // by the portable, bit_ops and avx512 kernels
        std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> runs(g.buckets);  // (head, tail)
        const std::uint32_t n = static_cast<std::uint32_t>(rng() % (g.slots + 1));
        full += n == g.slots;
        for (std::uint32_t i = 0; i < n; ++i) {
          // Few remainders, so that a bucket often holds the same one twice.
          const std::uint64_t remainder = ((rng() % 3) * ((std::uint64_t{1} << l.remainder_bits()) / 3) +
                                           (rng() & 1) * (std::uint64_t{1} << (l.remainder_bits() - 1))) &
                                          ((std::uint64_t{1} << l.remainder_bits()) - 1);
          const tlbf::detail::QuotientLayout::Key k = l.key(remainder, static_cast<std::uint32_t>(rng()));
          const std::uint64_t tag = rng() & l.tag_mask();
          l.insert(b, k, tag);
          if (runs_here(Kernel::bit_ops)) l.insert<Kernel::bit_ops>(fast, k, tag, l.stored<Kernel::bit_ops>(fast));
          if (runs_here(Kernel::avx512)) l.insert<Kernel::avx512>(wide, k, tag, l.stored<Kernel::avx512>(wide));
          runs[k.bucket].emplace_back(k.head | tag, k.tail);
        }
        if (runs_here(Kernel::bit_ops)) REQUIRE(std::memcmp(&fast, &b, sizeof b) == 0);
        if (runs_here(Kernel::avx512)) REQUIRE(std::memcmp(&wide, &b, sizeof b) == 0);
        const tlbf::detail::QuotientView v(&l, rng() & l.tag_mask(), rng() % (l.tag_mask() + 2));
        auto check_block = [&](bool only_live) {
          std::uint32_t i = 0;
          for (std::uint32_t q = 0; q < g.buckets; ++q) {
            const tlbf::detail::QuotientLayout::Run run = l.run(b, q);
            REQUIRE(run.first == i);
            for (const auto& [head, tail] : runs[q]) {
              if (only_live && !v.live_tag(head)) continue;
              REQUIRE(l.head(b, i) == head);
              REQUIRE(l.tail(b, i) == tail);
              ++i;
            }
            REQUIRE(run.first + run.count == i);
          }
          REQUIRE(l.stored(b) == i);
          for (; i < g.slots; ++i) REQUIRE((l.head(b, i) | l.tail(b, i)) == 0);  // nothing above
        };
        check_block(false);
        std::uint32_t live = 0;
        for (std::uint32_t q = 0; q < g.buckets; ++q) {
          for (const auto& [head, tail] : runs[q]) {
            live += v.live_tag(head);
            const tlbf::detail::QuotientLayout::Key k{q, head & ~l.tag_mask(), tail};
            bool held = false;
            for (const auto& [h2, t2] : runs[q]) held |= (h2 & ~l.tag_mask()) == k.head && t2 == tail && v.live_tag(h2);
            REQUIRE((v.find(b, k) >= 0) == held);
            const tlbf::detail::QuotientView::Probe p = v.probe(b, k);
            REQUIRE((p.found >= 0) == held);
            REQUIRE(p.stored == n);
            if (runs_here(Kernel::avx512)) {
              const tlbf::detail::QuotientView::Probe w = v.probe<Kernel::avx512>(b, k);
              REQUIRE(w.found == p.found);
              REQUIRE((w.live == p.live && w.stored == p.stored && w.dead == p.dead));
            }
          }
        }
        REQUIRE(v.live(b) == live);
        REQUIRE(v.probe(b, l.key(0, 0)).live == live);
        // Every bucket asked for a remainder it may not hold, the empty ones past the last slot
        // of a full block too.
        for (std::uint32_t q = 0; q < g.buckets; ++q) {
          const std::uint64_t remainder = rng() & ((std::uint64_t{1} << l.remainder_bits()) - 1);
          const tlbf::detail::QuotientLayout::Key probe =
              l.key(remainder, static_cast<std::uint32_t>((std::uint64_t{q} << 32) / g.buckets + 1));
          REQUIRE(probe.bucket == q);
          bool held = false;
          for (const auto& [head, tail] : runs[q])
            held |= (head & ~l.tag_mask()) == probe.head && tail == probe.tail && v.live_tag(head);
          REQUIRE((v.find(b, probe) >= 0) == held);
          if (runs_here(Kernel::avx512)) REQUIRE(v.find<Kernel::avx512>(b, probe) == v.find(b, probe));
        }
        // An insert that first takes out the slots that are not live (as into a full block) is
        // a purge and then an insert, in every kernel.
        if (live < g.slots) {
          const tlbf::detail::QuotientLayout::Key k =
              l.key(rng() & ((std::uint64_t{1} << l.remainder_bits()) - 1), static_cast<std::uint32_t>(rng()));
          const std::uint64_t tag = rng() & l.tag_mask();
          tlbf::detail::TaggedBlock purged = b;
          v.purge(purged);
          l.insert(purged, k, tag);
          const std::uint32_t dead = v.probe(b, k).dead;
          for (const Kernel kernel : {Kernel::portable, Kernel::bit_ops, Kernel::avx512}) {
            if (!runs_here(kernel)) continue;
            CAPTURE(static_cast<int>(kernel));
            tlbf::detail::TaggedBlock c = b;
            if (kernel == Kernel::portable) l.insert(c, k, tag, n, dead);
            if (kernel == Kernel::bit_ops) l.insert<Kernel::bit_ops>(c, k, tag, n, dead);
            if (kernel == Kernel::avx512) l.insert<Kernel::avx512>(c, k, tag, n, dead);
            REQUIRE(std::memcmp(&c, &purged, sizeof c) == 0);
          }
        }
        if (runs_here(Kernel::bit_ops)) REQUIRE(v.purge<Kernel::bit_ops>(fast) == n - live);
        if (runs_here(Kernel::avx512)) REQUIRE(v.purge<Kernel::avx512>(wide) == n - live);
        REQUIRE(v.purge(b) == n - live);
        if (runs_here(Kernel::bit_ops)) REQUIRE(std::memcmp(&fast, &b, sizeof b) == 0);
        if (runs_here(Kernel::avx512)) REQUIRE(std::memcmp(&wide, &b, sizeof b) == 0);
        check_block(true);
        REQUIRE(v.live(b) == live);
      }
      CHECK(full > 0);  // the full block was exercised
    }
  }

  TEST_CASE("tagged: select64 finds the k-th set bit") {
    std::mt19937_64 rng(6);
    for (int trial = 0; trial < 200000; ++trial) {
      const std::uint64_t x = rng() & rng() & (trial % 2 ? rng() : ~std::uint64_t{0});
      if (x == 0) continue;
      const auto k = static_cast<std::uint32_t>(rng() % tlbf::detail::popcount64(x));
      std::uint32_t at = 0;
      for (std::uint32_t seen = 0;; ++at)
        if ((x >> at & 1) && seen++ == k) break;
      REQUIRE(tlbf::detail::select64(x, k) == at);
      if (runs_here(Kernel::bit_ops)) REQUIRE(tlbf::detail::select64<Kernel::bit_ops>(x, k) == at);
    }
  }

  TEST_CASE("tagged: every kernel decides as the portable one, state for state") {
    // Both at 1e-3 (no tails) and 1e-5 (tails), through a burst, repeats and an idle gap, over
    // the verbs that take a kernel: insert_if_absent, its batch, insert (a renewal) and
    // may_contain.
    for (const Kernel kernel : {Kernel::bit_ops, Kernel::avx512}) {
      CAPTURE(static_cast<int>(kernel));
      if (!runs_here(kernel)) {
        MESSAGE("this processor does not run kernel " << static_cast<int>(kernel) << ": not compared");
        continue;
      }
      for (const double e : {1e-3, 1e-5}) {
        tlbf::TaggedFilter fast(tagged_config(kSec, e, 1000)), portable(tagged_config(kSec, e, 1000));
        portable.use_kernel(Kernel::portable);
        fast.use_kernel(kernel);
        CHECK(portable.kernel() == Kernel::portable);
        CHECK(fast.kernel() == kernel);
        std::mt19937_64 rng(9);
        Time t = kSec;
        std::uint64_t fresh = 0;
        for (std::uint64_t i = 0; i < 400000; ++i) {
          t += i % 100000 < 20000 ? 10 * kUs : i % 100000 == 50000 ? 3 * kSec : 200 * kUs;
          const tlbf::KeyHash h = key(rng() % 300000);
          if (i % 7 == 0) {
            fast.insert(h, t);
            portable.insert(h, t);
            continue;
          }
          if (i % 50 == 1) {  // a batch of keys at one time, some repeated: the batch's loop
            std::array<tlbf::KeyHash, 16> keys;
            std::array<Time, 16> times;
            bool got[16] = {};
            for (std::size_t j = 0; j < keys.size(); ++j) keys[j] = j % 5 == 4 ? keys[j - 2] : key(rng() % 300000);
            times.fill(t);
            REQUIRE(fast.insert_if_absent_batch(keys.data(), times.data(), keys.size(), got) == keys.size());
            for (std::size_t j = 0; j < keys.size(); ++j) REQUIRE(got[j] == portable.insert_if_absent(keys[j], t));
          }
          const bool a = fast.insert_if_absent(h, t);
          REQUIRE(a == portable.insert_if_absent(h, t));
          REQUIRE(fast.may_contain(absent_key(i), t) == portable.may_contain(absent_key(i), t));
          fresh += a;
        }
        CHECK(fresh > 100000);
        tlbf::ByteWriter a, b;
        fast.save(a);
        portable.save(b);
        CHECK(a.data() == b.data());
      }
    }
  }

  TEST_CASE("tagged: the stash keeps live entries through rebuilds and refuses more than its room") {
    tlbf::detail::TaggedStash stash;
    CHECK(stash.empty());
    CHECK(!stash.holds(5, 0));
    // At most 8 entries: 8 added at epochs 0..7, found while live.
    for (std::uint64_t f = 1; f <= 8; ++f) REQUIRE(stash.add(f, static_cast<std::int64_t>(f - 1), 0, 8, 1 << 20));
    CHECK(stash.holds(8, 7));
    CHECK(!stash.holds(7, 7));  // epoch 6 is below lo = 7
    CHECK(!stash.holds(9, 0));
    CHECK(stash.live(4) == 4);
    // Full: a rebuild drops the entries below lo = 4 and the new one fits; then full of live ones
    // (entries 5..8, 100..103).
    CHECK(stash.add(100, 8, 4, 8, 1 << 20));
    CHECK(stash.holds(100, 4));
    CHECK(!stash.holds(1, 0));  // dropped in the rebuild
    CHECK(stash.holds(5, 4));
    for (std::uint64_t f = 101; f <= 103; ++f) REQUIRE(stash.add(f, 8, 4, 8, 1 << 20));
    CHECK(stash.live(4) == 8);
    CHECK(!stash.add(200, 8, 4, 8, 1 << 20));  // eight live entries fill a room of 8
    CHECK(!stash.holds(200, 0));
    // A renewal moves a live entry forward only; the bytes never pass the bound given.
    CHECK(stash.renew(5, 9, 4));
    CHECK(stash.holds(5, 9));
    CHECK(!stash.renew(6, 9, 7));  // epoch 5 is not live at lo = 7
    tlbf::detail::TaggedStash small;
    CHECK(!small.add(1, 0, 0, 64, 100));  // 64 entries do not fit in 100 bytes
    CHECK(small.bytes() == 0);
  }

  TEST_CASE("tagged: a steady stream at the rate it was sized for keeps one table, the rare full pairs in the stash") {
    // 20,000 new keys a window at -e 1e-5, -c 20,000: no growth, no false negative, and the
    // state saved with stashed keys loads and answers as the original.
    tlbf::TaggedFilter f(tagged_config(kSpan, 1e-5, 20000));
    std::vector<Event> ev(kRecords);
    for (std::uint64_t i = 0; i < kRecords; ++i) ev[i] = {kSec + static_cast<Time>(i + 1) * kBase, i};
    Outcome o;
    std::uint32_t most_tables = 0;
    std::uint64_t most_stashed = 0;
    for (std::size_t from = 0; from < ev.size(); from += 20000) {
      const std::vector<Event> part(ev.begin() + static_cast<std::ptrdiff_t>(from),
                                    ev.begin() + static_cast<std::ptrdiff_t>(std::min(ev.size(), from + 20000)));
      const Outcome p = judge(f, kSpan, part);
      o.false_negatives += p.false_negatives;
      most_tables = std::max(most_tables, f.shape(part.back().t).tables);
      most_stashed = std::max(most_stashed, f.shape(part.back().t).stashed);
    }
    MESSAGE("steady at its size: at most " << most_tables << " tables, " << most_stashed << " keys stashed, "
                                           << f.stats(ev.back().t).bits_per_live_key << " bits per live key");
    CHECK(o.false_negatives == 0);
    CHECK(most_tables == 1);
    CHECK(most_stashed > 0);  // the stash was used
    CHECK(f.stats(ev.back().t).bits_per_live_key <= 30);
    filter_checks::check_round_trip(f, tlbf::kTaggedStateTag, ev.back().t, kBase);
  }

  TEST_CASE("tagged: a format 1 word match marks every slot holding the remainder") {
    std::mt19937_64 rng(3);
    for (std::uint32_t per_word = 1; per_word <= 4; ++per_word) {
      const tlbf::detail::TaggedLayout l(per_word, 5);
      for (int trial = 0; trial < 20000; ++trial) {
        tlbf::detail::TaggedBlock b;
        for (std::uint32_t s = 0; s < per_word; ++s)
          l.set_slot(b, s,
                     rng() % 3 == 0 ? 0 : l.make_slot(l.remainder_of(rng() % 4), static_cast<std::int64_t>(rng())));
        const std::uint64_t r = l.remainder_of(rng() % 4);
        const std::uint64_t marks = l.match_marks(b.w[0], l.spread(r));
        for (std::uint32_t s = 0; s < per_word; ++s) {
          if ((l.slot(b, s) >> l.tag_bits()) != r) continue;
          REQUIRE(l.field_below(b.w[0], s * l.width() + l.width() - 1) == l.slot(b, s));
          REQUIRE((marks >> (s * l.width() + l.width() - 1) & 1) == 1);  // every slot that holds it is marked
        }
      }
    }
  }

  TEST_CASE("tagged: a key is reported for at least the span and never past the span and the slack") {
    const Duration span = 60 * kSec;
    tlbf::TaggedFilter f(tagged_config(span, 1e-5, 100000));
    CHECK(f.slack() > 0);
    CHECK(f.slack() <= span / 16);
    const Time t0 = 1000 * kSec + 123;
    for (std::uint64_t i = 0; i < 100000; ++i) f.insert(key(i), t0);
    std::uint64_t at_edge = 0, at_span = 0, past = 0;
    for (std::uint64_t i = 0; i < 100000; ++i) {
      at_edge += f.may_contain(key(i), t0 + span - 1);
      at_span += f.may_contain(key(i), t0 + span);
      past += f.may_contain(key(i), t0 + span + f.slack());
    }
    CHECK(at_edge == 100000);
    // A copy at exactly the span's age is inside the slack: reported (the exact filter calls it new).
    CHECK(at_span == 100000);
    CHECK(past <= 5);  // chance matches only: the bound is 1e-5 a query, 1 expected
  }

  TEST_CASE("tagged: no false negatives at a steady rate, either way of feeding it") {
    check_profile("steady", 1e-3, [](std::uint64_t) { return kBase; });
    check_profile(
        "steady, insert-always", 1e-3, [](std::uint64_t) { return kBase; }, Refresh::yes);
  }

  TEST_CASE("tagged: no false negatives through a 10x burst, a ramp and idle gaps") {
    check_profile("10x burst", 1e-3, [](std::uint64_t i) { return i >= 400000 && i < 800000 ? kBase / 10 : kBase; });
    check_profile("ramp up and down", 1e-2, [](std::uint64_t i) {
      const double x = static_cast<double>(i) / kRecords;
      return static_cast<Duration>(static_cast<double>(kBase) / (1.0 + 9.0 * (x < 0.5 ? 2 * x : 2 - 2 * x)));
    });
    check_profile("idle gaps of 3 spans", 1e-3, [](std::uint64_t i) { return i % 200000 == 0 ? 3 * kSpan : kBase; });
  }

  TEST_CASE("tagged: periodic keys at 1.05 windows are new every time, at 1.0 window inside the slack") {
    const double target = 1e-3;
    for (const double period : {1.05, 1.0}) {
      CAPTURE(period);
      tlbf::TaggedFilter f(tagged_config(kSpan, target, 1000));
      const std::vector<Event> ev = periodic(static_cast<Duration>(period * kSpan), 2000, 18000, 1000000);
      const Outcome o = judge(f, kSpan, ev);
      report("periodic", o, f, ev.back().t);
      CHECK(o.false_negatives == 0);
      if (period > 1.0) {
        CHECK(rate(o.beyond_reported, o.beyond) <= 1.5 * target);
      } else {
        // Every return at exactly the span's age falls in the slack and is reported, so the
        // key is new every other period.
        CHECK(o.at_span > 10000);
        CHECK(o.at_span_reported == o.at_span);
      }
    }
  }

  TEST_CASE("tagged: a jump of the rate by 10^6x grows by whole tables with no false negative") {
    const double target = 1e-3;
    const Duration span = 60 * kSec;
    tlbf::TaggedFilter f(tagged_config(span, target, 6000));
    const std::uint64_t slow = 900, fast = 1001000;
    std::vector<Event> ev;
    Time t = kSec;
    std::uint32_t most_tables = 0;
    for (std::uint64_t i = 0; i < 2 * slow + fast; ++i) {
      t += i >= slow && i < slow + fast ? 100 : kSec / 10;  // 10 a second, then 10^7 a second
      ev.push_back({t, i});
    }
    // Judged in parts, so that the tables live are seen along the way; the keys of the burst
    // are all asked again when it ends, inside the window.
    Outcome o;
    const Time burst_end = ev[slow + fast - 1].t;
    for (std::size_t from = 0; from < ev.size(); from += 100000) {
      const std::vector<Event> part(ev.begin() + static_cast<std::ptrdiff_t>(from),
                                    ev.begin() + static_cast<std::ptrdiff_t>(std::min(ev.size(), from + 100000)));
      const Outcome p = judge(f, span, part);
      o.false_negatives += p.false_negatives;
      o.inserts += p.inserts;
      most_tables = std::max(most_tables, f.shape(part.back().t).tables);
      if (part.back().t == burst_end)
        for (std::uint64_t i = 0; i < slow + fast; ++i) o.false_negatives += !f.may_contain(key(i), burst_end);
    }
    // Back at the slow rate for a window and more, all but the burst's last table have drained.
    std::uint64_t reported = 0;
    const std::uint64_t asked = 1000000;
    for (std::uint64_t q = 0; q < asked; ++q) reported += f.may_contain(absent_key(q), ev.back().t);
    MESSAGE("rate jump: " << o.inserts << " inserts, " << o.false_negatives << " false negatives, at most "
                          << most_tables << " tables, " << f.shape(ev.back().t).tables
                          << " at the end; false-positive rate then " << rate(reported, asked));
    CHECK(o.inserts >= 1000000);
    CHECK(o.false_negatives == 0);
    CHECK(most_tables <= 6);
    CHECK(f.shape(ev.back().t).tables <= 2);  // the burst's last table drains
    CHECK(rate(reported, asked) <= 1.5 * target);
  }

  TEST_CASE("tagged: the false-positive rate on 10^6 distinct keys is within 1.5x of the target, capped or not") {
    for (const double target : {1e-2, 1e-3, 1e-5}) {
      for (const bool capped : {false, true}) {
        CAPTURE(target);
        CAPTURE(capped);
        tlbf::FilterConfig cfg = tagged_config(kSpan, target, 200000);
        if (capped) cfg.max_memory_bytes = 200000;  // about a third of what 250,000 live keys take
        tlbf::TaggedFilter f(cfg);
        std::uint64_t asked = 0, reported = 0;
        Time t = kSec;
        for (std::uint64_t i = 0; i < 1000000; ++i) {
          t += 4 * kUs;  // 250,000 keys a window
          f.insert_if_absent(key(i), t);
          reported += f.may_contain(absent_key(i), t);
          ++asked;
        }
        const double measured = rate(reported, asked);
        MESSAGE("target " << target << std::string(capped ? ", capped" : "") << ": " << reported << " of " << asked
                          << " absent keys reported (" << measured << "); " << f.cap_binds() << " cap binds, "
                          << f.stats(t).bits_allocated / 8 << " bytes, " << f.stats(t).bits_per_live_key
                          << " bits per live key");
        CHECK(measured <= 1.5 * target);
        if (capped) {
          CHECK(f.cap_binds() > 0);
          CHECK(f.stats(t).bits_allocated / 8 <= cfg.max_memory_bytes);
          CHECK(f.stats(t).effective_span > 0);
          CHECK(f.stats(t).effective_span < kSpan);
        }
      }
    }
  }

  TEST_CASE("tagged: under a cap the newest keys are kept, the oldest epochs forgotten first") {
    tlbf::FilterConfig cfg = tagged_config(kSpan, 1e-3, 1000);
    cfg.max_memory_bytes = 256 * 1024;
    tlbf::TaggedFilter f(cfg);
    Time t = kSec;
    std::vector<bool> stored(400000);  // a key taken for a false positive was never inserted
    for (std::uint64_t i = 0; i < 400000; ++i) {
      t += 5 * kUs;
      stored[i] = f.insert_if_absent(key(i), t);
    }
    REQUIRE(f.cap_binds() > 0);
    const Duration kept = f.stats(t).effective_span;
    std::uint64_t missed = 0, checked = 0;
    for (std::uint64_t i = 400000; i-- > 0;) {
      const Time at = kSec + static_cast<Time>(i + 1) * 5 * kUs;
      if (t - at >= kept) break;
      if (!stored[i]) continue;
      ++checked;
      missed += !f.may_contain(key(i), t);
    }
    MESSAGE("cap of 256 KiB: effective span " << kept << " ns, " << checked << " newest keys checked");
    CHECK(checked > 1000);
    CHECK(missed == 0);
    CHECK(f.stats(t).peak_bits_allocated / 8 <= cfg.max_memory_bytes);
  }

  TEST_CASE("tagged: a burst grows the filter, which returns to one table sized for the rate") {
    tlbf::TaggedFilter f(tagged_config(kSpan, 1e-3, 1000));
    Time t = kSec;
    std::uint64_t id = 0;
    auto run = [&](Duration step, Duration length) {
      for (const Time end = t + length; t < end; t += step) f.insert_if_absent(key(id++), t);
    };
    run(50 * kUs, 3 * kSpan);  // 20,000 a span
    const tlbf::FilterStats steady = f.stats(t);
    run(5 * kUs, kSpan / 2);
    const tlbf::FilterStats burst = f.stats(t);
    run(50 * kUs, 4 * kSpan);
    const tlbf::FilterStats after = f.stats(t);
    MESSAGE("bits per live key: steady " << steady.bits_per_live_key << ", in the burst " << burst.bits_per_live_key
                                         << ", after " << after.bits_per_live_key << "; tables " << steady.slices
                                         << ", " << burst.slices << ", " << after.slices);
    CHECK(burst.bits_allocated > steady.bits_allocated);
    CHECK(after.slices == 1);
    CHECK(after.bits_allocated < burst.bits_allocated);
    CHECK(after.bits_per_live_key <= 1.5 * steady.bits_per_live_key);
    CHECK(steady.bits_per_live_key <= 32);
  }

  TEST_CASE(
      "tagged: bits per live key through a burst, a ramp and idle gaps stay within 1.5x of steady, repeated bursts "
      "2x") {
    // Every key new, a 1 s window sized for 20,000 keys, 800,000 inserts; bits per live key
    // every 1,000 inserts after the first two windows, and their median per profile. The
    // profiles of tlbf-bench-eras (bench/eras.cpp: one 10x burst, a ramp from 0.1x to 10x and
    // back by 40,000 inserts a step, gaps of 1.5 windows), and repeated bursts: 10x for a third
    // of a window every 10/3 windows, where a table sized for a window of the burst's rate and
    // kept until it had held a window stayed most of the time (2.9x steady).
    struct Profile {
      const char* name;
      std::function<Duration(std::uint64_t, Time)> step;  // to insert i, at time t
    };
    const Profile profiles[] = {
        {"steady", [](std::uint64_t, Time) { return kBase; }},
        {"burst", [](std::uint64_t i, Time) { return i >= 200000 && i < 600000 ? kBase / 10 : kBase; }},
        {"ramp",
         [](std::uint64_t i, Time) {
           static const double factors[] = {0.1, 0.3, 1, 3, 10, 3, 1, 0.3};
           return static_cast<Duration>(static_cast<double>(kBase) / factors[(i / 40000) % 8]);
         }},
        {"idle", [](std::uint64_t i, Time) { return i % 100000 == 99999 ? 3 * kSpan / 2 : kBase; }},
        {"bursts", [](std::uint64_t, Time t) { return (t % (10 * kSpan / 3)) < kSpan / 3 ? kBase / 10 : kBase; }},
    };
    double steady = 0;
    for (const Profile& p : profiles) {
      tlbf::TaggedFilter f(tagged_config(kSpan, 1e-3, 20000));
      std::deque<Time> live;
      std::vector<double> bits;
      Time t = kSec;
      for (std::uint64_t i = 0; i < 800000; ++i) {
        t += p.step(i, t);
        f.insert_if_absent(key(i), t);
        live.push_back(t);
        while (live.front() <= t - kSpan) live.pop_front();
        if (i % 1000 == 999 && t >= 3 * kSec)
          bits.push_back(static_cast<double>(f.stats(t).bits_allocated) / static_cast<double>(live.size()));
      }
      std::nth_element(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(bits.size() / 2), bits.end());
      const double median = bits[bits.size() / 2];
      if (steady == 0) steady = median;
      MESSAGE(std::string(p.name) << ": median bits per live key " << median);
      // Repeated bursts keep a burst's table for a window after each: 40 bits against 22
      // steady (43 against 29 with format 1's blocks, whose steady figure was higher).
      CHECK(median <= (std::string(p.name) == "bursts" ? 2.0 : 1.5) * steady);
    }
  }

  TEST_CASE("tagged: save and load give a filter that answers and goes on as the original") {
    tlbf::TaggedFilter f(tagged_config(kSpan, 1e-3, 1000));
    Time t = kSec;
    for (std::uint64_t i = 0; i < 60000; ++i) f.insert_if_absent(key(i % 45000), t += 20 * kUs);
    filter_checks::check_round_trip(f, tlbf::kTaggedStateTag, t, 20 * kUs);
    tlbf::TaggedFilter fresh(tagged_config(kSpan, 1e-3, 1000));
    filter_checks::check_round_trip(fresh, tlbf::kTaggedStateTag, 0, 20 * kUs);
  }

  TEST_CASE("tagged: damaged states are refused or load into a working filter") {
    tlbf::TaggedFilter f(tagged_config(kSpan, 1e-3, 100));
    Time t = kSec;
    for (std::uint64_t i = 0; i < 3000; ++i) f.insert_if_absent(key(i), t += 200 * kUs);
    filter_checks::check_damaged_state(f, tlbf::kTaggedStateTag, t, 200 * kUs);
  }

  TEST_CASE("tagged: prefetch is a hint only") {
    filter_checks::check_prefetch_is_a_hint(
        [] {
          tlbf::FilterConfig cfg = tagged_config(kSpan, 1e-3, 1000000);
          return std::make_unique<tlbf::TaggedFilter>(cfg);
        },
        50 * kUs);
  }

  TEST_CASE("tagged: parameters it cannot work with are refused") {
    tlbf::FilterConfig count = filter_checks::count_config(1000, 1e-3);
    CHECK_THROWS_AS(tlbf::TaggedFilter{count}, tlbf::invalid_parameter);
    CHECK_THROWS_AS(tlbf::TaggedFilter(tagged_config(kSpan, 0, 100)), tlbf::invalid_parameter);
    CHECK_THROWS_AS(tlbf::TaggedFilter(tagged_config(kSpan, 1e-3, 100), 1), tlbf::invalid_parameter);
    CHECK_NOTHROW(tlbf::TaggedFilter(tagged_config(kSpan, 1e-3, 100), 31));
  }
}
