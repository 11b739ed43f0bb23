// Where the record reader's bytes come from: a descriptor read as it is, or a compressed
// stream (gzip, zstd) decompressed on a thread of its own. The reader frames records the same
// way whatever the source, so CR LF, padding and the rules for several inputs stay one path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace tlbf_dedup {

// What the first bytes of an input say it is. `undecided`: too few bytes to tell yet (a
// prefix of a magic number), read more before deciding.
enum class Compression { none, gzip, zstd, undecided };

// Detection by magic number only, never by file name: gzip 1f 8b; zstd 28 b5 2f fd, or a
// skippable frame (5? 2a 4d 18), which zstd streams may start with. `at_end`: no more bytes
// will come, so a prefix of a magic number is plain data.
Compression detect_compression(std::string_view first_bytes, bool at_end);
const char* compression_name(Compression c);

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `n` bytes into `dst`: the count, 0 at the end, or -1 with errno (EINTR, EAGAIN when
  // nothing is ready yet, or a read error). A damaged compressed stream first delivers every
  // byte decoded before the damage, then ends (0) with damage() set.
  virtual ssize_t read(char* dst, std::size_t n) = 0;
  // A descriptor that polls readable when read() has something to return (bytes, the end, an
  // error); -1 when read() never has to wait (a regular file read directly).
  virtual int ready_fd() const = 0;
  // The input can pause (a pipe, a terminal), as opposed to a regular file that only runs
  // slower or faster: only a pause may end a multi-line record early.
  virtual bool may_pause() const = 0;
  // Why the stream ended early (truncated or corrupt, with the compressed byte offset), or
  // empty when it ended cleanly.
  virtual std::string damage() const { return {}; }
};

// `fd` read as it is; the caller keeps it open while the source lives, and closes it.
std::unique_ptr<ByteSource> make_plain_source(int fd, bool regular);

// `fd` (kept open by the caller as above) holding `kind`-compressed data whose first bytes, already read, are
// `prefix`. Decompression runs on a thread of its own, a bounded queue of blocks ahead of the
// reader; the thread blocks every signal, so signals reach the reader's thread.
std::unique_ptr<ByteSource> make_decompressing_source(int fd, bool regular, std::string prefix, Compression kind);

}  // namespace tlbf_dedup
