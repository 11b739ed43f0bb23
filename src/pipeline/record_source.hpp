// The record source: the reader and the extractor together yield batches of records, each
// with its bytes, key, key hash, time reading and place (input and record number). The same
// loop runs on the thread that judges the records (run()) or one batch ahead on a thread of
// its own (run_ahead()), so what happens at a new input (the year of year-less stamps starts
// again, the extractor is made again), the choice of format and the leading blank records
// held until it is made are written once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "base/clock.hpp"
#include "base/slab.hpp"
#include "decide/key_hasher.hpp"
#include "extract/extract.hpp"
#include "extract/timestamp.hpp"
#include "input/input_format.hpp"
#include "input/record_reader.hpp"
#include "pipeline/read_ahead.hpp"
#include "tlbf/types.hpp"

namespace tlbf_dedup {

// Asks for the cache line at `p` in a state a store can take at once. Read ahead, a batch's
// memory was last read by the judging thread on the other core, and a plain store waits for
// that core to give the line up: without this the reading thread stalled some 125 ns a record
// on the steady text (its CPU time 0.40-0.55 s against 0.25 for one thread doing everything).
// PREFETCHW where the CPU has it; elsewhere the compiler's write prefetch.
#if defined(__x86_64__)
inline const bool kPrefetchW = [] {  // CPUID 0x80000001, ECX bit 8 (PRFCHW / 3DNowPrefetch)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 8)) != 0;
}();
inline void prefetch_to_write(const void* p) {
  if (kPrefetchW) asm volatile("prefetchw %0" ::"m"(*static_cast<const char*>(p)));
}
#else
inline void prefetch_to_write(const void* p) { __builtin_prefetch(p, 1); }
#endif

// One record and what the extractor made of it. The key and its hash of a record that has
// one are in its batch (RecordBatch::keys(), hashes()), in record order.
struct SourceRecord {
  std::string_view bytes;  // exactly as read, terminator included
  TimeReading time;        // with -t
  std::uint64_t number;    // the record's number in its input
  std::uint64_t at;        // the bytes of the batch's records before it
  std::uint32_t input;     // its input's name: RecordBatch::names[input]
  std::uint32_t absent_part;
  ExtractStatus status;
  std::uint8_t term_len;
  bool keyed;      // status ok, and not continues: its key and hash are in the batch
  bool continues;  // lines that continue the record before (Record::continues): only bytes
  // A leading blank record, held until the format was known: its bytes are a copy that lives
  // only as long as the batch; any other record's stay until the batch is handed back.
  bool replayed;

  std::size_t text_size() const { return bytes.size() - term_len; }
};

// Records as the source hands them over. Every view points into the reader's buffer (records
// read on the judging thread), into `bytes` (records copied: read ahead, or replayed) or into
// `side` (keys and time texts that were not inside their record). A batch's arrays start in
// slabs of a huge-page block of its own (base/slab.hpp) and go to the heap when they outgrow
// them; clear() takes the bytes back into theirs.
class RecordBatch {
  // Declared first: the containers below take their slabs from it.
  static constexpr std::size_t kBlockBytes = std::size_t{2} << 20;
  HugeBlock block_{kBlockBytes};
  enum SlabIndex { kRecordSlab, kKeySlab, kHashSlab, kByteSlab, kSlabs };
  std::array<Slab, kSlabs> slabs_ = carve(block_.data());

 public:
  using Store = std::basic_string<char, std::char_traits<char>, SlabAllocator<char>>;

  // Read ahead, a batch is full at kBytes of records or kItems records, whichever comes first
  // (short records: each takes some 120 bytes besides its bytes). A longer record still goes
  // in whole (the batch grows to it and is shrunk back when it is filled next).
  static constexpr std::size_t kBytes = std::size_t{512} << 10;
  static constexpr std::size_t kItems = 4096;
  // How far ahead of the slot being filled its lines are asked for (prefetch_to_write()):
  // records and keys, and bytes of copies.
  static constexpr std::size_t kAheadItems = 8;
  static constexpr std::size_t kAheadBytes = 512;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const SourceRecord& operator[](std::size_t i) const { return records_[i]; }
  // The keys of the records that have one, in record order (empty views unless the source
  // keeps keys, SourceConfig::keep_keys), and their hashes.
  std::size_t keyed() const { return keyed_; }
  // The bytes of records [i, j), i < j.
  std::uint64_t bytes_between(std::size_t i, std::size_t j) const {
    return records_[j - 1].at + records_[j - 1].bytes.size() - records_[i].at;
  }
  const std::string_view* keys() const { return keys_.data(); }
  const tlbf::KeyHash* hashes() const { return hashes_.data(); }

  Store bytes{SlabAllocator<char>(&slabs_[kByteSlab])};
  Store side;
  std::vector<std::string> names;           // the inputs the records name
  std::size_t named_input = 0;              // the reader's input_number() of names.back(); 0: none yet
  InputFormat format = InputFormat::lines;  // what the records are read as
  // The format was chosen by the content of this batch's first record with content (before
  // it, the records were held), not given and not fallen back to.
  bool format_detected = false;
  // Set on the last batch: an error of the reader (after the records), or the end of input
  // with the reader's current input name there.
  std::exception_ptr error;
  bool end = false;
  std::string end_name;
  // Every record is judged, even after a stop signal: the batch's source looks at the stop
  // itself, and what it hands over was read (input_merge.hpp: held records go out at a stop).
  bool judge_all = false;
  // What the records point into that their source gives back when it has the batch to fill
  // again (InputMerge: a held chunk's number, and how many of its records); clear() keeps it.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pinned;
  // The keys are in place but their hashes are not yet (set by the source, which reads ahead
  // and leaves the hashing to the judging thread: hash_keys()); clear() resets it.
  bool hashes_pending = false;
  bool drop_keys = false;  // ... and the keys' bytes are not wanted once hashed

  // The hashes of the keys, and with drop_keys the keys emptied.
  void hash_keys(const KeyHasher& hasher);

  void clear();
  // Full at `items` records or kBytes of copies.
  bool full(std::size_t items) const { return size_ >= items || bytes.size() >= kBytes; }
  // A record of `bytes` at the end, whose other fields the caller sets (the slot is reused).
  SourceRecord& append(std::string_view record) {
    if (size_ == room_) grow();
    if (size_ + kAheadItems < room_) prefetch_to_write(&records_[size_ + kAheadItems]);
    SourceRecord& r = records_[size_++];
    r.bytes = record;
    r.at = total_;
    total_ += record.size();
    return r;
  }
  void append_key(std::string_view key, tlbf::KeyHash hash) {
    if (keyed_ == key_room_) grow_keys();
    if (keyed_ + kAheadItems < key_room_) {
      prefetch_to_write(&keys_[keyed_ + kAheadItems]);
      prefetch_to_write(&hashes_[keyed_ + kAheadItems]);
    }
    keys_[keyed_] = key;
    hashes_[keyed_++] = hash;
  }
  // The index in `names` of the input being read, naming it first if it is new to the batch.
  std::uint32_t name(const RecordReader& in) {
    if (named_input != in.input_number()) {
      names.push_back(in.current_name());
      named_input = in.input_number();
      name_ = static_cast<std::uint32_t>(names.size() - 1);
    }
    return name_;
  }
  // Appends `v` to `store` (bytes or side) and returns where it is now; the views of records
  // already in the batch follow the store when it moves.
  std::string_view keep(Store& store, std::string_view v);
  // Where a view into record `raw` (its key, its time text) is, the record now at `copy`:
  // inside the copy where it was inside the record, else kept in `side` (the extractor's, or
  // the held queue's, until its next record).
  std::string_view place(std::string_view v, std::string_view raw, std::string_view copy) {
    const std::uintptr_t offset =
        reinterpret_cast<std::uintptr_t>(v.data()) - reinterpret_cast<std::uintptr_t>(raw.data());
    if (offset <= raw.size() && v.size() <= raw.size() - offset) return {copy.data() + offset, v.size()};
    return v.empty() ? std::string_view() : keep(side, v);
  }

  RecordBatch();
  RecordBatch(const RecordBatch&) = delete;  // the containers point into the block
  RecordBatch& operator=(const RecordBatch&) = delete;

 private:
  template <class T>
  using Array = std::vector<T, SlabAllocator<T>>;
  // The slabs of a block: kItems records, keys and hashes, the rest for bytes.
  static std::array<Slab, kSlabs> carve(std::byte* block);
  void grow();
  void grow_keys();

  Array<SourceRecord> records_{SlabAllocator<SourceRecord>(&slabs_[kRecordSlab])};  // the first size_ are the batch's
  std::size_t size_ = 0, room_ = 0;
  std::uint64_t total_ = 0;  // the bytes of the records
  Array<std::string_view> keys_{
      SlabAllocator<std::string_view>(&slabs_[kKeySlab])};  // the first keyed_ are the batch's
  Array<tlbf::KeyHash> hashes_{SlabAllocator<tlbf::KeyHash>(&slabs_[kHashSlab])};
  std::size_t keyed_ = 0, key_room_ = 0;
  std::uint32_t name_ = 0;
};

// Where a source's batches are judged (the pipeline). Every call comes from the thread that
// called RecordSource::run() or run_ahead().
class BatchSink {
 public:
  // Judges the records of `batch` in order; returns how many it judged (fewer once stopped()).
  virtual std::size_t take(const RecordBatch& batch) = 0;
  // The run wants no more records (a stop signal, or the untimed probe failed).
  virtual bool stopped() const = 0;
  // The memory of the records handed over so far is about to be reused: nothing may point
  // into it any more.
  virtual void release_records() = 0;
  // The input paused with every record read so far judged: returns how many ms to wait for
  // more before asking again (-1: as long as it takes).
  virtual int input_paused() = 0;
  // The source read to the end of input (or of --explain's records) and every record was
  // judged: the reader's current input is `name`.
  virtual void reached_end(const std::string& name) = 0;

 protected:
  ~BatchSink() = default;
};

// The extractor for records of one format. `chosen_by`: in auto mode, the record whose first
// byte chose lines; a key spec only JSON reads then says so, and how to read JSON (-f json).
std::unique_ptr<Extractor> make_extractor(InputFormat format, const ExtractConfig& cfg, const TimeParser& time_parser,
                                          std::string_view chosen_by = {});

// The judging side of reading ahead: takes the batches `producer` publishes in `queue` and
// hands them to `sink` in order, until the last (its end, its error, or a stop of the sink);
// rethrows a batch's error after its records were judged. On every way out the queue is
// stopped and the producer joined. `hasher`: the keys of batches with hashes_pending are
// hashed here first (the judging thread's share of the work).
void judge_ahead(ReadAheadQueue<RecordBatch>& queue, std::thread& producer, BatchSink& sink,
                 const KeyHasher* hasher = nullptr);

struct SourceConfig {
  InputFormat format = InputFormat::auto_detect;
  ExtractConfig extract;
  TimeParser time_parser{TimeFormat::auto_detect, std::nullopt, 1970};
  std::optional<int> year;  // ClockPolicy::year
  std::uint64_t limit = 0;  // records to read at most (--explain); 0: all
  // The keys' bytes are wanted (--top, --explain, a decider that sends them elsewhere); else
  // only their hashes.
  bool keep_keys = true;
};

class RecordSource {
 public:
  // Leading blank records are held up to this many bytes, and this many records, before the
  // input is taken for lines (held, each costs a record of a batch when it is judged: a
  // stream of empty records once held a million of them, some 200 MB).
  static constexpr std::size_t kMaxHeldBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxHeldBlanks = 4096;
  // Batches in the read-ahead pool: one judged, one filled, one spare, so neither thread
  // waits on a batch boundary.
  static constexpr std::size_t kBatches = 3;
  // Records in a batch judged on the reading thread: few enough that the batch is still in
  // the cache when its records are judged (with 4096, a run on one thread took some 7% more
  // CPU time).
  static constexpr std::size_t kInlineItems = 256;

  // `hasher` and `wall` must outlive the source. Throws SpecError for a given format whose
  // extractor cannot be made.
  RecordSource(SourceConfig cfg, const KeyHasher& hasher, Clock& wall);
  ~RecordSource();

  // Reads every record of `in` on this thread into batches of records in the reader's
  // buffer, handing each to `sink` when it is full, before the reader reuses its buffer or
  // waits for input, and at the end. Stops reading once *stop is set or the sink stopped.
  // An error of the reader comes after the records before it were judged.
  void run(RecordReader& in, BatchSink& sink, const volatile int* stop);
  // The same with the reading on a second thread (every input a regular file, so that it can
  // always be stopped and joined): records are copied into a pool of kBatches batches, and
  // `sink` takes them here, in order. The thread is stopped and joined on every way out.
  void run_ahead(RecordReader& in, BatchSink& sink);

 private:
  class Outlet;
  class Inline;
  class Ahead;

  // The one loop: reads records into `b` and hands each batch to `out`.
  void read(RecordReader& in, Outlet& out, RecordBatch* b);
  // One record read: true when the batch should be handed over now.
  bool add(RecordReader& in, const Record& rec, RecordBatch& b);
  // The end of reading: held blank records are judged (unless the run stops), `b` is the last.
  void finish(RecordReader& in, RecordBatch& b, bool keep_reading);
  void push(RecordReader& in, const Record& rec, const Extracted& x, std::uint64_t number, bool replayed,
            RecordBatch& b);
  void replay_blanks(RecordReader& in, RecordBatch& b);
  // The extractor for `format` (auto_detect: lines); `chosen_by` as for make_extractor().
  void choose_format(InputFormat format, std::string_view chosen_by = {});
  // A new input starts: with -t, year-less stamps and times of day count from its year and date again.
  void start_input(const RecordReader& in);

  SourceConfig cfg_;
  const KeyHasher* hasher_;
  Clock* wall_;
  std::unique_ptr<Extractor> extractor_;     // null until the format is known
  InputFormat format_ = InputFormat::lines;  // once extractor_ is made
  bool copy_ = false;                        // records are copied into the batch (read ahead)
  std::size_t items_ = 0;                    // records in a full batch
  bool judged_any_ = false;                  // a record other than a held blank was read
  std::size_t input_ = 0;                    // the reader's input_number() of the last record
  std::uint64_t limit_;                      // cfg_.limit, or no limit
  std::uint64_t read_ = 0;                   // records read (not blank, not continuation lines), for limit_
  // Auto mode: blank records before the first record with content, held as copies until
  // that record decides the format; then judged in order as that format judges blank
  // records. An input that ends with only blank records held, or too many of them, is lines.
  struct HeldBlank {
    std::uint64_t number;
    std::size_t offset, size;
    std::uint32_t term_len;
  };
  std::vector<HeldBlank> blanks_;
  std::string blank_bytes_;
  // Read ahead: the batches, kept as long as the source, so that the output may still point
  // into one while the run ends on an error.
  std::unique_ptr<ReadAheadQueue<RecordBatch>> pool_;
};

}  // namespace tlbf_dedup
