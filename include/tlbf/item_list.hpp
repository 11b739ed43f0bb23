// SPDX-License-Identifier: MIT
// The item list of the Redis module's TLBF.MADD: many items in one bulk string, so that a
// batch costs the server one argument to parse rather than one string object per item
// (docs/redis.md). Both sides follow it: the module reads it, `tlbf-dedup --redis` writes it.
//
// Form: the items one after the other, each as a netstring (D. J. Bernstein, 1997): its length
// in decimal ASCII without leading zeros ("0" for an empty item), ':', its bytes, ','. So
// "abc" and "" make "3:abc,0:,". Any bytes may be items; the list is readable in redis-cli.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tlbf {

// Appends `item` to `list` as one netstring.
inline void append_item(std::string& list, std::string_view item) {
  char digits[20];
  std::size_t n = 0;
  std::size_t len = item.size();
  do {
    digits[n++] = static_cast<char>('0' + len % 10);
    len /= 10;
  } while (len != 0);
  while (n > 0) list.push_back(digits[--n]);
  list.push_back(':');
  list.append(item);
  list.push_back(',');
}

// The items of `list` (views into it), or nullopt when it is not a sequence of netstrings
// (a bad length, a missing ':' or ',', a length past the end): nothing of a malformed list
// is taken.
inline std::optional<std::vector<std::string_view>> parse_items(std::string_view list) {
  std::vector<std::string_view> items;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t start = at;
    std::uint64_t len = 0;
    while (at < list.size() && list[at] >= '0' && list[at] <= '9') {
      if (at - start >= 19) return std::nullopt;  // more digits than any list can hold
      len = len * 10 + static_cast<std::uint64_t>(list[at++] - '0');
    }
    const std::size_t digits = at - start;
    if (digits == 0 || (digits > 1 && list[start] == '0')) return std::nullopt;
    if (at >= list.size() || list[at] != ':') return std::nullopt;
    ++at;
    if (len >= list.size() - at) return std::nullopt;  // the bytes and the ',' must fit
    items.push_back(list.substr(at, static_cast<std::size_t>(len)));
    at += static_cast<std::size_t>(len);
    if (list[at++] != ',') return std::nullopt;
  }
  return items;
}

}  // namespace tlbf
