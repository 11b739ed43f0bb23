// Field lists in the style of cut(1): "3", "1,4", "2-5", "6-", and the splitting of a line
// into fields, either at every occurrence of one delimiter byte (like cut -d) or at runs of
// blanks (spaces and tabs, like awk), with leading blanks ignored in the latter mode.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tlbf_dedup {

// How blanks are scanned: 16 bytes at a time with SSE2, or byte by byte. Both are built
// wherever SSE2 exists, so the tests compare them; kBestScan is what the program uses.
enum class Scan { scalar, sse2 };
#if defined(__SSE2__)
inline constexpr Scan kBestScan = Scan::sse2;
#else
inline constexpr Scan kBestScan = Scan::scalar;
#endif

class FieldList {
 public:
  static constexpr std::uint32_t kOpenEnd = UINT32_MAX;
  struct Range {
    std::uint32_t first;  // 1-based
    std::uint32_t last;   // inclusive; kOpenEnd for "N-"
  };

  // nullopt for anything that is not a valid list (empty items, 0, reversed ranges).
  static std::optional<FieldList> parse(std::string_view spec);

  // Ranges sorted by first field and merged, so fields come out in line order as with cut.
  const std::vector<Range>& ranges() const { return ranges_; }
  bool contains(std::uint32_t field) const { return field < 64 ? (mask_ >> field) & 1 : contains_beyond_63(field); }
  // The line must have at least this many fields for the list to be complete: the last
  // field of every closed range and the first field of an open one.
  std::uint32_t required_fields() const { return required_; }
  // The highest field that can be selected (kOpenEnd when a range is open).
  std::uint32_t last_field() const { return ranges_.back().last; }

 private:
  bool contains_beyond_63(std::uint32_t field) const;

  std::vector<Range> ranges_;
  std::uint32_t required_ = 0;
  std::uint64_t mask_ = 0;  // bit n set: field n (1..63) is selected; the common case, one test per field
};

namespace detail {

// Blank scanning for the default separator, 16 bytes at a time while a whole block lies
// inside the line (so no byte past `end` is read), then byte by byte. Byte-at-a-time
// scanning was a fifth of the program's instructions on typical log lines.
#if defined(__SSE2__)
inline std::uint32_t blank_mask16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
  return static_cast<std::uint32_t>(_mm_movemask_epi8(b));
}
// Bit i set: p[i] is a blank, for i < 64.
inline std::uint64_t blank_mask64(const char* p) {
  return std::uint64_t{blank_mask16(p)} | std::uint64_t{blank_mask16(p + 16)} << 16 |
         std::uint64_t{blank_mask16(p + 32)} << 32 | std::uint64_t{blank_mask16(p + 48)} << 48;
}
#endif

// First byte at or after p that is not a blank, or end.
template <Scan S = kBestScan>
inline const char* skip_blanks(const char* p, const char* end) {
#if defined(__SSE2__)
  if constexpr (S == Scan::sse2) {
    while (end - p >= 16) {
      const std::uint32_t non_blank = ~blank_mask16(p) & 0xFFFFu;
      if (non_blank) return p + __builtin_ctz(non_blank);
      p += 16;
    }
  }
#else
  static_assert(S == Scan::scalar, "SSE2 scanning needs an SSE2 target");
#endif
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p;
}

// First blank at or after p, or end.
template <Scan S = kBestScan>
inline const char* find_blank(const char* p, const char* end) {
#if defined(__SSE2__)
  if constexpr (S == Scan::sse2) {
    while (end - p >= 16) {
      const std::uint32_t blank = blank_mask16(p);
      if (blank) return p + __builtin_ctz(blank);
      p += 16;
    }
  }
#else
  static_assert(S == Scan::scalar, "SSE2 scanning needs an SSE2 target");
#endif
  while (p < end && *p != ' ' && *p != '\t') ++p;
  return p;
}

}  // namespace detail

// Splits a line into fields. `delimiter` < 0 means runs of blanks.
class FieldSplitter {
 public:
  explicit FieldSplitter(int delimiter) : delimiter_(delimiter) {}

  // Calls visit(field_number, text) for each field of `line` in order, up to `last_field`;
  // returns the number of fields visited (which is less than last_field when the line is
  // shorter). `visit` returning false stops early. `S` chooses the blank scanning; every
  // choice visits the same fields.
  template <Scan S = kBestScan, typename Visit>
  std::uint32_t split(std::string_view line, std::uint32_t last_field, Visit&& visit) const;

 private:
  int delimiter_;
};

template <Scan S, typename Visit>
std::uint32_t FieldSplitter::split(std::string_view line, std::uint32_t last_field, Visit&& visit) const {
  const char* p = line.data();
  const char* end = p + line.size();
  std::uint32_t n = 0;
  if (delimiter_ >= 0) {
    const char d = static_cast<char>(delimiter_);
    while (n < last_field) {
      const char* q = static_cast<const char*>(std::memchr(p, d, static_cast<std::size_t>(end - p)));
      const char* field_end = q ? q : end;
      ++n;
      if (!visit(n, std::string_view(p, static_cast<std::size_t>(field_end - p)))) return n;
      if (!q) break;
      p = q + 1;
    }
    return n;
  }
#if defined(__SSE2__)
  // Fields that start and end within the first 64 bytes (the usual case for the leading
  // fields of a log line) come from one blank mask by bit scans; the rest, if any, from the
  // loop below, which starts where this stops.
  if (S == Scan::sse2 && end - p >= 64 && n < last_field) {
    const std::uint64_t blank = detail::blank_mask64(p);
    unsigned pos = 0;
    while (true) {
      const std::uint64_t starts = ~blank & (~std::uint64_t{0} << pos);
      if (!starts) {  // blanks to the end of the block
        p += 64;
        break;
      }
      const unsigned s = static_cast<unsigned>(__builtin_ctzll(starts));
      const std::uint64_t ends = blank & (~std::uint64_t{0} << s);
      if (!ends) {  // the field runs past the block
        p += s;
        break;
      }
      const unsigned e = static_cast<unsigned>(__builtin_ctzll(ends));
      ++n;
      if (!visit(n, std::string_view(p + s, e - s)) || n == last_field) return n;
      pos = e;  // < 64: p[e] is a blank
    }
  }
#endif
  while (n < last_field) {
    p = detail::skip_blanks<S>(p, end);
    if (p == end) break;
    const char* s = p;
    p = detail::find_blank<S>(p, end);
    ++n;
    if (!visit(n, std::string_view(s, static_cast<std::size_t>(p - s)))) return n;
  }
  return n;
}

}  // namespace tlbf_dedup
