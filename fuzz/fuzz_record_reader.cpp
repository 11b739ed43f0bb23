// Fuzzes the record reader (src/input/record_reader.hpp) over two inputs read in turn: a memory file
// (memfd, a regular file) and, chosen by the control byte, a second memory file or a pipe
// (which takes the reader's non-regular path with its input-pause hook).
//
// Input: a control byte (bit 0: NUL-terminated records instead of lines; bit 1: second input
// is a pipe), two bytes giving where the data splits between the inputs, then the data.
// Invariants checked: the records' texts and terminators put together are exactly the input
// (less a byte-order mark that begins an input, which the reader skips), except one
// terminator the reader supplies when the first input's last record has none (so records of
// two inputs are never glued); a record's text holds no terminator; term_len is 2 only for
// CR LF, 1 for the terminator alone, 0 only for a non-empty last piece of the last input;
// every record is followed by kTailPadding readable bytes (ASan checks the reads); the byte
// counts add up.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "input/record_reader.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_record_reader: invariant broken: %s\n", what);
    std::abort();
  }
}

int memory_file(const char* name) {
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  require(fd >= 0, "memfd_create works");
  return fd;
}

void fill_memory_file(int fd, std::string_view data) {
  require(::ftruncate(fd, 0) == 0, "ftruncate works");
  require(::pwrite(fd, data.data(), data.size(), 0) == static_cast<ssize_t>(data.size()), "pwrite works");
}

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int first_fd = memory_file("fuzz-first");
  static const int second_fd = memory_file("fuzz-second");
  if (size < 3) return 0;
  const char term = (data[0] & 1) ? '\0' : '\n';
  const bool second_is_pipe = (data[0] & 2) != 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::size_t split = (static_cast<std::size_t>(data[1]) << 8 | data[2]) % (all.size() + 1);
  const std::string_view first = all.substr(0, split), second = all.substr(split);

  fill_memory_file(first_fd, first);
  std::string second_path;
  int pipe_read = -1;
  if (second_is_pipe && second.size() <= 65536) {  // fits in a default pipe buffer: no writer thread needed
    int p[2];
    require(::pipe2(p, O_CLOEXEC) == 0, "pipe works");
    require(::write(p[1], second.data(), second.size()) == static_cast<ssize_t>(second.size()), "pipe write works");
    ::close(p[1]);
    pipe_read = p[0];
    second_path = fd_path(pipe_read);
  } else {
    fill_memory_file(second_fd, second);
    second_path = fd_path(second_fd);
  }

  std::size_t pos = 0;  // how much of `all` the records so far have covered
  {
    tlbf_dedup::ReaderConfig config;
    config.terminator = term;
    config.buffer_size = 0;
    config.decompress = false;  // the invariants are about framing: bytes out = bytes in
    tlbf_dedup::RecordReader reader({fd_path(first_fd), second_path}, config);
    unsigned pauses = 0;
    reader.on_input_pause([&] {
      ++pauses;
      return -1;  // wait for input as long as it takes
    });
    require(reader.total_size() == (pipe_read >= 0 ? first.size() : all.size()), "total_size counts regular files");
    tlbf_dedup::Record r;
    volatile char sink = 0;
    // Each input's leading byte-order mark is skipped: the records cover the bytes after it.
    auto starts_with_bom = [](std::string_view s) { return s.substr(0, 3) == "\xEF\xBB\xBF"; };
    bool first_bom = starts_with_bom(first), second_bom = starts_with_bom(second);
    auto skip_boms = [&] {
      if (first_bom && pos == 0) pos = 3, first_bom = false;
      if (second_bom && pos == first.size()) pos += 3, second_bom = false;
    };
    skip_boms();
    while (reader.next(r)) {
      skip_boms();
      const std::string_view text = r.text(), bytes = r.bytes();
      require(text.find(term) == std::string_view::npos, "a record's text holds no terminator");
      require(all.substr(pos, text.size()) == text, "a record's text is the next input bytes");
      const std::string_view ending = bytes.substr(text.size());
      const std::size_t end = pos + text.size();
      require(r.term_len <= 2, "term_len is 0, 1 or 2");
      if (r.term_len == 2) require(term == '\n' && ending == "\r\n", "term_len 2 is CR LF");
      if (r.term_len == 1) require(ending.back() == term, "term_len 1 is the terminator");
      if (r.term_len == 0) {
        require(!text.empty() && end == all.size(), "term_len 0 only ends the last input");
        pos = end;
      } else if (!(end == first.size() && pos < first.size())) {
        require(all.substr(end, ending.size()) == ending, "a record's terminator is the next input bytes");
        if (r.term_len == 1 && term == '\n')
          require(text.empty() || text.back() != '\r', "a CR before LF belongs to the terminator");
        pos = end + ending.size();
      } else {
        // The first input's last record had no terminator: the reader supplied one, so the
        // record does not run on into the second input.
        require(first.back() != term, "a terminator is supplied only when the first input lacks one");
        pos = end;
      }
      for (std::size_t i = 0; i < tlbf_dedup::RecordReader::kTailPadding; ++i) sink = sink ^ r.data[r.size + i];
    }
    skip_boms();  // an input that is a byte-order mark alone yields no record
    require(reader.bytes_read() == all.size(), "bytes_read counts every byte");
    (void)pauses;
  }
  if (pipe_read >= 0) ::close(pipe_read);
  if (pos != all.size()) std::fprintf(stderr, "covered %zu of %zu bytes\n", pos, all.size());
  require(pos == all.size(), "the records put together are the input");
  return 0;
}
