// The holding stage (holder.hpp).
//
// Invariants:
//  - A key is held at most once, and a copy is counted into the held record of its key when
//    there is one, so the counts of the records written for a key add up to its copies: none
//    is counted twice or lost, whether a record is written when its window closes, early for
//    the memory cap, or at the end.
//  - Before a copy is decided, every record whose window has closed at the copy's time (a
//    count window: at the inserts made before it) is written, so a copy at exactly the window
//    starts a new record, as the filters judge it.
//  - A record is forgotten only once the sink has taken it: a write that fails leaves it held
//    (saved with the state, written by the next run).
#include "output/holder.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace tlbf_dedup {
namespace {

// One held record's saved form.
struct HeldFields {
  std::uint64_t hash_lo = 0, hash_hi = 0;
  std::int64_t close = 0, first_at = 0, last_at = 0;
  std::uint64_t count = 0;
  std::uint8_t term_len = 0, first_form = 0, last_form = 0;
  bool json = false;
  std::string_view key, first, record, last;
};

// A count no run reaches (it would wrap when counted on): a crafted state's.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 62;

// The fields in their saved order, for saving and loading alike.
template <class Fields, class Archive>
void visit_held(Fields& f, Archive& ar) {
  ar.u64(f.hash_lo, f.hash_hi);
  ar.i64(f.close, f.first_at, f.last_at);
  ar.u64(f.count);
  ar.u8(f.term_len, f.first_form, f.last_form);
  ar.flag(f.json);
  ar.bytes(f.key);
  ar.bytes(f.first);
  ar.bytes(f.record);
  ar.bytes(f.last);
  if constexpr (Archive::loading) {
    if (f.count == 0) throw tlbf::state_error("state: a held record of no copies");
    if (f.count > kMaxCount) throw tlbf::state_error("state: a held record's count out of range");
    if (f.term_len > 2 || f.term_len > f.record.size()) throw tlbf::state_error("state: a held record's terminator");
    if (f.first_form > kLastSeenForm || f.last_form > kLastSeenForm)
      throw tlbf::state_error("state: a held record's time form");
  }
}

// The smallest saved record: the fixed fields and four empty byte strings.
constexpr std::size_t kMinSavedRecord = 2 * 8 + 3 * 8 + 8 + 3 + 1 + 4 * 8;
constexpr std::uint8_t kHeldFormat = 1;

}  // namespace

Holder::Holder(HoldConfig cfg) : cfg_(std::move(cfg)) {}

tlbf::Time Holder::window() const {
  return cfg_.span > 0 ? cfg_.span
                       : static_cast<tlbf::Time>(
                             std::min<std::uint64_t>(cfg_.window_count, std::numeric_limits<tlbf::Time>::max()));
}

tlbf::Time Holder::close_of(tlbf::Time anchor) const {
  const tlbf::Time w = window(), max = std::numeric_limits<tlbf::Time>::max();
  return anchor > max - w ? max : anchor + w;
}

HoldVerdict Holder::take(const Copy& c, HeldSink& out) {
  const bool by_count = cfg_.span == 0;
  const tlbf::Time now = by_count ? static_cast<tlbf::Time>(inserts_) : c.seen.at;
  close_due(now, out);
  std::uint32_t i = table_.find(c.hash, c.key);
  if (i != HeldTable::kNone) {
    // With --refresh every copy is inserted, and renews its key.
    if (by_count && cfg_.from == WindowFrom::last_copy) ++inserts_;
    count_copy(i, c, by_count ? static_cast<tlbf::Time>(inserts_) : now);
    last_ = cfg_.keep == Keep::last ? i : HeldTable::kNone;
    if (cfg_.keep == Keep::first) return HoldVerdict{true, false, 0};
    std::uint64_t early = make_room(false, 0, i, now, out);
    if (table_.bytes() > cfg_.max_bytes) {  // its last copy alone is over the cap: written now
      note_early(0);
      write_and_remove(i, out);
      ++early;
    }
    return HoldVerdict{true, true, early};
  }
  const std::size_t texts = cfg_.count ? 2 * c.seen.text.size() : 0;
  const std::size_t data_bytes = c.key.size() + c.bytes.size() + texts;
  const std::uint64_t early = make_room(true, data_bytes, HeldTable::kNone, now, out);
  if (by_count) ++inserts_;
  if (table_.bytes_with(data_bytes) > cfg_.max_bytes) {  // alone over the cap: written now, never held
    note_early(0);
    last_ = HeldTable::kNone;
    out.write_held(CountedRecord{c.bytes, c.text_size, c.format, 1, c.seen, c.seen});
    return HoldVerdict{false, true, early + 1};
  }
  last_ = hold_new(c, by_count ? static_cast<tlbf::Time>(inserts_) : now);
  return HoldVerdict{false, true, early};
}

std::uint32_t Holder::hold_new(const Copy& c, tlbf::Time anchor) {
  const std::string_view text = cfg_.count ? c.seen.text : std::string_view();
  const std::uint32_t i = table_.add(c.hash, close_of(anchor), {c.key, text, c.bytes, text});
  HeldEntry& e = table_[i];
  e.first_size = text.size();
  e.record_size = c.bytes.size();
  e.term_len = static_cast<std::uint8_t>(c.bytes.size() - c.text_size);
  e.format = c.format;
  e.count = 1;
  e.first_at = e.last_at = c.seen.own_or_at();
  e.first_form = e.last_form = c.seen.form;
  ++stats_.taken;
  note_size();
  return i;
}

void Holder::count_copy(std::uint32_t i, const Copy& c, tlbf::Time anchor) {
  HeldEntry& e = table_[i];
  ++e.count;
  if (cfg_.from == WindowFrom::last_copy) table_.renew(i, close_of(anchor));
  // The first and last times are the earliest and the latest of the copies' (a late copy, one
  // behind the clock, may be earlier than the first), so first <= last always.
  const std::string_view text = cfg_.count ? c.seen.text : std::string_view();
  const tlbf::Time at = c.seen.own_or_at();
  const bool latest = at >= e.last_at;
  if (at < e.first_at) {
    e.first_at = at;
    e.first_form = c.seen.form;
    if (cfg_.count) {
      const std::string record(e.record()), last(e.last_text());
      table_.rewrite(i, e.key_size, {text, record, last});
      e.first_size = text.size();
      note_size();
    }
  }
  if (latest) {
    e.last_at = at;
    e.last_form = c.seen.form;
  }
  if (cfg_.keep == Keep::last) {
    std::string earlier_last;  // (the copy's own text unless it is not the latest)
    std::string_view last = text;
    if (!latest) last = earlier_last = e.last_text();
    table_.rewrite(i, e.key_size + e.first_size, {c.bytes, last});
    e.record_size = c.bytes.size();
    e.term_len = static_cast<std::uint8_t>(c.bytes.size() - c.text_size);
    e.format = c.format;
    note_size();
  } else if (cfg_.count && latest) {
    table_.rewrite(i, e.key_size + e.first_size + e.record_size, {text});
  }
}

bool Holder::continue_last(std::string_view bytes, std::size_t term_len) {
  if (last_ == HeldTable::kNone) return false;
  HeldEntry& e = table_[last_];
  const std::string last(e.last_text());
  table_.rewrite(last_, e.key_size + e.first_size + e.record_size, {bytes, last});
  e.record_size += bytes.size();
  e.term_len = static_cast<std::uint8_t>(term_len);
  note_size();
  return true;
}

std::uint64_t Holder::make_room(bool adding, std::size_t data_bytes, std::uint32_t keep, tlbf::Time now,
                                HeldSink& out) {
  std::uint64_t early = 0;
  while ((adding ? table_.bytes_with(data_bytes) : table_.bytes()) > cfg_.max_bytes) {
    std::uint32_t i = table_.head();
    if (i != HeldTable::kNone && i == keep) i = table_.next(i);
    if (i == HeldTable::kNone) break;  // nothing left to write but `keep` (or nothing at all)
    note_early(std::max<tlbf::Duration>(0, now - (table_[i].close - window())));
    write_and_remove(i, out);
    ++early;
  }
  return early;
}

void Holder::note_early(tlbf::Duration kept) {
  ++stats_.early;
  if (!stats_.shortest_early || kept < *stats_.shortest_early) stats_.shortest_early = kept;
}

void Holder::write_and_remove(std::uint32_t i, HeldSink& out) {
  const HeldEntry& e = table_[i];
  const CountedRecord r{e.record(), e.record_size - e.term_len, e.format, e.count,
                        // (first_at and last_at are the copies' own times already: count_copy())
                        SeenTime{e.first_form, e.first_text(), e.first_at, std::nullopt},
                        SeenTime{e.last_form, e.last_text(), e.last_at, std::nullopt}};
  out.write_held(r);
  if (last_ == i) last_ = HeldTable::kNone;
  table_.remove(i);
}

void Holder::close_due(tlbf::Time now, HeldSink& out) {
  for (std::uint32_t i = table_.head(); i != HeldTable::kNone && table_[i].close <= now; i = table_.head())
    write_and_remove(i, out);
}

void Holder::close_until(tlbf::Time now, HeldSink& out) {
  if (cfg_.span > 0) close_due(now, out);
}

void Holder::close_all(HeldSink& out) {
  for (std::uint32_t i = table_.head(); i != HeldTable::kNone; i = table_.head()) write_and_remove(i, out);
}

std::optional<tlbf::Time> Holder::next_close() const {
  if (cfg_.span == 0 || table_.empty()) return std::nullopt;
  return table_[table_.head()].close;
}

void Holder::note_size() {
  stats_.peak = std::max<std::uint64_t>(stats_.peak, table_.size());
  stats_.peak_bytes = std::max(stats_.peak_bytes, table_.bytes());
}

HeldStats Holder::stats() const {
  HeldStats s = stats_;
  s.bytes = table_.bytes();
  s.held = table_.size();
  return s;
}

void Holder::save(tlbf::ByteWriter& out) const {
  tlbf::Saver ar(out);
  ar.version(kHeldFormat, "");
  ar.u64(inserts_);
  ar.u64(static_cast<std::uint64_t>(table_.size()));
  for (std::uint32_t i = table_.head(); i != HeldTable::kNone; i = table_.next(i)) {
    const HeldEntry& e = table_[i];
    const HeldFields f{e.hash.lo,
                       e.hash.hi,
                       e.close,
                       e.first_at,
                       e.last_at,
                       e.count,
                       e.term_len,
                       static_cast<std::uint8_t>(e.first_form),
                       static_cast<std::uint8_t>(e.last_form),
                       e.format == InputFormat::json,
                       e.key(),
                       e.first_text(),
                       e.record(),
                       e.last_text()};
    visit_held(f, ar);
  }
}

void Holder::load(std::string_view bytes) {
  tlbf::ByteReader in(bytes);
  tlbf::Loader ar(in);
  ar.version(kHeldFormat, "state: held records of an unknown format");
  std::uint64_t inserts = 0, n = 0;
  ar.u64(inserts, n);
  if (n > ar.remaining() / kMinSavedRecord) throw tlbf::state_error("state: held record count out of range");
  HeldTable table;
  for (std::uint64_t k = 0; k < n; ++k) {
    HeldFields f;
    visit_held(f, ar);
    const tlbf::KeyHash hash{f.hash_lo, f.hash_hi};
    if (table.find(hash, f.key) != HeldTable::kNone) throw tlbf::state_error("state: a key held twice");
    // --count writes a bare time as it is, so it is never empty (without --count none is kept).
    constexpr auto kBare = static_cast<std::uint8_t>(SeenForm::bare);
    if (cfg_.count && ((f.first_form == kBare && f.first.empty()) || (f.last_form == kBare && f.last.empty())))
      throw tlbf::state_error("state: a held record's time text");
    const std::uint32_t i = table.add(hash, f.close, {f.key, f.first, f.record, f.last});
    HeldEntry& e = table[i];
    if (e.prev != HeldTable::kNone && table[e.prev].close > f.close)
      throw tlbf::state_error("state: held records out of order");
    e.first_size = f.first.size();
    e.record_size = f.record.size();
    e.term_len = f.term_len;
    e.format = f.json ? InputFormat::json : InputFormat::lines;
    e.count = f.count;
    e.first_at = f.first_at;
    e.last_at = f.last_at;
    e.first_form = static_cast<SeenForm>(f.first_form);
    e.last_form = static_cast<SeenForm>(f.last_form);
  }
  if (!in.at_end()) throw tlbf::state_error("state: bytes after the held records");
  table_ = std::move(table);
  inserts_ = inserts;
  last_ = HeldTable::kNone;
  note_size();
}

}  // namespace tlbf_dedup
