// tlbf_redis.so: the window filters as a Redis module, so several producers share one window
// through Redis (persistence, replication, Cluster) instead of anything home-made.
//
// It registers the data type "TLBFilter" and the commands TLBF.RESERVE, TLBF.ADD, TLBF.MADD,
// TLBF.EXISTS, TLBF.INFO and TLBF.LOADCHUNK (docs/redis.md is their reference). Each command
// parses and checks all its arguments before it touches a key, and every error, from a bad
// argument to the library's own exceptions, becomes one error reply in guarded(): nothing
// is half done by a refused command, and no exception ever unwinds into the server.
//
// Replicas and the AOF hold the same state as the primary because every change reaches
// them as a deterministic command: TLBF.RESERVE with the MAXMEMORY and the hash seed the
// primary resolved (SEED, an option only they may send), TLBF.ADD and TLBF.MADD rewritten
// with the time the primary resolved (so "*" does not read another clock there) and only the
// items that were inserted (a duplicate changes nothing), TLBF.LOADCHUNK verbatim. The filter's state
// is a function of those commands alone. RDB, DEBUG RELOAD, DUMP/RESTORE and cluster slot
// migration go through rdb_save/rdb_load, which store FilterValue::encode()'s versioned
// bytes; an AOF rewrite without an RDB preamble emits the same bytes as TLBF.LOADCHUNK
// commands of at most kAofChunk bytes each, so no single command exceeds the server's limits.
//
// Memory. A client's filter is held to the limit of the moment (MAX_FILTER_MEMORY, a module
// argument, or the server's maxmemory when lower): RESERVE refuses a MAXMEMORY over it and
// lowers a default one to it, and TLBF.LOADCHUNK refuses a value that asks for more. Every
// RESERVE is judged before anything is allocated (filter_sizing.hpp), and a filter starts at
// most a fraction of its CAPACITY's size and grows with what arrives. Commands from the
// primary or the AOF carry decisions already taken and are not held to the limit.
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "filter_params.hpp"
#include "filter_value.hpp"
#include "module_api.hpp"
#include "tlbf/detail/large_pages.hpp"
#include "tlbf/item_list.hpp"
#include "tlbf/types.hpp"

namespace tlbf_redis {
namespace {

constexpr const char* kModuleName = "tlbf";
constexpr int kModuleVersion = 1;
constexpr const char* kTypeName = "TLBFilter";  // module type names are exactly 9 characters
constexpr int kEncodingVersion = 1;             // of the RDB value; its bytes carry their own version too
constexpr std::size_t kAofChunk = std::size_t{1} << 20;
// A value's byte form holds at most its MAXMEMORY of filter data plus this much: the header,
// the parameters and the fields of each slice or block.
constexpr std::uint64_t kEncodedOverhead = std::uint64_t{1} << 20;
// Longest value TLBF.LOADCHUNK assembles from the primary or the AOF.
constexpr std::uint64_t kMaxEncodedBytes = kMaxMaxMemory + kEncodedOverhead;

rm::Type* g_filter_type = nullptr;
ModuleSettings g_settings;  // from the module's arguments, set once at load

// The key holds a value of another type.
struct WrongType {};

std::string_view text(const rm::String* s) {
  std::size_t n = 0;
  const char* p = rm::StringPtrLen(s, &n);
  return {p, n};
}

int reply_error(rm::Ctx* ctx, std::string_view message) {
  const std::string line = "ERR TLBF: " + std::string(message);
  return rm::ReplyWithError(ctx, line.c_str());
}

// Every command body runs inside this: the one place an error becomes a reply.
template <int (*Body)(rm::Ctx*, rm::String**, int)>
int guarded(rm::Ctx* ctx, rm::String** argv, int argc) {
  try {
    return Body(ctx, argv, argc);
  } catch (const CommandError& e) {
    return reply_error(ctx, e.what());
  } catch (const WrongType&) {
    return rm::ReplyWithError(ctx, rm::kWrongTypeError);
  } catch (const std::bad_alloc&) {
    return reply_error(ctx, "out of memory");
  } catch (const std::exception& e) {
    return reply_error(ctx, e.what());
  }
}

// A command from the primary or loaded from the AOF: it carries a decision already taken, so
// the rules for a client's command (the memory limit, SEED, times ahead) do not apply.
bool from_primary(rm::Ctx* ctx) { return (rm::GetContextFlags(ctx) & (rm::kCtxReplicated | rm::kCtxLoading)) != 0; }

// The limit a client's filter is held to now; maxmemory is read at each call, so CONFIG SET
// applies to the next RESERVE.
MemoryLimit current_limit(rm::Ctx* ctx) {
  std::uint64_t maxmemory = 0;
  if (rm::ServerInfoData* info = rm::GetServerInfo(ctx, "memory")) {
    int err = 0;
    const unsigned long long v = rm::ServerInfoGetFieldUnsigned(info, "maxmemory", &err);
    if (err == 0) maxmemory = v;
    rm::FreeServerInfo(ctx, info);
  }
  return memory_limit(g_settings, maxmemory);
}

// A filter's secret hash seed, from the OS.
std::uint64_t draw_seed() {
  std::uint64_t seed = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof seed) {
    const ssize_t n = getrandom(bytes + got, sizeof seed - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CommandError(std::string("cannot draw a hash seed from the OS: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  return seed;
}

class OpenKey {
 public:
  OpenKey(rm::Ctx* ctx, rm::String* name, int mode) : key_(rm::OpenKey(ctx, name, mode)) {}
  ~OpenKey() {
    if (key_) rm::CloseKey(key_);
  }
  OpenKey(const OpenKey&) = delete;
  OpenKey& operator=(const OpenKey&) = delete;

  bool empty() const { return key_ == nullptr || rm::KeyType(key_) == rm::kKeyEmpty; }

  // The filter at this key; CommandError when there is none, WrongType when the key holds
  // something else.
  FilterValue& filter() const {
    if (empty()) throw CommandError("no filter at this key; create it with TLBF.RESERVE");
    if (rm::KeyType(key_) != rm::kKeyModule || rm::ModuleTypeGetType(key_) != g_filter_type) throw WrongType{};
    return *static_cast<FilterValue*>(rm::ModuleTypeGetValue(key_));
  }

  // Hands the value to the key (which must be empty and open for writing).
  void set(std::unique_ptr<FilterValue> value) {
    if (rm::ModuleTypeSetValue(key_, g_filter_type, value.get()) != rm::kOk)
      throw CommandError("the key cannot be written");
    value.release();
  }

 private:
  rm::Key* key_;
};

// TLBF.ADD and TLBF.EXISTS: key TIME ms|* item [item ...].
TimeArg parse_time_clause(rm::String** argv, int argc) {
  if (argc < 5) throw CommandError("expected: key TIME ms|* item [item ...]");
  if (!is_keyword(text(argv[2]), "TIME")) throw CommandError("expected TIME after the key");
  return parse_time(text(argv[3]));
}

// TLBF.RESERVE key WINDOW ms ERROR rate CAPACITY n [ALGORITHM tlbf|gebf] [MAXMEMORY bytes]
// [SHARDS n], and SEED n from the primary or the AOF only.
int reserve(rm::Ctx* ctx, rm::String** argv, int argc) {
  if (argc < 2) return rm::WrongArity(ctx);
  std::vector<std::string_view> options;
  for (int i = 2; i < argc; ++i) options.push_back(text(argv[i]));
  ReserveRequest request = parse_reserve_options(options);
  // 1. The seed: the primary's, or drawn here. A primary or an AOF that sends none is the
  //    previous module, which hashed every item with seed 0.
  std::uint64_t seed = 0;
  if (from_primary(ctx)) {
    seed = request.seed.value_or(0);
  } else {
    if (request.seed) throw CommandError("SEED is not a client's option: each filter draws its own secret seed");
    apply_memory_limit(request, current_limit(ctx));
    seed = draw_seed();
  }
  // 2. The filter, sized and checked before anything is allocated.
  OpenKey key(ctx, argv[1], rm::kRead | rm::kWrite);
  if (!key.empty()) throw CommandError("the key already exists");
  key.set(std::make_unique<FilterValue>(request.params, seed));
  // 3. Replicas and the AOF: the options as given, with the MAXMEMORY and the seed resolved
  //    here, so they build the same filter whatever their own limit.
  const auto options_given = static_cast<std::size_t>(argc - 2);
  const std::string seed_text = std::to_string(seed), memory = std::to_string(request.params.max_memory);
  if (request.seed)
    rm::ReplicateVerbatim(ctx);
  else if (request.max_memory_given)
    rm::Replicate(ctx, "TLBF.RESERVE", "svcc", argv[1], argv + 2, options_given, "SEED", seed_text.c_str());
  else
    rm::Replicate(ctx, "TLBF.RESERVE", "svcccc", argv[1], argv + 2, options_given, "MAXMEMORY", memory.c_str(), "SEED",
                  seed_text.c_str());
  return rm::ReplyWithSimpleString(ctx, "OK");
}

// The time TLBF.ADD and TLBF.MADD judge their items at: the client's, or the server's clock
// for "*"; a client's time more than a window ahead is refused.
std::int64_t add_time(rm::Ctx* ctx, const TimeArg& time, const FilterValue& filter) {
  const long long server_ms = rm::Milliseconds();
  const std::int64_t time_ms = time.server_clock ? server_ms : time.ms;
  if (!time.server_clock && !from_primary(ctx)) check_not_ahead(time_ms, server_ms, filter.params().window_ms);
  return time_ms;
}

// Decides items[0..n) at time_ms in order (is_new[i]: inserted), then hands the inserted ones
// to `replicate`, also when the filter throws part way: what went in must reach the replicas.
template <class Replicate>
void add_items(FilterValue& filter, const std::vector<std::string_view>& items, std::int64_t time_ms, bool* is_new,
               Replicate&& replicate) {
  try {
    filter.insert_if_absent_batch(items.data(), items.size(), time_ms, is_new);
  } catch (...) {
    replicate();
    throw;
  }
  replicate();
}

// TLBF.ADD key TIME ms|* item [item ...]: an array with 1 for each item that was new (and is
// now inserted), 0 for each duplicate inside the window.
int add(rm::Ctx* ctx, rm::String** argv, int argc) {
  const TimeArg time = parse_time_clause(argv, argc);
  OpenKey key(ctx, argv[1], rm::kRead | rm::kWrite);
  FilterValue& filter = key.filter();
  const std::int64_t time_ms = add_time(ctx, time, filter);

  const int first_item = 4;
  std::vector<std::string_view> items(static_cast<std::size_t>(argc - first_item));
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = text(argv[first_item + static_cast<int>(i)]);
  const std::unique_ptr<bool[]> is_new(new bool[items.size()]);
  add_items(filter, items, time_ms, is_new.get(), [&] {
    std::vector<rm::String*> inserted;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (is_new[i]) inserted.push_back(argv[first_item + static_cast<int>(i)]);
    if (!inserted.empty())
      rm::Replicate(ctx, "TLBF.ADD", "sclv", argv[1], "TIME", static_cast<long long>(time_ms), inserted.data(),
                    inserted.size());
  });

  rm::ReplyWithArray(ctx, static_cast<long>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i) rm::ReplyWithLongLong(ctx, is_new[i]);
  return rm::kOk;
}

// TLBF.MADD key TIME ms|* list: TLBF.ADD of the items of one item list (tlbf/item_list.hpp,
// netstrings), answered by one string with a byte per item, '1' new, '0' a duplicate. A
// batch is one argument and one reply, where TLBF.ADD takes a string object per item and
// answers with an integer each. A malformed list is refused before any item is decided.
int madd(rm::Ctx* ctx, rm::String** argv, int argc) {
  if (argc != 5) throw CommandError("expected: key TIME ms|* list (the items as netstrings: 3:abc,5:hello,)");
  if (!is_keyword(text(argv[2]), "TIME")) throw CommandError("expected TIME after the key");
  const TimeArg time = parse_time(text(argv[3]));
  const std::optional<std::vector<std::string_view>> items = tlbf::parse_items(text(argv[4]));
  if (!items) throw CommandError("the item list is not a sequence of netstrings (3:abc,5:hello,)");
  OpenKey key(ctx, argv[1], rm::kRead | rm::kWrite);
  FilterValue& filter = key.filter();
  const std::int64_t time_ms = add_time(ctx, time, filter);

  const std::unique_ptr<bool[]> is_new(new bool[items->size()]);
  add_items(filter, *items, time_ms, is_new.get(), [&] {
    // Every item new at a time the client gave: the command as it came (no copy of the list).
    const std::size_t fresh = static_cast<std::size_t>(std::count(is_new.get(), is_new.get() + items->size(), true));
    if (fresh == items->size() && fresh != 0 && !time.server_clock) {
      rm::ReplicateVerbatim(ctx);
      return;
    }
    std::string inserted;
    for (std::size_t i = 0; i < items->size(); ++i)
      if (is_new[i]) tlbf::append_item(inserted, (*items)[i]);
    if (!inserted.empty())
      rm::Replicate(ctx, "TLBF.MADD", "sclb", argv[1], "TIME", static_cast<long long>(time_ms), inserted.data(),
                    inserted.size());
  });

  std::string answers(items->size(), '0');
  for (std::size_t i = 0; i < items->size(); ++i)
    if (is_new[i]) answers[i] = '1';
  return rm::ReplyWithStringBuffer(ctx, answers.data(), answers.size());
}

// TLBF.EXISTS key TIME ms|* item [item ...]: an array with 1 for each item present in the
// window at that time, 0 otherwise. Changes nothing.
int exists(rm::Ctx* ctx, rm::String** argv, int argc) {
  const TimeArg time = parse_time_clause(argv, argc);
  OpenKey key(ctx, argv[1], rm::kRead);
  const FilterValue& filter = key.filter();
  const std::int64_t time_ms = time.server_clock ? rm::Milliseconds() : time.ms;

  rm::ReplyWithArray(ctx, argc - 4);
  for (int i = 4; i < argc; ++i) rm::ReplyWithLongLong(ctx, filter.may_contain(text(argv[i]), time_ms) ? 1 : 0);
  return rm::kOk;
}

// TLBF.INFO key: field names and values (a map in RESP3, a flat array in RESP2).
int info(rm::Ctx* ctx, rm::String** argv, int argc) {
  if (argc != 2) return rm::WrongArity(ctx);
  OpenKey key(ctx, argv[1], rm::kRead);
  const std::vector<InfoField> fields = key.filter().info();

  rm::ReplyWithMap(ctx, static_cast<long>(fields.size()));
  for (const InfoField& f : fields) {
    rm::ReplyWithStringBuffer(ctx, f.name.data(), f.name.size());
    if (auto* i = std::get_if<long long>(&f.value))
      rm::ReplyWithLongLong(ctx, *i);
    else if (auto* d = std::get_if<double>(&f.value))
      rm::ReplyWithDouble(ctx, *d);
    else {
      const std::string& s = std::get<std::string>(f.value);
      rm::ReplyWithStringBuffer(ctx, s.data(), s.size());
    }
  }
  return rm::kOk;
}

// A TLBF.LOADCHUNK sequence being assembled. Chunks of one value arrive consecutively (an
// AOF rewrite writes them so), so one slot suffices and bounds the memory held; a new
// sequence discards an unfinished one.
struct PendingLoad {
  int db = 0;
  std::string key;
  std::uint64_t total = 0;
  std::string bytes;
};
std::optional<PendingLoad> g_pending;

// TLBF.LOADCHUNK key offset total bytes: the form an AOF rewrite gives a filter. The chunk
// at offset 0 starts a value of `total` bytes, each next chunk continues at the offset
// where the previous one ended, and the chunk that completes it creates the key. A client's
// value is held to the memory limit, its total before any byte is kept.
int load_chunk(rm::Ctx* ctx, rm::String** argv, int argc) {
  if (argc != 5) return rm::WrongArity(ctx);
  const bool trusted = from_primary(ctx);
  const MemoryLimit limit = trusted ? MemoryLimit{kMaxMaxMemory, false} : current_limit(ctx);
  const std::uint64_t offset = parse_whole_number("offset", text(argv[2]), 0, kMaxEncodedBytes, "bytes");
  const std::uint64_t total = parse_whole_number("total", text(argv[3]), 1, kMaxEncodedBytes, "bytes");
  if (total > limit.bytes + kEncodedOverhead)
    throw CommandError("a value of " + std::to_string(total) + " bytes is more than a filter within the limit of " +
                       describe(limit) + " takes");
  const std::string_view data = text(argv[4]);
  const int db = rm::GetSelectedDb(ctx);
  const std::string_view name = text(argv[1]);

  OpenKey key(ctx, argv[1], rm::kRead | rm::kWrite);
  if (!key.empty()) throw CommandError("the key already exists");
  if (offset == 0) {
    g_pending = PendingLoad{db, std::string(name), total, std::string()};
  } else if (!g_pending || g_pending->db != db || g_pending->key != name || g_pending->total != total ||
             g_pending->bytes.size() != offset) {
    g_pending.reset();
    throw CommandError("chunk out of sequence (send the value again from offset 0)");
  }
  if (data.size() > total - g_pending->bytes.size()) {
    g_pending.reset();
    throw CommandError("chunk goes past the announced total");
  }
  g_pending->bytes.append(data);
  if (g_pending->bytes.size() == total) {
    std::string bytes = std::move(g_pending->bytes);
    g_pending.reset();
    std::unique_ptr<FilterValue> value;
    try {
      value = FilterValue::decode(bytes);
    } catch (const tlbf::state_error& e) {
      throw CommandError(std::string("cannot load the filter: ") + e.what());
    }
    if (!trusted) check_within_limit(value->params(), limit);
    key.set(std::move(value));
  }
  rm::ReplicateVerbatim(ctx);
  return rm::ReplyWithSimpleString(ctx, "OK");
}

// ---- data type callbacks; none may throw into the server ----

void* rdb_load(rm::IO* io, int encoding_version) {
  if (encoding_version != kEncodingVersion) {
    rm::LogIOError(io, "warning", "TLBF: cannot load a filter of encoding version %d (this module reads %d)",
                   encoding_version, kEncodingVersion);
    return nullptr;
  }
  std::size_t length = 0;
  char* raw = rm::LoadStringBuffer(io, &length);
  if (rm::IsIOError(io) || raw == nullptr) {
    if (raw) rm::Free(raw);
    return nullptr;
  }
  std::unique_ptr<char, void (*)(void*)> bytes(raw, rm::Free);
  try {
    return FilterValue::decode(std::string_view(bytes.get(), length)).release();
  } catch (const std::exception& e) {
    rm::LogIOError(io, "warning", "TLBF: cannot load a filter: %s", e.what());
    return nullptr;
  }
}

// Saving has no way to report failure; running out of memory here ends the server as the
// server's own allocator does.
[[noreturn]] void out_of_memory_while(rm::IO* io, const char* what) {
  rm::LogIOError(io, "warning", "TLBF: out of memory while %s", what);
  std::abort();
}

void rdb_save(rm::IO* io, void* value) {
  try {
    const std::string bytes = static_cast<const FilterValue*>(value)->encode();
    rm::SaveStringBuffer(io, bytes.data(), bytes.size());
  } catch (const std::bad_alloc&) {
    out_of_memory_while(io, "saving a filter");
  }
}

void aof_rewrite(rm::IO* io, rm::String* key, void* value) {
  try {
    const std::string bytes = static_cast<const FilterValue*>(value)->encode();
    const auto total = static_cast<long long>(bytes.size());
    for (std::size_t offset = 0; offset < bytes.size(); offset += kAofChunk) {
      const std::size_t n = std::min(kAofChunk, bytes.size() - offset);
      rm::EmitAOF(io, "TLBF.LOADCHUNK", "sllb", key, static_cast<long long>(offset), total, bytes.data() + offset, n);
    }
  } catch (const std::bad_alloc&) {
    out_of_memory_while(io, "rewriting the AOF");
  }
}

std::size_t mem_usage(const void* value) { return static_cast<const FilterValue*>(value)->memory_bytes(); }

// DEBUG DIGEST: equal digests mean equal filters, parameters and clocks.
void digest(rm::Digest* md, void* value) {
  try {
    const std::string bytes = static_cast<const FilterValue*>(value)->encode();
    rm::DigestAddStringBuffer(md, bytes.data(), bytes.size());
    rm::DigestEndSequence(md);
  } catch (const std::bad_alloc&) {
    std::abort();
  }
}

void free_value(void* value) { delete static_cast<FilterValue*>(value); }

struct CommandSpec {
  const char* name;
  rm::CommandFunc body;
  const char* flags;
};

int load(rm::Ctx* ctx, rm::String** argv, int argc) {
  tlbf::use_large_pages(false);   // a forked save copies a whole huge page for each write
  tlbf::use_own_mappings(false);  // the filters' arrays in the server's allocator, counted by it
  // 1. Every API function, by name; a server without one of them cannot run the module.
  if (const char* missing = rm::bind(ctx)) {
    if (rm::Log) rm::Log(ctx, "warning", "tlbf: this server lacks %s; Redis 7.0 or later is needed", missing);
    return rm::kErr;
  }
  // 2. Register the module, then read its arguments; a bad one stops the load.
  rm::SetModuleAttribs(ctx, kModuleName, kModuleVersion, rm::kApiVersion1);
  std::vector<std::string_view> args;
  for (int i = 0; i < argc; ++i) args.push_back(text(argv[i]));
  try {
    g_settings = parse_module_args(args);
  } catch (const CommandError& e) {
    rm::Log(ctx, "warning", "tlbf: %s", e.what());
    return rm::kErr;
  }
  rm::Log(ctx, "notice", "tlbf: a filter may take at most %llu bytes (MAX_FILTER_MEMORY, or maxmemory when lower)",
          static_cast<unsigned long long>(g_settings.filter_memory_limit));
  rm::SetModuleOptions(ctx, rm::kOptionHandleIOErrors);
  // 3. The data type.
  rm::TypeMethods methods;
  methods.rdb_load = rdb_load;
  methods.rdb_save = rdb_save;
  methods.aof_rewrite = aof_rewrite;
  methods.mem_usage = mem_usage;
  methods.digest = digest;
  methods.free = free_value;
  g_filter_type = rm::CreateDataType(ctx, kTypeName, kEncodingVersion, &methods);
  if (g_filter_type == nullptr) return rm::kErr;
  // 4. The commands; the key is always the first argument (cluster routing reads that).
  const CommandSpec commands[] = {
      {"tlbf.reserve", guarded<reserve>, "write deny-oom"}, {"tlbf.add", guarded<add>, "write deny-oom"},
      {"tlbf.madd", guarded<madd>, "write deny-oom"},       {"tlbf.exists", guarded<exists>, "readonly"},
      {"tlbf.info", guarded<info>, "readonly fast"},        {"tlbf.loadchunk", guarded<load_chunk>, "write deny-oom"},
  };
  for (const CommandSpec& c : commands)
    if (rm::CreateCommand(ctx, c.name, c.body, c.flags, 1, 1, 1) != rm::kOk) return rm::kErr;
  return rm::kOk;
}

}  // namespace
}  // namespace tlbf_redis

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(tlbf_redis::rm::Ctx* ctx,
                                                                         tlbf_redis::rm::String** argv, int argc) {
  try {
    return tlbf_redis::load(ctx, argv, argc);
  } catch (...) {
    return tlbf_redis::rm::kErr;
  }
}
