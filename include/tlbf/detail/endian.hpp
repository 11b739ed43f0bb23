// SPDX-License-Identifier: MIT
// Whether the machine stores a word's low byte first: then a word array's memory is its saved
// form (serialize.hpp), and a field of whole bytes in a block can be moved as bytes.
#pragma once

namespace tlbf::detail {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr bool kLittleEndian = true;
#else
inline constexpr bool kLittleEndian = false;
#endif
}  // namespace tlbf::detail
