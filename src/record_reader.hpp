// Reads records from files or stdin as spans into one large reusable buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tlbf_dedup {

struct Record {
  const char* data = nullptr;
  std::size_t size = 0;       // without the terminator
  std::uint32_t term_len = 0; // 0 (the last input's last record without one), 1 (LF or NUL), 2 (CR LF)

  std::string_view text() const { return {data, size}; }
  std::string_view bytes() const { return {data, size + term_len}; }  // exactly as read
};

// Thrown for an input that cannot be opened or read; the message names the file.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RecordReader {
 public:
  // Bytes guaranteed readable after the end of every record (simdjson parses in place).
  static constexpr std::size_t kTailPadding = 64;

  // `paths`: files read in order; empty or "-" means stdin. `terminator` is '\n' or '\0'.
  // Each input is a stream of records of its own: its last record ends at its end. When that
  // record has no terminator and another input follows, the reader supplies one in the
  // input's convention (CR LF when the input's last terminated record ended so, else the
  // terminator), so records of two files are never glued; the last input's last record keeps
  // its missing terminator.
  RecordReader(std::vector<std::string> paths, char terminator, std::size_t buffer_size = std::size_t{1} << 20);
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
  // A flag checked whenever read(2) is interrupted (EINTR).
  void set_stop_flag(const volatile int* stop) { stop_ = stop; }

  std::uint64_t bytes_read() const { return bytes_read_; }
  // Sum of the sizes of the regular files among the inputs, 0 when unknown (pipes).
  std::uint64_t total_size() const { return total_size_; }
  const std::string& current_name() const { return name_; }
  // The last record's number in its input (from 1), and how many inputs were opened so far
  // (the first input is 1), so a consumer sees where one input's records end.
  std::uint64_t record_in_input() const { return record_in_input_; }
  std::size_t input_number() const { return next_path_; }
  // The current input's modification time (ns since the epoch) when it is a regular file,
  // else nullopt (a pipe, a terminal): when its records were written by, at the latest.
  std::optional<std::int64_t> modified_ns() const { return modified_ns_; }

 private:
  bool open_next();
  bool fill();  // reads more bytes; false at end of the current input
  void close_current();

  std::vector<std::string> paths_;
  std::size_t next_path_ = 0;
  char term_;
  int fd_ = -1;
  bool fd_is_regular_ = false;
  bool eof_ = true;
  std::string name_;
  std::uint64_t record_in_input_ = 0;
  bool input_uses_crlf_ = false;
  std::optional<std::int64_t> modified_ns_;  // the current input's last terminated record ended in CR LF

  std::unique_ptr<char[]> buf_;
  std::size_t cap_;
  std::size_t begin_ = 0;  // first byte not yet handed out
  std::size_t scan_ = 0;   // bytes before this (from begin_) hold no terminator
  std::size_t end_ = 0;    // end of valid bytes

  std::function<int()> pause_hook_;
  const volatile int* stop_ = nullptr;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t total_size_ = 0;
};

}  // namespace tlbf_dedup
