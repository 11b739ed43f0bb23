// Buffered output of bytes to a file descriptor: a byte sink that knows nothing of records.
// What a record becomes on the way out is the emitter's business (emitter.hpp).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sys/uio.h>

namespace tlbf_dedup {

// Downstream closed the pipe (EPIPE). Not an error: the program ends quietly with status 0.
struct BrokenPipe {};

// A stop signal (SIGINT, SIGTERM, SIGHUP) came and the output then took nothing for
// Writer::kStopGraceMs (or a second stop signal came while it waited): the program ends
// without writing `unwritten` bytes of records it had decided to write: the pending bytes and
// those a write() or write_borrowed() was handing over. Records a caller still holds (with
// --redis, those after the stopped one in the queue of answers) are not counted, so the
// message says "at least".
struct OutputStopped {
  std::uint64_t unwritten;
};

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How much a writer takes before it must flush: bytes into its buffer (write()), bytes
// borrowed (write_borrowed()), and calls of either (each may add a piece for writev).
struct WriterRoom {
  std::size_t copied, borrowed, calls;
};

class Writer {
 public:
  // Up to this many pieces go to one writev(2); more are written in several calls.
  static constexpr std::size_t kMaxPieces = IOV_MAX;

  explicit Writer(int fd, std::size_t buffer_size = std::size_t{1} << 20);
  ~Writer();  // does not flush (flushing can fail; call flush() explicitly)
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Copies `bytes` into the buffer.
  void write(std::string_view bytes) {
    if (bytes.size() <= cap_ - len_) {
      std::memcpy(buf_.get() + len_, bytes.data(), bytes.size());
      len_ += bytes.size();
    } else {
      write_slow(bytes);
    }
  }
  // Queues `bytes` without copying them: the caller keeps them unchanged until the next
  // flush(). Bytes that directly follow the last borrowed ones in memory (consecutive records
  // of the reader's buffer) extend it, so a run of kept records goes out as one piece. While
  // such runs are short (below kMinBorrowedRun bytes on average since the last flush), the
  // bytes are copied instead, unless copy_short_runs(false): writev(2) pays for each piece
  // what copying a kilobyte or two costs, so short pieces cost more borrowed than copied
  // when the bytes are in this core's cache (see Run::run_input() for when they are not).
  static constexpr std::size_t kMinBorrowedRun = 4096;
  void copy_short_runs(bool on) { copy_short_runs_ = on; }
  void write_borrowed(std::string_view bytes) {
    runs_ += bytes.data() != run_end_;
    run_end_ = bytes.data() + bytes.size();
    run_bytes_ += bytes.size();
    if (copy_runs_) return write(bytes);
    if (last_borrowed_ && len_ == piece_start_ && borrowed_ + bytes.size() <= cap_ &&
        static_cast<const char*>(pieces_.back().iov_base) + pieces_.back().iov_len == bytes.data()) {
      pieces_.back().iov_len += bytes.size();
      borrowed_ += bytes.size();
    } else {
      borrow_slow(bytes);
    }
  }
  void flush();
  // Once *stop is nonzero, every write first waits for the output to take bytes, at most
  // kStopGraceMs at a time, and gives up with OutputStopped when it takes none (a reader
  // that stopped reading) or when a further signal interrupts the wait. A write blocked when
  // the signal comes is interrupted (the handlers are installed without SA_RESTART) and
  // waits the same way. Without a flag (or before a stop), writes block as long as needed.
  static constexpr int kStopGraceMs = 1000;
  void set_stop_flag(const volatile int* stop) { stop_ = stop; }
  // Flushes when borrowed bytes are pending: the caller is about to change them.
  void return_borrowed() {
    if (!pieces_.empty()) flush();  // (pieces_ holds buffered bytes only before borrowed ones)
  }
  std::uint64_t bytes_written() const { return written_ + len_ + borrowed_; }
  // Waits, at most `max_ms` (and not past a stop), until the reader of a pipe or a socket has
  // taken every byte written to it; true once it has, or at once for any other output.
  bool wait_until_read(int max_ms) const;
  // write_borrowed() copies for now: its runs were short until the last flush.
  bool copying_runs() const { return copy_runs_; }
  // While writes stay inside this room, none flushes, so none can fail or block before the
  // next flush().
  WriterRoom room() const {
    // A borrow flushes when pieces_ would reach kMaxPieces: the pieces there are, one for the
    // bytes buffered now, and at most one for each call after.
    return WriterRoom{cap_ - len_, cap_ - borrowed_,
                      kMaxPieces > pieces_.size() + 2 ? kMaxPieces - pieces_.size() - 2 : 0};
  }

 private:
  void write_slow(std::string_view bytes);
  void flush_before(std::string_view bytes);
  void borrow_slow(std::string_view bytes);
  // Ends the piece of buffered bytes that follows the last borrowed ones.
  void close_buffer_piece();
  void write_all(const char* p, std::size_t n);
  // Before a write(2) or writev(2) of `want` > 0 bytes: `want`, or after a stop the most that
  // can go without blocking once the output is ready, and 0 when it took nothing for
  // kStopGraceMs or a second signal came: the caller then throws OutputStopped with what it
  // still holds.
  std::size_t writable(std::size_t want);

  int fd_;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_;
  std::size_t len_ = 0;
  // What flush() writes, in order: pieces_ (borrowed bytes, and the buffered bytes written
  // between them), then buf_[piece_start_, len_).
  std::vector<iovec> pieces_;
  std::size_t piece_start_ = 0;
  std::size_t borrowed_ = 0;    // bytes in borrowed pieces, bounded by the buffer's size
  bool last_borrowed_ = false;  // pieces_.back() is borrowed and nothing was buffered after it
  // The runs write_borrowed() was handed since the last flush, their bytes and where the last
  // one ended; whether it copies them.
  std::size_t runs_ = 0, run_bytes_ = 0;
  const char* run_end_ = nullptr;
  bool copy_runs_ = false;
  bool copy_short_runs_ = true;
  std::uint64_t written_ = 0;
  const volatile int* stop_ = nullptr;
  int pipe_like_ = -1;  // the output is a pipe or a socket: 1, else 0; -1 until a stop asks
};

}  // namespace tlbf_dedup
