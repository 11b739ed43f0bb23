// The record reader: bytes from a source (read(2), or a decompressor on its own thread) into
// one buffer, records handed out as spans.
//
// Invariants:
//  - buf_[begin_, end_) holds bytes read but not yet handed out; a handed-out record stays
//    valid until the next call to next(), because bytes move only inside fill(), which
//    next() calls only after the previous record has been consumed. Its bytes stay unchanged
//    longer, until the buffer-reuse hook is called: only sliding, growing or starting the
//    next input overwrites handed-out bytes, and each calls the hook first.
//  - Every record is followed by at least kTailPadding readable bytes of the allocation
//    (the buffer is allocated cap_ + kTailPadding), so JSON can be parsed in place.
//  - No copying per record: bytes are moved only when a partial record must be slid to the
//    front of the buffer before a refill, and the buffer doubles when one record fills it,
//    so a record of n bytes costs O(n) amortised however long it is.
//  - No record is longer than max_record bytes (without its terminator), whatever the input
//    kind or how its reads happen to fall: a longer one is an InputError naming the file and
//    the record, thrown as soon as the bytes read prove it, and before it is handed out. The
//    buffer never grows past what a record of max_record bytes needs (buffer_limit()).
//  - A record ends at the terminator; for newline records a CR right before the LF is part
//    of the terminator (term_len 2), so keys and times never see it but output keeps it.
//    The last record of each input ends with the input: without a terminator it gets the
//    input's own (written into the buffer after it, where the padding leaves room), except
//    the last input's, which keeps term_len 0 so that output stays byte-exact.
//  - Compression is decided by each input's first bytes (byte_source.hpp), read through the
//    same waiting as any bytes; once a decompressing source takes over, the reader frames its
//    output exactly as a plain input's. A damaged stream ends its input like an end of file
//    (its last, partial record is handed out without terminator); the next call throws.
//  - --multiline: a record is a start line and the lines after it that do not match, kept
//    as one span. It ends when the next start line arrives, at the end of its input, or when
//    the input (one that can pause) has paused for multiline_timeout_ms; lines that arrive
//    after that are handed out as `continues`, so no byte is lost or moved.
#include "input/record_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/byte_source.hpp"

namespace tlbf_dedup {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string format_size(std::size_t n) {
  if (n % (std::size_t{1} << 30) == 0) return std::to_string(n >> 30) + "G";
  if (n % (std::size_t{1} << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n % 1024 == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n) + " bytes";
}

}  // namespace

RecordReader::RecordReader(std::vector<std::string> paths, char terminator, std::size_t buffer_size)
    : RecordReader(std::move(paths), [&] {
        ReaderConfig c;
        c.terminator = terminator;
        c.buffer_size = buffer_size;
        return c;
      }()) {}

RecordReader::RecordReader(std::vector<std::string> paths, ReaderConfig config)
    : paths_(std::move(paths)),
      config_(std::move(config)),
      term_(config_.terminator),
      framer_(config_.records_path),
      cap_(config_.buffer_size < 4096 ? 4096 : config_.buffer_size) {
  if (paths_.empty()) paths_.push_back("-");
  // JSON framing reads records that end with a newline, one line or several (never with -z
  // or --multiline, which the option rules keep apart).
  framing_known_ = config_.format != InputFormat::auto_detect || term_ != '\n' || !config_.multiline.empty();
  // CSV framing, as JSON's, for newline-ended records only (the option rules refuse -z and
  // --multiline with tables).
  const bool framed = term_ == '\n' && config_.multiline.empty();
  framing_ = framed && (config_.format == InputFormat::json || config_.format == InputFormat::csv) ? config_.format
                                                                                                   : InputFormat::lines;
  if (!config_.multiline.empty()) line_start_ = std::make_unique<LineStartPattern>(config_.multiline);
  for (const std::string& p : paths_) {
    struct stat st {};
    if (p == "-" || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // A compressed file's decompressed size is unknown: then no total at all, rather than
    // a percentage that runs past 100.
    char magic[4];
    int fd = config_.decompress ? ::open(p.c_str(), O_RDONLY | O_CLOEXEC) : -1;
    const ssize_t n = fd >= 0 ? ::pread(fd, magic, sizeof magic, 0) : 0;
    if (fd >= 0) ::close(fd);
    if (n > 0 && detect_compression({magic, static_cast<std::size_t>(n)}, true) != Compression::none) {
      total_size_ = 0;
      break;
    }
    total_size_ += static_cast<std::uint64_t>(st.st_size);
  }
  if (cap_ >= kHugeBufferFrom) {
    block_ = std::make_unique<HugeBlock>(cap_ + kTailPadding);
    buf_ = std::unique_ptr<char, FreeBuffer>(reinterpret_cast<char*>(block_->data()), FreeBuffer{false});
  } else {
    buf_.reset(static_cast<char*>(std::malloc(cap_ + kTailPadding)));
    if (!buf_) throw std::bad_alloc();
  }
  std::memset(buf_.get() + cap_, 0, kTailPadding);
}

bool RecordReader::inputs_are_regular_files() const {
  return std::all_of(paths_.begin(), paths_.end(), [](const std::string& p) {
    struct stat st {};
    return p != "-" && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  });
}

RecordReader::~RecordReader() { close_current(); }

void RecordReader::close_current() {
  source_.reset();            // first: a decompressing source's thread reads fd_ until it is joined
  if (fd_ > 0) ::close(fd_);  // stdin (0) stays open for whoever else reads it
  fd_ = -1;
}

bool RecordReader::open_next() {
  close_current();
  if (next_path_ == paths_.size()) return false;
  const std::string& p = paths_[next_path_++];
  if (p == "-") {
    fd_ = 0;
    name_ = "(stdin)";
  } else {
    fd_ = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    name_ = p;
    if (fd_ < 0) throw InputError(p + ": " + std::strerror(errno));
  }
  struct stat st {};
  const bool regular = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  modified_ns_.reset();
  if (regular) modified_ns_ = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (S_ISDIR(st.st_mode)) throw InputError(p + ": is a directory");
  source_ = make_plain_source(fd_, regular);
  detecting_ = config_.decompress;
  regular_ = regular;
  eof_ = false;
  record_in_input_ = 0;
  input_offset_ = 0;
  framer_.restart();
  input_uses_crlf_ = false;
  next_is_start_ = false;
  return true;
}

void RecordReader::stop_reading() {
  eof_ = true;
  next_path_ = paths_.size();
}

bool RecordReader::wait_for_input(int hold_ms) {
  const int fd = source_->ready_fd();
  // A decompressor behind on a regular file is not a pause: read() waits for it, and the hook
  // (which writes early, ends the output hold, releases --lateness) does not run.
  if (fd < 0 || !source_->may_pause()) return true;
  const bool hold = hold_ms >= 0;
  if (!pause_hook_ && !hold) return true;
  // Input not ready: let the hook run (flush, checkpoint), then wait as it says, but not past
  // the moment a held record must go out.
  int timeout = 0;
  std::int64_t deadline = -1;
  while (true) {
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, timeout);
    if (r < 0 && errno == EINTR && stop_ && *stop_) {
      stop_reading();
      return false;
    }
    if (r != 0) return true;
    if (hold) {
      const std::int64_t now = steady_ms();
      if (deadline < 0) deadline = now + hold_ms;
      if (now >= deadline) {
        held_out_ = true;
        return false;
      }
    }
    timeout = pause_hook_ ? pause_hook_() : -1;
    if (!hold && timeout < 0) return true;
    if (hold) {
      const int left = static_cast<int>(deadline - steady_ms());
      timeout = timeout < 0 ? std::max(left, 0) : std::min(timeout, std::max(left, 0));
    }
  }
}

void RecordReader::detect_compression_of_input() {
  const Compression c = detect_compression({buf_.get() + begin_, end_ - begin_}, eof_);
  if (c == Compression::undecided) return;
  detecting_ = false;
  if (c == Compression::none) return;
  // The bytes read so far are the stream's first; the decompressor starts from them.
  std::string prefix(buf_.get() + begin_, end_ - begin_);
  bytes_read_ -= prefix.size();
  end_ = scan_ = begin_;
  eof_ = false;
  source_ = make_decompressing_source(fd_, regular_, std::move(prefix), c);
  total_size_ = 0;
}

bool RecordReader::fill(int hold_ms) {
  // Make room: slide the partial record to the front, or grow when it fills the buffer.
  const bool slide = begin_ > 0 && (end_ == cap_ || begin_ >= cap_ / 2 || begin_ == end_);
  if ((slide || end_ == cap_) && reuse_hook_) reuse_hook_();  // records handed out are overwritten
  if (slide) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    scan_ = scan_ > begin_ ? scan_ - begin_ : 0;
    begin_ = 0;
  }
  if (end_ == cap_) {
    // Full of open records, and below buffer_limit() (at it, check_open_records() has thrown).
    // The slide above left begin_ at 0. realloc() moves a large buffer's pages rather than
    // copying them, so growing never holds the old buffer and the new one at once (but out of
    // the first block, which the bytes are copied from).
    const std::size_t new_cap = std::min(cap_ * 2, std::max(cap_ + 1, buffer_limit()));
    char* bigger = nullptr;
    if (block_) {
      bigger = static_cast<char*>(std::malloc(new_cap + kTailPadding));
      if (!bigger) throw std::bad_alloc();
      std::memcpy(bigger, buf_.get(), end_);
      buf_ = std::unique_ptr<char, FreeBuffer>(bigger, FreeBuffer{});
      block_.reset();
    } else {
      bigger = static_cast<char*>(std::realloc(buf_.get(), new_cap + kTailPadding));
      if (!bigger) throw std::bad_alloc();
      (void)buf_.release();
      buf_.reset(bigger);
    }
    std::memset(bigger + new_cap, 0, kTailPadding);
    cap_ = new_cap;
  }
  while (true) {
    if (!wait_for_input(hold_ms)) return false;
    ssize_t n = source_->read(buf_.get() + end_, cap_ - end_);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      bytes_read_ += static_cast<std::uint64_t>(n);
      if (detecting_) {
        detect_compression_of_input();
        if (end_ == begin_) continue;  // the decompressor took the bytes: read its output
      }
      return true;
    }
    if (n == 0) {
      eof_ = true;
      if (detecting_) detect_compression_of_input();  // a short plain input
      return false;
    }
    if (errno == EINTR) {
      if (stop_ && *stop_) {
        stop_reading();
        return false;
      }
      continue;
    }
    if (errno == EAGAIN) {  // a non-blocking stdin, or a decompressor that is behind: wait
      if (pause_hook_ && source_->may_pause()) continue;  // wait_for_input() waits, with the hook
      pollfd pfd{source_->ready_fd(), POLLIN, -1};
      if (::poll(&pfd, 1, -1) < 0 && errno == EINTR && stop_ && *stop_) {
        stop_reading();
        return false;
      }
      continue;
    }
    throw InputError(name_ + ": " + std::strerror(errno));
  }
}

std::size_t RecordReader::buffer_limit() const {
  // A record of max_record bytes and its CR LF; with --multiline, also the line after it,
  // which must be whole before it is known whether it starts the next record.
  const std::size_t record = config_.max_record > SIZE_MAX / 4 ? SIZE_MAX / 4 : config_.max_record + 2;
  return line_start_ ? 2 * record : record;
}

void RecordReader::check_open_records() const {
  // The bytes after the open group, up to end_, are the start of one line: its record is at
  // least that long, less a CR that may be the first half of a CR LF.
  const std::size_t line = begin_ + group_;
  std::size_t partial = end_ - line;
  if (partial > 0 && term_ == '\n' && buf_.get()[end_ - 1] == '\r') --partial;
  const std::size_t group = group_ > 0 ? group_ - (input_uses_crlf_ ? 2 : 1) : 0;
  check_record_size(line_start_ ? std::max(group, partial) : partial);
}

void RecordReader::check_record_size(std::size_t size) const {
  if (size > config_.max_record)
    throw InputError(
        name_ + ": record " + std::to_string(record_in_input_ + 1) + " is longer than --max-record " +
        format_size(config_.max_record) +
        " (the records before it were processed; raise --max-record, or check the terminator: -z, --multiline)");
}

bool RecordReader::advance_input() {
  if (reuse_hook_) reuse_hook_();  // the next input is read over this one's records
  begin_ = end_ = scan_ = group_ = 0;
  if (source_) {
    const std::string damage = source_->damage();
    if (!damage.empty()) throw InputError(name_ + ": " + damage);
  }
  if (stop_ && *stop_) return false;
  if (!open_next()) return false;
  start_input();
  return true;
}

void RecordReader::start_input() {
  // Bytes enough to tell a byte-order mark (only bytes that may begin one are waited on, so a
  // pipe's first record is not held back), and in auto mode the first byte that is not blank.
  static constexpr char kBom[] = "\xEF\xBB\xBF";
  auto decided = [&] {
    if (detecting_) return false;
    const std::size_t n = end_ - begin_;
    const char* b = buf_.get() + begin_;
    if (n < 3 && !eof_ && std::memcmp(b, kBom, n) == 0) return false;
    if (framing_known_ || eof_) return true;
    const std::size_t bom = n >= 3 && std::memcmp(b, kBom, 3) == 0 ? 3 : 0;
    return detect_format({b + bom, n - bom}, FormatHead::input) != InputFormat::auto_detect;
  };
  while (!decided()) {
    // Only blanks so far, as many as a record may hold: they are blank lines, not a record
    // too long (auto mode; the framing is lines).
    if (end_ - begin_ >= config_.max_record) break;
    if (!fill() && !eof_) break;
  }
  if (end_ - begin_ >= 3 && std::memcmp(buf_.get() + begin_, kBom, 3) == 0) {
    begin_ += 3;
    scan_ = begin_;
    input_offset_ = 3;
  }
  if (framing_known_) return;
  framing_known_ = true;
  const InputFormat f = detect_format({buf_.get() + begin_, end_ - begin_}, FormatHead::input);
  framing_ = f == InputFormat::json ? InputFormat::json : InputFormat::lines;
}

const void* RecordReader::csv_record_end(std::size_t from, const void* hit) {
  const char* base = buf_.get();
  auto count_quotes = [&](const char* p, const char* end) {
    while ((p = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p))))) {
      quote_open_ = !quote_open_;
      ++p;
    }
  };
  const char* p = base + from;
  while (hit) {
    const char* at = static_cast<const char*>(hit);
    count_quotes(p, at);
    if (!quote_open_) return hit;
    p = at + 1;
    hit = std::memchr(p, term_, static_cast<std::size_t>(base + end_ - p));
  }
  count_quotes(p, base + end_);
  return nullptr;
}

void RecordReader::hand_out_rest(Record& out) {
  quote_open_ = false;
  out.data = buf_.get() + begin_;
  out.size = end_ - begin_;
  out.term_len = 0;
  out.plain = false;
  if (next_path_ < paths_.size()) {  // (a stop empties the list of inputs)
    // end_ <= cap_ and the allocation has kTailPadding more bytes: room for two.
    char* after = buf_.get() + end_;
    if (input_uses_crlf_) after[out.term_len++] = '\r';
    after[out.term_len++] = term_;
  }
  begin_ = end_ = scan_ = group_ = 0;
  ++record_in_input_;
}

void RecordReader::hand_out_group(Record& out, bool next_is_start) {
  const std::uint32_t t = input_uses_crlf_ ? 2 : 1;
  out.data = buf_.get() + begin_;
  out.size = group_ - t;
  out.term_len = t;
  out.head_size = std::min(head_size_, out.size);
  out.continues = !start_line_ && record_in_input_ > 0;
  out.plain = false;
  ++record_in_input_;
  begin_ += group_;
  group_ = 0;
  scan_ = begin_;
  next_is_start_ = next_is_start;
}

bool RecordReader::next(Record& out) {
  if (line_start_) return next_multiline(out);
  return framing_ == InputFormat::json ? next_json(out) : next_line(out);
}

bool RecordReader::next_line(Record& out) {
  while (true) {
    if (begin_ < end_) {
      const char* base = buf_.get();
      std::size_t from = scan_ > begin_ ? scan_ : begin_;
      const void* hit = std::memchr(base + from, term_, end_ - from);
      if (framing_ == InputFormat::csv) hit = csv_record_end(from, hit);
      if (hit) {
        std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
        std::size_t size = pos - begin_;
        std::uint32_t term_len = 1;
        if (term_ == '\n' && size > 0 && base[pos - 1] == '\r') {
          --size;
          term_len = 2;
        }
        check_record_size(size);
        out.data = base + begin_;
        out.size = out.head_size = size;
        out.term_len = term_len;
        out.continues = out.plain = false;
        input_offset_ += pos + 1 - begin_;
        begin_ = pos + 1;
        scan_ = begin_;
        input_uses_crlf_ = term_len == 2;
        ++record_in_input_;
        return true;
      }
      scan_ = end_;
      if (eof_ && !detecting_) {  // the input's last record, without a terminator
        check_record_size(end_ - begin_);
        hand_out_rest(out);
        out.head_size = out.size;
        out.continues = false;
        return true;
      }
      check_open_records();
    } else if (eof_) {
      if (!advance_input()) return false;
      if (framing_ == InputFormat::json) return next_json(out);  // the first input chose JSON framing
      continue;                                                  // its first bytes were read
    }
    if (!eof_) fill();
  }
}

bool RecordReader::next_multiline(Record& out) {
  // The open record's lines are [begin_, begin_ + group_); the next line starts after them.
  while (true) {
    const char* base = buf_.get();
    const std::size_t line = begin_ + group_;
    // A stop read nothing more: a record of many lines ends with the lines read so far.
    if (stop_ && *stop_ && !eof_) stop_reading();
    if (line < end_) {
      const std::size_t from = scan_ > line ? scan_ : line;
      const void* hit = std::memchr(base + from, term_, end_ - from);
      if (hit) {
        const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
        std::size_t size = pos - line;
        const bool crlf = term_ == '\n' && size > 0 && base[pos - 1] == '\r';
        size -= crlf;
        scan_ = pos + 1;
        if (group_ == 0) {  // the record's first line
          head_size_ = size;
          start_line_ = next_is_start_ || line_start_->starts_record({base + line, size});
          next_is_start_ = false;
        } else if (line_start_->starts_record({base + line, size})) {  // the next record begins here
          hand_out_group(out, true);
          return true;
        }
        group_ = pos + 1 - begin_;
        input_uses_crlf_ = crlf;
        check_record_size(group_ - (crlf ? 2 : 1));
        continue;
      }
      scan_ = end_;
    }
    if (eof_ && !detecting_) {
      if (begin_ == end_) {
        if (!advance_input()) return false;
        continue;
      }
      // The input ends: the open record takes an unterminated last line unless that starts
      // a record of its own.
      const std::size_t rest = end_ - (begin_ + group_);
      if (group_ > 0 && rest > 0 && line_start_->starts_record({base + begin_ + group_, rest})) {
        hand_out_group(out, true);
        return true;
      }
      if (rest == 0) {
        hand_out_group(out, false);
        return true;
      }
      if (group_ == 0) {
        head_size_ = rest;
        start_line_ = next_is_start_ || line_start_->starts_record({base + begin_, rest});
      }
      check_record_size(end_ - begin_);
      out.continues = !start_line_ && record_in_input_ > 0;
      hand_out_rest(out);
      out.head_size = std::min(head_size_, out.size);
      next_is_start_ = false;
      return true;
    }
    check_open_records();
    held_out_ = false;
    if (!fill(group_ > 0 ? config_.multiline_timeout_ms : -1) && held_out_) {
      // The input paused with a record open: it goes out now; lines that continue it later
      // are handed out as `continues`.
      held_out_ = false;
      hand_out_group(out, false);
      return true;
    }
  }
}

}  // namespace tlbf_dedup
