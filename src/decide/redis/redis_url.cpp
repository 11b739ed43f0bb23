// Where a --redis filter lives (redis_url.hpp).
#include "decide/redis/redis_url.hpp"

#include <charconv>
#include <cstdint>

namespace tlbf_dedup {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::optional<RedisUrl> parse_redis_url(std::string_view text, std::string* problem) {
  RedisUrl u;
  u.text = std::string(text);
  std::string_view rest = text;
  if (starts_with(rest, "redis://")) {
    rest.remove_prefix(8);
  } else if (starts_with(rest, "redis+cluster://")) {
    rest.remove_prefix(16);
    u.cluster = true;
  } else {
    *problem = "expected redis://host[:port][/db] or redis+cluster://host[:port]";
    return std::nullopt;
  }
  if (rest.find('@') != std::string_view::npos) {
    *problem = "user names and passwords are not supported";
    return std::nullopt;
  }
  const std::size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash), db = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  std::size_t colon = hostport.rfind(':');
  if (starts_with(hostport, "[")) {  // an IPv6 address, bracketed as in RFC 3986: [::1]:6379
    const std::size_t close = hostport.find(']');
    if (close == std::string_view::npos || (close + 1 < hostport.size() && hostport[close + 1] != ':')) {
      *problem = "an IPv6 address is written in brackets, such as redis://[::1]:6379";
      return std::nullopt;
    }
    u.host = std::string(hostport.substr(1, close - 1));
    colon = close + 1 < hostport.size() ? close + 1 : std::string_view::npos;
  } else if (hostport.find(':') != colon) {
    *problem = "an IPv6 address is written in brackets, such as redis://[::1]:6379";
    return std::nullopt;
  } else {
    u.host = std::string(hostport.substr(0, colon));
  }
  auto number = [](std::string_view s, int max, int* out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && *out >= 0 && *out <= max;
  };
  if (u.host.empty()) {
    *problem = "no host";
    return std::nullopt;
  }
  if (colon != std::string_view::npos && (!number(hostport.substr(colon + 1), 65535, &u.port) || u.port == 0)) {
    *problem = "the port is not a number from 1 to 65535";
    return std::nullopt;
  }
  if (!db.empty() && !number(db, 1 << 20, &u.db)) {
    *problem = "the database is not a whole number";
    return std::nullopt;
  }
  if (u.cluster && u.db != 0) {
    *problem = "a cluster has only database 0";
    return std::nullopt;
  }
  return u;
}

int key_slot(std::string_view key) {
  const std::size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
  }
  std::uint16_t crc = 0;
  for (unsigned char c : key) {
    crc ^= static_cast<std::uint16_t>(c << 8);
    for (int i = 0; i < 8; ++i) crc = static_cast<std::uint16_t>(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc % kSlots;
}

}  // namespace tlbf_dedup
