// Key masks (--mask): a key's variable parts (numbers, hex ids, UUIDs, IP addresses, quoted
// text) replaced by placeholders before the key is hashed, so that "user 123 logged in" and
// "user 456 logged in" are one key. The patterns are those of tlbf-dedup(1), "KEY MASKS".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tlbf_dedup {

enum class MaskClass : std::uint8_t {
  numbers = 1,  // <N>
  hex = 2,      // <HEX>
  uuid = 4,     // <UUID>
  ip = 8,       // <IP>
  quoted = 16,  // '<Q>', "<Q>"
};

class KeyMask {
 public:
  KeyMask() = default;  // masks nothing

  // "numbers,hex,uuid,ip,quoted" in any order and number; nullopt (with `*error` saying
  // which name is unknown) for anything else.
  static std::optional<KeyMask> parse(std::string_view list, std::string* error);

  bool masks_anything() const { return classes_ != 0; }
  bool masks(MaskClass c) const { return (classes_ & static_cast<unsigned>(c)) != 0; }

  // Appends `in` to `out` with every match replaced by its class's placeholder. One pass,
  // left to right: at each position the first class in the order quoted, uuid, ip, hex,
  // numbers that matches there is replaced, and the scan goes on after the match.
  void append_masked(std::string_view in, std::string& out) const;

  // `in` masked into `buf` (overwritten), returned as a view of `buf`.
  std::string_view apply(std::string_view in, std::string& buf) const {
    buf.clear();
    append_masked(in, buf);
    return buf;
  }

 private:
  explicit KeyMask(unsigned classes);

  unsigned classes_ = 0;
  // Per byte value: the classes that can start a match at that byte; 0 = copied as it is.
  std::uint8_t starts_[256] = {};
};

}  // namespace tlbf_dedup
