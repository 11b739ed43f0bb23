// The in-order sink (in_order_sink.hpp): what waits behind a record whose answer has not come.
#include "output/in_order_sink.hpp"

namespace tlbf_dedup {

void InOrderSink::undecided(const OutRecord& r, const TimeReading* time, tlbf::Time now) {
  if (held_.empty())
    out_->undecided(r, time, now);
  else
    held_.hold(r, HeldRecords::Waits::undecided);
}

void InOrderSink::passed(const OutRecord& r) {
  if (held_.empty())
    out_->passed(r);
  else
    held_.hold(r, HeldRecords::Waits::passed);
}

void InOrderSink::blank(const OutRecord& r) {
  if (held_.empty())
    out_->blank(r);
  else
    held_.hold(r, HeldRecords::Waits::blank);
}

InOrderSink::Released InOrderSink::answer(bool dup) {
  const HeldRecords::Held h = held_.front();
  Released released{out_->decided(DecidedRecord{h.record, h.key, h.hash, h.at, nullptr, dup}), std::string(h.key),
                    h.hash};
  held_.pop();
  for (; !held_.empty(); held_.pop()) {
    const HeldRecords::Held next = held_.front();
    if (next.waits == HeldRecords::Waits::answer) break;
    if (next.waits == HeldRecords::Waits::passed)
      out_->passed(next.record);
    else if (next.waits == HeldRecords::Waits::blank)
      out_->blank(next.record);
    else
      out_->undecided(next.record, nullptr, next.at);
  }
  held_.compact();
  return released;
}

}  // namespace tlbf_dedup
