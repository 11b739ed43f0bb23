// The printer (printer.hpp).
//
// Invariant: records reach the output in the order they were handed over, each once; while
// output is held back they reach the hold's file instead, and on let_go(true) that file's
// bytes go to the output ahead of anything handed over after.
#include "output/printer.hpp"

#include "output/output_hold.hpp"

namespace tlbf_dedup {

Printer::Printer(int fd, OutputMode mode, std::size_t buffer_size)
    : mode_(mode), output_(fd, buffer_size), output_emitter_(output_, std::move(mode)) {
  out_ = &output_;
  emitter_ = &output_emitter_;
}

Printer::~Printer() = default;

void Printer::start(const SinkStart& how) {
  output_.set_stop_flag(how.stop);  // a stop ends the run even when nothing reads the output
  // Read ahead, the records were written by the other core: copying short runs would read
  // them across cores before the kernel copies them again, so the writer borrows them all
  // (wall time +5 % copied on the 2,000,000-event files; on one thread copying saves 6 %).
  output_.copy_short_runs(!how.read_ahead);
  line_buffered_ = how.line_buffered;
  if (how.emitted) emitted_ = how.emitted;
  if (how.explain) emitter_->explain_header();
}

void Printer::undecided(const OutRecord& r, const TimeReading*, tlbf::Time) {
  emitter_->undecided(r);
  ++*emitted_;
  if (line_buffered_) out_->flush();
}

void Printer::passed(const OutRecord& r) {
  emitter_->passed(r);
  ++*emitted_;
  if (line_buffered_) out_->flush();
}

void Printer::passed_among_held(const OutRecord& r) {
  emitter_->passed_among_held(r);
  ++*emitted_;
  if (line_buffered_) out_->flush();
}

void Printer::blank(const OutRecord& r) {
  emitter_->blank(r);
  if (line_buffered_) out_->flush();
}

bool Printer::held(const CountedRecord& r, bool counted) {
  const bool written = emitter_->held(r, counted);  // (the holding stage counts what it writes)
  if (line_buffered_) out_->flush();
  return written;
}

void Printer::explain(const ExplainLine& line) {
  emitter_->explain(line);
  if (line_buffered_) out_->flush();
}

void Printer::hold_back() {
  if (hold_) return;
  hold_ = std::make_unique<OutputHold>(mode_);
  hold_->emitter().follow(output_emitter_);
  out_ = &hold_->writer();
  emitter_ = &hold_->emitter();
}

void Printer::let_go(bool keep) {
  if (!hold_) return;
  out_ = &output_;
  emitter_ = &output_emitter_;
  output_emitter_.follow(hold_->emitter());
  if (keep) hold_->release_into(output_);
  hold_.reset();
}

}  // namespace tlbf_dedup
