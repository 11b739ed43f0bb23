// Fuzzes the JSON framing (src/input/json_frames.hpp) as the record reader drives it: the
// input handed over in pieces, each call seeing the unconsumed bytes and whether more follow.
//
// Input: a control byte (bit 0: --records Records; bits 1-7: the piece size, 1 to 128), then
// the data. Invariants checked: the framer ends (every call consumes bytes, asks for more, or
// ends; at the end of the input it never asks for more); every record lies inside the bytes
// it consumed, its separator byte (when overwritten) right after it; every byte is consumed
// exactly once unless the input is damaged; and the records and the damage are the same
// whatever size the pieces come in (the framer's resumed scans agree with one whole scan).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "input/json_frames.hpp"

namespace {

using tlbf_dedup::JsonFrame;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_json_frames: invariant broken: %s\n", what);
    std::abort();
  }
}

// The records (each with its line end) and the damage of `input` fed `piece` bytes at a time.
std::vector<std::string> frames(std::string buf, std::size_t piece, bool records) {
  tlbf_dedup::JsonFramer framer(records ? std::vector<std::string>{"Records"} : std::vector<std::string>{});
  std::vector<std::string> out;
  std::size_t begin = 0, end = 0;
  for (std::size_t calls = 0;; ++calls) {
    require(calls <= 4 * buf.size() + 8, "the framer ends");
    const bool at_end = end == buf.size();
    const std::string_view unconsumed = std::string_view(buf).substr(begin, end - begin);
    const JsonFrame f = framer.next(unconsumed, at_end);
    require(f.consumed <= unconsumed.size(), "a frame consumes only the bytes it was given");
    switch (f.kind) {
      case JsonFrame::Kind::record:
        require(f.skip + f.size + f.term_len <= f.consumed, "a record lies inside its consumed bytes");
        require(f.term_len <= 2 && (!f.newline_over_separator || f.term_len == 1), "line ends are 0, 1 or 2 bytes");
        if (f.newline_over_separator) buf[begin + f.skip + f.size] = '\n';
        out.push_back(buf.substr(begin + f.skip, f.size + f.term_len));
        begin += f.consumed;
        break;
      case JsonFrame::Kind::damaged:
        out.push_back("!" + f.damage);
        return out;
      case JsonFrame::Kind::end:
        require(at_end && f.consumed == unconsumed.size(), "the end consumes the rest");
        return out;
      case JsonFrame::Kind::more:
        require(!at_end, "no more is asked for at the end");
        require(f.skip == f.consumed && framer.open_size() <= unconsumed.size() - f.skip, "an open record is read");
        begin += f.skip;
        end = std::min(buf.size(), end + piece);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool records = (data[0] & 1) != 0;
  const std::size_t piece = (data[0] >> 1) + 1;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::vector<std::string> whole = frames(input, input.size() + 1, records);
  require(frames(input, piece, records) == whole, "the same frames in pieces as whole");
  return 0;
}
