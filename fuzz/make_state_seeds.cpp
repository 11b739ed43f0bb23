// Writes one small valid state file per filter kind into a directory, as seeds for
// fuzz_state: "<name>.file" (mode byte 0 + whole file) and "<name>.payload" (mode byte 1 +
// payload), matching fuzz_state's input layout.
#include <cstdio>
#include <fstream>
#include <string>

#include "state/state_store.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/hash.hpp"

namespace {

void write(const std::string& path, char mode, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.put(mode);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "make_state_seeds: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_state_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Seed {
    const char* name;
    tlbf::Algorithm algorithm;
    bool time_window;
    bool blocked;
  };
  const Seed seeds[] = {
      {"tlbf", tlbf::Algorithm::tlbf, true, false},          {"apbf", tlbf::Algorithm::apbf, false, false},
      {"gebf-count", tlbf::Algorithm::gebf, false, false},   {"gebf-blocked", tlbf::Algorithm::gebf, false, true},
      {"gebf-time", tlbf::Algorithm::gebf, true, false},     {"exact-time", tlbf::Algorithm::exact, true, false},
      {"exact-count", tlbf::Algorithm::exact, false, false},
  };
  for (const Seed& s : seeds) {
    tlbf::FilterConfig c;
    c.algorithm = s.algorithm;
    c.capacity = 8;
    c.error_rate = 0.1;
    c.gebf_blocked = s.blocked;
    if (s.time_window)
      c.span = tlbf::kSecond;
    else
      c.window_count = 8;
    auto f = tlbf::make_filter(c);
    for (int i = 0; i < 12; ++i) f->insert(tlbf::hash_key(&i, sizeof i), i * 100 * tlbf::kMillisecond);
    const std::string file = tlbf_dedup::encode_state(*f, c, 1100 * tlbf::kMillisecond);
    write(dir + "/" + s.name + ".file", 0, file);
    // The payload sits between the 24-byte header and the 8-byte checksum (docs/state.md).
    write(dir + "/" + s.name + ".payload", 1, file.substr(24, file.size() - 32));
  }
  return 0;
}
