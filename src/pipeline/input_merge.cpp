// The time-ordered source (input_merge.hpp): lanes (a reader and an extractor per merged
// input, or one reader over every input with --no-merge), a tournament of their next records, and
// the held records of --lateness, put into batches of copies for the record loop.
#include "pipeline/input_merge.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "base/signal_free_thread.hpp"
#include "tlbf/detail/prefetch.hpp"

namespace tlbf_dedup {
namespace {

// Thrown by the pause hook when the run is to stop: the reader must not wait.
struct StopReading {};
// Thrown on the merging thread when the judging thread stopped taking batches.
struct StopProducing {};

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

constexpr tlbf::Time kEarliest = std::numeric_limits<tlbf::Time>::min();
constexpr tlbf::Time kLatest = std::numeric_limits<tlbf::Time>::max();
// A tournament leaf without a head: later than every head.
constexpr TournamentKey kNoHead = ~TournamentKey{0};

// `t` less `d`, no earlier than the earliest time.
tlbf::Time minus(tlbf::Time t, tlbf::Duration d) { return t < kEarliest + d ? kEarliest : t - d; }

// Raises the soft limit of open descriptors towards the hard one when `wanted` are needed;
// returns the limit.
std::size_t descriptors_for(std::size_t wanted) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return wanted;
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < wanted) {
    rlimit raised = r;
    raised.rlim_cur = r.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(r.rlim_max, wanted);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) r = raised;
  }
  return r.rlim_cur == RLIM_INFINITY ? wanted : static_cast<std::size_t>(r.rlim_cur);
}

}  // namespace

struct InputMerge::Lane {
  std::uint32_t index = 0;
  std::unique_ptr<RecordReader> reader;
  std::unique_ptr<Extractor> extractor;    // null until the run's format is known
  std::unique_ptr<Extractor> blank_lines;  // blank records before that
  TimeParser parser{TimeFormat::auto_detect, std::nullopt, 1970};
  std::size_t input = 0;   // the reader's input_number() of the head
  std::uint32_t name = 0;  // its name's index in names_
  Record rec, scratch;
  MergeItem head;
  tlbf::Time order = kEarliest;  // the head's place in time
  bool live = false;             // the head is a record
  bool queued = false;           // ... in the tournament, not yet taken
};

InputMerge::InputMerge(std::vector<std::string> paths, const ReaderConfig& reader, MergeConfig merge,
                       SourceConfig source, const KeyHasher& hasher, Clock& wall)
    : cfg_(std::move(merge)),
      source_(std::move(source)),
      hasher_(&hasher),
      wall_(&wall),
      held_(std::make_unique<HeldQueue>()),
      own_batch_(std::make_unique<RecordBatch>()) {
  cfg_.max_held_bytes = std::min(cfg_.max_held_bytes, std::size_t{1} << 31);  // (32-bit sizes in the chunks)
  if (paths.empty()) paths.emplace_back("-");
  std::vector<std::vector<std::string>> groups;
  if (cfg_.merge && paths.size() > 1) {
    if (std::count_if(paths.begin(), paths.end(), [](const std::string& p) { return p == "-"; }) > 1)
      throw std::runtime_error("stdin ('-') is given twice: it can be merged with the other inputs only once");
    const std::size_t limit = descriptors_for(paths.size() + kSpareDescriptors);
    if (paths.size() + kSpareDescriptors > limit)
      throw std::runtime_error(fmt::format(
          "{} inputs to merge by time, but only {} files may be open at once (ulimit -n {}): merging reads them all "
          "at once; raise the limit (ulimit -n {}), merge fewer at a time, or give --no-merge to read them one "
          "after another",
          paths.size(), limit - std::min(limit, kSpareDescriptors), limit, paths.size() + kSpareDescriptors));
    for (std::string& p : paths) groups.push_back({std::move(p)});
  } else {
    groups.push_back(std::move(paths));
  }
  // A buffer per input, smaller the more inputs there are (it grows for longer records): 1 MiB
  // in all, as one input has, so that what the kernel copies in is still in the cache when the
  // merge gets to it (8 MiB in all was slower on 8 inputs: docs/performance.md).
  ReaderConfig rc = reader;
  if (groups.size() > 1) rc.buffer_size = std::max<std::size_t>(64 << 10, (std::size_t{1} << 20) / groups.size());
  for (auto& g : groups) {
    auto lane = std::make_unique<Lane>();
    lane->index = static_cast<std::uint32_t>(lanes_.size());
    lane->reader = std::make_unique<RecordReader>(std::move(g), rc);
    lane->parser = source_.time_parser;
    lanes_.push_back(std::move(lane));
  }
  if (source_.format != InputFormat::auto_detect) choose_format(source_.format);
  if (cfg_.max_future) {
    const tlbf::Time now = wall_->wall_ns();
    future_limit_ = now > kLatest - *cfg_.max_future ? kLatest : now + *cfg_.max_future;
  }
}

InputMerge::~InputMerge() = default;

std::uint64_t InputMerge::total_size() const {
  std::uint64_t total = 0;
  for (const auto& lane : lanes_) {
    if (lane->reader->total_size() == 0) return 0;  // unknown for one: unknown
    total += lane->reader->total_size();
  }
  return total;
}

void InputMerge::choose_format(InputFormat format, std::string_view chosen_by) {
  format_ = format == InputFormat::auto_detect ? InputFormat::lines : format;
  chosen_by_ = std::string(chosen_by);
  for (auto& lane : lanes_)
    if (lane->input != 0) make_extractor(*lane);
}

void InputMerge::make_extractor(Lane& lane) {
  lane.extractor = tlbf_dedup::make_extractor(*format_, source_.extract, lane.parser, chosen_by_);
}

bool InputMerge::advance(Lane& lane) {
  RecordReader& in = *lane.reader;
  lane.live = read_ < (source_.limit ? source_.limit : UINT64_MAX) && in.next(lane.rec);
  if (!lane.live) return false;
  const Record& rec = lane.rec;
  if (in.input_number() != lane.input) {  // a new input: its own names, years and dates
    lane.input = in.input_number();
    names_.push_back(in.current_name());
    lane.name = static_cast<std::uint32_t>(names_.size() - 1);
    if (!source_.extract.time.empty()) {
      const tlbf::Time written_by = in.modified_ns().value_or(wall_->wall_ns());
      lane.parser.restart_years(source_.year ? YearStart(*source_.year) : YearStart::not_after(written_by));
      lane.parser.restart_days(written_by);
    }
    if (format_) make_extractor(lane);
  }
  MergeItem& h = lane.head;  // (each member set: no zeroing of the whole first)
  h.bytes = rec.bytes();
  h.number = in.record_in_input();
  h.input = lane.name;
  h.term_len = static_cast<std::uint8_t>(rec.term_len);
  h.continues = rec.continues;
  if (rec.continues) {  // --multiline: lines of a record already handed out follow it
    h.x = Extracted{};
    h.keyed = false;
    return true;
  }
  if (!format_ && !is_blank(rec.text())) choose_format(detect_format(rec.text(), FormatHead::record), rec.text());
  Extractor* x = lane.extractor.get();
  if (!x) {
    if (!lane.blank_lines) lane.blank_lines = make_line_extractor(source_.extract, lane.parser);
    x = lane.blank_lines.get();
  }
  const Extracted& e = *new (&h.x) Extracted(x->extract(rec.head(lane.scratch)));
  read_ += e.status != ExtractStatus::blank;  // (a blank line, a table's # line: no record)
  h.keyed = e.status == ExtractStatus::ok;
  if (!h.keyed) h.x.key = {};
  // Its place in time: its own, or the record's before it in its input when it has none (or
  // one the clock will not take, too far in the future).
  if (e.time.parsed && (!cfg_.max_future || e.time.time <= future_limit_)) lane.order = e.time.time;
  return true;
}

void InputMerge::arrive(Lane& lane) {
  paused_since_ = -1;
  const tlbf::Time t = lane.order;
  if (cfg_.lateness == 0 || t < released_to_) {  // in order, or too late to hold: out now
    newest_ = std::max(newest_, t);
    return put(lane.head);
  }
  const MergeItem& h = lane.head;
  if (h.bytes.size() + h.x.key.size() + h.x.time.text.size() > cfg_.max_held_bytes) return put_over_cap(t, h);
  held_->push(t, arrivals_++, lane.head);
  stats_.held_most = std::max<std::uint64_t>(stats_.held_most, held_->size());
  stats_.held_most_bytes = std::max(stats_.held_most_bytes, held_->bytes());
  newest_ = std::max(newest_, t);
  release(minus(newest_, cfg_.lateness));
  while (held_->bytes() > cfg_.max_held_bytes) {  // memory: the oldest go out before their time
    ++stats_.released_early;
    release(held_->earliest());
  }
}

void InputMerge::put_over_cap(tlbf::Time t, const MergeItem& item) {
  // Where holding it would have put it: after the held records up to its time, those before
  // the watermark in time order, the others let go early until it was (counted as there).
  newest_ = std::max(newest_, t);
  const tlbf::Time watermark = minus(newest_, cfg_.lateness);
  if (t > watermark) {
    release(watermark);
    while (!held_->empty() && held_->earliest() < t) {
      ++stats_.released_early;
      release(held_->earliest());
    }
    ++stats_.released_early;
  }
  release(t);
  put(item);
  release(watermark);
}

void InputMerge::release(tlbf::Time watermark) {
  released_to_ = std::max(released_to_, watermark);
  HeldRef h;
  while (held_->pop_through(watermark, h)) {
    const auto& s = *static_cast<const HeldQueue::Stored*>(h.stored);
    auto& pins = batch_->pinned;
    if (!pins.empty() && pins.back().first == s.chunk)
      ++pins.back().second;
    else
      pins.emplace_back(s.chunk, 1);
    pinned_bytes_ += h.size;
    put_held(s);
  }
}

RecordBatch& InputMerge::batch_for_record() {
  RecordBatch& b = *batch_;
  if (!format_announced_ && format_) {
    format_announced_ = true;
    b.format_detected = source_.format == InputFormat::auto_detect;
  }
  b.format = format_.value_or(InputFormat::lines);
  return b;
}

void InputMerge::put(const MergeItem& i) {
  RecordBatch& b = batch_for_record();
  // Its parts are copied: the reader reuses its buffer.
  const std::string_view bytes = b.keep(b.bytes, i.bytes);
  SourceRecord& s = b.append(bytes);
  s.time = i.x.time;
  s.number = i.number;
  s.input = i.input;
  s.absent_part = i.x.absent_part;
  s.status = i.x.status;
  s.term_len = i.term_len;
  s.keyed = i.keyed;
  s.continues = i.continues;
  s.replayed = false;
  s.time.text = i.x.time.text.empty() ? std::string_view() : b.place(i.x.time.text, i.bytes, bytes);
  if (i.keyed) put_key(b, i.x.key, [&] { return b.place(i.x.key, i.bytes, bytes); });
  if (b.full(RecordBatch::kItems) || pinned_bytes_ >= RecordBatch::kBytes) hand_over(false);
}

void InputMerge::put_held(const HeldQueue::Stored& held) {
  RecordBatch& b = batch_for_record();
  // Its parts stay in its chunk: the batch points there.
  SourceRecord& s = b.append(HeldQueue::bytes(held));
  HeldQueue::unpack(held, s);
  if (s.keyed) {
    const std::string_view key = HeldQueue::key(held);
    put_key(b, key, [key] { return key; });
  }
  if (b.full(RecordBatch::kItems) || pinned_bytes_ >= RecordBatch::kBytes) hand_over(false);
}

template <class Stored>
void InputMerge::put_key(RecordBatch& b, std::string_view key, Stored&& stored) {
  // Read ahead, the judging thread hashes the batch's keys (hand_over() says so on the batch).
  const bool hash_later = pool_ != nullptr;
  b.append_key(!source_.keep_keys && !hash_later ? std::string_view() : stored(),
               hash_later ? tlbf::KeyHash{} : (*hasher_)(key));
}

void InputMerge::unpin(RecordBatch& b) {
  for (const auto& [chunk, records] : b.pinned) held_->unpin(chunk, records);
  b.pinned.clear();
}

void InputMerge::hand_over(bool last) {
  RecordBatch& b = *batch_;
  if (b.empty() && !last) return;
  b.names = names_;
  b.judge_all = true;  // a stop is the merge's to look at: what it hands over was read
  if (pool_) {         // to the judging thread, which hashes the keys
    b.hashes_pending = b.keyed() > 0;
    b.drop_keys = !source_.keep_keys;
    pool_->publish(batch_);
    pinned_bytes_ = 0;
    if (last) return;
    batch_ = pool_->acquire();
    if (!batch_) throw StopProducing{};  // the judging thread is gone
    unpin(*batch_);                      // (handed back: its records are judged and written)
    batch_->clear();
    return;
  }
  in_sink_ = true;  // an exception from here on is the record loop's
  const std::size_t judged = sink_->take(b);
  sink_->release_records();
  in_sink_ = false;
  if (judged < b.size()) sink_stopped_ = true;  // the untimed probe failed
  pinned_bytes_ = 0;
  if (last) return;
  unpin(b);
  b.clear();
}

void InputMerge::flush_all() {
  std::vector<std::pair<tlbf::Time, std::uint32_t>> heads;  // the lanes' heads not yet taken, earliest first
  for (const auto& lane : lanes_)
    if (lane->queued) heads.emplace_back(lane->order, lane->index);
  std::sort(heads.begin(), heads.end());
  for (const auto& [order, l] : heads) {
    lanes_[l]->queued = false;
    put(lanes_[l]->head);
  }
  release(kLatest);
}

void InputMerge::replay(std::uint32_t l) {
  const Lane& lane = *lanes_[l];
  // (time, lane) as one unsigned number: the time's sign bit flipped, so that it orders as unsigned.
  std::size_t i = width_ + l;
  const std::uint64_t time = static_cast<std::uint64_t>(lane.order) ^ (std::uint64_t{1} << 63);
  TournamentKey key = lane.queued ? TournamentKey{time} << 64 | l : kNoHead;
  tree_[i] = key;
  // (The winner coming up is kept in a register: only its rival on each level is loaded.)
  for (; i > 1; i >>= 1) tree_[i >> 1] = key = std::min(key, tree_[i ^ 1]);
}

int InputMerge::paused(Lane&) {
  hand_over(false);
  if (sink_stopped_ || stopping()) throw StopReading{};
  // Held records go out once the input has paused for the lateness: on a live stream, no
  // record waits longer than that after its time was passed.
  std::int64_t left = 0;
  if (!held_->empty()) {
    const std::int64_t now = wall_->steady_ns();
    if (paused_since_ < 0) paused_since_ = now;
    left = cfg_.lateness - (now - paused_since_);
    if (left <= 0) {
      release(kLatest);
      hand_over(false);
    }
  }
  in_sink_ = true;
  const int wait = sink_->input_paused();  // (what was judged is written now)
  in_sink_ = false;
  if (held_->empty()) return wait;
  const int left_ms = static_cast<int>(
      std::min<std::int64_t>((left + tlbf::kMillisecond - 1) / tlbf::kMillisecond, std::numeric_limits<int>::max()));
  return wait < 0 ? left_ms : std::min(wait, left_ms);
}

bool InputMerge::inputs_are_regular_files() const {
  for (const auto& lane : lanes_)
    if (!lane->reader->inputs_are_regular_files()) return false;
  return true;
}

void InputMerge::produce() {
  std::exception_ptr error;
  try {
    while (width_ < lanes_.size()) width_ *= 2;
    tree_.assign(2 * width_, kNoHead);
    for (auto& lane : lanes_) lane->queued = advance(*lane);
    for (auto& lane : lanes_) replay(lane->index);
    // The earliest head goes on; its lane's next record takes its leaf (one input: no compares).
    while (tree_[1] != kNoHead && !sink_stopped_ && !stopping()) {
      Lane& lane = *lanes_[static_cast<std::uint32_t>(tree_[1])];
      arrive(lane);
      lane.queued = false;  // (taken: an error reading the next is not followed by it again)
      lane.queued = advance(lane);
      replay(lane.index);
    }
  } catch (const StopReading&) {
    // a stop while an input paused: what was read goes out below
  } catch (const StopProducing&) {
    return;
  } catch (...) {
    if (in_sink_) throw;  // the record loop's own error passes through unchanged
    error = std::current_exception();
  }
  if (sink_stopped_) return;  // the untimed probe failed: nothing more is judged
  // What was read goes out: at the end, after an error, and after a stop signal.
  try {
    flush_all();
  } catch (const StopProducing&) {
    return;
  }
  RecordBatch& b = *batch_;
  b.error = error;
  b.end = !error;
  b.end_name = names_.empty() ? std::string("-") : names_.back();
  hand_over(true);
}

void InputMerge::run(BatchSink& sink, const volatile int* stop, bool ahead) {
  sink_ = &sink;
  stop_ = stop;
  for (auto& lane : lanes_) lane->reader->set_stop_flag(stop);
  if (!ahead) {
    for (auto& lane : lanes_) lane->reader->on_input_pause([this, l = lane.get()] { return paused(*l); });
    own_batch_->clear();
    batch_ = own_batch_.get();
    produce();
    RecordBatch& b = *batch_;
    if (b.error) std::rethrow_exception(b.error);
    if (b.end) sink.reached_end(b.end_name);
    return;
  }
  // Merged on a second thread into a pool of batches, judged here in order (regular files
  // only, so the thread can always be stopped and joined: no read waits for the other end of a pipe).
  pool_ = std::make_unique<ReadAheadQueue<RecordBatch>>(RecordSource::kBatches);
  batch_ = pool_->acquire();
  batch_->clear();
  std::thread producer = signal_free_thread([this] {
    try {
      produce();
    } catch (...) {  // produce() hands its errors over in a batch; this is for what it cannot
      thread_error_ = std::current_exception();
      pool_->stop();
    }
  });
  judge_ahead(*pool_, producer, sink, hasher_);
  if (thread_error_) std::rethrow_exception(thread_error_);  // (set before the thread stopped the pool)
}

}  // namespace tlbf_dedup
