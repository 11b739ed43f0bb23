// Byte sources for the record reader, and the detection of compressed input.
//
// Invariant: a source returns the input's bytes in order, each exactly once; a plain source
// is read(2) and nothing more, so
// uncompressed input costs what it cost before sources existed. Compressed sources live in
// decompress.cpp.
#include "input/byte_source.hpp"

#include <unistd.h>

namespace tlbf_dedup {

Compression detect_compression(std::string_view b, bool at_end) {
  static constexpr unsigned char kGzip[] = {0x1f, 0x8b};
  static constexpr unsigned char kZstd[] = {0x28, 0xb5, 0x2f, 0xfd};
  static constexpr unsigned char kSkippable[] = {0x50, 0x2a, 0x4d, 0x18};  // first byte 0x50-0x5f
  auto same = [&](const unsigned char* magic, std::size_t size, bool any_low_nibble) {
    const std::size_t n = b.size() < size ? b.size() : size;
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(b[i]);
      if (i == 0 && any_low_nibble ? (c & 0xf0) != magic[0] : c != magic[i]) return false;
    }
    return true;
  };
  const bool gzip = same(kGzip, 2, false), zstd = same(kZstd, 4, false) || same(kSkippable, 4, true);
  if (b.size() >= 2 && gzip) return Compression::gzip;
  if (b.size() >= 4 && zstd) return Compression::zstd;
  if (!at_end && !b.empty() && (gzip || zstd)) return Compression::undecided;
  return b.empty() && !at_end ? Compression::undecided : Compression::none;
}

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::gzip:
      return "gzip";
    case Compression::zstd:
      return "zstd";
    default:
      return "plain";
  }
}

namespace {

class PlainSource final : public ByteSource {
 public:
  PlainSource(int fd, bool regular) : fd_(fd), regular_(regular) {}
  ssize_t read(char* dst, std::size_t n) override { return ::read(fd_, dst, n); }
  int ready_fd() const override { return regular_ ? -1 : fd_; }
  bool may_pause() const override { return !regular_; }

 private:
  int fd_;
  bool regular_;
};

}  // namespace

std::unique_ptr<ByteSource> make_plain_source(int fd, bool regular) {
  return std::make_unique<PlainSource>(fd, regular);
}

}  // namespace tlbf_dedup
