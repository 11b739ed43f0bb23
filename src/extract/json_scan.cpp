// The JSON fast path (json_scan.hpp): the common record -- printable ASCII, no backslash, the
// wanted members top-level names among its first -- read from its bytes without simdjson.
//
// Invariant: plain_ascii_record() is true only for a record simdjson's stage 1 accepts with
// no escape in its strings, and flat_scan() decides such a record only as simdjson's
// On-Demand lookups would decide it (found, absent, or not readable at all); for every other
// record it returns false and the extractor asks simdjson (a test compares both on thousands
// of edited records).
#include "extract/json_scan.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tlbf_dedup {

// Stage 1 fails only on the three things plain_ascii_record() checks; what it would index,
// the flat scan reads from the bytes (one pass of 16-byte compares, tested 32 bytes at a
// time; a fifth of stage 1's instructions on a typical record).
bool plain_ascii_record(const Record& record) {
  const char* p = record.data;
  const std::size_t n = record.size;
#if defined(__SSE2__)
  unsigned quotes = 0;  // the quotes' bits of every block xor-ed: the count's parity is theirs
  const __m128i space = _mm_set1_epi8(' '), backslash = _mm_set1_epi8('\\'), quote = _mm_set1_epi8('"');
  // Signed: bytes of 0x80 and above are negative, so below ' ' as the control bytes are.
  auto bad = [&](__m128i v) { return _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, backslash)); };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {  // two whole blocks a test
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
    if (_mm_movemask_epi8(_mm_or_si128(bad(v), bad(w))) != 0) return false;
    quotes ^= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) ^
                                    _mm_movemask_epi8(_mm_cmpeq_epi8(w, quote)));
  }
  for (; i < n; i += 16) {
    // The bytes past the record are its padding or the next record's: masked off.
    const unsigned valid = n - i >= 16 ? 0xFFFFu : (1u << (n - i)) - 1;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    if (static_cast<unsigned>(_mm_movemask_epi8(bad(v))) & valid) return false;
    quotes ^= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote))) & valid;
  }
  quotes ^= quotes >> 8;
  quotes ^= quotes >> 4;
  quotes ^= quotes >> 2;
  quotes ^= quotes >> 1;
#else
  unsigned quotes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '\\') return false;
    quotes += c == '"';
  }
#endif
  return (quotes & 1) == 0;
}

namespace {

bool is_json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The next quote at or after p, or nullptr at `end` (strings of a plain_ascii_record() have
// no escapes: the next quote closes them). Names and values are short: 16 bytes at a time
// inline, where a call to memchr() cost more than the search.
const char* next_quote(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  for (; p < end; p += 16) {  // the record's tail padding keeps the last load readable
    const auto hits = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), quote)));
    if (hits) {
      const char* q = p + __builtin_ctz(hits);
      return q < end ? q : nullptr;
    }
  }
  return nullptr;
#else
  return static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
#endif
}

// Bytes that end a scalar's token in stage 1: blanks, the structural characters, and a quote
// (which, right after a scalar, stage 1 does not take as a string's start).
struct ScalarEnds {
  bool at[256] = {};
  constexpr ScalarEnds() {
    for (char c : std::string_view(" \t\n\r,:{}[]\"")) at[static_cast<unsigned char>(c)] = true;
  }
};
constexpr ScalarEnds kScalarEnds;

// The first byte of kScalarEnds at or after p, or `end`. 16 bytes at a time where SSE2
// exists (a number is usually longer than the few bytes a loop of table reads pays off on).
const char* scalar_end(const char* p, const char* end) {
#if defined(__SSE2__)
  auto is = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  for (; p < end; p += 16) {  // the record's tail padding keeps the last load readable
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // '[' and ']' are '{' and '}' with bit 5 clear.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const __m128i blanks = _mm_or_si128(_mm_or_si128(is(v, ' '), is(v, '\t')), _mm_or_si128(is(v, '\n'), is(v, '\r')));
    const __m128i marks = _mm_or_si128(_mm_or_si128(is(v, ','), is(v, ':')), is(v, '"'));
    const __m128i brackets = _mm_or_si128(is(folded, '{'), is(folded, '}'));
    const auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(blanks, _mm_or_si128(marks, brackets))));
    if (hits) return std::min(p + __builtin_ctz(hits), end);
  }
  return end;
#else
  while (p < end && !kScalarEnds.at[static_cast<unsigned char>(*p)]) ++p;
  return p;
#endif
}

bool same_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)  // names are short: no call to memcmp()
    if (a[i] != b[i]) return false;
  return true;
}

// Where the member scan found each member up to the last wanted one, for a FlatShape: the
// bytes before its value start at `before`, the value at `value`. `fits` is false once a
// member does not fit a shape (too many, or a container skipped).
struct MemberTrace {
  struct Seen {
    const char* before;
    const char* value;
    bool string;
    std::uint32_t wanted;
  };
  Seen seen[FlatShape::kMaxMembers];
  std::size_t count = 0;
  bool fits = true;
};

// The record's end without its trailing blanks, where both readings stop; null for a record
// that is not `{...}` at its end, or whose next byte is '}' (simdjson's balance check then).
const char* object_end(const Record& record) {
  const char* p = record.data;
  const char* end = record.data + record.size;
  while (end > p && is_json_blank(end[-1])) --end;
  if (end == p || end[-1] != '}' || record.data[record.size] == '}') return nullptr;
  return end;
}

// The common record, read without simdjson: stage 1 indexes the whole record and On-Demand
// navigation compares member names through the library's general iterator, rewinding for
// each lookup; together four fifths of the extraction's instructions, for two members at the
// front of the record. Values skipped on the way are skipped as On-Demand skips them, by
// counting brackets, without validating them.
bool scan_members(const Record& record, const char* end, const std::vector<std::string>& names, FlatValue* found,
                  MemberTrace* trace) {
  const char* p = record.data;
  while (is_json_blank(*p)) ++p;
  if (*p++ != '{') return false;
  std::size_t missing = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) found[i] = FlatValue{};
  auto skip_blanks = [&] {
    while (p < end && is_json_blank(*p)) ++p;
  };
  const char* before = record.data;  // where the bytes before the next value begin
  for (;;) {
    skip_blanks();
    if (p == end || *p != '"') return false;
    const char* name = ++p;
    if (!(p = next_quote(p, end))) return false;
    const std::string_view member(name, static_cast<std::size_t>(p++ - name));
    skip_blanks();
    if (p == end || *p++ != ':') return false;
    skip_blanks();
    if (p == end) return false;
    FlatValue value;
    const char* start = p;
    switch (*p) {
      case '"': {
        const char* close = next_quote(p + 1, end);
        if (!close) return false;
        value.string = true;
        value.text = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
        p = close + 1;
        break;
      }
      case '{':
      case '[': {
        // A container is never a value the fast path reads, only one it skips.
        int depth = 0;
        do {
          if (*p == '"') {
            if (!(p = next_quote(p + 1, end))) return false;
          } else if (*p == '{' || *p == '[') {
            ++depth;
          } else if (*p == '}' || *p == ']') {
            --depth;
          }
          ++p;
        } while (depth > 0 && p < end);
        if (depth > 0) return false;
        trace->fits = false;
        break;
      }
      case ',':
      case ':':
      case '}':
      case ']':
        return false;
      default:
        p = scalar_end(p, end);
        // A quote right after a scalar does not start a string for stage 1: 8"a,b" is one token.
        if (p < end && *p == '"') return false;
        value.text = std::string_view(start, static_cast<std::size_t>(p - start));
        break;
    }
    value.found = true;
    std::uint32_t wanted = 0;
    bool done = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (found[i].found || !same_bytes(names[i], member)) continue;
      if (*start == '{' || *start == '[') return false;
      found[i] = value;
      wanted |= i < 32 ? 1u << i : 0;
      // Once the last wanted member is read, nothing after it is: On-Demand stops there too.
      if (--missing == 0) done = true;
    }
    if (trace->count < FlatShape::kMaxMembers)
      trace->seen[trace->count++] = {before, start, value.string, wanted};
    else
      trace->fits = false;
    if (done) return true;
    before = p;
    skip_blanks();
    if (p == end || *p++ != ',') return false;
  }
}

// `n` bytes at p equal to those at `expected` (both readable 15 bytes past n).
bool same_prefix(const char* p, const char* expected, std::size_t n) {
#if defined(__SSE2__)
  for (std::size_t i = 0; i < n; i += 16) {
    const unsigned valid = n - i >= 16 ? 0xFFFFu : (1u << (n - i)) - 1;
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(expected + i));
    if ((~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b))) & valid) != 0) return false;
  }
  return true;
#else
  return std::memcmp(p, expected, n) == 0;
#endif
}

}  // namespace

// Each member's bytes before its value are the shape's, so the member scan would take the
// same steps over them (blanks, separator, name, colon: the name the same, so found for the
// same names); each value then starts on a byte that is not blank (the scan skips blanks
// before a value, so a blank there would have been in the shape's bytes) and is read as the
// scan reads a string or a scalar. Anything else is left to the member scan.
bool flat_scan(const Record& record, const std::vector<std::string>& names, FlatValue* found, FlatShape& shape) {
  const char* end = object_end(record);
  if (!end) return false;
  const char* p = record.data;
  std::size_t j = 0;
  for (; j < shape.count_; ++j) {
    const FlatShape::Member& m = shape.members_[j];
    if (static_cast<std::size_t>(end - p) <= m.size || !same_prefix(p, shape.bytes_ + m.begin, m.size)) break;
    p += m.size;
    FlatValue value;
    value.found = true;
    const char* start = p;
    if (m.string) {
      const char* close = *p == '"' ? next_quote(p + 1, end) : nullptr;
      if (!close) break;
      value.string = true;
      value.text = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
      p = close + 1;
    } else {
      if (kScalarEnds.at[static_cast<unsigned char>(*p)]) break;  // a blank, a quote, a structural byte
      p = scalar_end(p, end);
      if (p < end && *p == '"') break;
      value.text = std::string_view(start, static_cast<std::size_t>(p - start));
    }
    for (std::uint32_t w = m.wanted; w != 0; w &= w - 1) found[__builtin_ctz(w)] = value;
  }
  if (j != 0 && j == shape.count_) return true;

  MemberTrace trace;
  if (!scan_members(record, end, names, found, &trace)) return false;
  shape.count_ = 0;
  if (!trace.fits || names.size() > 32) return true;
  std::size_t at = 0;
  for (std::size_t i = 0; i < trace.count; ++i) {
    const MemberTrace::Seen& s = trace.seen[i];
    const auto size = static_cast<std::size_t>(s.value - s.before);
    if (size > FlatShape::kMaxBytes - at) return true;
    std::memcpy(shape.bytes_ + at, s.before, size);
    shape.members_[i] = {static_cast<std::uint8_t>(at), static_cast<std::uint8_t>(size), s.string, s.wanted};
    at += size;
  }
  shape.count_ = trace.count;
  return true;
}

}  // namespace tlbf_dedup
