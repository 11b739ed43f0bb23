// Time zones (src/extract/time_zone.hpp): what --timezone takes and refuses, POSIX rules, the
// spans of local times around a change of offset, abbreviations, damaged TZif files; and every
// zone of the system's tzdata against the C library's localtime_r.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "extract/time_zone.hpp"

namespace {
constexpr const char* kZoneinfo = "/usr/share/zoneinfo";

using tlbf_test::utc_seconds;
std::int64_t utc(int y, int mo, int d, int h, int mi, int s) { return utc_seconds(y, mo, d, h, mi, s); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The zone files under `dir` (relative names), without the posix/ and right/ copies.
void zone_files(const std::string& root, const std::string& rel, std::vector<std::string>& out) {
  DIR* d = opendir((root + "/" + rel).c_str());
  if (!d) return;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name[0] == '.' || name == "posix" || name == "right") continue;
    const std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    if (stat((root + "/" + path).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      zone_files(root, path, out);
    } else if (read_file(root + "/" + path).rfind("TZif", 0) == 0) {
      out.push_back(path);
    }
  }
  closedir(d);
}

// The offset localtime_r gives at `t` under TZ=zone.
long libc_offset(const std::string& zone, std::time_t t) {
  setenv("TZ", (":" + zone).c_str(), 1);
  tzset();
  std::tm tm{};
  localtime_r(&t, &tm);
  return tm.tm_gmtoff;
}
}  // namespace

TEST_SUITE("time_zone") {
  using namespace tlbf_dedup;

  TEST_CASE("what --timezone takes") {
    CHECK(TimeZone::named("UTC").offset_at(0) == 0);
    CHECK(TimeZone::named("Z").offset_at(0) == 0);
    CHECK(TimeZone::named("+02:00").offset_at(0) == 7200);
    CHECK(TimeZone::named("+02:00").name() == "+02:00");
    CHECK(TimeZone::named("-0530").offset_at(0) == -(5 * 3600 + 30 * 60));
    CHECK(TimeZone::named("-0530").name() == "-05:30");
    CHECK(TimeZone::named("+02").offset_at(0) == 7200);
    CHECK(TimeZone::named("+02").is_fixed());
    for (const char* bad : {"+2", "+24:00", "+02:60", "+02:0", "+0200x", "-", ""})
      CHECK_THROWS_AS(TimeZone::named(bad), std::invalid_argument);
    CHECK_THROWS_WITH_AS(TimeZone::named("Europe/Nowhere"), doctest::Contains("no time zone of that name"),
                         std::invalid_argument);
    for (const char* bad : {"../etc/passwd", "/etc/passwd", "Europe/../../etc/passwd", "Europe/", "a b"})
      CHECK_THROWS_WITH_AS(TimeZone::named(bad), doctest::Contains("expected an IANA zone name"),
                           std::invalid_argument);
    // A directory, or a file that is no zone, is refused by name.
    CHECK_THROWS_AS(TimeZone::named("Europe"), std::invalid_argument);
  }

  TEST_CASE("$TZDIR names where zones are read") {
    const char* old = std::getenv("TZDIR");
    setenv("TZDIR", "/nonexistent-zoneinfo", 1);
    CHECK_THROWS_WITH_AS(TimeZone::named("Europe/Berlin"), doctest::Contains("/nonexistent-zoneinfo"),
                         std::invalid_argument);
    if (old)
      setenv("TZDIR", old, 1);
    else
      unsetenv("TZDIR");
    CHECK(TimeZone::named("Europe/Berlin").offset_at(utc(2024, 7, 1, 0, 0, 0)) == 7200);
  }

  TEST_CASE("POSIX rules: northern and southern hemisphere, quoted names, the default rule") {
    const auto cet = TimeZone::from_posix_rule("CET-1CEST,M3.5.0,M10.5.0/3");
    REQUIRE(cet);
    CHECK(cet->offset_at(utc(2024, 3, 31, 0, 59, 59)) == 3600);
    CHECK(cet->offset_at(utc(2024, 3, 31, 1, 0, 0)) == 7200);
    CHECK(cet->offset_at(utc(2024, 10, 27, 0, 59, 59)) == 7200);
    CHECK(cet->offset_at(utc(2024, 10, 27, 1, 0, 0)) == 3600);
    CHECK(cet->offset_at(utc(2250, 7, 1, 0, 0, 0)) == 7200);
    CHECK(cet->offset_of_abbreviation("CEST") == 7200);
    const auto sydney = TimeZone::from_posix_rule("AEST-10AEDT,M10.1.0,M4.1.0/3");
    REQUIRE(sydney);
    CHECK(sydney->offset_at(utc(2024, 1, 1, 0, 0, 0)) == 11 * 3600);
    CHECK(sydney->offset_at(utc(2024, 7, 1, 0, 0, 0)) == 10 * 3600);
    const auto tehran = TimeZone::from_posix_rule("<+0330>-3:30");
    REQUIRE(tehran);
    CHECK(tehran->offset_at(0) == 3 * 3600 + 1800);
    CHECK(tehran->offset_of_abbreviation("+0330") == 3 * 3600 + 1800);
    const auto us = TimeZone::from_posix_rule("EST5EDT");  // US rules by default
    REQUIRE(us);
    CHECK(us->offset_at(utc(2024, 3, 10, 6, 59, 59)) == -5 * 3600);
    CHECK(us->offset_at(utc(2024, 3, 10, 7, 0, 0)) == -4 * 3600);
    const auto julian = TimeZone::from_posix_rule("XST-2XDT,J60/0,J300/0");  // 1 March, 27 October
    REQUIRE(julian);
    CHECK(julian->offset_at(utc(2024, 2, 29, 21, 59, 59)) == 7200);  // J never counts 29 February
    CHECK(julian->offset_at(utc(2024, 2, 29, 22, 0, 0)) == 10800);
    const auto always = TimeZone::from_posix_rule("EST5EDT4,0/0,J365/25");  // daylight time all year
    REQUIRE(always);
    CHECK(always->offset_at(utc(2024, 1, 1, 12, 0, 0)) == -4 * 3600);
    CHECK(always->offset_at(utc(2024, 12, 31, 12, 0, 0)) == -4 * 3600);
    std::string error;
    for (const char* bad : {"", "C", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "<ab>1", "CET-1x"}) {
      CHECK_FALSE(TimeZone::from_posix_rule(bad, &error));
      CHECK_FALSE(error.empty());
      error.clear();
    }
  }

  TEST_CASE("spans of local time around changes of offset") {
    const TimeZone berlin = TimeZone::named("Europe/Berlin");
    // Spring forward, 2024-03-31 02:00 local → 03:00: [02:00, 03:00) is read with +01:00.
    const std::int64_t gap = utc(2024, 3, 31, 2, 30, 0);  // local, as if UTC
    const TimeZone::Span g = berlin.span_of_local(gap);
    CHECK(g.offset == 3600);
    CHECK(g.local_from == utc(2024, 3, 31, 2, 0, 0));
    CHECK(g.local_to == utc(2024, 3, 31, 3, 0, 0));
    CHECK(berlin.utc_of_local(utc(2024, 3, 31, 3, 0, 0)) == utc(2024, 3, 31, 1, 0, 0));
    CHECK(berlin.utc_of_local(utc(2024, 3, 31, 1, 59, 59)) == utc(2024, 3, 31, 0, 59, 59));
    // Fall back, 2024-10-27 03:00 local → 02:00: [02:00, 03:00) happens twice, read as the first.
    const TimeZone::Span o = berlin.span_of_local(utc(2024, 10, 27, 2, 30, 0));
    CHECK(o.offset == 7200);
    CHECK(o.local_from == utc(2024, 10, 27, 2, 0, 0));
    CHECK(o.local_to == utc(2024, 10, 27, 3, 0, 0));
    // Between changes one span covers the months.
    const TimeZone::Span summer = berlin.span_of_local(utc(2024, 7, 1, 0, 0, 0));
    CHECK(summer.offset == 7200);
    CHECK(summer.local_from == utc(2024, 3, 31, 3, 0, 0));
    CHECK(summer.local_to == utc(2024, 10, 27, 2, 0, 0));
    CHECK(berlin.offset_of_abbreviation("CET") == 3600);
    CHECK(berlin.offset_of_abbreviation("CEST") == 7200);
    CHECK_FALSE(berlin.offset_of_abbreviation("EST"));
    const TimeZone ny = TimeZone::named("America/New_York");
    CHECK(ny.offset_of_abbreviation("EDT") == -4 * 3600);
    CHECK(ny.offset_of_abbreviation("est") == -5 * 3600);
  }

  TEST_CASE("every zone of the system agrees with localtime_r, 1900 to 2260") {
    std::vector<std::string> zones;
    zone_files(kZoneinfo, "", zones);
    REQUIRE(zones.size() > 300);
    const char* old = std::getenv("TZ");
    const std::string saved = old ? old : "";
    std::mt19937_64 rng(52);
    const std::int64_t from = utc(1900, 1, 1, 0, 0, 0), to = utc(2260, 1, 1, 0, 0, 0);
    std::size_t compared = 0, differ = 0;
    for (const std::string& name : zones) {
      const TimeZone z = TimeZone::named(name);
      for (int i = 0; i < 300; ++i) {
        const std::int64_t t = from + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(to - from));
        const long want = libc_offset(name, static_cast<std::time_t>(t));
        ++compared;
        if (z.offset_at(t) != want && ++differ <= 10) {
          INFO(name << " at " << t);
          CHECK(z.offset_at(t) == want);
        }
        // The local time there reads back as this instant, unless it is inside a change.
        const std::int64_t local = t + want;
        const TimeZone::Span s = z.span_of_local(local);
        // A span open at either end (before the first change, after the last) is wide.
        const bool open = s.local_from == std::numeric_limits<std::int64_t>::min() ||
                          s.local_to == std::numeric_limits<std::int64_t>::max();
        const bool wide = open || s.local_to - s.local_from > 2 * 86400;
        if (wide && s.contains(local) && local - s.offset != t && ++differ <= 10) {
          INFO(name << " local " << local);
          CHECK(local - s.offset == t);
        }
      }
    }
    if (old)
      setenv("TZ", saved.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
    MESSAGE(zones.size() << " zones, " << compared << " instants, " << differ << " differ");
    CHECK(differ == 0);
  }

  TEST_CASE("damaged TZif files are refused with a reason, never read past their end") {
    const std::string good = read_file(std::string(kZoneinfo) + "/Europe/Berlin");
    REQUIRE(good.size() > 100);
    std::string error;
    REQUIRE(TimeZone::from_tzif(good, "Berlin", &error));
    for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{43}, std::size_t{44}, good.size() / 3,
                            good.size() / 2, good.size() - 2}) {
      INFO("cut at " << cut);
      error.clear();
      CHECK_FALSE(TimeZone::from_tzif(good.substr(0, cut), "x", &error));
      CHECK_FALSE(error.empty());
    }
    std::string leap = good;
    leap[20 + 8 + 3] = 1;  // leapcnt of the first header
    CHECK_FALSE(TimeZone::from_tzif(leap, "x", &error));
    std::string no_magic = good;
    no_magic[0] = 'X';
    CHECK_FALSE(TimeZone::from_tzif(no_magic, "x", &error));
    CHECK(error == "no TZif header");
    // Every single-byte change of the header and the first data still loads or is refused.
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; ++i) {
      std::string bad = good;
      bad[rng() % bad.size()] = static_cast<char>(rng());
      (void)TimeZone::from_tzif(bad, "x", &error);
    }
  }
}
