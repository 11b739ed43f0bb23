// The state file (src/state/state_store.cpp): every filter survives a save and a load unchanged,
// and every kind of damage (flipped byte, truncation, foreign file, newer version, garbage
// payload) is refused with a StateFileError naming the file, without touching the file.
#include <doctest/doctest.h>

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "state/state_fixtures.hpp"
#include "state/state_store.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/serialize.hpp"

namespace fs = std::filesystem;
using tlbf_dedup::StateFileError;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  REQUIRE(out.good());
}

struct NamedConfig {
  const char* name;
  tlbf::FilterConfig cfg;
};

// One configuration per filter class the factory can build, small enough to keep the
// byte-by-byte damage tests fast.
std::vector<NamedConfig> all_filter_configs() {
  std::vector<NamedConfig> out;
  tlbf::FilterConfig c;
  c.capacity = 200;
  c.error_rate = 0.01;
  c.max_memory_bytes = 1 << 20;

  c.algorithm = tlbf::Algorithm::tlbf;
  c.span = 10 * tlbf::kSecond;
  out.push_back({"tlbf", c});

  c.algorithm = tlbf::Algorithm::gebf;
  out.push_back({"gebf time window", c});
  c.algorithm = tlbf::Algorithm::exact;
  c.k = 3;  // unused by exact, but every field must survive the round trip
  out.push_back({"exact time window", c});
  c.k.reset();

  c.span = 0;
  c.window_count = 300;
  c.algorithm = tlbf::Algorithm::apbf;
  out.push_back({"apbf", c});
  c.algorithm = tlbf::Algorithm::gebf;
  out.push_back({"gebf count window", c});
  c.gebf_blocked = true;
  c.gebf_bits_per_key = 12.5;
  out.push_back({"gebf blocked", c});
  c.gebf_blocked = false;
  c.gebf_bits_per_key = 0;
  c.algorithm = tlbf::Algorithm::exact;
  out.push_back({"exact count window", c});
  return out;
}

tlbf::KeyHash key(int i) { return tlbf::hash_key("key-" + std::to_string(i)); }

// Inserts keys 0..n-1 at one per 50 ms, so time windows see some keys expire.
std::unique_ptr<tlbf::WindowFilter> filled_filter(const tlbf::FilterConfig& cfg, int n, tlbf::Time* clock) {
  auto f = tlbf::make_filter(cfg);
  tlbf::Time t = 0;
  for (int i = 0; i < n; ++i) {
    t = i * 50 * tlbf::kMillisecond;
    f->insert_if_absent(key(i), t);
  }
  *clock = t;
  return f;
}

void check_same_config(const tlbf::FilterConfig& a, const tlbf::FilterConfig& b) {
  CHECK(a.algorithm == b.algorithm);
  CHECK(a.span == b.span);
  CHECK(a.window_count == b.window_count);
  CHECK(a.error_rate == b.error_rate);
  CHECK(a.capacity == b.capacity);
  CHECK(a.k == b.k);
  CHECK(a.l == b.l);
  CHECK(a.max_kl == b.max_kl);
  CHECK(a.gebf_r == b.gebf_r);
  CHECK(a.gebf_blocked == b.gebf_blocked);
  CHECK(a.gebf_bits_per_key == b.gebf_bits_per_key);
  CHECK(a.max_memory_bytes == b.max_memory_bytes);
  CHECK(a.max_slices == b.max_slices);
}

void check_round_trip(const std::string& path, const tlbf::FilterConfig& cfg) {
  tlbf::Time clock = 0;
  auto f = filled_filter(cfg, 400, &clock);
  tlbf_dedup::save_state_file(path, *f, cfg, clock);

  auto loaded = tlbf_dedup::load_state_file(path);
  REQUIRE(loaded.has_value());
  REQUIRE(loaded->filter != nullptr);
  CHECK(loaded->clock == clock);
  check_same_config(loaded->config, cfg);
  CHECK(tlbf_dedup::encode_state(*loaded->filter, loaded->config, loaded->clock) == read_file(path));
  CHECK(loaded->filter->stats(clock).algorithm == f->stats(clock).algorithm);
  CHECK(loaded->filter->stats(clock).keys_inserted == f->stats(clock).keys_inserted);
  // Inserted keys (some expired) and keys never seen: the answers must agree one by one.
  int present = 0;
  for (int i = 0; i < 800; ++i) {
    bool before = f->may_contain(key(i), clock);
    present += before ? 1 : 0;
    CHECK(loaded->filter->may_contain(key(i), clock) == before);
  }
  CHECK(present > 0);
  // The loaded filter keeps working as the original would.
  for (int i = 400; i < 450; ++i)
    CHECK(loaded->filter->insert_if_absent(key(i), clock + 1) == f->insert_if_absent(key(i), clock + 1));
}

// A small valid state file for the damage tests.
std::string small_state_bytes() {
  tlbf::FilterConfig c;
  c.algorithm = tlbf::Algorithm::exact;
  c.span = 5 * tlbf::kSecond;
  c.capacity = 16;
  tlbf::Time clock = 0;
  auto f = filled_filter(c, 20, &clock);
  return tlbf_dedup::encode_state(*f, c, clock);
}

std::string error_of(std::string_view bytes, const std::string& name = "s.state") {
  try {
    tlbf_dedup::load_state_bytes(bytes, name);
  } catch (const StateFileError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A valid state whose filter says l = 2^32 - k, re-framed with a valid checksum, for a filter
// whose bytes are its tag, the format marker (u32 0), the format (u8 2), then k and l (the APBF).
std::string overflowing_k_plus_l(tlbf::Algorithm algorithm) {
  tlbf::FilterConfig c;
  c.algorithm = algorithm;
  if (algorithm == tlbf::Algorithm::apbf)
    c.window_count = 300;
  else
    c.span = 10 * tlbf::kSecond;
  c.capacity = 200;
  tlbf::Time clock = 0;
  auto f = filled_filter(c, 20, &clock);
  tlbf::ByteWriter filter_bytes;
  f->save(filter_bytes);
  const std::string file = tlbf_dedup::encode_state(*f, c, clock);
  std::string payload = file.substr(24, file.size() - 32);
  const std::size_t at = payload.find(filter_bytes.data());
  REQUIRE(at != std::string::npos);
  REQUIRE(payload.substr(at + 1, 5) == std::string("\0\0\0\0\2", 5));
  tlbf::ByteReader k_in(std::string_view(payload).substr(at + 6, 4));
  tlbf::ByteWriter l;
  l.u32(static_cast<std::uint32_t>(0x100000000ULL - k_in.u32()));
  payload.replace(at + 10, 4, l.data());
  return tlbf_dedup::frame_state_payload(payload);
}

}  // namespace

TEST_SUITE("state_store") {
  TEST_CASE("every filter survives save and load: same answers, same configuration, same bytes") {
    TempDir dir("tlbf-state-test");
    const std::string path = (dir.path / "s.state").string();
    for (const auto& [name, cfg] : all_filter_configs()) {
      const std::string filter_name = name;
      CAPTURE(filter_name);
      // One filter's failure must not hide the others'.
      try {
        check_round_trip(path, cfg);
      } catch (const std::exception& e) {
        const std::string failure = filter_name + ": " + e.what();
        FAIL_CHECK(failure);
      }
    }
  }

  TEST_CASE("a missing file is no state, a directory is an error") {
    TempDir dir("tlbf-state-test");
    CHECK_FALSE(tlbf_dedup::load_state_file((dir.path / "absent").string()).has_value());
    CHECK_THROWS_AS(tlbf_dedup::load_state_file(dir.path.string()), StateFileError);
  }

  TEST_CASE("a flipped byte anywhere is refused") {
    const std::string good = small_state_bytes();
    REQUIRE(tlbf_dedup::load_state_bytes(good, "s").filter != nullptr);
    for (std::size_t i = 0; i < good.size(); ++i) {
      for (int mask : {0x01, 0x80, 0xFF}) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ mask);
        CAPTURE(i);
        CAPTURE(mask);
        CHECK_THROWS_AS(tlbf_dedup::load_state_bytes(bad, "s"), StateFileError);
      }
    }
  }

  TEST_CASE("every truncation and any appended byte is refused") {
    const std::string good = small_state_bytes();
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
      CAPTURE(cut);
      CHECK(contains(error_of(good.substr(0, cut)), "truncated"));
    }
    CHECK(contains(error_of(good + '\n'), "corrupted"));
  }

  TEST_CASE("other files are not state files") {
    CHECK(contains(error_of("127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 2326\n"),
                   "not a tlbf-dedup state file"));
    CHECK(contains(error_of("{\"ts\":1,\"id\":\"a\"}\n"), "not a tlbf-dedup state file"));
    CHECK(contains(error_of(std::string(4096, '\0')), "not a tlbf-dedup state file"));
    CHECK(contains(error_of("x"), "not a tlbf-dedup state file"));
    CHECK(contains(error_of(""), "empty"));
  }

  TEST_CASE("a newer format version is refused as such") {
    std::string bytes = small_state_bytes();
    bytes[8] = static_cast<char>(tlbf_dedup::kStateFormatVersion + 1);
    std::string msg = error_of(bytes);
    CHECK(contains(msg, "newer"));
    CHECK(contains(msg, "version " + std::to_string(tlbf_dedup::kStateFormatVersion + 1)));
  }

  TEST_CASE("a checksummed payload that does not parse is refused") {
    tlbf::ByteWriter junk;
    junk.u8(static_cast<std::uint8_t>(tlbf::Algorithm::exact));
    junk.u64(12345);
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(junk.data())), "does not parse"));
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload("")), "does not parse"));
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(std::string(200, '\x01'))), "corrupted"));

    // A whole valid payload with one extra byte: the parser must notice, not ignore it.
    const std::string good = small_state_bytes();
    std::string payload = good.substr(24, good.size() - 32);
    CHECK_NOTHROW(tlbf_dedup::load_state_bytes(tlbf_dedup::frame_state_payload(payload), "s"));
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(payload + 'x')), "does not parse"));
  }

  TEST_CASE("a failed load names the file and leaves it untouched") {
    TempDir dir("tlbf-state-test");
    const fs::path path = dir.path / "damaged.state";
    std::string bytes = small_state_bytes();
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
    write_file(path, bytes);
    ::chmod(path.c_str(), 0640);
    struct stat before {};
    REQUIRE(::stat(path.c_str(), &before) == 0);

    std::string msg;
    try {
      tlbf_dedup::load_state_file(path.string());
    } catch (const StateFileError& e) {
      msg = e.what();
    }
    CHECK(contains(msg, path.string()));
    CHECK(contains(msg, "corrupted"));

    struct stat after {};
    REQUIRE(::stat(path.c_str(), &after) == 0);
    CHECK(read_file(path) == bytes);
    CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
    CHECK(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    CHECK(after.st_ino == before.st_ino);
    CHECK(after.st_mode == before.st_mode);
    CHECK(dir.entries() == std::vector<std::string>{"damaged.state"});
  }

  TEST_CASE("saving leaves no temporary file, replaces the old state and keeps its mode") {
    TempDir dir("tlbf-state-test");
    const std::string path = (dir.path / "s.state").string();
    const tlbf::FilterConfig c = one_second_exact();
    auto f = tlbf::make_filter(c);
    for (int i = 0; i < 5; ++i) {
      f->insert(key(i), i);
      tlbf_dedup::save_state_file(path, *f, c, i);
      CHECK(dir.entries() == std::vector<std::string>{"s.state"});
      CHECK(tlbf_dedup::load_state_file(path)->clock == i);
      if (i == 0) REQUIRE(::chmod(path.c_str(), 0604) == 0);
    }
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0604);
  }

  TEST_CASE("saving removes temporary files of writers that died, and only those") {
    TempDir dir("tlbf-state-test");
    const std::string path = (dir.path / "s.state").string();
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) ::_exit(0);
    REQUIRE(::waitpid(child, nullptr, 0) == child);
    const std::string dead = "s.state.tmp." + std::to_string(child) + ".0";
    const std::string alive = "s.state.tmp." + std::to_string(::getppid()) + ".0";
    const std::string other = "t.state.tmp." + std::to_string(child) + ".0";
    for (const auto& n : {dead, alive, other}) write_file(dir.path / n, "partial");

    tlbf::FilterConfig c;
    c.algorithm = tlbf::Algorithm::exact;
    c.window_count = 10;
    auto f = tlbf::make_filter(c);
    tlbf_dedup::save_state_file(path, *f, c, 0);
    auto names = dir.entries();
    std::sort(names.begin(), names.end());
    std::vector<std::string> expected{"s.state", alive, other};
    std::sort(expected.begin(), expected.end());
    CHECK(names == expected);
  }

  TEST_CASE("a save that cannot happen says which file and why") {
    TempDir dir("tlbf-state-test");
    const std::string path = (dir.path / "no-such-dir" / "s.state").string();
    tlbf::FilterConfig c;
    c.algorithm = tlbf::Algorithm::exact;
    c.window_count = 10;
    auto f = tlbf::make_filter(c);
    std::string msg;
    try {
      tlbf_dedup::save_state_file(path, *f, c, 0);
    } catch (const StateFileError& e) {
      msg = e.what();
    }
    CHECK(contains(msg, path));
    CHECK(contains(msg, "No such file or directory"));
  }

  TEST_CASE("the run record (hash seed, key and time options) survives save and load") {
    TempDir dir("tlbf-state-test");
    const std::string path = (dir.path / "s.state").string();
    const tlbf::FilterConfig c = one_second_exact();
    auto f = tlbf::make_filter(c);
    tlbf_dedup::RunRecord run;
    run.hash_seed = 0x9e3779b97f4a7c15ULL;
    run.key_time_options =
        std::vector<tlbf_dedup::RecordedOption>{{"--key", {"3", "1-2"}}, {"--ignore-case", {}}, {"--time", {"ts"}}};
    tlbf_dedup::save_state_file(path, *f, c, 7, run);
    auto loaded = tlbf_dedup::load_state_file(path);
    REQUIRE(loaded.has_value());
    CHECK(loaded->run.hash_seed == run.hash_seed);
    REQUIRE(loaded->run.key_time_options.has_value());
    CHECK(*loaded->run.key_time_options == *run.key_time_options);
    CHECK(tlbf_dedup::encode_state(*loaded->filter, loaded->config, loaded->clock, loaded->run) == read_file(path));

    // No options given is recorded as such, not as "unknown".
    tlbf_dedup::RunRecord none;
    none.key_time_options.emplace();
    auto bare = tlbf_dedup::load_state_bytes(tlbf_dedup::encode_state(*f, c, 0, none), "s");
    REQUIRE(bare.run.key_time_options.has_value());
    CHECK(bare.run.key_time_options->empty());
  }

  TEST_CASE("format 4 says whether held records follow, and format 3 and format 2 files still load") {
    const tlbf::FilterConfig c = one_second_exact();
    auto f = tlbf::make_filter(c);
    const std::string none = tlbf_dedup::encode_state(*f, c, 5);
    CHECK(none[8] == 4);
    CHECK_FALSE(tlbf_dedup::load_state_bytes(none, "s").held.has_value());
    const std::string held("\x01held records' own bytes\x00", 25);
    const std::string v4 = tlbf_dedup::encode_state(*f, c, 5, {}, std::string_view(held));
    CHECK(v4[8] == 4);
    const tlbf_dedup::SavedState s = tlbf_dedup::load_state_bytes(v4, "s");
    REQUIRE(s.held.has_value());
    CHECK(*s.held == held);
    CHECK(tlbf_dedup::encode_state(*s.filter, s.config, s.clock, s.run, std::string_view(*s.held)) == v4);

    // Format 3 is format 4 without the presence byte, its held records always there;
    // format 2 is format 4 without both.
    const std::string with = v4.substr(24, v4.size() - 32);
    const std::size_t held_at = with.size() - 8 - held.size();  // the held bytes' length field
    const std::string v3_payload = with.substr(0, held_at - 1) + with.substr(held_at);
    const tlbf_dedup::SavedState s3 = tlbf_dedup::load_state_bytes(tlbf_dedup::frame_state_payload(v3_payload, 3), "s");
    REQUIRE(s3.held.has_value());
    CHECK(*s3.held == held);
    const std::string without = none.substr(24, none.size() - 32);
    const std::string v2_payload = without.substr(0, without.size() - 1);
    CHECK_FALSE(tlbf_dedup::load_state_bytes(tlbf_dedup::frame_state_payload(v2_payload, 2), "s").held.has_value());

    // A payload of one version declared as another is refused, as is a presence byte above 1.
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(v3_payload, 4)), "does not parse"));
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(v2_payload, 3)), "does not parse"));
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(without, 2)), "does not parse"));
    std::string bad = with;
    bad[held_at - 1] = 2;
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(bad, 4)), "held-records byte 2"));
  }

  TEST_CASE("a format 1 file still loads: hash seed 0, key and time options unknown") {
    // Format 1 is format 4's payload without the run record and the held records' byte at its end.
    const std::string v4 = small_state_bytes();
    const std::string payload = v4.substr(24, v4.size() - 32 - 1);
    const std::size_t run_record_size = 8 + 4;  // seed, zero options
    const std::string v1 = tlbf_dedup::frame_state_payload(payload.substr(0, payload.size() - run_record_size), 1);
    auto s = tlbf_dedup::load_state_bytes(v1, "old.state");
    REQUIRE(s.filter != nullptr);
    CHECK(s.run.hash_seed == 0);
    CHECK_FALSE(s.run.key_time_options.has_value());
    // The same payload declared as format 2 lacks its run record: refused, not misread.
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(payload.substr(0, payload.size() - run_record_size), 2)),
                   "does not parse"));
  }

  TEST_CASE("a run record declaring absurd counts is refused before reading them") {
    const std::string v4 = small_state_bytes();
    const std::string payload = v4.substr(24, v4.size() - 32);
    std::string head = payload.substr(0, payload.size() - 4 - 1);  // up to the option count
    tlbf::ByteWriter count;
    count.u32(0xFFFFFFFFu);
    CHECK(contains(error_of(tlbf_dedup::frame_state_payload(head + count.data() + std::string(1, '\0'))),
                   "recorded options"));
  }

  // k + l computed in 32 bits wraps to 0 for l = 2^32 - k; the loaders bound k and l first
  // (the TLBF's own formats are tested so in tests/tlbf/test_time_limited.cpp).
  TEST_CASE("an APBF state whose k + l overflows 32 bits is refused, naming the state") {
    const std::string error = error_of(overflowing_k_plus_l(tlbf::Algorithm::apbf));
    CHECK(contains(error, "s.state"));
    CHECK(contains(error, "out of range"));
  }

  // A checksum proves only that a file was not damaged by accident: a crafted file with a
  // valid one may declare any size. Every field of every filter's payload is overwritten in
  // turn with 2^40 (as u64: "2^40 slices", "2^40 words") and with 2^32-1 (as u32), re-framed
  // with a valid checksum and loaded in a child process whose address space is capped at
  // 512 MiB above its current size: each load must succeed or be refused by name, and none
  // may try to allocate what was declared (the child would die or report bad_alloc).
  TEST_CASE("a checksummed file declaring absurd sizes is refused without allocating them") {
    std::vector<std::string> payloads;
    for (const auto& [name, cfg] : all_filter_configs()) {
      tlbf::Time clock = 0;
      const std::string file = tlbf_dedup::encode_state(*filled_filter(cfg, 50, &clock), cfg, clock);
      payloads.push_back(file.substr(24, file.size() - 32));
    }
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
#if defined(__SANITIZE_ADDRESS__)
      // AddressSanitizer reserves terabytes of shadow memory, so no address-space cap fits;
      // its allocator aborts on absurd sizes by itself.
#else
      long pages = 0;
      if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
        std::fclose(statm);
      }
      const rlim_t cap =
          static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{512} << 20);
      const struct rlimit limit { cap, cap };
      if (pages == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
#endif
      int refused = 0, bad = 0;
      for (const std::string& payload : payloads) {
        for (std::size_t at = 0; at + 4 <= payload.size(); ++at) {
          tlbf::ByteWriter u64, u32;
          u64.u64(std::uint64_t{1} << 40);
          u32.u32(0xFFFFFFFFu);
          for (const std::string* value : {&u64.data(), &u32.data()}) {
            if (at + value->size() > payload.size()) continue;
            std::string forged = payload;
            forged.replace(at, value->size(), *value);
            try {
              (void)tlbf_dedup::load_state_bytes(tlbf_dedup::frame_state_payload(forged), "forged.state");
            } catch (const StateFileError& e) {
              ++refused;
              if (contains(e.what(), "does not fit in memory")) ++bad;  // an allocation was tried
            } catch (...) {
              ++bad;
            }
          }
        }
      }
      std::fprintf(stderr, "absurd sizes: %d forged payloads refused, %d tried to allocate\n", refused, bad);
      ::_exit(bad == 0 && refused > 0 ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK_MESSAGE(WIFEXITED(status), "the loading child was killed by signal ", WTERMSIG(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}
