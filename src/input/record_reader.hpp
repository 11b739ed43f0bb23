// Reads records from files or stdin as spans into one large reusable buffer: lines (or NUL-
// ended records), or with --multiline, records of several lines each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/line_regex.hpp"
#include "base/slab.hpp"
#include "input/input_format.hpp"
#include "input/json_frames.hpp"

namespace tlbf_dedup {

class ByteSource;

struct Record {
  const char* data = nullptr;
  std::size_t size = 0;        // without the terminator
  std::uint32_t term_len = 0;  // 0 (the last input's last record without one), 1 (LF or NUL), 2 (CR LF)
  // A multi-line record's first line, without its terminator (its key and time are read
  // there); size or more: the whole record (the default, for records made elsewhere).
  std::size_t head_size = static_cast<std::size_t>(-1);
  // Lines that continue a multi-line record which was already handed out (the input paused
  // for longer than the multi-line timeout): they share that record's fate.
  bool continues = false;
  // The framer found the record's bytes to be a plain_ascii_record() (extract/json_scan.hpp)
  // on its way through them; false: not known.
  bool plain = false;

  std::string_view text() const { return {data, size}; }
  std::string_view bytes() const { return {data, size + term_len}; }  // exactly as read
  // The first line as a record of its own (the rest of the record follows it in memory, then
  // the padding), for extracting the key and time.
  Record head() const {
    if (head_size >= size) return *this;
    const std::uint32_t crlf = data[head_size] == '\r' ? 2 : 1;
    return Record{data, head_size, crlf, head_size, false, false};
  }
  // head(), made in `scratch` only for a multi-line record: a one-line record is itself, not
  // a copy (a record just stored field by field, then copied whole, stalls the copy's loads).
  const Record& head(Record& scratch) const {
    if (head_size >= size) return *this;
    scratch = head();
    return scratch;
  }
};

// Thrown for an input that cannot be opened or read, or that is damaged (a corrupt or
// truncated compressed stream, a record longer than --max-record); the message names the file.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --multiline's pattern: a LineRegex (as --key-regex's), so '^\d{4}-' works as written and
// a line is matched in time linear in its length.
class LineStartPattern {
 public:
  // Throws std::invalid_argument naming the problem.
  explicit LineStartPattern(const std::string& re) : re_(re) {}
  bool starts_record(std::string_view line) const { return re_.matches(line); }

 private:
  LineRegex re_;
};

struct ReaderConfig {
  char terminator = '\n';  // or '\0' (-z)
  // How newline-ended records are framed: as lines, as JSON values (json_frames.hpp), or
  // (auto_detect) as the first input's first bytes say (detect_format()).
  InputFormat format = InputFormat::lines;
  // --records a.b: with JSON framing, records are the elements of this array member of each
  // top-level object.
  std::vector<std::string> records_path;
  std::size_t buffer_size = std::size_t{1} << 20;
  // A longer record (line, or multi-line record) is an InputError: without a bound, input
  // with no terminator at all would be read into memory whole.
  std::size_t max_record = std::size_t{64} << 20;
  // Non-empty: a record starts at a line matching this (LineStartPattern); lines that do not
  // match continue the record before. Lines before an input's first match are one record.
  std::string multiline;
  // How long a multi-line record may be held open while the input pauses, in ms.
  int multiline_timeout_ms = 1000;
  // Inputs starting with a gzip or zstd magic number are decompressed (off: read as they are).
  bool decompress = true;
};

// Frees a malloc'd buffer; a reader's large first buffer is in a block that owns it instead.
struct FreeBuffer {
  bool malloced = true;
  void operator()(char* p) const {
    if (malloced) std::free(p);
  }
};

class RecordReader {
 public:
  // Bytes guaranteed readable after the end of every record (simdjson parses in place).
  static constexpr std::size_t kTailPadding = 64;
  // A buffer of this size or more starts in a block of huge pages (base/slab.hpp).
  static constexpr std::size_t kHugeBufferFrom = std::size_t{256} << 10;

  // `paths`: files read in order; empty or "-" means stdin. `terminator` is '\n' or '\0'.
  // Each input is a stream of records of its own: its last record ends at its end. When that
  // record has no terminator and another input follows, the reader supplies one in the
  // input's convention (CR LF when the input's last terminated record ended so, else the
  // terminator), so records of two files are never glued; the last input's last record keeps
  // its missing terminator.
  RecordReader(std::vector<std::string> paths, char terminator, std::size_t buffer_size = std::size_t{1} << 20);
  RecordReader(std::vector<std::string> paths, ReaderConfig config);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record, valid until the next call. False at the end of all input, or when
  // `stop` (set by a signal handler) became true while waiting for input.
  bool next(Record& out);

  // Called when the reader is about to wait for input that has not arrived yet (a read
  // would block), so buffered output can be flushed exactly then. The hook returns how
  // many milliseconds to wait for input before calling it again (periodic work such as
  // checkpoints while the input is idle), or -1 to wait as long as it takes.
  void on_input_pause(std::function<int()> hook) { pause_hook_ = std::move(hook); }
  // Called before the bytes of records already handed out are overwritten or freed (the
  // buffer slides, grows, or the next input starts): until then they stay as they were, past
  // the next call to next(), so a writer may point at them instead of copying them.
  void on_buffer_reuse(std::function<void()> hook) { reuse_hook_ = std::move(hook); }
  // A flag checked whenever read(2) is interrupted (EINTR).
  void set_stop_flag(const volatile int* stop) { stop_ = stop; }

  // Bytes read from the inputs (decompressed bytes of compressed ones).
  std::uint64_t bytes_read() const { return bytes_read_; }
  // Sum of the sizes of the regular files among the inputs, 0 when unknown (pipes, or a
  // compressed input among them, whose decompressed size is not known in advance).
  std::uint64_t total_size() const { return total_size_; }
  const std::string& current_name() const { return name_; }
  // The last record's number in its input (from 1), and how many inputs were opened so far
  // (the first input is 1), so a consumer sees where one input's records end.
  std::uint64_t record_in_input() const { return record_in_input_; }
  std::size_t input_number() const { return next_path_; }
  // Every input is a regular file (not stdin, a pipe or a terminal), so that no read waits
  // for a writer: a thread reading them can always be stopped soon.
  bool inputs_are_regular_files() const;
  // The current input's modification time (ns since the epoch) when it is a regular file,
  // else nullopt (a pipe, a terminal): when its records were written by, at the latest.
  std::optional<std::int64_t> modified_ns() const { return modified_ns_; }

 private:
  bool open_next();
  // Reads more bytes; false at the end of the current input, or, when `hold_ms` >= 0 and the
  // input may pause, once it paused for that long (held_out_ set).
  bool fill(int hold_ms = -1);
  // Waits until the source has something to read (running the pause hook meanwhile); false
  // when `hold_ms` passed first or a stop was asked for.
  bool wait_for_input(int hold_ms);
  void stop_reading();
  // Looks at a new input's first bytes; swaps in a decompressing source when they say so.
  void detect_compression_of_input();
  void close_current();
  bool next_line(Record& out);
  // CSV framing: the first terminator at or after `from` (with `hit`, the first one there)
  // outside quotes, or null; counts the quotes it passes into quote_open_.
  const void* csv_record_end(std::size_t from, const void* hit);
  bool next_json(Record& out);
  // Hands out a JSON frame's record (record_in_input_ and begin_ move past it).
  void hand_out_frame(const JsonFrame& f, bool at_end, Record& out);
  // An array element over several lines (at `record`, r.data), minified where it is.
  void one_line(char* record, Record& r);
  // A new input's first bytes: its compression, a UTF-8 byte-order mark (skipped), and in
  // auto mode the framing, decided by the first input.
  void start_input();
  // Throws the InputError for the JSON damage at the bytes consumed (`f.skip`) of the unconsumed ones.
  [[noreturn]] void throw_damage(const JsonFrame& f, bool at_end) const;
  bool next_multiline(Record& out);
  // Throws the InputError of a record longer than max_record, for a record of `size` bytes.
  void check_record_size(std::size_t size) const;
  // The same for the records still open (partial): what the bytes read so far prove.
  void check_open_records() const;
  // The most bytes the buffer needs (records up to max_record; see record_reader.cpp).
  std::size_t buffer_limit() const;
  // The current input is used up: throws for its damage, then opens the next; false at the end.
  bool advance_input();
  // Hands out the rest of the buffer as the input's last record (terminator supplied when
  // another input follows).
  void hand_out_rest(Record& out);
  // Hands out the open multi-line record (its whole lines); `next_is_start`: the line after
  // it is known to start a record.
  void hand_out_group(Record& out, bool next_is_start);

  std::vector<std::string> paths_;
  std::size_t next_path_ = 0;
  ReaderConfig config_;
  char term_;
  std::unique_ptr<LineStartPattern> line_start_;
  int fd_ = -1;
  std::unique_ptr<ByteSource> source_;
  bool regular_ = false;    // the current input is a regular file
  bool detecting_ = false;  // the current input's compression is not known yet
  bool held_out_ = false;   // fill() returned because the input paused for hold_ms
  bool eof_ = true;
  std::string name_;
  std::uint64_t record_in_input_ = 0;
  std::uint64_t input_offset_ = 0;            // the current input's (decompressed) bytes before begin_
  InputFormat framing_ = InputFormat::lines;  // json: framing JSON values (framer_); csv: quoted lines
  bool quote_open_ = false;                   // csv: the bytes [begin_, scan_) hold an odd number of quotes
  bool framing_known_ = false;
  JsonFramer framer_;
  // The current input's last terminated line ended in CR LF: the terminator hand_out_rest()
  // supplies, and the one hand_out_group() takes off a multi-line record.
  bool input_uses_crlf_ = false;
  std::optional<std::int64_t> modified_ns_;  // the current input's modification time (modified_ns())

  std::unique_ptr<HugeBlock> block_;       // huge pages: one fault for its first touch, not 256
  std::unique_ptr<char, FreeBuffer> buf_;  // malloc'd once it grows, so that it grows by realloc()
  std::size_t cap_;
  std::size_t begin_ = 0;  // first byte not yet handed out
  std::size_t scan_ = 0;   // bytes before this (from begin_) hold no terminator
  std::size_t end_ = 0;    // end of valid bytes
  // --multiline: the open record is buf_[begin_, begin_ + group_) (whole lines, terminators
  // included); its first line is head_size_ bytes without its terminator; next_is_start_: the
  // line at begin_ is known to start a record (the line that ended the record before).
  std::size_t group_ = 0;
  std::size_t head_size_ = 0;
  bool start_line_ = false;  // the open record's first line matches the pattern
  bool next_is_start_ = false;

  std::function<int()> pause_hook_;
  std::function<void()> reuse_hook_;
  const volatile int* stop_ = nullptr;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t total_size_ = 0;
  std::string element_scratch_;  // one_line()'s minified copy
};

}  // namespace tlbf_dedup
