// The in-order sink (src/output/in_order_sink.hpp) over a memory sink: records handed over
// behind one that awaits its answer go on only after it, in input order, as copies.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "output/in_order_sink.hpp"
#include "output/memory_sink.hpp"

namespace {
using namespace tlbf_dedup;
using K = MemorySink::Kind;

OutRecord line(const std::string& s) { return OutRecord{s, s.size() - 1, InputFormat::lines, true}; }

std::vector<K> kinds(const MemorySink& m) {
  std::vector<K> out;
  for (const MemorySink::Entry& e : m.entries) out.push_back(e.kind);
  return out;
}
}  // namespace

TEST_SUITE("in_order_sink") {
  TEST_CASE("what follows a record awaiting its answer waits behind it, and goes on in order") {
    MemorySink memory;
    InOrderSink sink(memory);
    std::uint64_t emitted = 0;
    sink.start(SinkStart{nullptr, false, false, false, &emitted});
    sink.passed(line("p0\n"));  // nothing waits: straight through
    REQUIRE(memory.entries.size() == 1);

    std::string a = "a\n", b = "b\n";
    sink.awaits(DecidedRecord{line(a), "ka", tlbf::KeyHash{1, 2}, 7, nullptr, false});
    sink.undecided(line("u\n"), nullptr, 8);
    sink.awaits(DecidedRecord{line(b), "kb", tlbf::KeyHash{3, 4}, 9, nullptr, false});
    sink.blank(line("\n"));
    a = "X\n";  // the reader moves on: what waits is a copy
    CHECK(memory.entries.size() == 1);
    CHECK(sink.waiting());

    const InOrderSink::Released first = sink.answer(true);
    CHECK(first.fate.dup);
    CHECK(first.key == "ka");
    CHECK(first.hash == tlbf::KeyHash{1, 2});
    CHECK(kinds(memory) == std::vector<K>{K::passed, K::decided, K::undecided});
    CHECK(memory.entries[1].bytes == "a\n");
    CHECK(memory.entries[1].at == 7);
    CHECK(sink.waiting());

    const InOrderSink::Released second = sink.answer(false);
    CHECK_FALSE(second.fate.dup);
    CHECK(second.key == "kb");
    CHECK(kinds(memory) == std::vector<K>{K::passed, K::decided, K::undecided, K::decided, K::blank});
    CHECK_FALSE(sink.waiting());
    CHECK(emitted == 3);  // the passed, undecided and new records; not the duplicate nor the blank
  }
}
