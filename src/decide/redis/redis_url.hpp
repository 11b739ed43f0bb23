// Where a --redis filter lives: the URL (one node, or any node of a cluster) and, on a
// cluster, the hash slot that places a key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tlbf_dedup {

// redis://host[:port][/db] (one node) or redis+cluster://host[:port] (any node of a cluster).
struct RedisUrl {
  bool cluster = false;
  std::string host;
  int port = 6379;
  int db = 0;
  std::string text;  // as given, for messages
};

// The URL, or nullopt with *problem saying what is wrong with it.
std::optional<RedisUrl> parse_redis_url(std::string_view text, std::string* problem);

// The cluster's hash slot of `key` (0..16383): CRC16 (XMODEM) of the key, or of its hash tag
// {...}, as Redis Cluster places keys.
int key_slot(std::string_view key);
inline constexpr int kSlots = 16384;

}  // namespace tlbf_dedup
