// The records beside the decisions (src/pipeline/side_records.hpp) on their own: a record
// without a key is written, dropped or fatal as --on-error says and warned about once; one
// --where did not select is written as read; --only-dups and --explain write none of them as
// read, a table's header aside.
#include <doctest/doctest.h>

#include <string>

#include "output/memory_sink.hpp"
#include "pipeline/side_records.hpp"
#include "test_helpers_cli.hpp"

namespace {
using namespace tlbf_dedup;
using tlbf_dedup_test::ManualClock;
using tlbf_dedup_test::RecordingDiagnostics;
using Kind = MemorySink::Kind;

SourceRecord record(std::string_view bytes, ExtractStatus status, std::uint64_t number = 1) {
  SourceRecord r{};
  r.bytes = bytes;
  r.number = number;
  r.status = status;
  r.term_len = 1;
  return r;
}

// A room over a sink in memory, -k 2, with the given --on-error, --only-dups and --explain.
struct Side {
  explicit Side(OnError on_error, bool only_dups = false, bool explain = false)
      : clock(ClockPolicy{}, "", 0, wall),
        side(SideConfig{&extract, on_error, only_dups, explain}, keys, sink, clock, stats, diagnostics) {
    extract.keys = {"2"};
    sink.start(SinkStart{nullptr, false, false, explain, &stats.emitted});
  }
  ExtractConfig extract;
  ManualClock wall;
  DecisionClock clock;
  KeyCheck keys{false};
  MemorySink sink;
  RunStats stats;
  RecordingDiagnostics diagnostics;
  SideRecords side;
};

}  // namespace

TEST_SUITE("side_records") {
  TEST_CASE("a record without a key is passed through as read, counted, and warned about once") {
    Side s(OnError::pass);
    const SourceRecord a = record("lonely\n", ExtractStatus::missing_key, 3);
    const SourceRecord b = record("alone\n", ExtractStatus::missing_key, 4);
    CHECK_FALSE(s.side.fatal(a, "in.log", InputFormat::lines).has_value());
    CHECK(s.side.unkeyed(a, "in.log", InputFormat::lines));
    CHECK(s.side.unkeyed(b, "in.log", InputFormat::lines));
    REQUIRE(s.sink.entries.size() == 2);
    CHECK(s.sink.entries[0].kind == Kind::undecided);
    CHECK(s.sink.entries[1].bytes == "alone\n");
    CHECK(s.stats.missing_key == 2);
    CHECK(s.stats.emitted == 2);
    REQUIRE(s.diagnostics.warnings.size() == 1);
    CHECK(s.diagnostics.warnings[0].message.find("in.log: record 3:") == 0);
  }

  TEST_CASE("--on-error drop writes nothing, --on-error fail is the run's error naming the record") {
    Side drop(OnError::drop);
    CHECK_FALSE(drop.side.unkeyed(record("x\n", ExtractStatus::missing_key), "in.log", InputFormat::lines));
    CHECK(drop.sink.entries.empty());
    CHECK(drop.stats.missing_key == 1);

    Side fail(OnError::fail);
    const auto error = fail.side.fatal(record("{\n", ExtractStatus::malformed, 7), "in.json", InputFormat::json);
    REQUIRE(error.has_value());
    CHECK(std::string(error->what()).find("in.json: record 7:") == 0);
    CHECK(std::string(error->what()).find("(--on-error fail)") != std::string::npos);
    CHECK(fail.sink.entries.empty());
  }

  TEST_CASE("a record --where did not select is written as read, not with --only-dups") {
    Side s(OnError::pass);
    CHECK(s.side.unmatched(record("other 1\n", ExtractStatus::unmatched), "in.log", InputFormat::lines));
    REQUIRE(s.sink.entries.size() == 1);
    CHECK(s.sink.entries[0].kind == Kind::passed);
    CHECK(s.stats.unmatched == 1);

    Side dups(OnError::pass, true);
    CHECK_FALSE(dups.side.unmatched(record("other 1\n", ExtractStatus::unmatched), "in.log", InputFormat::lines));
    CHECK(dups.sink.entries.empty());
    CHECK(dups.stats.unmatched == 1);
  }

  TEST_CASE("with --only-dups a blank line is not written, a table's header is") {
    Side s(OnError::pass, true);
    s.side.blank(record("\n", ExtractStatus::blank), InputFormat::json);
    CHECK(s.sink.entries.empty());
    s.side.blank(record("id,ts\n", ExtractStatus::blank), InputFormat::csv);
    REQUIRE(s.sink.entries.size() == 1);
    CHECK(s.sink.entries[0].kind == Kind::blank);
  }

  TEST_CASE("--explain writes a line for every record instead of it") {
    Side s(OnError::pass, false, true);
    CHECK_FALSE(s.side.unkeyed(record("x\n", ExtractStatus::missing_key), "in.log", InputFormat::lines));
    CHECK_FALSE(s.side.unmatched(record("y\n", ExtractStatus::unmatched), "in.log", InputFormat::lines));
    s.side.blank(record("\n", ExtractStatus::blank), InputFormat::json);
    s.side.explain_keyed(record("z 1\n", ExtractStatus::ok), "in.log", "1", true, TimeVerdict::late,
                         InputFormat::lines);
    s.side.explain_keyed(record("z 2\n", ExtractStatus::ok), "in.log", "2", false, TimeVerdict::accepted,
                         InputFormat::lines);
    REQUIRE(s.sink.entries.size() == 4);
    CHECK(s.sink.entries[0].bytes == "error");
    CHECK(s.sink.entries[1].bytes == "unmatched");
    CHECK(s.sink.entries[2].bytes == "dup late");
    CHECK(s.sink.entries[3].bytes == "new");
    for (const auto& e : s.sink.entries) CHECK(e.kind == Kind::explained);
  }
}
