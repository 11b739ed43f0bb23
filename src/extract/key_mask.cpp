// Key masks: hand-written scanners, one left-to-right pass over the key's bytes.
//
// Invariants:
//  - The result is a pure function of the key's bytes and the mask classes, and the scan is
//    linear in the key's length: every scanner looks only forward from its start, a match
//    resumes the scan after it, and the one scanner that may look far without matching (an
//    unclosed quote) remembers its failure, since every later scan for that quote would
//    fail at the same end.
//  - Bytes that cannot start a match are copied in runs; no class ever rewrites bytes
//    outside its match, so the text between matches is the key's own.
//  - "A word byte" is an ASCII letter, digit or '_'. Classes with a boundary (hex, uuid,
//    ip, quoted) match only where the bytes before and after the match are not word bytes
//    (or the key ends); numbers match inside words too (id42 is id<N>).
//  - A placeholder is plain text: a key holding "<N>" literally equals one whose number was
//    masked (documented in tlbf-dedup(1)).
#include "extract/key_mask.hpp"

#include <cstring>

namespace tlbf_dedup {
namespace {

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex(unsigned char c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
bool is_word(unsigned char c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_'; }

constexpr unsigned bit(MaskClass c) { return static_cast<unsigned>(c); }

// The scanners: each returns the end of its match starting at `i`, or 0 for none (a match
// is never empty, and a match at 0 ends after 0).
class Scanner {
 public:
  explicit Scanner(std::string_view s) : p_(reinterpret_cast<const unsigned char*>(s.data())), n_(s.size()) {}

  bool word_before(std::size_t i) const { return i > 0 && is_word(p_[i - 1]); }
  bool word_at(std::size_t i) const { return i < n_ && is_word(p_[i]); }
  bool at(std::size_t i, unsigned char c) const { return i < n_ && p_[i] == c; }

  // 'text' or "text": from a quote not after a word byte to the next same quote not before
  // one; a backslash hides the byte after it. The match is the contents, quotes excluded.
  std::size_t quoted(std::size_t i) {
    const unsigned char q = p_[i];
    bool& unclosed = q == '"' ? double_unclosed_ : single_unclosed_;
    if (unclosed || word_before(i)) return 0;
    for (std::size_t j = i + 1; j < n_; ++j) {
      if (p_[j] == '\\')
        ++j;
      else if (p_[j] == q && !word_at(j + 1))
        return j + 1;
    }
    unclosed = true;
    return 0;
  }

  // 8-4-4-4-12 hex digits joined by '-', either case.
  std::size_t uuid(std::size_t i) const {
    if (word_before(i) || n_ - i < 36) return 0;
    for (std::size_t k = 0; k < 36; ++k) {
      const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
      if (dash ? p_[i + k] != '-' : !is_hex(p_[i + k])) return 0;
    }
    return word_at(i + 36) ? 0 : i + 36;
  }

  // 0x or 0X and at least one hex digit, or at least 8 hex digits with a decimal digit
  // among them; a whole word either way.
  std::size_t hex(std::size_t i) const {
    if (word_before(i)) return 0;
    std::size_t j = i;
    if (p_[i] == '0' && (at(i + 1, 'x') || at(i + 1, 'X')) && i + 2 < n_ && is_hex(p_[i + 2])) {
      j = i + 2;
      while (j < n_ && is_hex(p_[j])) ++j;
      return word_at(j) ? 0 : j;
    }
    bool decimal = false;
    while (j < n_ && is_hex(p_[j])) decimal |= is_digit(p_[j++]);
    return j - i >= 8 && decimal && !word_at(j) ? j : 0;
  }

  // An IPv4 address with an optional :port, an IPv6 address (with an optional %zone), or
  // one in brackets with an optional :port.
  std::size_t ip(std::size_t i) const {
    if (p_[i] == '[') {
      const std::size_t end = ipv6(i + 1);
      if (end == 0 || !at(end, ']')) return 0;
      return port(end + 1);
    }
    if (word_before(i) || (i > 0 && (p_[i - 1] == '.' || p_[i - 1] == ':'))) return 0;
    if (const std::size_t end = ipv4(i);
        end != 0 && !word_at(end) && !(at(end, '.') && end + 1 < n_ && is_digit(p_[end + 1])))
      return port(end);
    const std::size_t end = ipv6(i);
    return end != 0 && !word_at(end) ? end : 0;
  }

  // A maximal run of digits, with one '.' and more digits after it when they follow.
  std::size_t number(std::size_t i) const {
    std::size_t j = i;
    while (j < n_ && is_digit(p_[j])) ++j;
    if (at(j, '.') && j + 1 < n_ && is_digit(p_[j + 1])) {
      j += 1;
      while (j < n_ && is_digit(p_[j])) ++j;
    }
    return j;
  }

 private:
  // Four dotted decimal octets (each at most 255, up to three digits).
  std::size_t ipv4(std::size_t i) const {
    std::size_t j = i;
    for (int octet = 0; octet < 4; ++octet) {
      if (octet > 0) {
        if (!at(j, '.')) return 0;
        ++j;
      }
      unsigned value = 0;
      std::size_t digits = 0;
      while (j < n_ && is_digit(p_[j]) && digits < 4) value = value * 10 + (p_[j++] - '0'), ++digits;
      if (digits == 0 || digits > 3 || value > 255) return 0;
    }
    return j;
  }

  // ":" and 1-5 digits (at most 65535) after an address, included when present.
  std::size_t port(std::size_t end) const {
    if (!at(end, ':')) return end;
    std::size_t j = end + 1;
    unsigned value = 0;
    while (j < n_ && is_digit(p_[j]) && j - end <= 5) value = value * 10 + (p_[j++] - '0');
    return j > end + 1 && j - end <= 6 && value <= 65535 && !word_at(j) ? j : end;
  }

  // Groups of 1-4 hex digits joined by ':', at most one "::" standing for missing groups
  // (exactly 8 groups without it, at most 7 with it), the last two groups possibly a dotted
  // IPv4 address; at least one decimal digit, so that words such as add::bad are not
  // addresses. Returns the end (after a %zone), or 0.
  std::size_t ipv6(std::size_t i) const {
    std::size_t j = i, groups = 0;
    bool compressed = false, decimal = false;
    if (at(j, ':') && at(j + 1, ':')) {
      compressed = true;
      j += 2;
    }
    while (j < n_ && is_hex(p_[j])) {
      if (groups <= 6) {
        if (const std::size_t v4 = ipv4(j); v4 != 0 && (compressed || groups == 6)) {
          groups += 2;
          decimal = true;
          j = v4;
          break;
        }
      }
      std::size_t k = j;
      while (k < n_ && is_hex(p_[k]) && k - j < 4) decimal |= is_digit(p_[k++]);
      if (word_at(k)) return 0;  // a longer run, or letters beyond f
      ++groups;
      j = k;
      if (groups == 8 || !at(j, ':')) break;
      if (at(j + 1, ':')) {
        if (compressed) break;  // a second "::" ends the address before it
        compressed = true;
        j += 2;
      } else if (j + 1 < n_ && is_hex(p_[j + 1])) {
        j += 1;
      } else {
        break;  // a single ':' after the last group is not part of the address
      }
    }
    if (groups == 0 || !decimal || (compressed ? groups > 7 : groups != 8)) return 0;
    if (at(j, ':') && j + 1 < n_ && is_hex(p_[j + 1])) return 0;  // more groups than an address has
    if (at(j, '%') && word_at(j + 1)) {
      j += 1;
      while (j < n_ && (is_word(p_[j]) || p_[j] == '.' || p_[j] == '-')) ++j;
    }
    return j;
  }

  const unsigned char* p_;
  std::size_t n_;
  bool single_unclosed_ = false, double_unclosed_ = false;
};

}  // namespace

KeyMask::KeyMask(unsigned classes) : classes_(classes) {
  auto mark = [&](unsigned char c, MaskClass m) {
    if (classes_ & bit(m)) starts_[c] |= static_cast<std::uint8_t>(bit(m));
  };
  for (unsigned c = 0; c < 256; ++c) {
    const auto b = static_cast<unsigned char>(c);
    if (is_digit(b)) mark(b, MaskClass::numbers);
    if (is_hex(b)) {
      mark(b, MaskClass::hex);
      mark(b, MaskClass::uuid);
      mark(b, MaskClass::ip);
    }
  }
  mark(':', MaskClass::ip);
  mark('[', MaskClass::ip);
  mark('"', MaskClass::quoted);
  mark('\'', MaskClass::quoted);
}

std::optional<KeyMask> KeyMask::parse(std::string_view list, std::string* error) {
  static constexpr struct {
    const char* name;
    MaskClass mask;
  } kNames[] = {{"numbers", MaskClass::numbers},
                {"hex", MaskClass::hex},
                {"uuid", MaskClass::uuid},
                {"ip", MaskClass::ip},
                {"quoted", MaskClass::quoted}};
  unsigned classes = 0;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = list.find(',', at);
    const std::string_view name =
        list.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    unsigned found = 0;
    for (const auto& n : kNames)
      if (name == n.name) found = bit(n.mask);
    if (found == 0) {
      if (error) *error = name.empty() ? "an empty name in the list" : "unknown mask '" + std::string(name) + "'";
      return std::nullopt;
    }
    classes |= found;
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return KeyMask(classes);
}

void KeyMask::append_masked(std::string_view in, std::string& out) const {
  Scanner scan(in);
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  std::size_t copied = 0;  // bytes before this are in `out`
  std::size_t i = 0;
  auto replace = [&](std::size_t end, const char* placeholder) {
    out.append(in.data() + copied, i - copied);
    out += placeholder;
    copied = i = end;
  };
  while (i < n) {
    const unsigned can = starts_[p[i]];
    if (can == 0) {
      ++i;
      continue;
    }
    std::size_t end = 0;
    if ((can & bit(MaskClass::quoted)) && (end = scan.quoted(i)) != 0) {
      // The quotes stay, the contents go: "x" and 'x' remain different keys.
      const char q = static_cast<char>(p[i]);
      out.append(in.data() + copied, i - copied);
      out += q;
      out += "<Q>";
      out += q;
      copied = i = end;
    } else if ((can & bit(MaskClass::uuid)) && (end = scan.uuid(i)) != 0) {
      replace(end, "<UUID>");
    } else if ((can & bit(MaskClass::ip)) && (end = scan.ip(i)) != 0) {
      replace(end, "<IP>");
    } else if ((can & bit(MaskClass::hex)) && (end = scan.hex(i)) != 0) {
      replace(end, "<HEX>");
    } else if (can & bit(MaskClass::numbers)) {
      replace(scan.number(i), "<N>");
    } else {
      ++i;
    }
  }
  out.append(in.data() + copied, n - copied);
}

}  // namespace tlbf_dedup
