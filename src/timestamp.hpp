// Timestamp parsers: text → nanoseconds since the Unix epoch (tlbf::Time).
//
// Every parser is a pure function of its input (the year for year-less formats is passed
// in), returns nullopt for text it does not fully match, and never throws, so each can be
// fuzzed on its own. Times without a zone are taken as UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf_dedup {

// "1763750000", "1763750000.001", "-5": a count of `unit`s (tlbf::kSecond, kMillisecond...)
// with an optional fraction. `unit` is a power of ten.
std::optional<tlbf::Time> parse_epoch(std::string_view text, tlbf::Duration unit);
// The unit chosen by magnitude of the whole part: < 1e11 seconds, < 1e14 milliseconds,
// < 1e17 microseconds, else nanoseconds.
std::optional<tlbf::Time> parse_epoch_auto(std::string_view text);
// RFC 3339 / ISO 8601: "2018-03-24T17:15:20.865716Z", "2016-12-19 16:31:47,999",
// "2015-05-17T10:05:03+02:00"; no zone = UTC. A lone trailing fraction separator is ignored.
std::optional<tlbf::Time> parse_rfc3339(std::string_view text);
// Common Log Format: "10/Oct/2000:13:55:36 -0700" (zone optional).
std::optional<tlbf::Time> parse_clf(std::string_view text);
// Syslog (RFC 3164): "Mar 27 13:06:56", "Jul  1 09:00:55"; the year is not in the text.
std::optional<tlbf::Time> parse_syslog(std::string_view text, int year);
// ctime/asctime, as in Apache error logs: "Sun Dec 04 04:47:44 2005".
std::optional<tlbf::Time> parse_ctime(std::string_view text);
// Tries the formats above in turn (numbers as epoch by magnitude).
std::optional<tlbf::Time> parse_auto(std::string_view text, int year);

// A strftime-style pattern compiled once: %Y %y %m %d %e %H %I %M %S %f (fraction digits)
// %z %Z %b %h %B %a %A %j %p %s %T %F %D %% and literal characters; whitespace in the pattern
// matches any run of blanks (as strptime does). Numeric fields take up to their usual
// width, so unpadded values ("22:15:5") parse too.
class TimePattern {
 public:
  // nullopt (with `error` set) for an unknown directive or a pattern without any field.
  static std::optional<TimePattern> compile(std::string_view pattern, std::string* error = nullptr);
  std::optional<tlbf::Time> parse(std::string_view text, int default_year) const;

  struct Op {
    char kind;         // directive letter, or 0 for a literal, or ' ' for blanks
    std::string text;  // the literal
  };

 private:
  std::vector<Op> ops_;
};

std::optional<tlbf::Time> parse_strftime(std::string_view text, std::string_view pattern, int default_year);

enum class TimeFormat { auto_detect, epoch, epoch_ms, epoch_us, epoch_ns, rfc3339, clf, syslog, ctime, pattern };

// The parser the program uses for every record: one format (or auto), with surrounding
// blanks, brackets and quotes stripped first ("[10/Oct/2000:13:55:36 -0700]").
class TimeParser {
 public:
  TimeParser(TimeFormat format, std::optional<TimePattern> pattern, int year)
      : format_(format), pattern_(std::move(pattern)), year_(year) {}
  std::optional<tlbf::Time> operator()(std::string_view text) const;

 private:
  TimeFormat format_;
  std::optional<TimePattern> pattern_;
  int year_;
};

// The current UTC year, the default for year-less formats.
int current_year();

}  // namespace tlbf_dedup
