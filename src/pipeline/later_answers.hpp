// Answers that come later (Decider::answers_later(), --redis): every judged record waits in an
// InOrderSink (output/in_order_sink.hpp) put in front of the run's sink, with whatever is
// handed over behind it, until the decider's answer for it comes; the answers are passed on
// in the order the keys were submitted. With a decider that answers at once there is no
// wrapper, and the loop hands records to the run's sink itself.
//
// Invariant: each answer goes, once, to the record whose key it answers, and a record goes on
// only with its answer, behind the records handed over before it.
#pragma once

#include <memory>

#include "decide/decider.hpp"
#include "output/in_order_sink.hpp"
#include "output/record_sink.hpp"

namespace tlbf_dedup {

class LaterAnswers {
 public:
  // `sink` must outlive the answers.
  LaterAnswers(const Decider& decider, RecordSink& sink)
      : in_order_(decider.answers_later() ? std::make_unique<InOrderSink>(sink) : nullptr) {}

  // Where the loop hands every record: the wrapper, or `sink` itself.
  RecordSink& sink(RecordSink& sink) const { return in_order_ ? *in_order_ : sink; }
  // The decider answers later: each judged record awaits its answer.
  bool later() const { return in_order_ != nullptr; }
  // A judged record waits for its answer (`r.dup` is not read).
  void awaits(const DecidedRecord& r) { in_order_->awaits(r); }
  // The records whose answers are in `answers` go on, each answer to `count(dup, key, hash)`
  // as the sink let it count.
  template <class Count>
  void release(Answers& answers, Count&& count) {
    while (in_order_ && in_order_->waiting() && !answers.empty()) {
      const InOrderSink::Released r = in_order_->answer(answers.take());
      count(r.fate.dup, r.key, r.hash);
    }
  }

 private:
  std::unique_ptr<InOrderSink> in_order_;  // with a decider that answers later
};

}  // namespace tlbf_dedup
