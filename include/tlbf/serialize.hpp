// SPDX-License-Identifier: MIT
// Endianness-independent primitives for saving filter state.
//
// Integers are written little-endian, doubles as the bit pattern of IEEE-754 binary64, byte strings with a u64 length
// prefix. ByteReader checks every read against the remaining input and throws tlbf::state_error on truncation, so a
// loader never reads past the end of a damaged file. Framing (magic, format version, checksum) is added by the caller
// around a filter's payload.
//
// A saved format is written down once, as a function template that names every field in
// order through an archive:
//
//   template <class Self, class Archive>
//   static void visit_fields(Self& f, Archive& ar) {
//     ar.u32(f.k_);
//     ar.flag(f.started_);
//     if constexpr (Archive::loading) f.check_loaded_parameters();
//     ar.words(f.bits_, f.max_words());
//   }
//
// save() runs it with a Saver over a const filter, load() with a Loader over a fresh one
// (SavedForm, at the end, does both for a class), so the two directions cannot drift apart.
// The archives' functions name the stored width and take one or more fields of exactly that
// type (ar.u64(f.a_, f.b_)), so a field whose type does not match its width does not
// compile. What only loading needs (checks, derived members) goes under `Archive::loading`.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tlbf/detail/endian.hpp"
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
    word_array(w.data(), w.size());
  }
  // n words, without a length: each as u64() writes it.
  void word_array(const std::uint64_t* w, std::size_t n) {
    if constexpr (detail::kLittleEndian) {
      buf_.append(reinterpret_cast<const char*>(w), n * sizeof *w);
    } else {
      for (std::size_t i = 0; i < n; ++i) u64(w[i]);
    }
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
    std::vector<std::uint64_t> w(word_count(max_words));
    word_array(w.data(), w.size());
    return w;
  }
  // n words, without a length: each as u64() reads it.
  void word_array(std::uint64_t* w, std::uint64_t n) {
    if (n > remaining() / 8) throw state_error("state: truncated payload");
    if constexpr (detail::kLittleEndian) {
      if (n != 0) std::memcpy(w, in_.data() + pos_, n * sizeof *w);
      pos_ += n * sizeof *w;
    } else {
      for (std::uint64_t i = 0; i < n; ++i) w[i] = u64();
    }
  }
  // The length field of a word vector: at most `max_words`, and no more than the input holds.
  std::uint64_t word_count(std::uint64_t max_words) {
    std::uint64_t n = u64();
    if (n > max_words || n > remaining() / 8) throw state_error("state: bit array length out of range");
    return n;
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

namespace detail {
// A field as the type its stored width names: a field of any other type does not compile,
// so a member whose type changes cannot silently change the format.
template <class W, class T>
constexpr T& stored_as(T& field) {
  static_assert(std::is_same_v<std::remove_const_t<T>, W>, "a field's type must be the type its width names");
  return field;
}
}  // namespace detail

// Writes the fields visit_fields() names.
class Saver {
 public:
  static constexpr bool loading = false;
  explicit Saver(ByteWriter& out) : out_(out) {}

  // Each takes one or more fields of the type its width names, in order.
  template <class... T>
  void u8(const T&... v) {
    put<std::uint8_t, &ByteWriter::u8>(v...);
  }
  template <class... T>
  void u32(const T&... v) {
    put<std::uint32_t, &ByteWriter::u32>(v...);
  }
  template <class... T>
  void u64(const T&... v) {
    put<std::uint64_t, &ByteWriter::u64>(v...);
  }
  template <class... T>
  void i64(const T&... v) {
    put<std::int64_t, &ByteWriter::i64>(v...);
  }
  template <class... T>
  void f64(const T&... v) {
    put<double, &ByteWriter::f64>(v...);
  }
  // One byte each, 0 or 1.
  template <class... T>
  void flag(const T&... v) {
    (out_.u8(detail::stored_as<bool>(v) ? 1 : 0), ...);
  }
  void bytes(const std::string_view& v) { out_.bytes(v); }
  // A presence flag, then the value (0 when absent).
  void optional_u32(const std::optional<std::uint32_t>& v) {
    flag(v.has_value());
    out_.u32(v.value_or(0));
  }
  // A format version byte; the Loader refuses any other value with `error`.
  void version(std::uint8_t v, const char* /*error*/) { out_.u8(v); }
  // A counted word vector (u64 length, then the words).
  void words(const std::vector<std::uint64_t>& w, std::uint64_t /*max_words*/) { out_.words(w); }
  // The same in two parts, for words that do not live in a vector of their own.
  void word_count(const std::uint64_t& n, std::uint64_t /*max_words*/) { out_.u64(n); }
  void word_data(const std::uint64_t* w, std::uint64_t n) { out_.word_array(w, n); }

 private:
  // Each field as its stored type S, written by `Put`.
  template <class S, void (ByteWriter::*Put)(S), class... T>
  void put(const T&... v) {
    ((out_.*Put)(detail::stored_as<S>(v)), ...);
  }
  ByteWriter& out_;
};

// Reads the fields visit_fields() names, with the ByteReader's checks.
class Loader {
 public:
  static constexpr bool loading = true;
  explicit Loader(ByteReader& in) : in_(in) {}

  template <class... T>
  void u8(T&... v) {
    get<std::uint8_t, &ByteReader::u8>(v...);
  }
  template <class... T>
  void u32(T&... v) {
    get<std::uint32_t, &ByteReader::u32>(v...);
  }
  template <class... T>
  void u64(T&... v) {
    get<std::uint64_t, &ByteReader::u64>(v...);
  }
  template <class... T>
  void i64(T&... v) {
    get<std::int64_t, &ByteReader::i64>(v...);
  }
  template <class... T>
  void f64(T&... v) {
    get<double, &ByteReader::f64>(v...);
  }
  template <class... T>
  void flag(T&... v) {
    ((detail::stored_as<bool>(v) = read_flag()), ...);
  }
  void bytes(std::string_view& v) { v = in_.bytes(); }
  void optional_u32(std::optional<std::uint32_t>& v) {
    const bool present = read_flag();
    const std::uint32_t x = in_.u32();
    if (!present && x != 0) throw state_error("state: an absent value is stored as " + std::to_string(x));
    v = present ? std::optional<std::uint32_t>(x) : std::nullopt;
  }
  void version(std::uint8_t v, const char* error) {
    if (in_.u8() != v) throw state_error(error);
  }
  void words(std::vector<std::uint64_t>& w, std::uint64_t max_words) { w = in_.words(max_words); }
  void word_count(std::uint64_t& n, std::uint64_t max_words) { n = in_.word_count(max_words); }
  void word_data(std::uint64_t* w, std::uint64_t n) { in_.word_array(w, n); }

  std::size_t remaining() const { return in_.remaining(); }

 private:
  // Each field as its stored type S, read by `Get`.
  template <class S, S (ByteReader::*Get)(), class... T>
  void get(T&... v) {
    ((detail::stored_as<S>(v) = (in_.*Get)()), ...);
  }
  bool read_flag() {
    const std::uint8_t b = in_.u8();
    if (b > 1) throw state_error("state: a flag byte is neither 0 nor 1");
    return b == 1;
  }

  ByteReader& in_;
};

// save() and load() for a class F whose saved form is its static visit_fields(): F declares
// `friend struct SavedForm;` so these reach visit_fields() and its private default
// constructor (the state of a filter being loaded, before its fields arrive).
struct SavedForm {
  // `tags`: bytes written before the fields (the algorithm, a variant), each cast to u8.
  template <class F, class... Tag>
  static void save(const F& f, ByteWriter& out, Tag... tags) {
    (out.u8(static_cast<std::uint8_t>(tags)), ...);
    Saver ar(out);
    F::visit_fields(f, ar);
  }
  template <class F>
  static std::unique_ptr<F> load(ByteReader& in) {
    std::unique_ptr<F> f(new F());
    Loader ar(in);
    F::visit_fields(*f, ar);
    return f;
  }
};

}  // namespace tlbf
