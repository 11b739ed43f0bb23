// The record source (record_source.hpp): one loop, read(), that frames records with the
// reader, extracts their key and time, hashes the key and puts each record in a batch, and
// two outlets for the batches: the judging thread itself (Inline) or a read-ahead queue
// (Ahead).
//
// Invariants:
//  - Records reach the sink in input order, each once, with the place they were read at:
//    their input's name and their number there (a held blank record, its own number, and the
//    name of the input being read when it is judged).
//  - Each input is a stream of its own: with -t, year-less stamps count from that input's year
//    again (ClockPolicy::year, else its modification time, else the wall clock).
//  - Auto mode: the first record with content decides the format; blank records before it
//    are held (copied) and judged before it, as that format judges blank records.
//  - A record's views stay valid until its batch is handed back: inline, the reader's buffer
//    is not reused before every record in it was judged and the sink released them (the
//    reader's hooks), and the reader never waits for input with a record unjudged, so
//    streaming output is as prompt as one record at a time; read ahead, records are copies.
//  - An error of the reader or the extractor comes after every record read before it; an
//    exception of the sink (thrown from a reader hook) passes through unchanged.
//  - The first batch ends with the first record that is not a held blank, so the output's
//    flushes between batches fall at the same records with one thread or two.
#include "pipeline/record_source.hpp"

#include <cstdint>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "base/signal_free_thread.hpp"
#include "tlbf/detail/prefetch.hpp"

namespace tlbf_dedup {
namespace {

bool is_blank_record(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// Thrown by the pause hook when the sink wants no more records: the reader must not wait.
struct StopReading {};

bool inside(std::string_view v, const char* begin, std::size_t size) {
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(v.data()) - reinterpret_cast<std::uintptr_t>(begin);
  return offset <= size && v.size() <= size - offset;  // (before `begin`, the offset wraps past `size`)
}

// The stop flag of an outlet that is stopped otherwise.
const volatile int kNeverStops = 0;

// A batch's room grown by half, to `items` at most from below it: its arrays leave their
// slabs only for batches of more records than that.
std::size_t grown(std::size_t room, std::size_t items) {
  const std::size_t more = room + room / 2 + 64;
  return room < items ? std::min(more, items) : more;
}

}  // namespace

// The arrays take their slabs at once and grow() stops at kItems, which they hold; the
// copies take theirs when the first is kept. Nothing is written: a batch never filled takes
// no memory.
RecordBatch::RecordBatch() {
  records_.reserve(kItems);
  keys_.reserve(kItems);
  hashes_.reserve(kItems);
}

std::array<Slab, RecordBatch::kSlabs> RecordBatch::carve(std::byte* block) {
  const std::size_t sizes[kByteSlab] = {kItems * sizeof(SourceRecord), kItems * sizeof(std::string_view),
                                        kItems * sizeof(tlbf::KeyHash)};
  std::array<Slab, kSlabs> slabs;
  std::size_t at = 0;
  for (int i = 0; i < kByteSlab; ++i) {
    slabs[i] = {block + at, sizes[i]};
    at += (sizes[i] + 63) / 64 * 64;
  }
  slabs[kByteSlab] = {block + at, kBlockBytes - at};
  return slabs;
}

void RecordBatch::clear() {
  if (bytes.capacity() >= slabs_[kByteSlab].size) Store(bytes.get_allocator()).swap(bytes);  // off the heap
  bytes.clear();
  side.clear();
  size_ = keyed_ = 0;
  total_ = 0;
  names.clear();
  named_input = 0;
  format = InputFormat::lines;
  format_detected = false;
  error = nullptr;
  end = false;
  end_name.clear();
  judge_all = false;
  hashes_pending = drop_keys = false;
}

void RecordBatch::hash_keys(const KeyHasher& hasher) {
  // The keys were written on the other thread (or held a lateness ago): a few are asked for
  // ahead of the one hashed.
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < keyed_; ++i) {
    if (i + kAhead < keyed_) tlbf::detail::prefetch(keys_[i + kAhead].data());
    hashes_[i] = hasher(keys_[i]);
  }
  if (drop_keys) std::fill(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(keyed_), std::string_view());
  hashes_pending = drop_keys = false;
}

void RecordBatch::grow() {
  room_ = grown(room_, kItems);
  records_.resize(room_);
}

void RecordBatch::grow_keys() {
  key_room_ = grown(key_room_, kItems);
  keys_.resize(key_room_);
  hashes_.resize(key_room_);
}

std::string_view RecordBatch::keep(Store& store, std::string_view v) {
  const char* before = store.data();
  const std::size_t used = store.size();
  const std::size_t room = store.get_allocator().room();  // the store's slab, with its terminator
  if (room > store.capacity() + 1) store.reserve(room - 1);
  if (used + kAheadBytes < store.capacity()) prefetch_to_write(store.data() + used + kAheadBytes);
  store.append(v);
  if (store.data() != before && used > 0) {
    auto follow = [&](std::string_view& w) {
      if (!w.empty() && inside(w, before, used)) w = {store.data() + (w.data() - before), w.size()};
    };
    for (std::size_t i = 0; i < size_; ++i) {
      follow(records_[i].bytes);
      follow(records_[i].time.text);
    }
    for (std::size_t i = 0; i < keyed_; ++i) follow(keys_[i]);
  }
  return {store.data() + used, v.size()};
}

// Where the loop's batches go.
class RecordSource::Outlet {
 public:
  // Hands over `b` (full, or due) and returns the batch to fill next; null: read no more.
  virtual RecordBatch* hand_over(RecordBatch* b) = 0;
  // Hands over the last batch (`end` or `error` set).
  virtual void hand_over_last(RecordBatch* b) = 0;
  // Not while a stop signal came or the sink stopped (it can only stop while it judges).
  bool keep_reading() const { return !sink_stopped_ && !*stop_; }
  // An exception out of the reader came from the sink, through a hook.
  bool sink_failed() const { return sink_failed_; }

 protected:
  explicit Outlet(const volatile int* stop) : stop_(stop ? stop : &kNeverStops) {}
  ~Outlet() = default;

  const volatile int* stop_;
  bool sink_stopped_ = false;
  bool sink_failed_ = false;
};

// Batches judged on the reading thread: handed to the sink when full, and from the reader's
// hooks before it reuses its buffer or waits for input.
class RecordSource::Inline final : public Outlet {
 public:
  Inline(RecordReader& in, BatchSink& sink, const volatile int* stop) : Outlet(stop), in_(in), sink_(sink) {
    in.on_buffer_reuse([this] {
      guarded([&] {
        judge_pending();
        sink_.release_records();
      });
    });
    in.on_input_pause([this] {
      int wait = -1;
      guarded([&] {
        judge_pending();
        if (!keep_reading()) throw StopReading{};
        wait = sink_.input_paused();
      });
      return wait;
    });
  }
  ~Inline() {
    in_.on_buffer_reuse({});
    in_.on_input_pause({});
  }
  Inline(const Inline&) = delete;
  Inline& operator=(const Inline&) = delete;

  RecordBatch* batch() { return &batch_; }
  RecordBatch* hand_over(RecordBatch*) override {
    judge_pending();
    return &batch_;
  }
  void hand_over_last(RecordBatch*) override {
    judge(batch_);
    if (sink_stopped_) return;  // a stop or the untimed probe: nothing after it was read
    if (batch_.error) std::rethrow_exception(batch_.error);
    if (batch_.end) sink_.reached_end(batch_.end_name);
  }

 private:
  void judge(const RecordBatch& b) {
    sink_.take(b);
    sink_stopped_ = sink_.stopped();
  }
  void judge_pending() {
    if (batch_.empty()) return;
    judge(batch_);
    batch_.clear();
  }
  template <class Fn>
  void guarded(Fn&& fn) {
    try {
      fn();
    } catch (const StopReading&) {
      throw;
    } catch (...) {
      sink_failed_ = true;
      throw;
    }
  }

  RecordReader& in_;
  BatchSink& sink_;
  RecordBatch batch_;
};

// Batches filled on the read-ahead thread and published to the judging one.
class RecordSource::Ahead final : public Outlet {
 public:
  // The judging thread stops the queue: no stop flag here.
  explicit Ahead(ReadAheadQueue<RecordBatch>& queue) : Outlet(nullptr), queue_(queue) {}
  RecordBatch* hand_over(RecordBatch* b) override {
    queue_.publish(b);
    return next();
  }
  void hand_over_last(RecordBatch* b) override { queue_.publish(b); }
  RecordBatch* next() {
    RecordBatch* b = queue_.acquire();
    if (b) b->clear();
    return b;
  }

 private:
  ReadAheadQueue<RecordBatch>& queue_;
};

RecordSource::RecordSource(SourceConfig cfg, const KeyHasher& hasher, Clock& wall)
    : cfg_(std::move(cfg)), hasher_(&hasher), wall_(&wall), limit_(cfg_.limit ? cfg_.limit : UINT64_MAX) {
  if (cfg_.format != InputFormat::auto_detect) choose_format(cfg_.format);
}

RecordSource::~RecordSource() = default;

void RecordSource::run(RecordReader& in, BatchSink& sink, const volatile int* stop) {
  copy_ = false;
  items_ = kInlineItems;
  Inline outlet(in, sink, stop);
  read(in, outlet, outlet.batch());
}

void RecordSource::run_ahead(RecordReader& in, BatchSink& sink) {
  copy_ = true;
  items_ = RecordBatch::kItems;
  pool_ = std::make_unique<ReadAheadQueue<RecordBatch>>(kBatches);
  ReadAheadQueue<RecordBatch>& queue = *pool_;
  std::thread producer = signal_free_thread([this, &in, &queue] {
    Ahead outlet(queue);
    read(in, outlet, outlet.next());
  });
  judge_ahead(queue, producer, sink);
}

void judge_ahead(ReadAheadQueue<RecordBatch>& queue, std::thread& producer, BatchSink& sink, const KeyHasher* hasher) {
  // On every way out (the end, a stop, an error thrown here): the producer stops and is joined.
  struct Join {
    ReadAheadQueue<RecordBatch>& queue;
    std::thread& thread;
    ~Join() {
      queue.stop();
      thread.join();
    }
  } join{queue, producer};
  while (RecordBatch* b = queue.take()) {
    if (b->hashes_pending) b->hash_keys(*hasher);
    const bool whole = sink.take(*b) == b->size();
    sink.release_records();
    if (whole && b->end) sink.reached_end(b->end_name);
    const std::exception_ptr error = whole ? b->error : nullptr;
    const bool last = b->end || b->error || !whole;
    queue.recycle(b);
    if (error) std::rethrow_exception(error);
    if (last) return;
  }
}

[[gnu::always_inline]] inline void RecordSource::push(RecordReader& in, const Record& rec, const Extracted& x,
                                                      std::uint64_t number, bool replayed, RecordBatch& b) {
  const std::uint32_t name = b.name(in);
  b.format = format_;
  const std::string_view raw = rec.bytes();
  const std::string_view bytes = copy_ || replayed ? b.keep(b.bytes, raw) : raw;
  SourceRecord& s = b.append(bytes);
  s.time = x.time;
  s.number = number;
  s.input = name;
  s.absent_part = x.absent_part;
  s.status = x.status;
  s.term_len = static_cast<std::uint8_t>(rec.term_len);
  s.keyed = !rec.continues && x.status == ExtractStatus::ok;
  s.continues = rec.continues;
  s.replayed = replayed;
  if (!x.time.text.empty()) s.time.text = b.place(x.time.text, raw, bytes);
  if (s.keyed) b.append_key(cfg_.keep_keys ? b.place(x.key, raw, bytes) : std::string_view(), (*hasher_)(x.key));
}

[[gnu::always_inline]] inline bool RecordSource::add(RecordReader& in, const Record& rec, RecordBatch& b) {
  if (rec.continues) {  // --multiline: lines of a record judged when the input paused
    push(in, rec, Extracted{}, in.record_in_input(), false, b);
    return false;
  }
  if (in.input_number() != input_) {
    if (!blanks_.empty()) replay_blanks(in, b);  // the input before held blank records only
    input_ = in.input_number();
    start_input(in);
  }
  // The format, decided by the first record with content (auto mode).
  if (!extractor_) {
    if (is_blank_record(rec.text()) && blank_bytes_.size() < kMaxHeldBytes && blanks_.size() < kMaxHeldBlanks) {
      blanks_.push_back(HeldBlank{in.record_in_input(), blank_bytes_.size(), rec.size, rec.term_len});
      blank_bytes_.append(rec.bytes());
      return false;
    }
    choose_format(detect_format(rec.text(), FormatHead::record), rec.text());
    b.format_detected = true;
    if (!blanks_.empty()) replay_blanks(in, b);
  }
  Record head;
  const Extracted x = extractor_->extract(rec.head(head));
  read_ += x.status != ExtractStatus::blank;  // (a blank line, a table's # line: no record)
  push(in, rec, x, in.record_in_input(), false, b);
  if (judged_any_) return false;
  judged_any_ = true;
  return true;
}

void RecordSource::read(RecordReader& in, Outlet& out, RecordBatch* b) {
  Record rec;
  while (b) {
    bool more = false, due = false;
    try {
      more = out.keep_reading() && read_ < limit_ && in.next(rec);
      if (more)
        due = add(in, rec, *b);
      else
        finish(in, *b, out.keep_reading());
    } catch (const StopReading&) {
      return;
    } catch (...) {
      if (out.sink_failed()) throw;
      b->error = std::current_exception();
      more = false;
    }
    if (!more) return out.hand_over_last(b);
    if (due || b->full(items_)) b = out.hand_over(b);
  }
}

void RecordSource::finish(RecordReader& in, RecordBatch& b, bool keep_reading) {
  if (!blanks_.empty() && keep_reading) replay_blanks(in, b);  // the input held blank records only
  b.end = true;
  b.end_name = in.current_name();
}

void RecordSource::replay_blanks(RecordReader& in, RecordBatch& b) {
  if (!extractor_) choose_format(InputFormat::lines);
  blank_bytes_.append(RecordReader::kTailPadding, '\0');  // the extractors read past a record
  for (const HeldBlank& h : blanks_) {
    Record r;
    r.data = blank_bytes_.data() + h.offset;
    r.size = h.size;
    r.term_len = h.term_len;
    push(in, r, extractor_->extract(r.head()), h.number, true, b);
  }
  blanks_.clear();
  blank_bytes_.clear();
}

std::unique_ptr<Extractor> make_extractor(InputFormat format, const ExtractConfig& cfg, const TimeParser& time_parser,
                                          std::string_view chosen_by) {
  if (format == InputFormat::json) return make_json_extractor(cfg, time_parser);
  if (is_table(format)) return make_table_extractor(format, cfg, time_parser);
  try {
    return make_line_extractor(cfg, time_parser);
  } catch (const SpecError& e) {
    if (chosen_by.empty()) throw;
    constexpr std::size_t kShown = 40;
    throw SpecError(
        fmt::format("{}; the input was read as lines, since its first record ('{}{}') does not start "
                    "with '{{' or '[{{': -f json reads it as JSON",
                    e.what(), chosen_by.substr(0, kShown), chosen_by.size() > kShown ? "..." : ""));
  }
}

void RecordSource::choose_format(InputFormat format, std::string_view chosen_by) {
  format_ = format == InputFormat::auto_detect ? InputFormat::lines : format;
  extractor_ = make_extractor(format_, cfg_.extract, cfg_.time_parser, chosen_by);
}

void RecordSource::start_input(const RecordReader& in) {
  if (extractor_) extractor_->start_input();
  if (cfg_.extract.time.empty()) return;
  const tlbf::Time written_by = in.modified_ns().value_or(wall_->wall_ns());
  cfg_.time_parser.restart_years(cfg_.year ? YearStart(*cfg_.year) : YearStart::not_after(written_by));
  cfg_.time_parser.restart_days(written_by);
  if (extractor_) choose_format(format_);  // made again with the restarted parser
}

}  // namespace tlbf_dedup
