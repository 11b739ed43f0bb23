// tlbf_redis_collide: the offline attack on a filter hashed with seed 0, for the e2e tests
// (tests/e2e/redis/redis_seed.sh). For each victim item it prints "attacker victim": an item
// that, inserted into a fresh filter reserved with these parameters and seed 0, makes the
// victim a duplicate. With --seed0-value FILE it also writes the byte form of such a fresh
// filter (what TLBF.LOADCHUNK takes), so a test can hold one in a server.
// Usage: tlbf_redis_collide [--seed0-value FILE] WINDOW_MS ERROR CAPACITY VICTIM...
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "collisions.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string value_file;
  if (args.size() >= 2 && args[0] == "--seed0-value") {
    value_file = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() < 4) {
    std::fprintf(stderr, "usage: tlbf_redis_collide [--seed0-value FILE] WINDOW_MS ERROR CAPACITY VICTIM...\n");
    return 2;
  }
  tlbf_redis::FilterParams p;
  p.window_ms = std::stoll(args[0]);
  p.error_rate = std::stod(args[1]);
  p.capacity = std::stoull(args[2]);
  if (!value_file.empty()) {
    std::ofstream out(value_file, std::ios::binary);
    out << tlbf_redis::FilterValue(p, 0).encode();
  }
  for (std::size_t i = 3; i < args.size(); ++i) {
    const auto attacker = tlbf_redis::testing::find_cover(p, 0, args[i], "cover-" + args[i] + "-", 1'000'000'000);
    if (!attacker) {
      std::fprintf(stderr, "tlbf_redis_collide: no cover found for %s\n", args[i].c_str());
      return 1;
    }
    std::printf("%s %s\n", attacker->c_str(), args[i].c_str());
  }
  return 0;
}
