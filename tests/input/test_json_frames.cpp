// JSON framing (src/input/json_frames.hpp): top-level values over lines and on one line,
// NDJSON framed as lines, arrays and --records wrappers, damage, and the same frames whatever
// size the pieces of input come in.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "extract/json_scan.hpp"
#include "input/json_frames.hpp"
#include "input/record_reader.hpp"

namespace {
using tlbf_dedup::JsonFrame;
using tlbf_dedup::JsonFramer;

// The records of `input`, fed `piece` bytes more at a time as the reader does; each record
// with its line end ("" or "\n" or "\r\n"), then "!damage" when the input is damaged.
std::vector<std::string> frames(const std::string& input, std::size_t piece, std::vector<std::string> path = {},
                                tlbf_dedup::LineScan scan = tlbf_dedup::widest_line_scan()) {
  JsonFramer framer(std::move(path), scan);
  std::string buf = input;
  std::vector<std::string> out;
  std::size_t begin = 0, end = 0;
  while (true) {
    const bool at_end = end == buf.size();
    const JsonFrame f = framer.next(std::string_view(buf).substr(begin, end - begin), at_end);
    if (f.kind == JsonFrame::Kind::record) {
      if (f.newline_over_separator) buf[begin + f.skip + f.size] = '\n';
      out.push_back(buf.substr(begin + f.skip, f.size + f.term_len));
      begin += f.consumed;
    } else if (f.kind == JsonFrame::Kind::damaged) {
      out.push_back("!" + f.damage);
      return out;
    } else if (f.kind == JsonFrame::Kind::end) {
      REQUIRE(at_end);
      return out;
    } else {
      REQUIRE_FALSE(at_end);
      begin += f.skip;
      end = std::min(buf.size(), end + piece);
    }
  }
}

// The line scans this processor runs: 16-byte blocks always, 32-byte ones where it has AVX2.
std::vector<tlbf_dedup::LineScan> line_scans() {
  std::vector<tlbf_dedup::LineScan> scans{tlbf_dedup::LineScan::narrow};
  if (tlbf_dedup::widest_line_scan() == tlbf_dedup::LineScan::wide)
    scans.push_back(tlbf_dedup::LineScan::wide);
  else
    MESSAGE("no AVX2 here: the 32-byte line scan is not run");
  return scans;
}

// The same frames whole and byte by byte, and whole with each line scan.
std::vector<std::string> framed(const std::string& input, std::vector<std::string> path = {}) {
  const std::vector<std::string> whole = frames(input, input.size() + 1, path);
  CHECK(frames(input, 1, path) == whole);
  CHECK(frames(input, 7, path) == whole);
  for (const tlbf_dedup::LineScan scan : line_scans()) CHECK(frames(input, input.size() + 1, path, scan) == whole);
  return whole;
}

using V = std::vector<std::string>;
}  // namespace

TEST_SUITE("json_frames") {
  TEST_CASE("NDJSON frames as lines: blanks, blank lines, CR LF, the last line without its end") {
    CHECK(framed("{\"a\":1}\n\n  {\"b\":2}  \r\n{\"c\":3}") ==
          V{"{\"a\":1}\n", "\n", "  {\"b\":2}  \r\n", "{\"c\":3}"});
  }

  TEST_CASE("broken lines stay lines: an open string, a value left open, text after a value") {
    CHECK(framed("{\"a\":\"x\n{\"b\":1}\n") == V{"{\"a\":\"x\n", "{\"b\":1}\n"});
    CHECK(framed("{\"a\":1,\n{\"b\":1}\n") == V{"{\"a\":1,\n", "{\"b\":1}\n"});
    CHECK(framed("{\"a\":1}}\nnot json\n") == V{"{\"a\":1}}\n", "not json\n"});
    CHECK(framed("{\"a\":\n") == V{"{\"a\":\n"});
  }

  TEST_CASE("pretty-printed values are records of several lines") {
    const std::string pretty = "{\n  \"id\": 1,\n  \"tags\": [\n    \"x}\"\n  ]\n}\n{\n  \"id\": 2\n}\n";
    CHECK(framed(pretty) == V{"{\n  \"id\": 1,\n  \"tags\": [\n    \"x}\"\n  ]\n}\n", "{\n  \"id\": 2\n}\n"});
  }

  TEST_CASE("values on one line are records of their own, escapes inside strings") {
    CHECK(framed("{\"a\":\"\\\"}\"}  {\"b\":2}{\"c\":3}\n") == V{"{\"a\":\"\\\"}\"}\n", "{\"b\":2}", "{\"c\":3}\n"});
  }

  // A line followed by a line starting with '{' is framed by memchr (ndjson_line_end) when the
  // byte-by-byte framer would end its record at the line's end too. Each line here, where the
  // two could differ, frames alike with such a line after it (the quick path is tried) and
  // without (only the byte-by-byte framer reads it).
  TEST_CASE("NDJSON lines followed by a '{' line frame as the byte-by-byte framer frames them") {
    for (const std::string line :
         {"{\"a\":1} {\"b\":2}", "{\"a\":1}\t[1]}", "{\"a\":{\"b\":1}", "{\"a\":\"} {\"}", "{\"a\":1}} x}\r",
          "{\"a\":1}{\"b\":2}  ", "{\"a\":[{}]}", "{]{}", "{\"a\":1] [2]}"}) {
      // Each also after a member that puts its bytes and the line end past the first 16 or
      // 32 (the blocks of the two line scans).
      for (const std::string& pad : {std::string(), "\"pad\":\"" + std::string(15, 'x') + "\",",
                                     "\"pad\":\"" + std::string(31, 'x') + "\",", std::string(40, ' ')}) {
        const std::string padded = line.substr(0, 1) + pad + line.substr(1);
        CAPTURE(padded);
        V alone = framed(padded + "\n");
        alone.push_back("{\"c\":2}\n");
        CHECK(framed(padded + "\n{\"c\":2}\n") == alone);
      }
    }
    CHECK(framed("{\"a\":1}\n{\"b\":2}\n") == V{"{\"a\":1}\n", "{\"b\":2}\n"});
  }

  TEST_CASE("a top-level array: its elements, each with a line end, nothing of the brackets") {
    CHECK(framed("[{\"a\":1}, {\"a\":[1,2]} ,\n 3,\"s,]\"]\n[\n  {\"b\":1}\n]\n{\"c\":1}\n") ==
          V{"{\"a\":1}\n", "{\"a\":[1,2]}\n", "3\n", "\"s,]\"\n", "{\"b\":1}\n", "{\"c\":1}\n"});
  }

  TEST_CASE("an array that does not start with an object is one record, as in NDJSON") {
    CHECK(framed("[1,2]\n[ ]\n[INFO] started\n") == V{"[1,2]\n", "[ ]\n", "[INFO] started\n"});
  }

  TEST_CASE("a truncated array: every complete element, then the damage") {
    const V got = framed("[{\"a\":1},{\"a\":2},{\"a\":");
    REQUIRE(got.size() == 3);
    CHECK(got[1] == "{\"a\":2}\n");
    CHECK(got[2].find("ends inside a record") != std::string::npos);
    const V cut = framed("[{\"a\":1}");
    REQUIRE(cut.size() == 2);
    CHECK(cut[0] == "{\"a\":1}");
    CHECK(cut[1].find("ends inside an array") != std::string::npos);
    CHECK(framed("[{\"a\":1} x]")[1].find("expected ',' or ']'") != std::string::npos);
  }

  TEST_CASE("--records: the array member of each object, other members read past") {
    const std::string trail =
        "{\"Other\":{\"Records\":[9]},\"Records\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"n\":2}\n"
        "{\"Records\" : [ {\"id\":\"c\"} ] , \"x\":\"}\"}";
    CHECK(framed(trail, {"Records"}) == V{"{\"id\":\"a\"}\n", "{\"id\":\"b\"}\n", "{\"id\":\"c\"}\n"});
    CHECK(framed("{\"data\":{\"items\":[1,2]}}", {"data", "items"}) == V{"1\n", "2\n"});
  }

  TEST_CASE("--records reads its path as -k does: dotted names, pointers, a second array refused") {
    // Issue 52, W17: a member literally named "a.b" is found, as is member b of member a, at
    // any depth and however the dots fall; a pointer names its members exactly.
    CHECK(framed("{\"a.b\":[1,2]}", {"a", "b"}) == V{"1\n", "2\n"});
    CHECK(framed("{\"a\":{\"b\":[3]}}", {"a", "b"}) == V{"3\n"});
    CHECK(framed("{\"x\":{\"a.b\":{\"c\":[4]}},\"y\":1}", {"x", "a", "b", "c"}) == V{"4\n"});
    CHECK(framed("{\"x.a\":{\"b.c\":[5]}}", {"x", "a", "b", "c"}) == V{"5\n"});
    CHECK(framed("{\"a\":{\"c\":[9]},\"a.b\":[6]}", {"a", "b"}) == V{"6\n"});  // a leads nowhere: read past
    CHECK(framed("{\"a.b\":[7]}", {"/a.b"}) == V{"7\n"});
    CHECK(framed("{\"a\":{\"b\":[7]}}", {"/a.b"}).back().find("without the array member") != std::string::npos);
    CHECK(framed("{\"a/b\":{\"~\":[8]}}", {"/a~1b/~0"}) == V{"8\n"});
    // Two arrays in one object: a repeated member, or both readings of the dots. Neither is
    // taken for the other (-k would read the first, or the literal name); the first one's
    // records are out by then.
    const V twice = framed("{\"R\":[1],\"R\":[2]}\n{\"R\":[3]}", {"R"});
    CHECK(twice.front() == "1\n");
    CHECK(twice.back().find("a second array for --records in one object") != std::string::npos);
    CHECK(framed("{\"a\":{\"b\":[1]},\"a.b\":[2]}", {"a", "b"}).back().find("a second array") != std::string::npos);
    CHECK(framed("{\"a\":{\"b\":[1]},\"a\":{\"b\":[2]}}", {"a", "b"}).back().find("a second array") !=
          std::string::npos);
    // The member repeated with a value that is no array is read past, as any other member.
    CHECK(framed("{\"R\":null,\"R\":[1]}", {"R"}) == V{"1\n"});
  }

  TEST_CASE("--records: damage is named") {
    CHECK(framed("[1]", {"Records"}).back().find("not a JSON object") != std::string::npos);
    CHECK(framed("{\"Other\":[1]}", {"Records"}).back().find("without the array member") != std::string::npos);
    CHECK(framed("{\"Records\":[{\"id\":1}", {"Records"}) ==
          V{"{\"id\":1}", "!the input ends inside an array (truncated?)"});
  }

  TEST_CASE("a record the framer calls plain is a plain_ascii_record(), and a common NDJSON line is one") {
    // Random lines of bytes that matter to both (controls, high bytes, backslashes, quotes,
    // closers, CR), each framed in a buffer padded as the reader's is, after a plain line.
    std::uint64_t rng = 0x2545F4914F6CDD1D;
    auto next = [&rng](std::size_t n) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      return static_cast<std::size_t>(rng % n);
    };
    const std::string alphabet = "{}[]\",:\\ \t\rab01\x01\x1f\x7f\x80\xff", printable = "{}[]\",: ab01";
    const std::string common = "{\"ts\":1763750000.001,\"id\":\"k1\",\"req\":{\"m\":\"GET\"},\"n\":2}";
    const std::vector<tlbf_dedup::LineScan> scans = line_scans();
    std::size_t plain_frames = 0, common_plain = 0, common_fast = 0;
    for (int i = 0; i < 4000; ++i) {
      std::string line = next(4) == 0 ? " \t{" : "{";  // blanks before it are the record's too
      common_fast += line[0] == '{';                   // (the fast framing needs the next line to start with '{')
      // Half of them of printable bytes only, so that their quotes decide whether they are plain.
      const std::string& bytes = next(2) == 0 ? alphabet : printable;
      for (std::size_t n = next(100); n > 0; --n) line += bytes[next(bytes.size())];
      line += '}';
      // Before a short start of the next line, its last bytes are read one by one, past the
      // last whole block of the input.
      const std::size_t after = next(3);
      std::string buf = common + "\n" + line + (after == 0 ? "\n" + common + "\n" : after == 1 ? "\n" : "\n{");
      buf.append(tlbf_dedup::RecordReader::kTailPadding, '\0');
      const std::size_t size = buf.size() - tlbf_dedup::RecordReader::kTailPadding;
      // Each line scan frames alike: the same records, found plain alike.
      std::vector<std::vector<std::size_t>> seen;
      for (const tlbf_dedup::LineScan scan : scans) {
        JsonFramer framer({}, scan);
        seen.emplace_back();
        for (std::size_t begin = 0, n = 0; begin < size; ++n) {
          const JsonFrame f = framer.next(std::string_view(buf).substr(begin, size - begin), true);
          if (f.kind != JsonFrame::Kind::record) break;
          tlbf_dedup::Record r;
          r.data = buf.data() + begin + f.skip;
          r.size = f.size;
          INFO("line ", line, ", record ", n, ", scan ", static_cast<int>(scan));
          if (f.plain) REQUIRE(tlbf_dedup::plain_ascii_record(r));
          seen.back().insert(seen.back().end(), {f.skip, f.size, f.consumed, f.plain});
          plain_frames += f.plain;
          common_plain += n == 0 && f.plain;
          begin += f.consumed;
        }
      }
      INFO("line ", line);
      for (const auto& frames_of_scan : seen) REQUIRE(frames_of_scan == seen.front());
    }
    CHECK(common_plain == common_fast * scans.size());
    CHECK(plain_frames > common_plain);  // some random lines are plain too
  }

  TEST_CASE("an open record's size grows as it is read, so --max-record can bound it") {
    JsonFramer framer;
    CHECK(framer.next("{\"a\":\"xxxx", false).kind == JsonFrame::Kind::more);
    CHECK(framer.open_size() == 10);
  }
}
