// The bit-sliced cells (include/tlbf/detail/run_cells.hpp) against a model of their slots, a
// bit per (slot, cell): reads from any bit, aging in place and into other widths, widening and
// narrowing, clearing a slot, and the two resizes that keep every answer, upsample() and
// fold(), at widths from 1 to past 64 slots (a cell in one word, straddling two, or several).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tlbf/detail/run_cells.hpp"
#include "tlbf/hash.hpp"

namespace {

using tlbf::detail::RunCells;

// The cells as slots x cells bits, bit (s, x) = slot s of cell x.
struct Model {
  std::uint32_t slots;
  std::uint64_t cells;
  std::vector<std::vector<bool>> bit;  // [slot][cell]

  Model(std::uint32_t s, std::uint64_t m) : slots(s), cells(m), bit(s, std::vector<bool>(m)) {}
  static Model of(const RunCells& c) {
    Model m(c.slots(), c.cells());
    for (std::uint32_t s = 0; s < c.slots(); ++s)
      for (std::uint64_t x = 0; x < c.cells(); ++x) m.bit[s][x] = tlbf::detail::test_bit(c.data(), x * c.slots() + s);
    return m;
  }
};

void fill(RunCells& c, Model& m, std::mt19937_64& rng, double density) {
  std::bernoulli_distribution set(density);
  for (std::uint32_t s = 0; s < m.slots; ++s)
    for (std::uint64_t x = 0; x < m.cells; ++x)
      if (set(rng)) {
        c.set(x * m.slots + s);
        m.bit[s][x] = true;
      }
}

bool same(const RunCells& c, const Model& m) {
  const Model got = Model::of(c);
  return got.slots == m.slots && got.cells == m.cells && got.bit == m.bit &&
         c.data()[c.word_count()] == 0;  // the guard word
}

const std::uint32_t kWidths[] = {1, 2, 3, 7, 13, 32, 57, 63, 64, 65, 71, 127, 128, 150};

// Cells `from` slots wide, aged into and resized to `to` slots, against the model: aging moves
// every slot up one, resizing keeps the slots below the new width.
void check_relayout(std::uint32_t from, std::uint32_t to, std::mt19937_64& rng) {
  for (const std::uint64_t cells : {std::uint64_t{64}, std::uint64_t{320}}) {
    CAPTURE(from);
    CAPTURE(to);
    CAPTURE(cells);
    RunCells aged, resized;
    Model m(from, cells);
    aged.reset(from, cells);
    fill(aged, m, rng, 0.5);
    resized = aged;
    aged.age_into(to);
    resized.resize_slots(to);
    Model want_aged(to, cells), want_resized(to, cells);
    for (std::uint32_t s = 1; s < to && s - 1 < from; ++s) want_aged.bit[s] = m.bit[s - 1];
    for (std::uint32_t s = 0; s < to && s < from; ++s) want_resized.bit[s] = m.bit[s];
    CHECK(same(aged, want_aged));
    CHECK(same(resized, want_resized));
  }
}

}  // namespace

TEST_SUITE("run_cells") {
  TEST_CASE("bits64() reads the 64 bits from any bit, past the cell into the next ones") {
    std::mt19937_64 rng(1);
    for (const std::uint32_t slots : kWidths) {
      CAPTURE(slots);
      RunCells c;
      c.reset(slots, 128);
      Model m(slots, 128);
      fill(c, m, rng, 0.5);
      for (int i = 0; i < 500; ++i) {
        const std::uint64_t at = rng() % c.bits();
        std::uint64_t want = 0;
        for (unsigned b = 0; b < 64 && at + b < c.bits(); ++b) {
          const std::uint64_t bit = at + b;
          want |= static_cast<std::uint64_t>(m.bit[bit % slots][bit / slots]) << b;
        }
        REQUIRE(c.bits64(at) == want);
      }
    }
  }

  TEST_CASE("aging moves every slot up one, in place or into another width, and empties slot 0") {
    std::mt19937_64 rng(2);
    for (const std::uint32_t slots : kWidths) {
      for (const std::uint32_t to : {slots, slots + 1, slots + 9, slots > 3 ? slots - 3 : 1u}) {
        CAPTURE(slots);
        CAPTURE(to);
        RunCells c;
        c.reset(slots, 192);
        Model m(slots, 192);
        fill(c, m, rng, 0.4);
        c.age_into(to);
        Model want(to, 192);
        for (std::uint32_t s = 1; s < to && s - 1 < slots; ++s) want.bit[s] = m.bit[s - 1];
        CHECK(same(c, want));
      }
    }
  }

  TEST_CASE("64- and 128-slot aging leaves the words alike in every instruction set this processor runs") {
    using tlbf::detail::AgeIsa;
    std::mt19937_64 rng(7);
    std::vector<AgeIsa> isas{AgeIsa::portable};
#if defined(__SSE2__)
    isas.push_back(AgeIsa::sse2);
#endif
    if (tlbf::detail::best_age_isa() == AgeIsa::avx2) isas.push_back(AgeIsa::avx2);
    MESSAGE("aging variants checked: " << isas.size() << " (portable, SSE2, AVX2 where the processor has them)");
    // Lengths below, at and past each variant's block (2, 4, 8 words), so every tail runs.
    for (const std::uint64_t n : {0, 2, 4, 6, 8, 10, 14, 16, 18, 30, 64, 130}) {
      std::vector<std::uint64_t> words(n + 1);  // + a word past the end that must not change
      for (auto& w : words) w = rng();
      // The expected words, one at a time: 64 slots shift each word; 128 slots carry a cell's
      // low top bit into its high word.
      std::vector<std::uint64_t> want64 = words, want128 = words;
      for (std::uint64_t i = 0; i < n; ++i) want64[i] = words[i] << 1;
      for (std::uint64_t i = 0; i < n; i += 2) {
        want128[i] = words[i] << 1;
        want128[i + 1] = (words[i + 1] << 1) | (words[i] >> 63);
      }
      for (const AgeIsa isa : isas) {
        CAPTURE(n);
        CAPTURE(static_cast<int>(isa));
        std::vector<std::uint64_t> got64 = words, got128 = words;
        tlbf::detail::age_words_64(got64.data(), n, isa);
        tlbf::detail::age_cells_128(got128.data(), n, isa);
        CHECK(got64 == want64);
        CHECK(got128 == want128);
      }
    }
  }

  TEST_CASE("probe_cells() gives run_probe() and its cell in every instruction set this processor runs") {
    using tlbf::detail::AgeIsa;
    std::mt19937_64 rng(11);
    std::vector<AgeIsa> isas{AgeIsa::portable};
    if (tlbf::detail::best_age_isa() == AgeIsa::avx2) isas.push_back(AgeIsa::avx2);
    MESSAGE("probe variants checked: " << isas.size() << " (portable, AVX2 where the processor has it)");
    // Cell counts at the edges of the four-at-a-time path (1, 2^32 - 1) and past it (2^32 on:
    // one at a time), and random ones of every magnitude.
    std::vector<std::uint64_t> counts{1, 2, 64, 4096, 0x80000000ULL, 0xffffffffULL, 0x100000000ULL, ~std::uint64_t{0}};
    for (int i = 0; i < 200; ++i) counts.push_back((rng() >> (rng() % 64)) | 1);
    for (const std::uint64_t cells : counts) {
      for (const std::uint32_t k : {1u, 3u, 4u, 5u, 21u, 63u}) {
        const tlbf::KeyHash h{rng(), rng()};
        for (const AgeIsa isa : isas) {
          CAPTURE(cells);
          CAPTURE(k);
          CAPTURE(static_cast<int>(isa));
          std::uint64_t x[64], cell[64], only[64];
          tlbf::detail::probe_cells(h, k, cells, x, cell, isa);
          tlbf::detail::probe_cells(h, k, cells, nullptr, only, isa);
          bool same = true;
          for (std::uint32_t p = 0; p < k; ++p) {
            const std::uint64_t want = tlbf::detail::run_probe(h, p);
            same = same && x[p] == want && cell[p] == tlbf::reduce(want, cells) && only[p] == cell[p];
          }
          CHECK(same);
        }
      }
    }
  }

  TEST_CASE("between widths that are powers of two, cells move a word at a time, as at any width") {
    std::mt19937_64 rng(4);
    for (std::uint32_t from = 1; from <= 64; from *= 2)
      for (std::uint32_t to = 1; to <= 64; to *= 2)
        if (to != from) check_relayout(from, to, rng);
  }

  TEST_CASE("between widths that are multiples of 64, cells move a word at a time, as at any width") {
    std::mt19937_64 rng(6);
    for (const std::uint32_t from : {64u, 128u, 192u, 512u})
      for (const std::uint32_t to : {64u, 128u, 192u, 512u})
        if (to != from) check_relayout(from, to, rng);
  }

  TEST_CASE("resize_slots() keeps the slots below the new width, clear_slot() empties one slot") {
    std::mt19937_64 rng(3);
    for (const std::uint32_t slots : kWidths) {
      for (const std::uint32_t to : {slots + 1, slots + 64, slots / 2 + 1}) {
        CAPTURE(slots);
        CAPTURE(to);
        RunCells c;
        c.reset(slots, 128);
        Model m(slots, 128);
        fill(c, m, rng, 0.5);
        c.resize_slots(to);
        Model want(to, 128);
        for (std::uint32_t s = 0; s < to && s < slots; ++s) want.bit[s] = m.bit[s];
        CHECK(same(c, want));
        const std::uint32_t cleared = static_cast<std::uint32_t>(rng() % to);
        c.clear_slot(cleared);
        want.bit[cleared].assign(128, false);
        CHECK(same(c, want));
      }
    }
  }

  TEST_CASE("upsample() and fold() keep the bit every probe value finds") {
    // reduce(x, c m) / c == reduce(x, m): after upsample(c) a probe finds the bit it found; a
    // fold(c) ORs the c cells a probe could land on into the one it lands on now.
    std::mt19937_64 rng(4);
    for (const std::uint32_t slots : kWidths) {
      for (const std::uint32_t factor : {2u, 3u, 4u}) {
        CAPTURE(slots);
        CAPTURE(factor);
        const std::uint64_t cells = 64 * factor * 2;
        RunCells c;
        c.reset(slots, cells);
        Model m(slots, cells);
        fill(c, m, rng, 0.05);
        RunCells up = c;
        up.upsample(factor);
        REQUIRE(up.cells() == cells * factor);
        RunCells down = c;
        down.fold(factor);
        REQUIRE(down.cells() == cells / factor);
        for (int i = 0; i < 2000; ++i) {
          const std::uint64_t x = rng();
          const std::uint32_t s = static_cast<std::uint32_t>(rng() % slots);
          const bool was = m.bit[s][tlbf::reduce(x, cells)];
          CHECK(tlbf::detail::test_bit(up.data(), up.cell_of(x) + s) == was);
          if (was) CHECK(tlbf::detail::test_bit(down.data(), down.cell_of(x) + s));
        }
        // Each folded cell is the OR of the c cells it stands for, nothing more.
        Model want(slots, cells / factor);
        for (std::uint32_t s = 0; s < slots; ++s)
          for (std::uint64_t x = 0; x < cells; ++x)
            if (m.bit[s][x]) want.bit[s][x / factor] = true;
        CHECK(same(down, want));
        CHECK(up.data()[up.word_count()] == 0);
      }
    }
  }

  TEST_CASE("cells widen in place within their reservation, which is bounded") {
    RunCells c;
    c.reset(1, 4096);
    c.reserve_slots(40);
    const std::uint64_t* before = c.data();
    for (std::uint32_t s = 2; s <= 40; ++s) c.age_into(s);
    CHECK(c.data() == before);
    CHECK(c.reserved_bytes() == (std::uint64_t{40} * 4096 / 64 + 1) * 8);

    // 2^26 cells: 64 slots would be 512 MiB; the reservation stops at kMaxReserveBytes.
    RunCells big;
    big.reset(1, std::uint64_t{1} << 26);
    big.reserve_slots(64);
    CHECK(big.reserved_bytes() <= RunCells::kMaxReserveBytes + 8);
    CHECK(big.reserved_bytes() >= RunCells::kMaxReserveBytes / 2);
  }
}
