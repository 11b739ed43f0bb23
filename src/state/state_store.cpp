// Reads and writes the state file (docs/state.md has the byte layout and the guarantees).
//
// A file is a fixed 24-byte header (magic "TLBFSTAT", format version, flags, payload length),
// the payload (every FilterConfig field, the clock, the filter's own save() bytes, from
// format 2 the RunRecord: hash seed and key/time options, and from format 3 the held
// records' bytes, which the holder reads and writes itself (format 4: behind a byte that
// says whether the run held any); all written with
// tlbf::ByteWriter so the file reads the same on any endianness), and an
// XXH3-64 checksum of the payload. Each header field is checked exactly and the checksum
// covers the rest, so any damaged byte is refused rather than loaded as a different filter.
// The configuration's fields are listed once (visit_config), for saving and loading alike.
//
// Saving keeps the invariant "the file on disk is the old state or the new one, complete"
// through write_file_atomically() (atomic_file.hpp), which owns the POSIX side.
#include "state/state_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "base/atomic_file.hpp"
#include "state/state_path.hpp"
#include "tlbf/checks.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/registry.hpp"
#include "tlbf/serialize.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::string_view kMagic{"TLBFSTAT", 8};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8;
constexpr std::size_t kChecksumSize = 8;
// Versions 1 to 4 define no flags; a set bit means a writer that knows something this one does not.
constexpr std::uint32_t kKnownFlags = 0;

std::string describe(const std::string& name, const std::string& problem) {
  return "state file '" + name + "': " + problem;
}

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw StateFileError(describe(name, problem));
}

[[noreturn]] void fail_errno(const std::string& name, const std::string& what, int err) {
  fail(name, what + ": " + std::strerror(err));
}

std::uint64_t checksum(std::string_view payload) { return XXH3_64bits(payload.data(), payload.size()); }

// The configuration's saved form, for both directions (tlbf::Saver over a const config,
// tlbf::Loader over a fresh one). Field order is the format: append new fields only in a
// new format version.
template <class Config, class Archive>
void visit_config(Config& c, Archive& ar) {
  std::uint8_t algorithm = static_cast<std::uint8_t>(c.algorithm);
  ar.u8(algorithm);
  if constexpr (Archive::loading) {
    if (!tlbf::find_filter(static_cast<tlbf::Algorithm>(algorithm)))
      throw tlbf::state_error("state: unknown algorithm " + std::to_string(algorithm));
    c.algorithm = static_cast<tlbf::Algorithm>(algorithm);
  }
  // Loading checks the parameters with the library's own checks (an invalid_parameter
  // is reported as a corrupted file by load_state_bytes()).
  ar.i64(c.span);
  ar.u64(c.window_count);
  if constexpr (Archive::loading) tlbf::check_window(c);
  ar.f64(c.error_rate);
  if constexpr (Archive::loading) tlbf::check_error_rate(c.error_rate);
  ar.u64(c.capacity);
  ar.optional_u32(c.k);
  ar.optional_u32(c.l);
  ar.u32(c.max_kl, c.gebf_r);
  ar.flag(c.gebf_blocked);
  ar.f64(c.gebf_bits_per_key);
  if constexpr (Archive::loading) tlbf::check_capacity(c.capacity);
  ar.u64(c.max_memory_bytes);
  if constexpr (Archive::loading) tlbf::check_max_memory(c.max_memory_bytes);
  ar.u32(c.max_slices);
}

// Bounds on the recorded options, so a crafted count cannot make the loader reserve memory
// for millions of strings; a real command line has a handful.
constexpr std::uint32_t kMaxRecordedOptions = 64;
constexpr std::uint32_t kMaxRecordedValues = 1024;

void save_run(const RunRecord& run, tlbf::ByteWriter& out) {
  out.u64(run.hash_seed);
  const std::vector<RecordedOption> none;
  const auto& options = run.key_time_options ? *run.key_time_options : none;
  out.u32(static_cast<std::uint32_t>(options.size()));
  for (const RecordedOption& o : options) {
    out.bytes(o.name);
    out.u32(static_cast<std::uint32_t>(o.values.size()));
    for (const std::string& v : o.values) out.bytes(v);
  }
}

RunRecord load_run(tlbf::ByteReader& in) {
  RunRecord run;
  run.hash_seed = in.u64();
  const std::uint32_t n = in.u32();
  if (n > kMaxRecordedOptions) throw tlbf::state_error("state: " + std::to_string(n) + " recorded options");
  run.key_time_options.emplace();
  for (std::uint32_t i = 0; i < n; ++i) {
    RecordedOption o;
    o.name = std::string(in.bytes());
    const std::uint32_t values = in.u32();
    if (values > kMaxRecordedValues)
      throw tlbf::state_error("state: " + std::to_string(values) + " values of " + o.name);
    for (std::uint32_t j = 0; j < values; ++j) o.values.emplace_back(in.bytes());
    run.key_time_options->push_back(std::move(o));
  }
  return run;
}

// Up to `n` bytes from where `fd` is (fewer only at its end).
std::string read_up_to(const Fd& fd, const std::string& name, std::uint64_t n) {
  std::string data(static_cast<std::size_t>(n), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    const ssize_t r = ::read(fd.get(), data.data() + got, data.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno(name, "cannot read", errno);
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  data.resize(got);
  return data;
}

// The whole file's size as the header of `head` declares it, when `head` is a whole header
// of this format (load_state_bytes() says what is wrong with any other).
std::optional<std::uint64_t> declared_size(std::string_view head) {
  if (head.size() < kHeaderSize || head.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  tlbf::ByteReader header(head.substr(kMagic.size() + 8, 8));
  const std::uint64_t length = header.u64();
  if (length > UINT64_MAX - kHeaderSize - kChecksumSize) return std::nullopt;
  return kHeaderSize + length + kChecksumSize;
}

// Format 3 has held records whenever it exists; format 4 says so in a byte (0 or 1).
bool held_follows(tlbf::ByteReader& in, std::uint32_t version) {
  if (version == 3) return true;
  const std::uint8_t present = in.u8();
  if (present > 1) throw tlbf::state_error("state: held-records byte " + std::to_string(present));
  return present == 1;
}

SavedState parse_payload(std::string_view payload, std::uint32_t version) {
  tlbf::ByteReader in(payload);
  SavedState s;
  tlbf::Loader config_in(in);
  visit_config(s.config, config_in);
  s.clock = in.i64();
  std::string_view filter_bytes = in.bytes();
  if (version >= 2) s.run = load_run(in);
  if (version >= 3 && held_follows(in, version)) s.held = std::string(in.bytes());
  if (!in.at_end()) throw tlbf::state_error("state: bytes after the filter");
  // The filter's tag byte repeats the algorithm; a disagreement means the parts do not belong together.
  if (filter_bytes.empty() ||
      static_cast<std::uint8_t>(filter_bytes[0]) != static_cast<std::uint8_t>(s.config.algorithm))
    throw tlbf::state_error("state: the filter does not match the saved configuration");
  tlbf::ByteReader filter_in(filter_bytes);
  s.filter = tlbf::load_filter(filter_in);
  if (!filter_in.at_end()) throw tlbf::state_error("state: bytes left over after the filter");
  return s;
}

}  // namespace

std::string frame_state_payload(std::string_view payload, std::uint32_t version) {
  tlbf::ByteWriter out;
  for (char ch : kMagic) out.u8(static_cast<std::uint8_t>(ch));
  out.u32(version);
  out.u32(0);
  out.u64(payload.size());
  std::string file = out.take();
  file.append(payload.data(), payload.size());
  tlbf::ByteWriter sum;
  sum.u64(checksum(payload));
  file += sum.data();
  return file;
}

std::string encode_state(const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg, tlbf::Time clock,
                         const RunRecord& run, const std::optional<std::string_view>& held) {
  tlbf::ByteWriter filter_out;
  f.save(filter_out);
  tlbf::ByteWriter payload;
  tlbf::Saver config_out(payload);
  visit_config(cfg, config_out);
  payload.i64(clock);
  payload.bytes(filter_out.data());
  save_run(run, payload);
  payload.u8(held ? 1 : 0);
  if (held) payload.bytes(*held);
  return frame_state_payload(payload.data(), kStateFormatVersion);
}

SavedState load_state_bytes(std::string_view bytes, const std::string& name) {
  // 1. Magic: say "not a state file" unless the bytes could be the start of one.
  if (bytes.empty()) fail(name, "empty file (truncated state file)");
  if (bytes.size() < kMagic.size()) {
    if (kMagic.substr(0, bytes.size()) == bytes) fail(name, "truncated (shorter than the header)");
    fail(name, "not a tlbf-dedup state file (wrong magic bytes)");
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) fail(name, "not a tlbf-dedup state file (wrong magic bytes)");
  if (bytes.size() < kHeaderSize) fail(name, "truncated (shorter than the header)");

  // 2. Header fields, each checked exactly: they are outside the checksum.
  tlbf::ByteReader header(bytes.substr(kMagic.size(), kHeaderSize - kMagic.size()));
  const std::uint32_t version = header.u32();
  const std::uint32_t flags = header.u32();
  const std::uint64_t length = header.u64();
  if (version > kStateFormatVersion)
    fail(name, "written by a newer tlbf-dedup (format version " + std::to_string(version) +
                   ", this program reads up to " + std::to_string(kStateFormatVersion) + ")");
  if (version == 0) fail(name, "corrupted (format version 0 does not exist)");
  if ((flags & ~kKnownFlags) != 0)
    fail(name, "corrupted or written by a newer tlbf-dedup (unknown flags " + std::to_string(flags) + ")");
  const std::uint64_t available = bytes.size() - kHeaderSize;
  if (length > available || available - length < kChecksumSize)
    fail(name, "truncated (" + std::to_string(bytes.size()) + " bytes, the header announces " +
                   (length > UINT64_MAX - kHeaderSize - kChecksumSize
                        ? std::string("more")
                        : std::to_string(length + kHeaderSize + kChecksumSize)) +
                   ")");
  if (available - length > kChecksumSize)
    fail(name,
         "corrupted (" + std::to_string(available - length - kChecksumSize) + " unexpected bytes after the checksum)");

  // 3. Checksum over the payload.
  const std::string_view payload = bytes.substr(kHeaderSize, length);
  tlbf::ByteReader trailer(bytes.substr(kHeaderSize + length));
  if (trailer.u64() != checksum(payload)) fail(name, "corrupted (checksum mismatch)");

  // 4. The payload itself; a correct checksum over bytes that do not parse means a bug in
  //    some writer, or a crafted file.
  try {
    return parse_payload(payload, version);
  } catch (const tlbf::state_error& e) {
    fail(name, std::string("corrupted (payload does not parse: ") + e.what() + ")");
  } catch (const tlbf::invalid_parameter& e) {
    fail(name, std::string("corrupted (invalid filter parameters: ") + e.what() + ")");
  } catch (const std::bad_alloc&) {
    fail(name, "corrupted (the filter it describes does not fit in memory)");
  } catch (const std::length_error&) {
    fail(name, "corrupted (the filter it describes does not fit in memory)");
  } catch (const std::exception& e) {
    fail(name, std::string("corrupted (payload does not parse: ") + e.what() + ")");
  }
}

std::optional<SavedState> load_state_file(const std::string& path) {
  // 1. The regular file the path leads to, opened without waiting for a writer (a FIFO put
  //    there since it was resolved) and checked again once open.
  const std::string file = resolve_state_path(path);
  Fd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return std::nullopt;
    fail_errno(path, "cannot open", errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  // 2. Its bytes, no more than the header declares: bytes beyond are refused unread.
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::string data = read_up_to(fd, path, kHeaderSize);
  if (const std::optional<std::uint64_t> declared = declared_size(data); declared && size > *declared)
    fail(path, "corrupted (" + std::to_string(size - *declared) + " unexpected bytes after the checksum)");
  data += read_up_to(fd, path, size - data.size());
  fd.close();
  return load_state_bytes(data, path);
}

void check_state_reset(const std::string& path) {
  const std::string file = resolve_state_path(path);
  Fd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return;
    fail_errno(path, "cannot open", errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  const std::string head = read_up_to(fd, path, kMagic.size());
  if (head != kMagic.substr(0, head.size()))  // (a file cut short in its magic is a state's still)
    fail(path, "is not a state file (it does not begin with " + std::string(kMagic) +
                   "); --state-reset replaces only a state file, so it is left untouched");
}

void save_state_file(const std::string& path, const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg,
                     tlbf::Time clock, const RunRecord& run, const std::optional<std::string_view>& held) {
  // The file the path leads to is replaced; a link to it stays a link.
  const std::string file = resolve_state_path(path);
  try {
    write_file_atomically(file, encode_state(f, cfg, clock, run, held));
  } catch (const FileError& e) {
    throw StateFileError(std::string("state file ") + e.what());  // "state file '<path>': <problem>"
  }
}

}  // namespace tlbf_dedup
