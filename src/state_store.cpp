// Reads and writes the state file (docs/state.md has the byte layout and the guarantees).
//
// A file is a fixed 24-byte header (magic "TLBFSTAT", format version, flags, payload length),
// the payload (every FilterConfig field, the clock, and the filter's own save() bytes, all
// written with tlbf::ByteWriter so the file reads the same on any endianness), and an
// XXH3-64 checksum of the payload. Each header field is checked exactly and the checksum
// covers the rest, so any damaged byte is refused rather than loaded as a different filter.
//
// Saving keeps the invariant "the file on disk is the old state or the new one, complete":
// the bytes go to a fresh temporary file in the same directory (rename is only atomic within
// one file system), which is fsynced before the rename so the new name never points at
// unwritten blocks, and the directory is fsynced after it so the rename itself survives a
// power cut. A process killed mid-save leaves only a temporary file, which the next save
// removes once its writer is gone.
#include "state_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "tlbf/checks.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/serialize.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::string_view kMagic{"TLBFSTAT", 8};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8;
constexpr std::size_t kChecksumSize = 8;
// Version 1 defines no flags; a set bit means a writer that knows something this one does not.
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

void put_optional_u32(tlbf::ByteWriter& out, const std::optional<std::uint32_t>& v) {
  out.u8(v ? 1 : 0);
  out.u32(v.value_or(0));
}

// A flag byte other than 0 or 1 cannot come from our writer; refusing it keeps the
// "any damaged byte is refused" promise for the bytes the checksum alone would let through.
bool get_bool(tlbf::ByteReader& in, const char* field) {
  std::uint8_t b = in.u8();
  if (b > 1) throw tlbf::state_error(std::string("state: bad value for ") + field);
  return b == 1;
}

std::optional<std::uint32_t> get_optional_u32(tlbf::ByteReader& in, const char* field) {
  bool present = get_bool(in, field);
  std::uint32_t v = in.u32();
  if (!present) {
    if (v != 0) throw tlbf::state_error(std::string("state: bad value for ") + field);
    return std::nullopt;
  }
  return v;
}

// Field order is the format: append new fields only in a new format version.
void put_config(tlbf::ByteWriter& out, const tlbf::FilterConfig& c) {
  out.u8(static_cast<std::uint8_t>(c.algorithm));
  out.i64(c.span);
  out.u64(c.window_count);
  out.f64(c.error_rate);
  out.u64(c.capacity);
  put_optional_u32(out, c.k);
  put_optional_u32(out, c.l);
  out.u32(c.max_kl);
  out.u32(c.gebf_r);
  out.u8(c.gebf_blocked ? 1 : 0);
  out.f64(c.gebf_bits_per_key);
  out.u64(c.max_memory_bytes);
  out.u32(c.max_slices);
}

tlbf::FilterConfig get_config(tlbf::ByteReader& in) {
  tlbf::FilterConfig c;
  std::uint8_t algo = in.u8();
  if (!tlbf::parse_algorithm(tlbf::algorithm_name(static_cast<tlbf::Algorithm>(algo))))
    throw tlbf::state_error("state: unknown algorithm " + std::to_string(algo));
  c.algorithm = static_cast<tlbf::Algorithm>(algo);
  c.span = in.i64();
  c.window_count = in.u64();
  c.error_rate = in.f64();
  c.capacity = in.u64();
  c.k = get_optional_u32(in, "k");
  c.l = get_optional_u32(in, "l");
  c.max_kl = in.u32();
  c.gebf_r = in.u32();
  c.gebf_blocked = get_bool(in, "gebf_blocked");
  c.gebf_bits_per_key = in.f64();
  c.max_memory_bytes = in.u64();
  c.max_slices = in.u32();
  try {
    tlbf::check_window(c);
    tlbf::check_error_rate(c.error_rate);
  } catch (const tlbf::invalid_parameter& e) {
    throw tlbf::state_error(std::string("state: ") + e.what());
  }
  return c;
}

SavedState parse_payload(std::string_view payload) {
  tlbf::ByteReader in(payload);
  SavedState s;
  s.config = get_config(in);
  s.clock = in.i64();
  std::string_view filter_bytes = in.bytes();
  if (!in.at_end()) throw tlbf::state_error("state: bytes after the filter");
  // The filter's tag byte repeats the algorithm; a disagreement means the parts do not belong together.
  if (filter_bytes.empty() || static_cast<std::uint8_t>(filter_bytes[0]) != static_cast<std::uint8_t>(s.config.algorithm))
    throw tlbf::state_error("state: the filter does not match the saved configuration");
  tlbf::ByteReader filter_in(filter_bytes);
  s.filter = tlbf::load_filter(filter_in);
  if (!filter_in.at_end()) throw tlbf::state_error("state: bytes left over after the filter");
  return s;
}

std::string read_whole_file(int fd, const std::string& name) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(name, "cannot read", errno);
    }
    if (n == 0) return data;
    data.append(buf, static_cast<std::size_t>(n));
  }
}

void write_all(int fd, std::string_view data, const std::string& name, const std::string& tmp) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(name, "cannot write temporary file '" + tmp + "'", errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void sync_fd(int fd, const std::string& name, const std::string& what) {
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    // Some file systems cannot sync a directory; the rename is then as durable as they allow.
    if (errno == EINVAL) return;
    fail_errno(name, "cannot sync " + what, errno);
  }
}

struct PathParts {
  std::string dir;   // for open() and fsync()
  std::string base;  // the file name alone
};

PathParts split_path(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Temporary names are "<base>.tmp.<pid>.<n>": unique among live processes, and the pid says
// whether the writer of a leftover is still running.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// Removes temporary files left by writers that were killed mid-save. Best effort: a leftover
// that cannot be removed costs disk space, not correctness, so no error is raised.
void remove_stale_temps(const PathParts& parts) {
  DIR* d = ::opendir(parts.dir.c_str());
  if (!d) return;
  const std::string prefix = parts.base + ".tmp.";
  const pid_t self = ::getpid();
  while (const dirent* e = ::readdir(d)) {
    std::string_view n(e->d_name);
    if (n.substr(0, prefix.size()) != prefix) continue;
    n.remove_prefix(prefix.size());
    std::size_t dot = n.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot > 9) continue;
    long pid = 0;
    bool digits = true;
    for (char ch : n.substr(0, dot)) {
      if (ch < '0' || ch > '9') digits = false;
      else pid = pid * 10 + (ch - '0');
    }
    if (!digits || pid <= 0 || pid == self) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

// Closes a descriptor on every path out of save, and removes the temporary file unless the
// rename has consumed it.
class TempFile {
 public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  int close() {
    int r = ::close(fd_);
    fd_ = -1;
    return r;
  }
  void mark_renamed() { renamed_ = true; }

 private:
  std::string path_;
  int fd_;
  bool renamed_ = false;
};

void write_file_atomically(const std::string& path, std::string_view data) {
  const PathParts parts = split_path(path);
  remove_stale_temps(parts);

  // 1. Create a fresh temporary file beside the target (O_EXCL: never reuse someone's file).
  std::string tmp = temp_name(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail_errno(path, "cannot create temporary file '" + tmp + "'", errno);
  TempFile file(tmp, fd);

  // 2. Keep the permissions of the state being replaced.
  struct stat old_st {};
  if (::stat(path.c_str(), &old_st) == 0 && ::fchmod(file.fd(), old_st.st_mode & 07777) != 0)
    fail_errno(path, "cannot set the mode of temporary file '" + tmp + "'", errno);

  // 3. Write everything and make it durable before it gets the real name.
  write_all(file.fd(), data, path, tmp);
  sync_fd(file.fd(), path, "temporary file '" + tmp + "'");
  if (file.close() != 0) fail_errno(path, "cannot close temporary file '" + tmp + "'", errno);

  // 4. Replace the old state in one step, then make the rename itself durable.
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail_errno(path, "cannot rename '" + tmp + "' over it", errno);
  file.mark_renamed();
  int dfd = ::open(parts.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail_errno(path, "saved, but cannot open directory '" + parts.dir + "' to sync it", errno);
  try {
    sync_fd(dfd, path, "directory '" + parts.dir + "'");
  } catch (...) {
    ::close(dfd);
    throw;
  }
  ::close(dfd);
}

}  // namespace

std::string frame_state_payload(std::string_view payload) {
  tlbf::ByteWriter out;
  for (char ch : kMagic) out.u8(static_cast<std::uint8_t>(ch));
  out.u32(kStateFormatVersion);
  out.u32(0);
  out.u64(payload.size());
  std::string file = out.take();
  file.append(payload.data(), payload.size());
  tlbf::ByteWriter sum;
  sum.u64(checksum(payload));
  file += sum.data();
  return file;
}

std::string encode_state(const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg, tlbf::Time clock) {
  tlbf::ByteWriter filter_out;
  f.save(filter_out);
  tlbf::ByteWriter payload;
  put_config(payload, cfg);
  payload.i64(clock);
  payload.bytes(filter_out.data());
  return frame_state_payload(payload.data());
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
    fail(name, "corrupted (" + std::to_string(available - length - kChecksumSize) + " unexpected bytes after the checksum)");

  // 3. Checksum over the payload.
  const std::string_view payload = bytes.substr(kHeaderSize, length);
  tlbf::ByteReader trailer(bytes.substr(kHeaderSize + length));
  if (trailer.u64() != checksum(payload)) fail(name, "corrupted (checksum mismatch)");

  // 4. The payload itself; a correct checksum over bytes that do not parse means a bug in
  //    some writer, or a crafted file.
  try {
    return parse_payload(payload);
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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail_errno(path, "cannot open", errno);
  }
  std::string data;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail_errno(path, "cannot stat", errno);
    if (S_ISDIR(st.st_mode)) fail(path, "is a directory");
    data = read_whole_file(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return load_state_bytes(data, path);
}

void save_state_file(const std::string& path, const tlbf::WindowFilter& f, const tlbf::FilterConfig& cfg,
                     tlbf::Time clock) {
  write_file_atomically(path, encode_state(f, cfg, clock));
}

}  // namespace tlbf_dedup
