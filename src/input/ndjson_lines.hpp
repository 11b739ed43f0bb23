// Where an NDJSON line ends, when the JSON framer may take the line as its record without
// reading it byte by byte (ndjson_lines.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace tlbf_dedup {

// How wide the blocks of the NDJSON line pass are: 16 bytes (SSE2, the baseline of x86-64),
// or 32 (AVX2, chosen at run time where the processor has it). Both frame alike.
enum class LineScan { narrow, wide };
LineScan widest_line_scan();

// Where an NDJSON line of `b` starting at `from` (a '{') ends, when the byte-by-byte framer
// would end its record there too: the line's last non-blank byte is '}', the next line starts
// with '{', and no '}' or ']' inside it is followed by blanks and another '{' or '[' (a value
// after a value is a record of its own). npos otherwise. `plain` learns whether the bytes
// before the newline are a plain_ascii_record() (json_scan.hpp), which the JSON extractor
// would otherwise check in a second pass. `scan`: the width of the blocks.
std::size_t ndjson_line_end(std::string_view b, std::size_t from, LineScan scan, bool& plain);

}  // namespace tlbf_dedup
