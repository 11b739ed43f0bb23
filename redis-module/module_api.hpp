// A minimal binding of the Redis module ABI: only what tlbf_redis.so calls, declared from the
// public module API reference (Debian ships no module header).
//
// How the ABI works. Redis calls the exported `RedisModule_OnLoad(ctx, argv, argc)`. The
// first pointer-sized field of that context is a function `int get_api(const char* name,
// void* out)` that writes the address of the API function called `name` (for example
// "RedisModule_CreateCommand") into `*out` and returns 0, or returns non-zero when this
// server has no such function. Every other call goes through the pointers obtained that way,
// so the module links against nothing of Redis and fails to load, with the missing name in
// the log, on a server that lacks one. The server then expects the module to register
// itself with SetModuleAttribs(ctx, name, version, api_version = 1).
//
// Everything Redis hands the module (context, key, string, I/O stream, digest, type) is an
// opaque handle; the module only passes it back. Constants are the values the reference
// documents; they are part of the ABI and do not change between server versions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tlbf_redis::rm {

struct Ctx;
struct Key;
struct String;
struct IO;
struct Digest;
struct Type;
struct ServerInfoData;

inline constexpr int kOk = 0;
inline constexpr int kErr = 1;
inline constexpr int kApiVersion1 = 1;

// OpenKey modes.
inline constexpr int kRead = 1 << 0;
inline constexpr int kWrite = 1 << 1;

// KeyType results (only the ones the module tells apart).
inline constexpr int kKeyEmpty = 0;
inline constexpr int kKeyModule = 6;

// GetContextFlags bits.
inline constexpr int kCtxReplicated = 1 << 12;  // the command came over the replication link
inline constexpr int kCtxLoading = 1 << 13;     // the server is loading an AOF or RDB file

// SetModuleOptions bit: the module checks IsIOError itself, so a short read during a
// diskless load fails that load instead of stopping the server.
inline constexpr int kOptionHandleIOErrors = 1 << 0;

inline constexpr const char* kWrongTypeError = "WRONGTYPE Operation against a key holding the wrong kind of value";

using CommandFunc = int (*)(Ctx*, String** argv, int argc);

// Callbacks of a module data type, version 1 of the table: the fields after `free` in later
// versions (aux data, copy, defrag, ...) are not used, and the server reads only as many
// fields as the version says.
struct TypeMethods {
  std::uint64_t version = 1;
  void* (*rdb_load)(IO*, int encoding_version) = nullptr;
  void (*rdb_save)(IO*, void* value) = nullptr;
  void (*aof_rewrite)(IO*, String* key, void* value) = nullptr;
  std::size_t (*mem_usage)(const void* value) = nullptr;
  void (*digest)(Digest*, void* value) = nullptr;
  void (*free)(void* value) = nullptr;
};

// The API functions, obtained by name at load time (bind()). The list is an X-macro so that
// the declaration, the lookup and the name looked up come from one line each.
#define TLBF_RM_FUNCTIONS(X)                                                                             \
  X(void, SetModuleAttribs, (Ctx*, const char* name, int version, int api_version))                      \
  X(int, CreateCommand,                                                                                  \
    (Ctx*, const char* name, CommandFunc, const char* flags, int first_key, int last_key, int key_step)) \
  X(Type*, CreateDataType, (Ctx*, const char* name, int encoding_version, TypeMethods*))                 \
  X(void, SetModuleOptions, (Ctx*, int options))                                                         \
  X(void, Log, (Ctx*, const char* level, const char* format, ...))                                       \
  X(int, GetContextFlags, (Ctx*))                                                                        \
  X(int, GetSelectedDb, (Ctx*))                                                                          \
  X(long long, Milliseconds, ())                                                                         \
  X(Key*, OpenKey, (Ctx*, String * name, int mode))                                                      \
  X(void, CloseKey, (Key*))                                                                              \
  X(int, KeyType, (Key*))                                                                                \
  X(Type*, ModuleTypeGetType, (Key*))                                                                    \
  X(void*, ModuleTypeGetValue, (Key*))                                                                   \
  X(int, ModuleTypeSetValue, (Key*, Type*, void* value))                                                 \
  X(const char*, StringPtrLen, (const String*, std::size_t* length))                                     \
  X(int, WrongArity, (Ctx*))                                                                             \
  X(int, ReplyWithError, (Ctx*, const char* message))                                                    \
  X(int, ReplyWithSimpleString, (Ctx*, const char* text))                                                \
  X(int, ReplyWithLongLong, (Ctx*, long long))                                                           \
  X(int, ReplyWithDouble, (Ctx*, double))                                                                \
  X(int, ReplyWithStringBuffer, (Ctx*, const char* bytes, std::size_t length))                           \
  X(int, ReplyWithArray, (Ctx*, long length))                                                            \
  X(int, ReplyWithMap, (Ctx*, long pairs))                                                               \
  X(int, Replicate, (Ctx*, const char* command, const char* format, ...))                                \
  X(int, ReplicateVerbatim, (Ctx*))                                                                      \
  X(void, SaveStringBuffer, (IO*, const char* bytes, std::size_t length))                                \
  X(char*, LoadStringBuffer, (IO*, std::size_t * length))                                                \
  X(int, IsIOError, (IO*))                                                                               \
  X(void, LogIOError, (IO*, const char* level, const char* format, ...))                                 \
  X(void, EmitAOF, (IO*, const char* command, const char* format, ...))                                  \
  X(void, DigestAddStringBuffer, (Digest*, const char* bytes, std::size_t length))                       \
  X(void, DigestEndSequence, (Digest*))                                                                  \
  X(ServerInfoData*, GetServerInfo, (Ctx*, const char* section))                                         \
  X(unsigned long long, ServerInfoGetFieldUnsigned, (ServerInfoData*, const char* field, int* out_err))  \
  X(void, FreeServerInfo, (Ctx*, ServerInfoData*))                                                       \
  X(void, Free, (void*))

#define TLBF_RM_DECLARE(ret, name, params) inline ret(*name) params = nullptr;
TLBF_RM_FUNCTIONS(TLBF_RM_DECLARE)
#undef TLBF_RM_DECLARE

// Fills every pointer above from the context's lookup function. Returns nullptr on success,
// or the name of the first function the server does not provide (the module must not load).
inline const char* bind(Ctx* ctx) {
  using GetApi = int (*)(const char* name, void* out);
  GetApi get_api = *reinterpret_cast<GetApi*>(ctx);
#define TLBF_RM_LOOKUP(ret, name, params)                                                      \
  if (get_api("RedisModule_" #name, reinterpret_cast<void*>(&name)) != kOk || name == nullptr) \
    return "RedisModule_" #name;
  TLBF_RM_FUNCTIONS(TLBF_RM_LOOKUP)
#undef TLBF_RM_LOOKUP
  return nullptr;
}

}  // namespace tlbf_redis::rm
