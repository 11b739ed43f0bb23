// Where an NDJSON line ends, for the JSON framer's fast path (json_frames.cpp): whole
// 16- or 32-byte blocks of a line tested at once for its end, its quotes, its closers and
// whether it is plain ASCII.
//
// Invariant: ndjson_line_end() returns a line end only where the byte-by-byte framer would
// end its record too, so the fast path frames exactly as the slow one does.
#include "input/ndjson_lines.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TLBF_LINE_AVX2 1
#endif

namespace tlbf_dedup {
namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A '}' or ']' at `closer` followed by blanks and another '{' or '[': a value after a value,
// a record of its own.
bool value_follows(const char* p, std::size_t n, std::size_t closer) {
  std::size_t j = closer + 1;
  while (j < n && is_blank(p[j])) ++j;
  return j < n && (p[j] == '{' || p[j] == '[');
}

// The block passes of a line: from `i` on, whole blocks up to the one holding the line's
// newline (`nl`, or npos while not found), each block's bytes that are not plain or-ed into
// `odd` and its quotes xor-ed into `quotes` (the parity of all quotes is that of the bits at
// the end), and `value_after` set (the pass stopped) at a closer a value follows.
// Each pass works on copies of the members: the bytes it reads could alias them, and the
// compiler would store them back on every block.
struct LinePass {
  std::size_t i;
  std::size_t nl = npos;
  unsigned odd = 0, quotes = 0;
  bool value_after = false;
};

#if defined(__SSE2__)
void line_blocks_16(const char* p, std::size_t n, LinePass& s) {
  std::size_t i = s.i, nl = s.nl;
  unsigned odd = 0, quotes = 0;
  // Blocks before the newline's are or-ed and xor-ed lane by lane, their bits taken once.
  __m128i bad_lanes = _mm_setzero_si128(), quote_lanes = _mm_setzero_si128();
  for (; nl == npos && i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const auto newlines = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
    // ']' is '}' with bit 5 clear.
    auto closers = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('}'))));
    // Signed: bytes of 0x80 and above are negative, so below ' ' as the control bytes are.
    const __m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    if (newlines != 0) {
      nl = i + static_cast<std::size_t>(__builtin_ctz(newlines));
      const unsigned before = (1u << __builtin_ctz(newlines)) - 1;
      closers &= before;
      odd |= static_cast<unsigned>(_mm_movemask_epi8(bad)) & before;
      quotes ^= static_cast<unsigned>(_mm_movemask_epi8(quote)) & before;
    } else {
      bad_lanes = _mm_or_si128(bad_lanes, bad);
      quote_lanes = _mm_xor_si128(quote_lanes, quote);
    }
    for (; closers != 0; closers &= closers - 1)
      if (value_follows(p, n, i + static_cast<std::size_t>(__builtin_ctz(closers)))) {
        s.value_after = true;
        return;
      }
  }
  odd |= static_cast<unsigned>(_mm_movemask_epi8(bad_lanes));
  quotes ^= static_cast<unsigned>(_mm_movemask_epi8(quote_lanes));
  s.i = i, s.nl = nl, s.odd |= odd, s.quotes ^= quotes;
}
#endif

#if defined(TLBF_LINE_AVX2)
// line_blocks_16() 32 bytes at a time: a typical NDJSON line of ~120 bytes is four blocks,
// not eight.
[[gnu::target("avx2")]] void line_blocks_32(const char* p, std::size_t n, LinePass& s) {
  std::size_t i = s.i, nl = s.nl;
  unsigned odd = 0, quotes = 0;
  __m256i bad_lanes = _mm256_setzero_si256(), quote_lanes = _mm256_setzero_si256();
  for (; nl == npos && i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const auto newlines = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))));
    auto closers = static_cast<unsigned>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('}'))));
    const __m256i bad =
        _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(' '), v), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
    const __m256i quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('"'));
    if (newlines != 0) {
      nl = i + static_cast<std::size_t>(__builtin_ctz(newlines));
      const unsigned before = (1u << __builtin_ctz(newlines)) - 1;  // the shift is at most 31
      closers &= before;
      odd |= static_cast<unsigned>(_mm256_movemask_epi8(bad)) & before;
      quotes ^= static_cast<unsigned>(_mm256_movemask_epi8(quote)) & before;
    } else {
      bad_lanes = _mm256_or_si256(bad_lanes, bad);
      quote_lanes = _mm256_xor_si256(quote_lanes, quote);
    }
    for (; closers != 0; closers &= closers - 1)
      if (value_follows(p, n, i + static_cast<std::size_t>(__builtin_ctz(closers)))) {
        s.value_after = true;
        return;
      }
  }
  odd |= static_cast<unsigned>(_mm256_movemask_epi8(bad_lanes));
  quotes ^= static_cast<unsigned>(_mm256_movemask_epi8(quote_lanes));
  s.i = i, s.nl = nl, s.odd |= odd, s.quotes ^= quotes;
}
#endif

}  // namespace

// Where an NDJSON line starting at `from` (a '{') ends, when the byte-by-byte framer would end
// its record there too: the line's last non-blank byte is '}', the next line starts with '{',
// and no '}' or ']' inside it is followed by blanks and another '{' or '[' (a value after a
// value is a record of its own). Whether the object closes at that last '}' or earlier, or
// not at all, the record is then this line. npos otherwise. One pass finds the line end and
// tests each closer before it (the last '}' is followed by the line end: it passes), and
// whether the bytes before the newline are a plain_ascii_record() (into `plain`), which the
// JSON extractor would otherwise check in a second pass over them: 32-byte blocks where the
// processor has them (`scan`), then 16-byte ones, then the last bytes one by one.
std::size_t ndjson_line_end(std::string_view b, std::size_t from, LineScan scan, bool& plain) {
  const char* p = b.data();
  const std::size_t n = b.size();
  LinePass s{from};
#if defined(TLBF_LINE_AVX2)
  if (scan == LineScan::wide) line_blocks_32(p, n, s);
#else
  (void)scan;
#endif
#if defined(__SSE2__)
  if (!s.value_after && s.nl == npos) line_blocks_16(p, n, s);
#endif
  if (s.value_after) return npos;
  for (; s.nl == npos && s.i < n; ++s.i) {
    const auto c = static_cast<unsigned char>(p[s.i]);
    if (c == '\n') {
      s.nl = s.i;
    } else {
      s.odd |= c < 0x20 || c >= 0x80 || c == '\\';
      s.quotes ^= c == '"';
      if ((c == '}' || c == ']') && value_follows(p, n, s.i)) return npos;
    }
  }
  const std::size_t nl = s.nl;
  plain = s.odd == 0 && __builtin_parity(s.quotes) == 0;
  if (nl == npos || nl + 1 >= n || p[nl + 1] != '{') return npos;
  std::size_t last = nl;
  while (last > from && is_blank(p[last - 1])) --last;
  return p[last - 1] == '}' ? nl : npos;
}

LineScan widest_line_scan() {
#if defined(TLBF_LINE_AVX2)
  if (__builtin_cpu_supports("avx2")) return LineScan::wide;
#endif
  return LineScan::narrow;
}

}  // namespace tlbf_dedup
