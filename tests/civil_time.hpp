// Civil times for the timestamp and time zone tests, by the C library: a std::tm from its
// fields, and UTC seconds by timegm, a reference independent of the parsers' own calendar.
#pragma once

#include <cstdint>
#include <ctime>

namespace tlbf_test {

inline std::tm civil_tm(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return tm;
}

// Seconds since 1970-01-01T00:00:00Z of a UTC civil time.
inline std::int64_t utc_seconds(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  std::tm tm = civil_tm(y, mo, d, h, mi, s);
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace tlbf_test
