// Endianness-independent primitives for saving filter state.
//
// Integers are written little-endian byte by byte, doubles as the bit pattern of IEEE-754
// binary64, byte strings with a u64 length prefix. ByteReader checks every read against the
// remaining input and throws tlbf::state_error on truncation, so a loader never reads past
// the end of a damaged file. Framing (magic, format version, checksum) is added by the
// caller around a filter's payload.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void bytes(std::string_view s) {
    u64(s.size());
    buf_.append(s.data(), s.size());
  }
  void words(const std::vector<std::uint64_t>& w) {
    u64(w.size());
    for (std::uint64_t x : w) u64(x);
  }

  const std::string& data() const { return buf_; }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  std::uint8_t u8() {
    need(1);
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<std::uint8_t>(in_[pos_++])} << (8 * i);
    return v;
  }
  std::uint64_t u64() {
    need(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<std::uint8_t>(in_[pos_++])} << (8 * i);
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() {
    std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string_view bytes() {
    std::uint64_t n = u64();
    need(n);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // Reads a word vector whose length must not exceed `max_words` (guards against a
  // corrupted length field asking for terabytes).
  std::vector<std::uint64_t> words(std::uint64_t max_words) {
    std::uint64_t n = u64();
    if (n > max_words || n > remaining() / 8) throw state_error("state: bit array length out of range");
    std::vector<std::uint64_t> w(n);
    for (auto& x : w) x = u64();
    return w;
  }

  std::size_t remaining() const { return in_.size() - pos_; }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  void need(std::uint64_t n) const {
    if (n > remaining()) throw state_error("state: truncated payload");
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace tlbf
