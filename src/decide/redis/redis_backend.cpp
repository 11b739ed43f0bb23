// The --redis backend: each key goes to the filter in Redis in pipelined batches, and the
// answers come back in submit order.
//
// Invariants:
//  - Answers come out in submit order. A batch holds up to kBatchItems keys and is sent when
//    full or when its first key has waited kBatchAgeNs (and at every flush(), which the
//    pipeline calls whenever input pauses). Up to kBatchesInFlight batches are in flight;
//    they complete oldest first, and since each node answers its commands in the order they
//    were sent, reading the oldest batch's replies node by node matches reply to command.
//  - A batch becomes one TLBF.MADD (its keys in one item list, tlbf/item_list.hpp) per run of
//    keys with the same time (in ms) and shard, so each key is judged at its own time, as a
//    local filter judges it; TLBF.ADD, an argument per key, where the server refuses TLBF.MADD
//    (an older module, an ACL). The time is the pipeline's
//    clock: the record's time with -t, else the wall clock of this process (never the
//    server's `*`), so producers and replicas agree and a run can be repeated.
//  - Keys travel as their bytes: the module hashes items itself (with each filter's own secret
//    seed, not the run's) and takes no hashes. On a cluster the shard of a key is the module's rule
//    (KeyHasher::shard, tlbf/shard.hpp), which every producer computes alike.
//  - A redirected command (MOVED, ASK) is resent on a connection of its own to the named
//    node, never on a pipelined one, where its reply would be taken for another command's.
//  - When a server is lost, the answers already received stay. Without a fallback the next
//    call throws DecisionsLost. With --redis-fallback local a local filter of the same
//    parameters has seen every key this run submitted, from the start (each key is judged
//    by it at submit time, beside the remote filter): a key whose answer had not come yet
//    gets the local answer it was given then, and every later key is decided by that filter
//    alone, in submit order; the switch is reported once. What the run then cannot see is
//    only what other producers send.
#include "decide/redis/redis_backend.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <hiredis/hiredis.h>

#include "decide/redis/redis_client.hpp"
#include "decide/redis/redis_url.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/item_list.hpp"

namespace tlbf_dedup {
namespace {

constexpr std::chrono::milliseconds kTimeout{10'000};
constexpr int kMaxRedirects = 5;
constexpr std::int64_t kNsPerMs = 1'000'000;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::int64_t floor_ms(tlbf::Time t) { return t >= 0 ? t / kNsPerMs : -((-t + kNsPerMs - 1) / kNsPerMs); }

struct Item {
  std::size_t offset;
  std::uint32_t size;
  std::uint32_t shard;
  tlbf::Time now;
  tlbf::KeyHash hash;  // with the run's seed: what a fallback local filter decides by
  bool local_dup;      // --redis-fallback local: the local filter's answer at submit time
};

struct Command {
  std::size_t node;
  std::uint32_t shard;
  std::string ms_text;  // the time, in ms
  std::vector<std::uint32_t> items;
};

struct Batch {
  std::string keys;
  std::vector<Item> items;
  std::vector<Command> commands;
  std::vector<unsigned char> dup;
  std::int64_t opened_ns = 0;

  std::string_view key(const Item& it) const { return std::string_view(keys).substr(it.offset, it.size); }
};

}  // namespace

struct RedisBackend::Impl {
  RedisConfig cfg;
  tlbf::FilterConfig requested;
  tlbf::FilterConfig remote;
  const KeyHasher* hasher;
  Clock* clock;
  Diagnostics* diagnostics;

  std::vector<RedisConnection> nodes;                 // pipelined, one per master in use
  std::map<std::string, RedisConnection> redirected;  // for MOVED and ASK resends only
  std::vector<std::size_t> slot_node;                 // cluster: the master of each slot
  std::vector<std::string> shard_keys;                // NAME, or NAME{0} .. NAME{S-1}

  Batch open;
  std::deque<Batch> in_flight;
  Answers* answers = nullptr;  // the caller's, during submit() and flush()
  // --redis-fallback local: the filter that sees every key of this run, and from the loss on
  // decides alone (`lost_`).
  std::unique_ptr<tlbf::WindowFilter> local;
  bool server_lost = false;
  // The server knows TLBF.MADD (a module of this version): a command's items travel as one
  // item list and come back as one string. Else one TLBF.ADD argument and answer per item.
  bool packed = false;

  // The pipelined connection to `address` ("host:port"), connected on first use.
  std::size_t node_for(const std::string& host, int port) {
    const std::string address = host + ":" + std::to_string(port);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].address() == address) return i;
    nodes.emplace_back(host, port, kTimeout);
    return nodes.size() - 1;
  }

  std::size_t shard_node(std::uint32_t shard) const {
    return cfg.url.cluster ? slot_node[static_cast<std::size_t>(key_slot(shard_keys[shard]))] : 0;
  }

  // CLUSTER SLOTS: the master of every slot.
  void read_slot_map(RedisConnection& any) {
    RedisReply r = any.call({"CLUSTER", "SLOTS"});
    if (is_error(*r))
      throw std::runtime_error(fmt::format("{}: CLUSTER SLOTS: {} (for a server that is not a cluster, use redis://)",
                                           cfg.url.text, reply_text(*r)));
    slot_node.assign(kSlots, SIZE_MAX);
    for (std::size_t i = 0; i < r->elements; ++i) {
      const redisReply* range = r->element[i];
      if (range->type != REDIS_REPLY_ARRAY || range->elements < 3 || range->element[2]->type != REDIS_REPLY_ARRAY ||
          range->element[2]->elements < 2)
        throw std::runtime_error(cfg.url.text + ": CLUSTER SLOTS answered in an unknown form");
      const redisReply* master = range->element[2];
      std::string host(master->element[0]->str ? master->element[0]->str : "", master->element[0]->len);
      if (host.empty()) host = cfg.url.host;  // "": the node that answered
      const std::size_t node = node_for(host, static_cast<int>(master->element[1]->integer));
      for (long long s = range->element[0]->integer; s <= range->element[1]->integer && s < kSlots; ++s)
        slot_node[static_cast<std::size_t>(s)] = node;
    }
  }

  // A redirection's target "host:port" as a connection of its own.
  RedisConnection& redirect_connection(std::string_view address) {
    auto it = redirected.find(std::string(address));
    if (it != redirected.end()) return it->second;
    const std::size_t colon = address.rfind(':');
    const std::string host(address.substr(0, colon));
    const int port = std::atoi(std::string(address.substr(colon + 1)).c_str());
    return redirected.emplace(std::string(address), RedisConnection(host, port, kTimeout)).first->second;
  }

  // The reply to `args`, whose reply `r` was a MOVED or ASK error, from the node it names
  // (following further redirections); MOVED also updates the slot map for later batches.
  RedisReply follow_redirects(RedisReply r, const std::vector<std::string_view>& args) {
    for (int i = 0; i < kMaxRedirects && is_error(*r); ++i) {
      const std::string text = reply_text(*r);
      const bool moved = starts_with(text, "MOVED ");
      if (!moved && !starts_with(text, "ASK ")) return r;
      const std::size_t space = text.find(' ', moved ? 6 : 4);
      const int slot = std::atoi(text.c_str() + (moved ? 6 : 4));
      const std::string address = text.substr(space + 1);
      if (moved && slot >= 0 && slot < kSlots && cfg.url.cluster) {
        const std::size_t colon = address.rfind(':');
        slot_node[static_cast<std::size_t>(slot)] =
            node_for(address.substr(0, colon), std::atoi(address.c_str() + colon + 1));
      }
      RedisConnection& c = redirect_connection(address);
      if (!moved) {
        RedisReply asking = c.call({"ASKING"});
        (void)asking;
      }
      r = c.call(args);
    }
    return r;
  }

  // One command about one shard, with nothing else in flight.
  RedisReply call_shard(std::uint32_t shard, const std::vector<std::string_view>& args) {
    return follow_redirects(nodes[shard_node(shard)].call(args), args);
  }

  [[noreturn]] void refused(const std::string& what, const std::string& text) const {
    if (text.find("unknown command") != std::string::npos)
      throw std::runtime_error(
          fmt::format("{}: the server does not know {}: load the TLBF module tlbf_redis.so (redis-server --loadmodule "
                      "/usr/lib/redis/modules/tlbf_redis.so, docs/redis.md)",
                      cfg.url.text, what));
    if (starts_with(text, "WRONGTYPE"))
      throw std::runtime_error(
          fmt::format("{}: the key '{}' holds something other than a TLBF filter; choose another --redis-key",
                      cfg.url.text, shard_keys.empty() ? cfg.key : shard_keys[0]));
    throw std::runtime_error(fmt::format("{}: {} refused: {}", cfg.url.text, what, text));
  }

  // TLBF.INFO of a shard as name → value.
  std::map<std::string, std::string> info(std::uint32_t shard) {
    RedisReply r = call_shard(shard, {"TLBF.INFO", shard_keys[shard]});
    if (is_error(*r)) refused("TLBF.INFO", reply_text(*r));
    std::map<std::string, std::string> fields;
    for (std::size_t i = 0; i + 1 < r->elements; i += 2) {
      const redisReply* v = r->element[i + 1];
      fields[reply_text(*r->element[i])] = v->type == REDIS_REPLY_INTEGER ? std::to_string(v->integer) : reply_text(*v);
    }
    return fields;
  }

  void name_shards(std::uint32_t shards) {
    shard_keys.clear();
    if (!cfg.url.cluster) shard_keys.push_back(cfg.key);
    for (std::uint32_t i = 0; cfg.url.cluster && i < shards; ++i)
      shard_keys.push_back(cfg.key + "{" + std::to_string(i) + "}");
  }

  // Step 2 of the start: the filter's shard count from shard 0, reserving every shard that
  // is missing (a concurrent producer's reservation shows as "already exists": fine).
  void reserve(std::uint32_t default_shards) {
    name_shards(1);
    RedisReply first = call_shard(0, {"TLBF.INFO", shard_keys[0]});
    std::uint32_t shards = default_shards;
    if (is_error(*first) && reply_text(*first).find("no filter") == std::string::npos)
      refused("TLBF.INFO", reply_text(*first));
    if (!is_error(*first)) shards = static_cast<std::uint32_t>(std::stoul(info(0)["shards"]));
    if (!cfg.url.cluster) shards = 1;
    name_shards(shards);
    const std::string window = std::to_string(requested.span / kNsPerMs),
                      error = fmt::format("{:.17g}", requested.error_rate),
                      capacity = std::to_string((requested.capacity + shards - 1) / shards),
                      memory = std::to_string(std::max<std::uint64_t>(4096, requested.max_memory_bytes / shards)),
                      count = std::to_string(shards);
    const std::string algorithm(tlbf::algorithm_name(requested.algorithm));
    for (std::uint32_t s = 0; s < shards; ++s) {
      RedisReply r = call_shard(s, {"TLBF.RESERVE", shard_keys[s], "WINDOW", window, "ERROR", error, "CAPACITY",
                                    capacity, "ALGORITHM", algorithm, "MAXMEMORY", memory, "SHARDS", count});
      if (is_error(*r) && reply_text(*r).find("already exists") == std::string::npos)
        refused("TLBF.RESERVE", reply_text(*r));
    }
    // Step 3: what the filter is, as Redis holds it (it may predate this run).
    std::map<std::string, std::string> f = info(0);
    remote = requested;
    remote.algorithm = starts_with(f["algorithm"], "gebf") ? tlbf::Algorithm::gebf : tlbf::Algorithm::tlbf;
    remote.span = std::stoll(f["window_ms"]) * kNsPerMs;
    remote.window_count = 0;
    remote.error_rate = std::strtod(f["error_rate"].c_str(), nullptr);
    // A whole-filter value that gives these per-shard values is reported as itself.
    const std::uint64_t shard_capacity = std::stoull(f["capacity"]), shard_memory = std::stoull(f["max_memory"]);
    if (capacity != f["capacity"]) remote.capacity = shard_capacity * shards;
    if (memory != f["max_memory"]) remote.max_memory_bytes = shard_memory * shards;
  }

  // Whether shard 0 takes TLBF.MADD: an empty item list, which changes nothing, answered with
  // an empty string. An older module does not know the command, and an ACL may deny it; then
  // TLBF.ADD is used. A cluster's nodes run one module version.
  bool knows_madd() {
    RedisReply r = call_shard(0, {"TLBF.MADD", shard_keys[0], "TIME", "*", ""});
    return r->type == REDIS_REPLY_STRING && r->len == 0;
  }

  void lost(const RedisUnreachable& e) {
    if (cfg.fallback == RedisFallback::stop)
      throw DecisionsLost(
          fmt::format("{}: {}; the records decided before were written, the rest were not", cfg.url.text, e.what()));
    server_lost = true;
    diagnostics->warning(
        Warning{WarningKind::redis_fallback, "", 0, 1,
                fmt::format("{}: {}; deciding with a local filter from here on (--redis-fallback local): it "
                            "knows every key of this run; keys other producers sent or send are not seen",
                            cfg.url.text, e.what())});
    for (Batch& b : in_flight)
      for (const Item& it : b.items) answers->push(it.local_dup);
    for (const Item& it : open.items) answers->push(it.local_dup);
    in_flight.clear();
    open = Batch{};
    nodes.clear();
    redirected.clear();
  }

  bool decide_locally(tlbf::KeyHash hash, tlbf::Time now) { return !local->insert_if_absent(hash, now); }

  void submit_one(std::string_view key, tlbf::KeyHash hash, tlbf::Time now) {
    const bool local_dup = local && decide_locally(hash, now);
    if (server_lost) {
      answers->push(local_dup);
      return;
    }
    Batch& b = open;
    const std::int64_t steady = clock->steady_ns();
    if (b.items.empty()) b.opened_ns = steady;
    const auto shards = static_cast<std::uint32_t>(shard_keys.size());
    const std::uint32_t shard = shards > 1 ? hasher->shard(key, shards) : 0;
    b.items.push_back(Item{b.keys.size(), static_cast<std::uint32_t>(key.size()), shard, now, hash, local_dup});
    b.keys.append(key);
    if (b.items.size() >= kBatchItems || steady - b.opened_ns >= kBatchAgeNs) guarded([&] { send_open(); });
  }

  // The open batch as TLBF.ADD commands: one per run of equal times and, within it, per shard.
  void send_open() {
    Batch& b = open;
    std::vector<std::int32_t> command_of(shard_keys.size(), -1);
    std::vector<std::uint32_t> touched;
    for (std::size_t i = 0; i < b.items.size(); ++i) {
      const Item& it = b.items[i];
      const std::int64_t ms = floor_ms(it.now);
      if (i > 0 && ms != floor_ms(b.items[i - 1].now)) {
        for (std::uint32_t s : touched) command_of[s] = -1;
        touched.clear();
      }
      if (command_of[it.shard] < 0) {
        command_of[it.shard] = static_cast<std::int32_t>(b.commands.size());
        touched.push_back(it.shard);
        b.commands.push_back(Command{shard_node(it.shard), it.shard, std::to_string(ms), {}});
      }
      b.commands[static_cast<std::size_t>(command_of[it.shard])].items.push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<bool> used(nodes.size());
    std::vector<std::string_view> args;
    std::string list;
    for (const Command& c : b.commands) {
      command_args(b, c, args, list);
      nodes[c.node].append(args);
      used[c.node] = true;
    }
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if (used[n]) nodes[n].send();
    b.dup.assign(b.items.size(), 0);
    in_flight.push_back(std::move(open));
    open = Batch{};
    while (in_flight.size() > kBatchesInFlight) complete_oldest();
  }

  // A command's arguments: TLBF.MADD with its items in `list`, or TLBF.ADD with an argument
  // each (`args` views into `list`, the batch and a time string it holds).
  void command_args(const Batch& b, const Command& c, std::vector<std::string_view>& args, std::string& list) {
    list.clear();
    if (packed) {
      for (std::uint32_t i : c.items) tlbf::append_item(list, b.key(b.items[i]));
      args.assign({"TLBF.MADD", shard_keys[c.shard], "TIME", c.ms_text, list});
      return;
    }
    args.assign({"TLBF.ADD", shard_keys[c.shard], "TIME", c.ms_text});
    for (std::uint32_t i : c.items) args.push_back(b.key(b.items[i]));
  }

  void complete_oldest() {
    Batch& b = in_flight.front();
    std::vector<std::string_view> args;
    std::string list;
    const char* verb = packed ? "TLBF.MADD" : "TLBF.ADD";
    for (const Command& c : b.commands) {
      RedisReply r = nodes[c.node].reply();
      if (is_error(*r)) {
        command_args(b, c, args, list);
        r = follow_redirects(std::move(r), args);
        if (is_error(*r))
          throw DecisionsLost(
              fmt::format("{}: {} refused: {}; the records decided before were written, the rest were not",
                          cfg.url.text, verb, reply_text(*r)));
      }
      if (packed) {  // a byte per item, '1' new
        if (r->type != REDIS_REPLY_STRING || r->len != c.items.size())
          throw DecisionsLost(cfg.url.text + ": TLBF.MADD answered in an unknown form");
        for (std::size_t k = 0; k < c.items.size(); ++k) b.dup[c.items[k]] = r->str[k] == '0';
        continue;
      }
      if (r->type != REDIS_REPLY_ARRAY || r->elements != c.items.size())
        throw DecisionsLost(cfg.url.text + ": TLBF.ADD answered in an unknown form");
      for (std::size_t k = 0; k < c.items.size(); ++k) b.dup[c.items[k]] = r->element[k]->integer == 0;
    }
    for (unsigned char d : b.dup) answers->push(d != 0);
    in_flight.pop_front();
  }

  template <class Fn>
  void guarded(Fn&& fn) {
    try {
      fn();
    } catch (const RedisUnreachable& e) {
      lost(e);
    }
  }
};

RedisBackend::RedisBackend(RedisConfig cfg, const tlbf::FilterConfig& filter, std::uint64_t hash_seed, Clock& clock,
                           Diagnostics& diagnostics)
    : Decider(hash_seed, true), impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.cfg = std::move(cfg);
  m.requested = filter;
  m.hasher = &hasher();
  m.clock = &clock;
  m.diagnostics = &diagnostics;
  const RedisUrl& url = m.cfg.url;
  try {
    // Step 1: the nodes (the one server, or every master of the cluster's slot map).
    std::uint32_t default_shards = 1;
    if (url.cluster) {
      RedisConnection any(url.host, url.port, kTimeout);
      m.read_slot_map(any);
      default_shards = m.cfg.shards ? m.cfg.shards : static_cast<std::uint32_t>(4 * m.nodes.size());
    } else {
      m.nodes.emplace_back(url.host, url.port, kTimeout);
      if (url.db != 0) {
        RedisReply r = m.nodes[0].call({"SELECT", std::to_string(url.db)});
        if (is_error(*r)) m.refused("SELECT " + std::to_string(url.db), reply_text(*r));
      }
    }
    // Steps 2 and 3: the shards reserved, and the filter's parameters as Redis holds them.
    m.reserve(default_shards);
    m.packed = m.knows_madd();
    if (m.cfg.fallback == RedisFallback::local) m.local = tlbf::make_filter(m.remote);
  } catch (const RedisUnreachable& e) {
    throw RedisUnreachable(url.text + ": " + e.what());
  }
}

RedisBackend::~RedisBackend() = default;

const tlbf::FilterConfig& RedisBackend::filter_config() const { return impl_->remote; }
std::uint32_t RedisBackend::shards() const { return static_cast<std::uint32_t>(impl_->shard_keys.size()); }

std::size_t RedisBackend::submit(const KeyBatch& keys, Answers& answers) {
  Impl& m = *impl_;
  m.answers = &answers;
  for (std::size_t i = 0; i < keys.size; ++i) m.submit_one(keys.keys[i], keys.hashes[i], keys.times[i]);
  return keys.size;
}

void RedisBackend::flush(Answers& answers) {
  Impl& m = *impl_;
  m.answers = &answers;
  m.guarded([&] {
    if (!m.server_lost && !m.open.items.empty()) m.send_open();
    while (!m.server_lost && !m.in_flight.empty()) m.complete_oldest();
  });
}

std::uint64_t RedisBackend::cap_binds() const { return impl_->server_lost ? impl_->local->cap_binds() : 0; }

tlbf::FilterStats RedisBackend::stats(tlbf::Time now) {
  Impl& m = *impl_;
  if (m.server_lost) return m.local->stats(now);
  // The sum over the shards of what TLBF.INFO shows, under the names --stats uses.
  tlbf::FilterStats s;
  for (std::uint32_t shard = 0; shard < m.shard_keys.size(); ++shard) {
    std::map<std::string, std::string> f = m.info(shard);
    auto n = [&](const char* name) { return std::strtoull(f[name].c_str(), nullptr, 10); };
    s.algorithm = f["algorithm"];
    s.k = static_cast<std::uint32_t>(n("k"));
    s.l = static_cast<std::uint32_t>(n("l"));
    s.slices += n("slices");
    s.slice0_bits += n("slice0_bits");
    s.bits_allocated += n("bits_allocated");
    s.peak_bits_allocated += n("peak_bits_allocated");
    s.keys_inserted += n("keys_inserted");
    s.live_keys += n("live_keys");
    s.memory_capped = s.memory_capped || n("memory_capped") != 0;
    s.cap_evictions += n("cap_evictions");
  }
  s.bits_per_live_key = s.live_keys ? static_cast<double>(s.bits_allocated) / static_cast<double>(s.live_keys) : 0;
  return s;
}

}  // namespace tlbf_dedup
