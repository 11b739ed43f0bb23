// Buffered output with write(2) in large chunks.
//
// Invariant: bytes reach the descriptor in the order they were given, unchanged; nothing
// is written between flush points except when the buffer fills, so a downstream reader sees
// large writes. A record larger than the buffer is written straight from the caller's
// memory after the buffer is flushed (no copy). EPIPE is reported as BrokenPipe (SIGPIPE is
// ignored by the program so write(2) returns it instead of killing the process).
#include "writer.hpp"

#include <cerrno>

#include <unistd.h>

namespace tlbf_dedup {

Writer::Writer(int fd, std::size_t buffer_size) : fd_(fd), buf_(new char[buffer_size]), cap_(buffer_size) {}

Writer::~Writer() = default;

void Writer::write_all(const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe{};
      throw OutputError(std::string("write error: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
    written_ += static_cast<std::uint64_t>(w);
  }
}

void Writer::flush() {
  if (len_ == 0) return;
  std::size_t n = len_;
  len_ = 0;
  write_all(buf_.get(), n);
}

void Writer::write_slow(std::string_view bytes) {
  flush();
  if (bytes.size() >= cap_ / 2) {
    write_all(bytes.data(), bytes.size());
  } else {
    std::memcpy(buf_.get(), bytes.data(), bytes.size());
    len_ = bytes.size();
  }
}

void write_marked(Writer& out, std::string_view bytes, std::size_t text_size, bool json, bool duplicate,
                  std::string_view escaped_name) {
  if (!json) {
    out.write(duplicate ? "dup\t" : "new\t");
    out.write(bytes);
    return;
  }
  // Find the object's closing brace, skipping trailing blanks.
  std::size_t close = text_size;
  while (close > 0 && (bytes[close - 1] == ' ' || bytes[close - 1] == '\t' || bytes[close - 1] == '\r')) --close;
  if (close == 0 || bytes[close - 1] != '}') {
    out.write(bytes);
    return;
  }
  --close;
  std::size_t before = close;
  while (before > 0 && (bytes[before - 1] == ' ' || bytes[before - 1] == '\t' || bytes[before - 1] == '\n' || bytes[before - 1] == '\r')) --before;
  bool empty_object = before > 0 && bytes[before - 1] == '{';
  out.write(bytes.substr(0, close));
  out.write(empty_object ? "\"" : ",\"");
  out.write(escaped_name);
  out.write(duplicate ? "\":true" : "\":false");
  out.write(bytes.substr(close));
}

std::string json_escape(std::string_view name) {
  std::string r;
  for (char c : name) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* kHex = "0123456789abcdef";
      r += "\\u00";
      r += kHex[(c >> 4) & 0xf];
      r += kHex[c & 0xf];
    } else {
      r += c;
    }
  }
  return r;
}

}  // namespace tlbf_dedup
