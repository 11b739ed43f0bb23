// Fuzzes compressed input (src/input/decompress.cpp) through the byte source and the record
// reader: gzip and zstd streams, whole, truncated or with a byte changed, from a regular file
// or a pipe, checked against a plain decode of the same bytes by zlib or libzstd.
//
// Input: a control byte (bit 0: zstd instead of gzip; bit 1: a pipe instead of a memory file;
// bit 2: the data is the stream itself, else it is text the target compresses; bit 3: text
// compressed as two members or frames; bit 4: truncate instead of changing a byte), two
// bytes giving where the damage goes, one byte to XOR there (0: no damage), then the data.
// Invariants checked, against the plain decode (the oracle), with decoding capped at
// kCap bytes: the records put together are exactly the bytes the oracle decodes before the
// damage -- all of them, not fewer -- and an InputError comes exactly when the oracle finds
// damage (or a record runs past --max-record), after those bytes; a stream whose magic bytes
// were damaged is read as plain text, byte for byte (a byte-order mark at the start of the
// decoded bytes is skipped, as documented). Memory stays bounded: the reader's
// buffer by --max-record, the decoder's queue by its blocks (libFuzzer's -malloc_limit_mb
// catches any allocation of the decompressed size).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "input/byte_source.hpp"
#include "input/record_reader.hpp"

namespace {

constexpr std::size_t kCap = std::size_t{2} << 20;        // decoded bytes compared
constexpr std::size_t kMaxRecord = std::size_t{4} << 20;  // > kCap: a record that long is an error
constexpr std::size_t kOracleCap = kCap + kMaxRecord + 2;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_decompress: invariant broken: %s\n", what);
    std::abort();
  }
}

// What a plain decode of a whole stream gives: its bytes (up to kOracleCap) and whether it
// ended cleanly, between members or frames.
struct Decoded {
  std::string bytes;
  bool clean = false;
};

Decoded gunzip(std::string_view in) {
  Decoded d;
  z_stream z{};
  require(inflateInit2(&z, 15 + 16) == Z_OK, "inflateInit2 works");
  bool in_member = false;
  std::string out(1 << 16, '\0');
  while (d.bytes.size() < kOracleCap) {
    if (in.empty() && !in_member) {
      d.clean = true;
      break;
    }
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    in_member = in_member || !in.empty();
    const int r = inflate(&z, Z_NO_FLUSH);
    in.remove_prefix(in.size() - z.avail_in);
    d.bytes.append(out.data(), out.size() - z.avail_out);
    if (r == Z_STREAM_END) {
      inflateReset(&z);
      in_member = false;
    } else if (r != Z_OK && !(r == Z_BUF_ERROR && z.avail_out == 0)) {
      break;  // corrupt, or more input needed and there is none: damage
    }
  }
  inflateEnd(&z);
  return d;
}

// The input in the pieces the decoder asks for, as the reader feeds it, so that a failing
// call (whose output is dropped) completes no good block.
Decoded unzstd(std::string_view in) {
  Decoded d;
  ZSTD_DStream* ds = ZSTD_createDStream();
  require(ds != nullptr, "ZSTD_createDStream works");
  std::string out(1 << 17, '\0');
  std::size_t pos = 0, next = 5, last = 0;  // last 0: between frames
  while (d.bytes.size() < kOracleCap) {
    ZSTD_inBuffer src{in.data() + pos, std::min(in.size() - pos, next), 0};
    ZSTD_outBuffer dst{out.data(), out.size(), 0};
    last = ZSTD_decompressStream(ds, &dst, &src);
    if (ZSTD_isError(last)) break;
    d.bytes.append(out.data(), dst.pos);
    pos += src.pos;
    next = last == 0 ? 5 : last;
    if (pos == in.size() && dst.pos < dst.size) {
      d.clean = last == 0;
      break;
    }
  }
  ZSTD_freeDStream(ds);
  return d;
}

std::string gzip(std::string_view text) {
  z_stream z{};
  require(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2 works");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  require(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate finishes");
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(std::string_view text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  require(!ZSTD_isError(n), "ZSTD_compress works");
  out.resize(n);
  return out;
}

int memory_file(std::string_view data) {
  static const int fd = ::memfd_create("fuzz-compressed", MFD_CLOEXEC);
  require(fd >= 0, "memfd_create works");
  require(::ftruncate(fd, 0) == 0, "ftruncate works");
  require(::pwrite(fd, data.data(), data.size(), 0) == static_cast<ssize_t>(data.size()), "pwrite works");
  return fd;
}

// The stream the input describes: given, or its text compressed (in two parts when asked);
// then truncated at, or XORed with `flip` at, `at`.
std::string make_stream(std::uint8_t control, std::size_t at, std::uint8_t flip, std::string_view text) {
  const bool is_zstd = control & 1, raw = control & 4, two = control & 8, truncate = control & 16;
  std::string stream;
  if (raw) {
    stream = text;
  } else {
    auto pack = [&](std::string_view t) { return is_zstd ? zstd(t) : gzip(t); };
    stream = two ? pack(text.substr(0, text.size() / 2)) + pack(text.substr(text.size() / 2)) : pack(text);
  }
  if (truncate)
    stream.resize(at % (stream.size() + 1));
  else if (flip != 0 && !stream.empty())
    stream[at % stream.size()] = static_cast<char>(stream[at % stream.size()] ^ flip);
  return stream;
}

// The oracle: what the first bytes say the stream is, decoded plainly.
Decoded decode_plainly(const std::string& stream) {
  Decoded d;
  switch (tlbf_dedup::detect_compression(stream, true)) {
    case tlbf_dedup::Compression::gzip:
      d = gunzip(stream);
      break;
    case tlbf_dedup::Compression::zstd:
      d = unzstd(stream);
      break;
    default:
      d = {stream, true};
  }
  // The reader skips a UTF-8 byte-order mark that begins the (decoded) input.
  if (d.bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) d.bytes.erase(0, 3);
  return d;
}

// What the record reader makes of the stream, from a memory file or a pipe.
struct Read {
  std::string bytes;  // the records put together, as read
  bool error = false, max_record = false, capped = false;
};

Read read_records(const std::string& stream, bool pipe_input) {
  Read got;
  std::string path;
  int pipe_read = -1;
  if (pipe_input) {
    int p[2];
    require(::pipe2(p, O_CLOEXEC) == 0, "pipe works");
    require(::write(p[1], stream.data(), stream.size()) == static_cast<ssize_t>(stream.size()), "pipe write works");
    ::close(p[1]);
    pipe_read = p[0];
    path = "/proc/self/fd/" + std::to_string(pipe_read);
  } else {
    path = "/proc/self/fd/" + std::to_string(memory_file(stream));
  }
  {
    tlbf_dedup::ReaderConfig config;
    config.buffer_size = 0;
    config.max_record = kMaxRecord;
    tlbf_dedup::RecordReader reader({path}, config);
    tlbf_dedup::Record r;
    try {
      while (!got.capped && reader.next(r)) {
        got.bytes.append(r.bytes());
        got.capped = got.bytes.size() >= kCap;
      }
    } catch (const tlbf_dedup::InputError& e) {
      got.error = true;
      got.max_record = std::string_view(e.what()).find("--max-record") != std::string_view::npos;
    }
  }
  if (pipe_read >= 0) ::close(pipe_read);
  return got;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const bool pipe_input = data[0] & 2;
  const std::string stream = make_stream(data[0], static_cast<std::size_t>(data[1]) << 8 | data[2], data[3],
                                         std::string_view(reinterpret_cast<const char*>(data) + 4, size - 4));
  if (pipe_input && stream.size() > 65536) return 0;  // a pipe's buffer holds it: no writer thread
  const Decoded want = decode_plainly(stream);
  const Read got = read_records(stream, pipe_input);

  require(want.bytes.compare(0, got.bytes.size(), got.bytes) == 0, "the records are the bytes the oracle decodes");
  if (got.capped) return 0;
  if (got.max_record) {
    // Every record before it was whole; the one after is longer than the limit.
    const std::string_view rest = std::string_view(want.bytes).substr(got.bytes.size(), kMaxRecord + 2);
    const std::size_t lf = rest.find('\n');
    const std::size_t length = lf == std::string_view::npos ? rest.size() : lf - (lf > 0 && rest[lf - 1] == '\r');
    require(length > kMaxRecord, "--max-record only for a record longer than it");
    return 0;
  }
  require(got.bytes.size() == want.bytes.size(), "every byte decoded before the damage is delivered");
  require(got.error == !want.clean, "an input error exactly when the stream is damaged");
  return 0;
}
