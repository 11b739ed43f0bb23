// What the record loop (pipeline.cpp) does beside deciding and writing the usual record:
// records without a key (--on-error, and the run that finds no key at all), records --where
// does not select, records judged one at a time (--explain,
// --line-buffered, a decider that answers later, and the records held for its answers),
// warnings and their totals, the memory cap, checkpoints and input pauses, and how long a
// segment may be.
//
// Invariant: every warning about a record names its input and its number there, and comes
// after the warnings of the records before it; totals come at the end, once.
#include <algorithm>

#include <fmt/format.h>

#include "extract/extract_table.hpp"
#include "pipeline/pipeline.hpp"

namespace tlbf_dedup {
void Pipeline::warn_at(const SourceRecord& r, WarningKind kind, const std::string& what) {
  const std::string& input = input_name(r);
  diagnostics_->warning(Warning{kind, input, r.number, 1, fmt::format("{}: record {}: {}", input, r.number, what)});
}

void Pipeline::warn_totals() {
  keyless_.warn_totals(stats_, format_, *diagnostics_);
  clock_.warn_totals(*diagnostics_, clock_warnings_.late_fix());
  sink_->warn_totals(*diagnostics_, stats_);
  caps_.warn_total(stats_);
}

void Pipeline::explain_record(const SourceRecord& r, const std::string_view* key, const char* decision) {
  sink_->explain(ExplainLine{input_name(r), r.number, key, has_composite_key(cfg_.extract),
                             cfg_.extract.time.empty() ? nullptr : &r.time, clock_.now(), decision, format_});
}

bool Pipeline::judge_unkeyed(const SourceRecord& r) {
  keyless_.met(r, input_name(r), format_);
  if (cfg_.on_error == OnError::fail) {
    drain();
    end_sink(RecordSink::End::all_written);
    sink_->flush();
    throw keyless_.error(r, input_name(r), format_);
  }
  keyless_.count(r, input_name(r), format_, stats_, *diagnostics_);
  if (cfg_.explain > 0) {
    explain_record(r, nullptr, "error");
    return false;
  }
  if (cfg_.on_error == OnError::pass && !cfg_.output.only_dups) {
    write_undecided(r);
    return true;
  }
  return false;
}

bool Pipeline::pass_unmatched(const SourceRecord& r) {
  ++stats_.unmatched;
  if (cfg_.explain > 0) {
    explain_record(r, nullptr, "unmatched");
    return false;
  }
  if (cfg_.output.only_dups) return false;
  sink_->passed(out_record(r));
  return true;
}

void Pipeline::write_blank(const SourceRecord& r) {
  // Where the output is the input's records in their order; --only-dups and --explain write
  // records of another kind, in which a blank line has no place (nor among held records).
  // A table's header is written with --only-dups too: the output is a table.
  if ((cfg_.output.only_dups && !is_table(format_)) || cfg_.explain > 0) return;
  sink_->blank(out_record(r));
}

void Pipeline::write_undecided(const SourceRecord& r) { sink_->undecided(out_record(r), &r.time, clock_.now()); }

void Pipeline::release_answered() {
  later_.release(answers_, [this](bool dup, std::string_view key, tlbf::KeyHash hash) { count(dup, key, hash); });
}

void Pipeline::drain() {
  decider_->flush(answers_);
  release_answered();
}

void Pipeline::cap_bound(const SourceRecord& r, tlbf::Time now) {
  if (auto fatal = caps_.filter_bound(input_name(r), r.number, now, stats_)) {
    sink_->flush();
    throw *fatal;
  }
}

void Pipeline::sink_cap_bound(const SourceRecord& r, std::uint64_t early) {
  if (auto fatal = caps_.sink_bound(input_name(r), r.number, early)) {
    end_sink(RecordSink::End::all_written);
    sink_->flush();
    throw *fatal;
  }
}

int Pipeline::input_paused() {
  gate_.paused();  // a live stream stays prompt: what the checks held goes out
  // What has been decided goes out now (tail -f), and a due checkpoint runs.
  drain();
  sink_->paused(clock_.now());
  sink_->flush();
  checkpoints_.maybe(*sink_, clock_.now(), gate_.holding());
  const int wait = checkpoints_.wait_ms();
  const int sink_wait = sink_->wait_ms(clock_.now());
  return sink_wait < 0 ? wait : wait < 0 ? sink_wait : std::min(wait, sink_wait);
}

void Pipeline::judge_keyed_aside(const RecordBatch& b, const SourceRecord& r, std::size_t k) {
  const std::size_t key = segment_.first_key + k;
  if (later_.later()) {  // the record waits for its answer
    later_.awaits(DecidedRecord{out_record(r), b.keys()[key], b.hashes()[key], segment_.times[k], nullptr, false});
    release_answered();
    return;
  }
  const bool dup = answers_.take();
  if (cfg_.explain > 0) {
    static constexpr const char* kDecisions[2][4] = {{"new", "new late", "new untimed", "new future"},
                                                     {"dup", "dup late", "dup untimed", "dup future"}};
    count(dup, b.keys()[key], b.hashes()[key]);
    emitted_ = false;
    explain_record(r, b.keys() + key, kDecisions[dup][static_cast<int>(segment_.verdict)]);
  } else {
    hand_over(r, key, k, dup);
  }
  if (k + 1 == segment_.submitted) check_cap(r, k);
}

}  // namespace tlbf_dedup
