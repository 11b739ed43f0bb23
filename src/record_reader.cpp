// The record reader: read(2) into one buffer, records handed out as spans.
//
// Invariants:
//  - buf_[begin_, end_) holds bytes read but not yet handed out; a handed-out record stays
//    valid until the next call to next(), because bytes move only inside fill(), which
//    next() calls only after the previous record has been consumed.
//  - Every record is followed by at least kTailPadding readable bytes of the allocation
//    (the buffer is allocated cap_ + kTailPadding), so JSON can be parsed in place.
//  - No copying per record: bytes are moved only when a partial record must be slid to the
//    front of the buffer before a refill, and the buffer doubles when one record fills it,
//    so a record of n bytes costs O(n) amortised however long it is.
//  - A record ends at the terminator; for newline records a CR right before the LF is part
//    of the terminator (term_len 2), so keys and times never see it but output keeps it.
//    The last record of each input ends with the input: without a terminator it gets the
//    input's own (written into the buffer after it, where the padding leaves room), except
//    the last input's, which keeps term_len 0 so that output stays byte-exact.
#include "record_reader.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlbf_dedup {

RecordReader::RecordReader(std::vector<std::string> paths, char terminator, std::size_t buffer_size)
    : paths_(std::move(paths)), term_(terminator), cap_(buffer_size < 4096 ? 4096 : buffer_size) {
  if (paths_.empty()) paths_.push_back("-");
  for (const std::string& p : paths_) {
    struct stat st {};
    if (p != "-" && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) total_size_ += static_cast<std::uint64_t>(st.st_size);
  }
  buf_.reset(new char[cap_ + kTailPadding]);
  std::memset(buf_.get() + cap_, 0, kTailPadding);
}

RecordReader::~RecordReader() { close_current(); }

void RecordReader::close_current() {
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
  fd_is_regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  modified_ns_.reset();
  if (fd_is_regular_) modified_ns_ = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (S_ISDIR(st.st_mode)) throw InputError(p + ": is a directory");
  eof_ = false;
  record_in_input_ = 0;
  input_uses_crlf_ = false;
  return true;
}

bool RecordReader::fill() {
  // Make room: slide the partial record to the front, or grow when it fills the buffer.
  if (begin_ > 0 && (end_ == cap_ || begin_ >= cap_ / 2 || begin_ == end_)) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    scan_ = scan_ > begin_ ? scan_ - begin_ : 0;
    begin_ = 0;
  }
  if (end_ == cap_) {
    std::size_t new_cap = cap_ * 2;
    std::unique_ptr<char[]> bigger(new char[new_cap + kTailPadding]);
    std::memcpy(bigger.get(), buf_.get() + begin_, end_ - begin_);
    std::memset(bigger.get() + new_cap, 0, kTailPadding);
    end_ -= begin_;
    scan_ = scan_ > begin_ ? scan_ - begin_ : 0;
    begin_ = 0;
    buf_ = std::move(bigger);
    cap_ = new_cap;
  }
  while (true) {
    if (!fd_is_regular_ && pause_hook_) {
      // Input not ready: let the hook run (flush, checkpoint), then wait as it says.
      int timeout = 0;
      while (true) {
        pollfd pfd{fd_, POLLIN, 0};
        int r = ::poll(&pfd, 1, timeout);
        if (r < 0 && errno == EINTR && stop_ && *stop_) {
          eof_ = true;
          next_path_ = paths_.size();
          return false;
        }
        if (r != 0) break;
        timeout = pause_hook_();
        if (timeout < 0) break;
      }
    }
    ssize_t n = ::read(fd_, buf_.get() + end_, cap_ - end_);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      bytes_read_ += static_cast<std::uint64_t>(n);
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) {
      if (stop_ && *stop_) {
        eof_ = true;
        next_path_ = paths_.size();
        return false;
      }
      continue;
    }
    if (errno == EAGAIN) {  // a non-blocking stdin: wait for it
      pollfd pfd{fd_, POLLIN, -1};
      if (::poll(&pfd, 1, -1) < 0 && errno == EINTR && stop_ && *stop_) {
        eof_ = true;
        next_path_ = paths_.size();
        return false;
      }
      continue;
    }
    throw InputError(name_ + ": " + std::strerror(errno));
  }
}

bool RecordReader::next(Record& out) {
  while (true) {
    if (begin_ < end_) {
      const char* base = buf_.get();
      std::size_t from = scan_ > begin_ ? scan_ : begin_;
      const void* hit = std::memchr(base + from, term_, end_ - from);
      if (hit) {
        std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
        std::size_t size = pos - begin_;
        std::uint32_t term_len = 1;
        if (term_ == '\n' && size > 0 && base[pos - 1] == '\r') {
          --size;
          term_len = 2;
        }
        out.data = base + begin_;
        out.size = size;
        out.term_len = term_len;
        begin_ = pos + 1;
        scan_ = begin_;
        input_uses_crlf_ = term_len == 2;
        ++record_in_input_;
        return true;
      }
      scan_ = end_;
      if (eof_) {  // the input's last record, without a terminator
        out.data = base + begin_;
        out.size = end_ - begin_;
        out.term_len = 0;
        if (next_path_ < paths_.size()) {  // (a stop empties the list of inputs)
          // end_ <= cap_ and the allocation has kTailPadding more bytes: room for two.
          char* after = buf_.get() + end_;
          if (input_uses_crlf_) after[out.term_len++] = '\r';
          after[out.term_len++] = term_;
        }
        begin_ = end_ = scan_ = 0;
        ++record_in_input_;
        return true;
      }
    } else if (eof_) {
      begin_ = end_ = scan_ = 0;
      if (stop_ && *stop_) return false;
      if (!open_next()) return false;
    }
    if (!eof_) fill();
  }
}

}  // namespace tlbf_dedup
