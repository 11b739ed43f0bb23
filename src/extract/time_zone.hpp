// Time zones for --timezone: the zone in which stamps that name none are read. A fixed offset
// ("+02:00") or an IANA zone ("Europe/Berlin") read from the system's TZif files (RFC 8536,
// Debian's tzdata under /usr/share/zoneinfo, or $TZDIR), with the POSIX rule of the file's
// footer carried on to 2262. No global state: the C library's TZ is never set, so zones can be
// used from any thread and several at once.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tlbf_dedup {

class TimeZone {
 public:
  // UTC.
  TimeZone() = default;
  // A fixed offset east of UTC, in seconds.
  static TimeZone fixed(std::int32_t offset_seconds, std::string name);
  // What --timezone takes: UTC, Z, an offset (+02:00, -0530, +02) or an IANA name looked up
  // under $TZDIR, else /usr/share/zoneinfo. Throws std::invalid_argument saying what is wrong
  // (not naming the option).
  static TimeZone named(const std::string& spec);
  // A zone from the bytes of a TZif file; nullopt (with `error` set) for anything that is not
  // a well-formed one, or one with leap seconds (the "right/" zones).
  static std::optional<TimeZone> from_tzif(std::string_view bytes, std::string name, std::string* error = nullptr);
  // A zone from a POSIX TZ rule such as "CET-1CEST,M3.5.0,M10.5.0/3" (a TZif file's footer).
  static std::optional<TimeZone> from_posix_rule(std::string_view rule, std::string* error = nullptr);

  // The offset east of UTC at the instant `utc_seconds`.
  std::int32_t offset_at(std::int64_t utc_seconds) const;

  // Local times [local_from, local_to) that are read with one offset: utc = local - offset.
  // A local time inside a change of offset is read with the offset before the change: when
  // the clocks go back, the repeated hour is read as its first occurrence; when they go
  // forward, a skipped time is read as if they had not yet (02:30 on the night Europe/Berlin
  // moves from +01:00 to +02:00 is 01:30 UTC).
  struct Span {
    std::int32_t offset = 0;
    std::int64_t local_from = std::numeric_limits<std::int64_t>::min();
    std::int64_t local_to = std::numeric_limits<std::int64_t>::max();
    bool contains(std::int64_t local) const { return local >= local_from && local < local_to; }
  };
  Span span_of_local(std::int64_t local_seconds) const;
  std::int64_t utc_of_local(std::int64_t local_seconds) const {
    return local_seconds - span_of_local(local_seconds).offset;
  }

  // The offset a zone abbreviation of this zone stands for (CET +01:00, CEST +02:00 in
  // Europe/Berlin; the latest use of a name wins), nullopt for a name the zone never used.
  std::optional<std::int32_t> offset_of_abbreviation(std::string_view abbreviation) const;

  const std::string& name() const { return name_; }
  // Whether the offset never changes.
  bool is_fixed() const { return at_.empty(); }

 private:
  // Appends the transitions of `rule` (a zone made from a TZif file's footer) that come after
  // the last one of this zone.
  void extend_by(const TimeZone& rule);
  // Merges transitions at one instant (the later wins) and drops those that do not change the
  // offset; false (with `error` set) when they are out of order or so close together that
  // local times would not increase.
  bool normalise(std::string* error);

  std::string name_ = "UTC";
  std::int32_t initial_offset_ = 0;   // before the first transition
  std::vector<std::int64_t> at_;      // the transitions, in UTC seconds, increasing
  std::vector<std::int32_t> offset_;  // the offset from at_[i] on
  std::vector<std::pair<std::string, std::int32_t>> abbreviations_;
};

}  // namespace tlbf_dedup
