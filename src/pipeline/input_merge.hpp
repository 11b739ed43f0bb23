// Records in time order for a run with -t: several inputs merged by their record times (a
// k-way merge, each input read in its own order, ties by input position), and records held
// until the clock has passed them by --lateness (a watermark), then handed to the record loop
// (a BatchSink) oldest first, ties by arrival. What the filters need (filter.hpp: a clock that
// does not go back) is given here for streams that are out of order by at most the lateness.
//
// Invariants:
//  - Every record read is handed over exactly once, byte for byte, with its input's name and
//    its number there; at the end, on an input error and after a stop signal, the held
//    records and the inputs' next records are handed over first (RecordBatch::judge_all).
//  - A record arriving behind the watermark (later than the lateness allows) is not held: it
//    goes out at once and the decision clock calls it late (decision_clock.hpp).
//  - Memory is a reader buffer per input plus the held records, at most max_held_bytes of
//    them: past that the oldest go out early, counted (MergeStats::released_early).
//  - A record without a readable time keeps its place after the record before it in its
//    input (it is ordered at that record's time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "decide/key_hasher.hpp"
#include "input/record_reader.hpp"
#include "pipeline/held_queue.hpp"
#include "pipeline/read_ahead.hpp"
#include "pipeline/record_source.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

struct MergeConfig {
  bool merge = true;            // several inputs merged by time; false: read one after another
  tlbf::Duration lateness = 0;  // --lateness: how long a record is held for records older than it
  // (Held records, one at most this long, fit the 32-bit sizes of their bookkeeping.)
  std::size_t max_held_bytes = std::size_t{256} << 20;
  std::optional<tlbf::Duration> max_future;  // ClockPolicy::max_future: later times do not order
};

// What holding cost, for --stats.
struct MergeStats {
  std::uint64_t held_most = 0;        // records held at once, at most
  std::uint64_t held_most_bytes = 0;  // their bytes
  std::uint64_t released_early = 0;   // records let go before the lateness passed (memory)
};

// A lane's head in the merge's tournament: its time (sign bit flipped) above its lane's index.
__extension__ using TournamentKey = unsigned __int128;

class InputMerge {
 public:
  // Inputs an open file each at once, with room left for the program's own.
  static constexpr std::size_t kSpareDescriptors = 32;

  // `paths`: the inputs (empty or "-": stdin). Throws std::runtime_error when more inputs are
  // to be merged than descriptors can be opened, or stdin is given twice.
  InputMerge(std::vector<std::string> paths, const ReaderConfig& reader, MergeConfig merge, SourceConfig source,
             const KeyHasher& hasher, Clock& wall);
  ~InputMerge();
  InputMerge(const InputMerge&) = delete;
  InputMerge& operator=(const InputMerge&) = delete;

  // Reads every input and hands the records to `sink` in time order, in batches; returns
  // after sink.reached_end(), or early once *stop is set or the sink stopped (the held records
  // judged first). Rethrows an input's error after the records read before it were judged.
  // `ahead`: the merging runs on a second thread, one batch ahead of the sink (every input a
  // regular file, inputs_are_regular_files()), as RecordSource::run_ahead() reads.
  void run(BatchSink& sink, const volatile int* stop, bool ahead = false);

  std::uint64_t total_size() const;
  // Every input is a regular file: no read waits for the other end of a pipe, so a thread merging them can
  // always be stopped and joined.
  bool inputs_are_regular_files() const;
  const MergeStats& stats() const { return stats_; }

 private:
  struct Lane;

  // The lane's next record (its head), extracted; false at its end.
  bool advance(Lane& lane);
  void choose_format(InputFormat format, std::string_view chosen_by = {});
  void make_extractor(Lane& lane);
  // A record taken from the merge: held, or handed on at once.
  void arrive(Lane& lane);
  // A record over the memory cap alone, which is not held: it goes out at once where holding
  // it would have put it.
  void put_over_cap(tlbf::Time t, const MergeItem& item);
  // Held records up to `watermark` go out, oldest first.
  void release(tlbf::Time watermark);
  // The batch being filled, told the format first.
  RecordBatch& batch_for_record();
  // A record into the batch: its parts are copied there.
  void put(const MergeItem& item);
  // A held record into the batch, which points into its chunk.
  void put_held(const HeldQueue::Stored& held);
  // A record's `key` into the batch `b`: its bytes (`stored()`, where they stay while the batch
  // is judged) only where the run reads them, its hash unless the judging thread makes it.
  template <class Stored>
  void put_key(RecordBatch& b, std::string_view key, Stored&& stored);
  // The held chunks a batch handed back pointed into are given back.
  void unpin(RecordBatch& b);
  void hand_over(bool last);
  // The lanes' heads and the held records all go out (the end, an error, a stop).
  void flush_all();
  // Lane `l`'s leaf in the tournament set to its head (or to none at its end), and the
  // winners on its way up decided again.
  void replay(std::uint32_t l);
  // The merge loop, then the held records and the inputs' next records; hands over the last
  // batch (its end, or the error that ended it).
  void produce();
  bool stopping() const { return stop_ && *stop_; }
  int paused(Lane& lane);

  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<std::string> names_;  // the inputs' names, as opened
  // A tournament of the lanes' heads (a winner tree): leaf width_ + l is lane l's head as
  // (time, l) in one number, each node above the earlier of its two, node 1 the earliest
  // head. One path of compares a record, without branches (the lanes' heads take turns at
  // random: a heap's compares were mispredicted about every other one).
  std::vector<TournamentKey> tree_;
  std::size_t width_ = 1;  // leaves: the lanes, rounded up to a power of two
  MergeConfig cfg_;
  SourceConfig source_;
  const KeyHasher* hasher_;
  Clock* wall_;
  std::optional<InputFormat> format_;  // the run's format, once known
  std::string chosen_by_;              // in auto mode, the record that chose it
  bool format_announced_ = false;
  tlbf::Time future_limit_ = 0;
  tlbf::Time newest_ = INT64_MIN;       // the latest record time read (the watermark is it less the lateness)
  tlbf::Time released_to_ = INT64_MIN;  // the watermark held records went out up to
  std::uint64_t arrivals_ = 0;          // records taken from the lanes, for ties among held ones
  std::uint64_t read_ = 0;              // records read (not blank, not continuation lines), for SourceConfig::limit
  std::unique_ptr<HeldQueue> held_;
  std::unique_ptr<RecordBatch> own_batch_;             // the batch filled when the sink takes them here
  RecordBatch* batch_ = nullptr;                       // the batch being filled
  std::size_t pinned_bytes_ = 0;                       // of held chunks, by its records
  std::unique_ptr<ReadAheadQueue<RecordBatch>> pool_;  // with a merging thread
  std::exception_ptr thread_error_;                    // what ended the merging thread, if not the end
  BatchSink* sink_ = nullptr;
  const volatile int* stop_ = nullptr;
  bool sink_stopped_ = false;
  bool in_sink_ = false;            // in a call to the sink: its exceptions pass through
  std::int64_t paused_since_ = -1;  // steady ns when the input paused with records held
  std::string last_name_;
  MergeStats stats_;
};

}  // namespace tlbf_dedup
