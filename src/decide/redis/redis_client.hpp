// One connection to one Redis server (hiredis), owned, for the Redis backend
// (redis_backend.hpp). Commands are appended to an output buffer and sent together, so that
// several are in flight at once (pipelining); replies come back in the order of the commands.
// hiredis stays behind this header: its types are only named here.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace tlbf_dedup {

// The server cannot be reached, or the connection broke (closed, reset, timed out). The
// message names the server's address.
class RedisUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisReplyDeleter {
  void operator()(redisReply* r) const;
};
using RedisReply = std::unique_ptr<redisReply, RedisReplyDeleter>;

class RedisConnection {
 public:
  // Connects within `timeout`, which also bounds each later read and write.
  RedisConnection(std::string host, int port, std::chrono::milliseconds timeout);
  ~RedisConnection();
  RedisConnection(RedisConnection&&) noexcept;
  RedisConnection& operator=(RedisConnection&&) noexcept;

  // "host:port", as messages and MOVED replies name a server.
  const std::string& address() const { return address_; }

  // Adds a command to the output buffer; nothing is sent yet.
  void append(const std::vector<std::string_view>& args);
  // Sends the whole output buffer.
  void send();
  // The next reply (sends the buffer first if needed). An error reply is a reply, not an
  // exception: the caller decides what it means.
  RedisReply reply();
  // One command and its reply; only when no other command is in flight.
  RedisReply call(const std::vector<std::string_view>& args);

 private:
  [[noreturn]] void lost(const char* doing) const;

  struct ContextDeleter {
    void operator()(redisContext* c) const;
  };
  std::unique_ptr<redisContext, ContextDeleter> c_;
  std::string address_;
  std::chrono::milliseconds timeout_;
};

// What a reply says, for the backend's checks.
bool is_error(const redisReply& r);
std::string reply_text(const redisReply& r);  // an error's or a string's text; "" otherwise

}  // namespace tlbf_dedup
