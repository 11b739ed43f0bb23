// tlbf-bench-redis: keys per second and memory per key of the TLBF Redis module against plain
// `SET key 1 NX EX` for the same keys, on running redis-servers (bench/redis.sh starts them).
//
// Each case runs on a fresh server of its own (--ports, one per case, in the order below), so
// no case's freed memory blurs another's figures. Each sends the same N distinct keys, all
// live at the end (window and expiry of one hour), pipelined like redis-benchmark -P: a
// batch of commands holding DEPTH keys is written, then their replies are read. The filter
// gets the keys at event times spread evenly over the last 0.9 hour, as a stream of N keys
// per window would bring them (a burst of N keys in one second makes the filter's rate
// estimate grow its slices for a rate that never comes). Cases:
//   SET NX EX            one key per command (what a home-made shared window would do)
//   TLBF.ADD, 1 item     one key per command, the same pipelining as SET
//   TLBF.ADD, B items    B keys per command (what the --redis backend sends)
//   tlbf-dedup --redis   the program itself (--dedup PATH), reading the same keys and times
//                        from a file as lines "UNIX_SECONDS KEY", as logs stamp them: end to
//                        end, file to output. The backend sends one TLBF.ADD per run of keys
//                        with the same time, so keys stamped to the second share commands.
// Figures: keys per second of wall time, keys per second of the server's own CPU time (INFO
// cpu; steadier on a shared machine), and memory per key from INFO memory before and after:
// allocator_allocated (all the allocator holds, which includes the filter) and used_memory
// (what Redis itself counts: it does not see memory a module allocates with its own C++
// allocator, docs/redis.md). Every reply is checked: each key must be reported new once.
#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace {

struct Args {
  std::vector<int> ports;  // one server per case
  std::uint64_t keys = 1'000'000;
  std::uint64_t depth = 1000;  // keys in flight (commands per pipeline batch for one key each)
  std::uint64_t batch = 1000;  // items per TLBF.ADD in the batched case
  std::string error = "1e-3";
  std::string dedup;  // the tlbf-dedup binary for the --redis case (a fourth port), or none
  std::string work;   // where that case's input file goes
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "tlbf-bench-redis: %s\n", what.c_str());
  std::exit(1);
}

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};

class Connection {
 public:
  explicit Connection(int port) : c_(redisConnect("127.0.0.1", port)) {
    if (!c_ || c_->err)
      die("cannot connect to 127.0.0.1:" + std::to_string(port) + (c_ ? std::string(": ") + c_->errstr : ""));
  }
  void append(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(c_.get(), static_cast<int>(args.size()), argv.data(), lens.data()) != REDIS_OK)
      die("append failed");
  }
  Reply reply() {
    void* r = nullptr;
    if (redisGetReply(c_.get(), &r) != REDIS_OK || r == nullptr) die(std::string("connection: ") + c_->errstr);
    Reply reply(static_cast<redisReply*>(r));
    if (reply->type == REDIS_REPLY_ERROR) die(std::string("server: ") + reply->str);
    return reply;
  }
  Reply call(const std::vector<std::string>& args) {
    append(args);
    return reply();
  }

 private:
  std::unique_ptr<redisContext, ContextDeleter> c_;
};

// One numeric field of an INFO section.
double info_number(Connection& c, const std::string& section, const std::string& field) {
  Reply r = c.call({"INFO", section});
  const std::string text(r->str, r->len);
  const std::string needle = "\n" + field + ":";
  const std::size_t at = ("\n" + text).find(needle);
  if (at == std::string::npos) die("INFO " + section + " has no " + field);
  return std::strtod(text.c_str() + at + needle.size() - 1, nullptr);
}

struct Sample {
  double wall_s, server_cpu_s, allocated, used;
};

Sample sample(Connection& c) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return {std::chrono::duration<double>(now).count(),
          info_number(c, "cpu", "used_cpu_user") + info_number(c, "cpu", "used_cpu_sys"),
          info_number(c, "memory", "allocator_allocated"), info_number(c, "memory", "used_memory")};
}

std::string key_name(std::uint64_t i) { return fmt::format("event-{:012}", i); }

struct Result {
  std::string name;
  double keys_per_s, keys_per_cpu_s, allocated_bytes_per_key, used_bytes_per_key;
  std::uint64_t reported_new;
};

// Sends every key through `command(first, count)` (count keys in one command), DEPTH keys in
// flight; `check` validates each reply against the keys it covered and returns how many of
// them it reported new (all of them but the filter's false positives).
template <class Command, class Check>
Result run_case(Connection& c, const Args& a, const std::string& name, std::uint64_t per_command, Command command,
                Check check) {
  const std::uint64_t commands_per_batch = std::max<std::uint64_t>(1, a.depth / per_command);
  const Sample before = sample(c);
  std::uint64_t next = 0, reported_new = 0;
  while (next < a.keys) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sent;
    for (std::uint64_t i = 0; i < commands_per_batch && next < a.keys; ++i) {
      const std::uint64_t n = std::min(per_command, a.keys - next);
      c.append(command(next, n));
      sent.emplace_back(next, n);
      next += n;
    }
    for (auto [first, n] : sent) reported_new += check(c.reply(), first, n);
  }
  const Sample after = sample(c);
  const double keys = static_cast<double>(a.keys);
  return {name,
          keys / (after.wall_s - before.wall_s),
          keys / (after.server_cpu_s - before.server_cpu_s),
          (after.allocated - before.allocated) / keys,
          (after.used - before.used) / keys,
          reported_new};
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--ports") {
      for (std::size_t at = 0; at < val.size();) {
        const std::size_t comma = std::min(val.find(',', at), val.size());
        a.ports.push_back(std::atoi(val.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else if (opt == "--keys")
      a.keys = std::strtoull(val.c_str(), nullptr, 10);
    else if (opt == "--depth")
      a.depth = std::strtoull(val.c_str(), nullptr, 10);
    else if (opt == "--batch")
      a.batch = std::strtoull(val.c_str(), nullptr, 10);
    else if (opt == "--error")
      a.error = val;
    else if (opt == "--dedup")
      a.dedup = val;
    else if (opt == "--work")
      a.work = val;
    else
      die("unknown option " + opt +
          " (--ports P1,P2,P3[,P4] --keys N --depth D --batch B --error RATE [--dedup PATH --work DIR])");
  }
  if (argc % 2 == 0)
    die("options come in pairs: --ports P1,P2,P3[,P4] --keys N --depth D --batch B --error RATE [--dedup PATH --work "
        "DIR]");
  if (a.ports.size() != (a.dedup.empty() ? 3u : 4u))
    die("--ports needs one server per case: three, and a fourth with --dedup");
  if (!a.dedup.empty() && a.work.empty()) die("--dedup needs --work DIR for its input file");
  if (a.keys == 0 || a.depth == 0 || a.batch == 0) die("--keys, --depth and --batch must be > 0");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  std::vector<Result> results;
  constexpr std::int64_t kWindowMs = 3'600'000;

  // 1. The peer: SET key 1 NX EX, one key per command.
  {
    Connection c(a.ports[0]);
    results.push_back(run_case(
        c, a, "SET key 1 NX EX 3600", 1,
        [](std::uint64_t first, std::uint64_t) {
          return std::vector<std::string>{"SET", key_name(first), "1", "NX", "EX", "3600"};
        },
        [](Reply r, std::uint64_t first, std::uint64_t) -> std::uint64_t {
          if (r->type != REDIS_REPLY_STATUS) die("SET of " + key_name(first) + " did not answer OK");
          return 1;
        }));
  }

  // 2. and 3. The module, one item per command, then `batch` items per command.
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const std::int64_t start_ms = now_ms - kWindowMs * 9 / 10;
  const auto time_of = [&](std::uint64_t i) {
    return start_ms + static_cast<std::int64_t>(static_cast<double>(i) / static_cast<double>(a.keys) * kWindowMs * 0.9);
  };
  const auto tlbf_case = [&](int port, const std::string& name, std::uint64_t per_command) {
    Connection c(port);
    // The filter is sized at RESERVE for CAPACITY keys, so its memory is counted from before
    // the RESERVE: per key it is what a window of N keys costs.
    const Sample empty = sample(c);
    c.call({"TLBF.RESERVE", "bench", "WINDOW", std::to_string(kWindowMs), "ERROR", a.error, "CAPACITY",
            std::to_string(a.keys)});
    Result r = run_case(
        c, a, name, per_command,
        [&](std::uint64_t first, std::uint64_t n) {
          std::vector<std::string> cmd{"TLBF.ADD", "bench", "TIME", std::to_string(time_of(first))};
          for (std::uint64_t i = first; i < first + n; ++i) cmd.push_back(key_name(i));
          return cmd;
        },
        [](Reply reply, std::uint64_t, std::uint64_t n) {
          if (reply->type != REDIS_REPLY_ARRAY || reply->elements != n)
            die("TLBF.ADD did not answer an array of " + std::to_string(n));
          std::uint64_t fresh = 0;
          for (std::size_t i = 0; i < reply->elements; ++i) fresh += reply->element[i]->integer == 1 ? 1 : 0;
          return fresh;
        });
    const Sample full = sample(c);
    r.allocated_bytes_per_key = (full.allocated - empty.allocated) / static_cast<double>(a.keys);
    r.used_bytes_per_key = (full.used - empty.used) / static_cast<double>(a.keys);
    Reply info = c.call({"TLBF.INFO", "bench"});
    std::string fields;
    for (std::size_t i = 0; i + 1 < info->elements; i += 2) {
      const redisReply* v = info->element[i + 1];
      fields += fmt::format(" {}={}", std::string(info->element[i]->str, info->element[i]->len),
                            v->type == REDIS_REPLY_INTEGER ? std::to_string(v->integer) : std::string(v->str, v->len));
    }
    Reply usage = c.call({"MEMORY", "USAGE", "bench"});
    fmt::print("{}: TLBF.INFO{}\n  MEMORY USAGE {} bytes = {:.2f} bits per key\n", name, fields, usage->integer,
               static_cast<double>(usage->integer) * 8 / static_cast<double>(a.keys));
    results.push_back(r);
  };
  tlbf_case(a.ports[1], "TLBF.ADD, 1 item per command", 1);
  tlbf_case(a.ports[2], fmt::format("TLBF.ADD, {} items per command", a.batch), a.batch);

  // 4. The program: tlbf-dedup --redis over the same keys at the same times, read from a file.
  if (!a.dedup.empty()) {
    const std::string input = a.work + "/keys.txt";
    {
      std::FILE* f = std::fopen(input.c_str(), "w");
      if (!f) die("cannot write " + input);
      for (std::uint64_t i = 0; i < a.keys; ++i)
        std::fprintf(f, "%lld %s\n", static_cast<long long>(time_of(i) / 1000), key_name(i).c_str());
      if (std::fclose(f) != 0) die("cannot write " + input);
    }
    Connection c(a.ports[3]);
    const Sample empty = sample(c);
    const std::string command = fmt::format(
        "{} --redis redis://127.0.0.1:{} --redis-key bench -t 1 --time-format epoch -k 2 -w 1h -e {} -c {} {} | wc -l",
        a.dedup, a.ports[3], a.error, a.keys, input);
    std::FILE* p = popen(command.c_str(), "r");
    if (!p) die("cannot run " + command);
    unsigned long long kept = 0;
    const bool read = std::fscanf(p, "%llu", &kept) == 1;
    if (pclose(p) != 0 || !read) die("failed: " + command);
    const Sample full = sample(c);
    const double keys = static_cast<double>(a.keys);
    results.push_back({"tlbf-dedup --redis (file to output)", keys / (full.wall_s - empty.wall_s),
                       keys / (full.server_cpu_s - empty.server_cpu_s), (full.allocated - empty.allocated) / keys,
                       (full.used - empty.used) / keys, kept});
  }

  // 5. The table; ratios against the SET row of this same run.
  fmt::print(
      "\n{} distinct keys, {} keys in flight, ERROR {} for the filter; a fresh redis-server per case, one client "
      "connection\n",
      a.keys, a.depth, a.error);
  fmt::print("{:<34} {:>12} {:>8} {:>18} {:>8} {:>12} {:>10} {:>10} {:>11} {:>10}\n", "case", "keys/s", "speed x",
             "keys/server-CPU-s", "CPU x", "alloc B/key", "bits/key", "memory /", "used B/key", "false pos");
  const Result& peer = results.front();
  for (const Result& r : results)
    fmt::print("{:<34} {:>12.0f} {:>8.2f} {:>18.0f} {:>8.2f} {:>12.2f} {:>10.2f} {:>10.1f} {:>11.2f} {:>10}\n", r.name,
               r.keys_per_s, r.keys_per_s / peer.keys_per_s, r.keys_per_cpu_s, r.keys_per_cpu_s / peer.keys_per_cpu_s,
               r.allocated_bytes_per_key, r.allocated_bytes_per_key * 8,
               peer.allocated_bytes_per_key / r.allocated_bytes_per_key, r.used_bytes_per_key, a.keys - r.reported_new);
  fmt::print(
      "speed x, CPU x: this row's keys/s (wall, server CPU) over the SET row's. alloc B/key: INFO memory\n"
      "allocator_allocated after minus before, over the keys (for the filter, before = before TLBF.RESERVE);\n"
      "bits/key: the same x 8; memory /: the SET row's alloc B/key over this row's; used B/key: the same\n"
      "from used_memory, which does not count the module's allocations. false pos: distinct keys the\n"
      "filter reported as duplicates (its false positives; SET NX has none).\n");
  return 0;
}
