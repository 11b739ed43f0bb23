// Compressed input (src/input/byte_source.hpp, src/input/decompress.cpp) as the record reader sees it:
// detection by magic number, gzip members and zstd frames one after another, damage reported
// after every byte before it, a compressed file that never pauses and a compressed pipe that does.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "input/byte_source.hpp"
#include "input/record_reader.hpp"
#include "test_helpers_cli.hpp"

namespace {

std::string gzip(const std::string& data) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  REQUIRE(!ZSTD_isError(n));
  out.resize(n);
  return out;
}

// Every record's bytes, concatenated; `error` gets the InputError's message, if any.
std::string read_bytes(tlbf_dedup::RecordReader& r, std::string* error = nullptr) {
  std::string out;
  tlbf_dedup::Record rec;
  try {
    while (r.next(rec)) out += rec.bytes();
  } catch (const tlbf_dedup::InputError& e) {
    if (error) *error = e.what();
  }
  return out;
}

// Lines with numbers, long enough to fill several of the decompressor's blocks.
std::string numbered_lines(int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "record " + std::to_string(i) + " " + std::string(static_cast<std::size_t>(i % 97), 'x') + "\n";
  return s;
}

}  // namespace

TEST_SUITE("byte_source") {
  using tlbf_dedup::Compression;
  using tlbf_dedup::detect_compression;
  using tlbf_dedup::RecordReader;
  using tlbf_dedup_test::TempFile;

  TEST_CASE("detection reads magic numbers, and waits for enough bytes to tell") {
    CHECK(detect_compression("\x1f\x8b\x08", false) == Compression::gzip);
    CHECK(detect_compression("\x28\xb5\x2f\xfd", false) == Compression::zstd);
    CHECK(detect_compression("\x5a\x2a\x4d\x18", false) == Compression::zstd);  // a skippable frame
    CHECK(detect_compression("\x1f", false) == Compression::undecided);
    CHECK(detect_compression("\x28\xb5", false) == Compression::undecided);
    CHECK(detect_compression("\x28\xb5", true) == Compression::none);  // no more bytes: plain
    CHECK(detect_compression("(x)\n", false) == Compression::none);
    CHECK(detect_compression("\x1f\x8c", false) == Compression::none);
    CHECK(detect_compression("", true) == Compression::none);
  }

  TEST_CASE("gzip and zstd files read as their contents, CR LF and all") {
    const std::string text = numbered_lines(20000) + "crlf\r\nlast";
    TempFile gz(gzip(text)), zs(zstd(text));
    RecordReader a({gz.path()}, '\n'), b({zs.path()}, '\n');
    CHECK(read_bytes(a) == text);
    CHECK(read_bytes(b) == text);
    CHECK(a.total_size() == 0);  // a compressed input's size is not known in advance
    CHECK(a.bytes_read() == text.size());
  }

  TEST_CASE("members and frames one after another are one stream, skippable frames skipped") {
    const std::string skippable(
        "\x50\x2a\x4d\x18\x03\x00\x00\x00"
        "abc",
        11);
    TempFile gz(gzip("a\nb") + gzip("c\n")), zs(skippable + zstd("a\n") + skippable + zstd("b\n"));
    RecordReader a({gz.path()}, '\n'), b({zs.path()}, '\n');
    CHECK(read_bytes(a) == "a\nbc\n");
    CHECK(read_bytes(b) == "a\nb\n");
  }

  TEST_CASE("compressed and plain inputs mix, each a stream of its own") {
    TempFile gz(gzip("1\n2")), plain("3\n"), zs(zstd("4"));
    RecordReader r({gz.path(), plain.path(), zs.path()}, '\n');
    CHECK(read_bytes(r) == "1\n2\n3\n4");
  }

  TEST_CASE("a truncated or corrupt stream: every byte before the damage, then an error naming file and offset") {
    const std::string text = numbered_lines(50000);
    const std::string whole = gzip(text);
    TempFile cut(whole.substr(0, whole.size() / 2));
    std::string error;
    RecordReader r({cut.path()}, '\n');
    const std::string got = read_bytes(r, &error);
    CHECK(got.size() > text.size() / 4);
    CHECK(text.compare(0, got.size(), got) == 0);  // a prefix of the contents
    CHECK(error.find(cut.path()) != std::string::npos);
    CHECK(error.find("truncated gzip data") != std::string::npos);
    CHECK(error.find("compressed byte " + std::to_string(whole.size() / 2)) != std::string::npos);

    std::string broken = whole;
    broken[10] = '\xff';  // the first deflate block header: corrupt from the start
    broken[11] = '\xff';
    TempFile bad(broken);
    RecordReader b({bad.path()}, '\n');
    error.clear();
    read_bytes(b, &error);
    CHECK(error.find("corrupt gzip data at or before compressed byte") != std::string::npos);

    TempFile zcut(zstd(text).substr(0, 100));
    RecordReader z({zcut.path()}, '\n');
    error.clear();
    read_bytes(z, &error);
    CHECK(error.find("truncated zstd data") != std::string::npos);
  }

  TEST_CASE("switched off, compressed bytes are read as they are") {
    const std::string packed = gzip("a\n");
    TempFile f(packed);
    tlbf_dedup::ReaderConfig config;
    config.decompress = false;
    RecordReader r({f.path()}, config);
    CHECK(read_bytes(r) == packed);
  }

  TEST_CASE("a compressed regular file never pauses: the hook does not run while the decompressor catches up") {
    // (The reader outruns the decoding thread at least at the start; a pause there would
    // write early, end the untimed hold and release --lateness by how fast the machine is.)
    std::string text;
    std::uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      text += std::to_string(x) + " " + std::to_string(i) + "\n";
    }
    TempFile f(gzip(text));
    RecordReader r({f.path()}, '\n');
    int pauses = 0;
    r.on_input_pause([&]() -> int {
      ++pauses;
      return -1;
    });
    CHECK(read_bytes(r) == text);
    CHECK(pauses == 0);
  }

  TEST_CASE("a compressed pipe that pauses: what was decoded comes out, the pause hook runs") {
    tlbf_dedup_test::StdinPipe pipe;
    std::vector<std::string> got, seen_at_pause;
    {
      RecordReader r({"-"}, '\n');
      r.on_input_pause([&]() -> int {
        seen_at_pause.push_back(got.empty() ? "" : got.back());
        return -1;
      });
      // One member, flushed after "a\n" so it decodes before the rest arrives.
      z_stream z{};
      REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
      auto send = [&](const char* text, int flush) {
        char out[256];
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text));
        z.avail_in = static_cast<uInt>(std::strlen(text));
        z.next_out = reinterpret_cast<Bytef*>(out);
        z.avail_out = sizeof out;
        deflate(&z, flush);
        REQUIRE(::write(pipe.write_fd(), out, sizeof out - z.avail_out) ==
                static_cast<ssize_t>(sizeof out - z.avail_out));
      };
      send("a\n", Z_SYNC_FLUSH);
      std::thread writer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        send("b\n", Z_FINISH);
        pipe.close_write();
      });
      tlbf_dedup::Record rec;
      while (r.next(rec)) got.emplace_back(rec.text());
      writer.join();
      deflateEnd(&z);
    }
    CHECK(got == std::vector<std::string>{"a", "b"});
    CHECK(std::find(seen_at_pause.begin(), seen_at_pause.end(), "a") != seen_at_pause.end());
  }
}
