// Compressed input: gzip (zlib) and zstd (libzstd) decompressed on a thread of its own.
//
// The thread reads the descriptor, decodes into fixed-size blocks and queues them, at most
// kQueuedBlocks ahead of the reader, so decoding and deduplicating run on two cores and
// memory stays bounded. The reader takes blocks from the queue; an eventfd that the thread
// signals after every block lets the reader poll(2) it like any descriptor, with its
// input-pause hook (and multi-line timeout) working as for a pipe.
//
// Invariants:
//  - Bytes reach the reader in order, each once; gzip members and zstd frames follow each
//    other as `cat a.gz b.gz` makes them (zstd skippable frames are skipped).
//  - Everything decoded before damage (a corrupt block, an input that ends inside a member or
//    frame) is delivered first; then the source ends and damage() names the problem, a
//    compressed byte offset at or after the damage and where its member or frame starts. A
//    member's (frame's) checksum is checked at its end, so damage found only by the checksum
//    comes after the member's decoded bytes: holding a member back until then would hold all
//    of it, of any size. A read error of the descriptor is delivered the same way, as
//    read()'s errno.
//  - A block is queued as soon as it is full, and also, part full, when the compressed input
//    pauses (a pipe with nothing to read), so records in a live stream are not held back.
//  - The thread blocks every signal; the destructor wakes it (from a full queue or a poll on
//    the input) and joins it.
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include "base/atomic_file.hpp"
#include "base/signal_free_thread.hpp"
#include "input/byte_source.hpp"

namespace tlbf_dedup {
namespace {

// One compression format's decoder, fed by the thread.
class Decoder {
 public:
  virtual ~Decoder() = default;
  // Decodes from [in, in_end) into [out, out_end), advancing both; fills the output or
  // takes all the input. Returns an error text when the data is corrupt.
  virtual std::optional<std::string> step(const char*& in, const char* in_end, char*& out, char* out_end) = 0;
  // Between members or frames: the compressed input may end here.
  virtual bool at_boundary() const = 0;
  // Compressed bytes taken by step() so far, and where the current member or frame starts.
  std::uint64_t taken() const { return taken_; }
  std::uint64_t unit_start() const { return unit_start_; }

 protected:
  std::uint64_t taken_ = 0, unit_start_ = 0;
};

// The first bytes of a gzip member and of a zstd frame (its magic number, little-endian): one
// found where the other format's next member or frame would start is named as such.
constexpr unsigned char kGzipFirstByte = 0x1f, kZstdFirstByte = 0x28;
constexpr const char* kMixedFormats = "one input holds one compression format (decompress the parts apart)";

class GzipDecoder final : public Decoder {
 public:
  GzipDecoder() {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();  // 16: gzip wrapper only
  }
  ~GzipDecoder() override { inflateEnd(&z_); }
  GzipDecoder(const GzipDecoder&) = delete;
  GzipDecoder& operator=(const GzipDecoder&) = delete;

  std::optional<std::string> step(const char*& in, const char* in_end, char*& out, char* out_end) override {
    // inflate() may hold output back when the output is full: call it again, even without
    // input, until it has room to spare.
    while (out < out_end && (in < in_end || holding_)) {
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
      z_.avail_in = static_cast<uInt>(std::min<std::size_t>(in_end - in, 1u << 30));
      z_.next_out = reinterpret_cast<Bytef*>(out);
      z_.avail_out = static_cast<uInt>(std::min<std::size_t>(out_end - out, 1u << 30));
      if (!in_member_ && in < in_end && static_cast<unsigned char>(*in) == kZstdFirstByte)
        return std::string(kMixedFormats) + "zstd data follows the gzip data";
      if (in < in_end) in_member_ = true;
      const int r = inflate(&z_, Z_NO_FLUSH);
      taken_ += static_cast<std::uint64_t>(reinterpret_cast<const char*>(z_.next_in) - in);
      in = reinterpret_cast<const char*>(z_.next_in);
      out = reinterpret_cast<char*>(z_.next_out);
      holding_ = z_.avail_out == 0;
      if (r == Z_STREAM_END) {  // one member done; another may follow (`cat a.gz b.gz`)
        inflateReset(&z_);
        in_member_ = holding_ = false;
        unit_start_ = taken_;
      } else if (r == Z_BUF_ERROR) {  // no progress possible: more input needed
        holding_ = false;
        break;
      } else if (r != Z_OK) {
        return std::string(z_.msg ? z_.msg : "corrupt data");
      }
    }
    return std::nullopt;
  }
  bool at_boundary() const override { return !in_member_; }

 private:
  z_stream z_{};
  bool in_member_ = false;
  bool holding_ = false;  // the last call filled the output: inflate() may hold more
};

class ZstdDecoder final : public Decoder {
 public:
  ZstdDecoder() : ds_(ZSTD_createDStream()) {
    if (!ds_) throw std::bad_alloc();
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(ds_); }
  ZstdDecoder(const ZstdDecoder&) = delete;
  ZstdDecoder& operator=(const ZstdDecoder&) = delete;

  std::optional<std::string> step(const char*& in, const char* in_end, char*& out, char* out_end) override {
    // Until the output is full or the input used up; a frame's end returns 0 and the next
    // call starts the next frame. The input goes in no faster than the decoder asks (its
    // return value: the rest of the header or block at hand), so one call completes at most
    // one block. A failing call's output is dropped, since libzstd's positions mean nothing
    // after an error (a legacy frame's error moves the output's over bytes never written):
    // every block decoded before the damage is delivered, and the failing call's input end
    // is the nearest offset known to follow the damage.
    ZSTD_outBuffer dst{out, static_cast<std::size_t>(out_end - out), 0};
    while (in < in_end && dst.pos < dst.size) {
      if (frame_done_ && static_cast<unsigned char>(*in) == kGzipFirstByte)
        return std::string(kMixedFormats) + "gzip data follows the zstd data";
      ZSTD_inBuffer src{in, std::min(static_cast<std::size_t>(in_end - in), next_), 0};
      const std::size_t r = ZSTD_decompressStream(ds_, &dst, &src);
      if (ZSTD_isError(r)) {
        taken_ += src.size;
        return std::string(ZSTD_getErrorName(r));
      }
      out = static_cast<char*>(dst.dst) + dst.pos;
      in += src.pos;
      taken_ += src.pos;
      after_call(r);
    }
    // Output left inside the decoder after the input is used up is fetched by the next call
    // (with no input) only if the output was full; flush it here while there is room.
    while (in == in_end && dst.pos < dst.size && !frame_done_) {
      ZSTD_inBuffer none{in, 0, 0};
      const std::size_t before = dst.pos;
      const std::size_t r = ZSTD_decompressStream(ds_, &dst, &none);
      if (ZSTD_isError(r)) return std::string(ZSTD_getErrorName(r));
      out = static_cast<char*>(dst.dst) + dst.pos;
      after_call(r);
      if (dst.pos == before) break;
    }
    return std::nullopt;
  }
  bool at_boundary() const override { return frame_done_; }

 private:
  // A frame's first bytes: its magic number and the byte that says how long its header is.
  static constexpr std::size_t kFrameStart = 5;

  // After a successful call that returned `r`: 0 ends a frame, else it is the input wanted next.
  void after_call(std::size_t r) {
    frame_done_ = r == 0;
    next_ = frame_done_ ? kFrameStart : r;
    if (frame_done_) unit_start_ = taken_;
  }

  ZSTD_DStream* ds_;
  bool frame_done_ = true;
  std::size_t next_ = kFrameStart;  // input for the next call
};

constexpr std::size_t kBlockSize = std::size_t{1} << 18;
constexpr std::size_t kQueuedBlocks = 4;
constexpr std::size_t kReadSize = std::size_t{1} << 16;

struct Block {
  std::unique_ptr<char[]> data{new char[kBlockSize]};
  std::size_t size = 0;
};

class DecompressingSource final : public ByteSource {
 public:
  DecompressingSource(int fd, bool regular, std::string prefix, Compression kind)
      : fd_(fd),
        regular_(regular),
        kind_(kind),
        ready_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        cancel_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!ready_ || !cancel_) throw std::system_error(errno, std::generic_category(), "eventfd");
    if (kind == Compression::gzip)
      decoder_ = std::make_unique<GzipDecoder>();
    else
      decoder_ = std::make_unique<ZstdDecoder>();
    thread_ = signal_free_thread([this, p = std::move(prefix)] { produce(p); });
  }

  ~DecompressingSource() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
    }
    space_.notify_all();
    const std::uint64_t one = 1;
    (void)!::write(cancel_.get(), &one, sizeof one);
    thread_.join();
  }
  DecompressingSource(const DecompressingSource&) = delete;
  DecompressingSource& operator=(const DecompressingSource&) = delete;

  ssize_t read(char* dst, std::size_t n) override {
    if (taken_ == current_.size && !next_block()) return ended();
    const std::size_t k = std::min(n, current_.size - taken_);
    std::memcpy(dst, current_.data.get() + taken_, k);
    taken_ += k;
    return static_cast<ssize_t>(k);
  }
  int ready_fd() const override { return ready_.get(); }
  bool may_pause() const override { return !regular_; }
  std::string damage() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return damage_;
  }

 private:
  // The reader's side: the next full block in current_, false when there is none (yet).
  bool next_block() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (full_.empty() && !finished_) {
      // Clear the signal before looking again: a block queued after this is signalled anew.
      lock.unlock();
      std::uint64_t count;
      (void)!::read(ready_.get(), &count, sizeof count);
      lock.lock();
    }
    if (full_.empty()) return false;
    current_.size = 0;
    free_.push_back(std::move(current_));
    current_ = std::move(full_.front());
    full_.pop_front();
    taken_ = 0;
    lock.unlock();
    space_.notify_one();
    return true;
  }

  // read()'s answer without a block: the end (0), the descriptor's error, or "not yet". Also
  // "not yet" when a block is queued: the thread may queue its last block and finish between
  // next_block()'s look and this one, and that block comes before the end (ending here lost
  // it: the input's last bytes, or every byte of a small input).
  ssize_t ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!finished_ || !full_.empty()) {
      errno = EAGAIN;
      return -1;
    }
    if (read_errno_ != 0) {
      errno = read_errno_;
      return -1;
    }
    return 0;
  }

  // The thread's side: queues `out` (waiting while the queue is full); false when cancelled.
  bool push(Block& out) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_.wait(lock, [&] { return cancelled_ || full_.size() < kQueuedBlocks; });
      if (cancelled_) return false;
      full_.push_back(std::move(out));
      if (!free_.empty()) {
        out = std::move(free_.back());
        free_.pop_back();
      } else {
        out = Block();
      }
    }
    const std::uint64_t one = 1;
    (void)!::write(ready_.get(), &one, sizeof one);
    return true;
  }

  // Decodes [p, end) into `out`, queueing full blocks. False when cancelled or corrupt.
  bool decode(const char* p, const char* end, Block& out) {
    while (true) {
      char* o = out.data.get() + out.size;
      const std::optional<std::string> error = decoder_->step(p, end, o, out.data.get() + kBlockSize);
      out.size = static_cast<std::size_t>(o - out.data.get());
      if (error && error->compare(0, std::strlen(kMixedFormats), kMixedFormats) == 0) {  // not damage
        finish(out, fmt::format("{} at compressed byte {}; {}", error->substr(std::strlen(kMixedFormats)),
                                decoder_->taken(), kMixedFormats));
        return false;
      }
      if (error) {
        const bool gzip = kind_ == Compression::gzip;
        finish(out, fmt::format("corrupt {} data at or before compressed byte {} (in the {} that starts at "
                                "compressed byte {}): {}",
                                compression_name(kind_), decoder_->taken(), gzip ? "member" : "frame",
                                decoder_->unit_start(), *error));
        return false;
      }
      if (out.size < kBlockSize) break;  // the decoder took all the input and flushed
      if (!push(out)) return false;
    }
    return true;
  }

  // Queues what was decoded and ends the stream, with `damage` when it ended early.
  void finish(Block& out, std::string damage, int read_errno = 0) {
    if (out.size > 0 && !push(out)) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
      damage_ = std::move(damage);
      read_errno_ = read_errno;
    }
    const std::uint64_t one = 1;
    (void)!::write(ready_.get(), &one, sizeof one);
  }

  // True when the input has nothing to read right now (it paused).
  bool input_paused() const {
    pollfd pfd{fd_, POLLIN, 0};
    return !regular_ && ::poll(&pfd, 1, 0) == 0;
  }

  // Waits until the input is readable; false when cancelled.
  bool wait_for_input() const {
    if (regular_) return true;
    pollfd pfd[2] = {{fd_, POLLIN, 0}, {cancel_.get(), POLLIN, 0}};
    while (::poll(pfd, 2, -1) < 0 && errno == EINTR) {
    }
    return pfd[1].revents == 0;
  }

  void produce(const std::string& prefix) {
    Block out;
    if (!decode(prefix.data(), prefix.data() + prefix.size(), out)) return;
    std::vector<char> in(kReadSize);
    while (true) {
      if (out.size > 0 && input_paused() && !push(out)) return;
      if (!wait_for_input()) return;
      const ssize_t n = ::read(fd_, in.data(), in.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) return finish(out, "", errno);
      if (n == 0) break;
      if (!decode(in.data(), in.data() + n, out)) return;
    }
    finish(out, decoder_->at_boundary()
                    ? std::string()
                    : fmt::format("truncated {} data: the input ends inside a {} at compressed byte {}",
                                  compression_name(kind_), kind_ == Compression::gzip ? "member" : "frame",
                                  decoder_->taken()));
  }

  const int fd_;
  const bool regular_;
  const Compression kind_;
  std::unique_ptr<Decoder> decoder_;
  Fd ready_, cancel_;

  mutable std::mutex mutex_;
  std::condition_variable space_;  // the thread waits here for room in the queue
  std::deque<Block> full_;
  std::vector<Block> free_;
  bool finished_ = false, cancelled_ = false;
  std::string damage_;
  int read_errno_ = 0;

  Block current_;  // the reader's block, taken_ bytes of it handed out
  std::size_t taken_ = 0;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<ByteSource> make_decompressing_source(int fd, bool regular, std::string prefix, Compression kind) {
  return std::make_unique<DecompressingSource>(fd, regular, std::move(prefix), kind);
}

}  // namespace tlbf_dedup
