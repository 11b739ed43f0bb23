// The printer: the sink that writes records to a file descriptor, as lines or JSON. It owns
// the Writer (bytes) and the Emitter (what a record becomes: --only-dups, --mark, --compact,
// --count's fields, --explain's lines), flushes each record with --line-buffered, and while
// output is held back writes into an anonymous file instead (output_hold.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "output/emitter.hpp"
#include "output/record_sink.hpp"
#include "output/writer.hpp"

namespace tlbf_dedup {

class OutputHold;

class Printer final : public RecordSink {
 public:
  Printer(int fd, OutputMode mode, std::size_t buffer_size = std::size_t{1} << 20);
  ~Printer() override;

  void start(const SinkStart& how) override;
  Fate decided(const DecidedRecord& r) override {
    const bool written = emitter_->decided(r.record, r.dup);
    *emitted_ += written;
    if (line_buffered_) out_->flush();
    return Fate{written, r.dup, 0};
  }
  void undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) override;
  void passed(const OutRecord& r) override;
  void passed_among_held(const OutRecord& r) override;
  void blank(const OutRecord& r) override;
  void continuation(std::string_view bytes, std::size_t) override { emitter_->continuation(bytes); }
  bool held(const CountedRecord& r, bool counted) override;
  void explain(const ExplainLine& line) override;

  SinkRoom room() const override { return emitter_->room(); }
  void release_borrowed() override { out_->return_borrowed(); }
  void flush() override { out_->flush(); }
  bool wait_until_read(int max_ms) override { return output_.wait_until_read(max_ms); }
  std::uint64_t bytes_written() const override { return output_.bytes_written(); }

  void hold_back() override;
  void let_go(bool keep) override;

 private:
  OutputMode mode_;
  Writer output_;
  Emitter output_emitter_;
  std::unique_ptr<OutputHold> hold_;  // while output is held back
  // Where records go now: the output, or the hold.
  Writer* out_;
  Emitter* emitter_;
  bool line_buffered_ = false;
  std::uint64_t unused_count_ = 0;
  std::uint64_t* emitted_ = &unused_count_;  // the run's count of records written
};

}  // namespace tlbf_dedup
