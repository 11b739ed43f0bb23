// A pipelined connection to one Redis server over hiredis's blocking API.
//
// Invariant: once the connection has failed (hiredis sets err), every later call throws
// RedisUnreachable naming the address: a broken connection never yields a reply, so no
// reply can be matched to the wrong command. Every context and reply is owned.
#include "decide/redis/redis_client.hpp"

#include <sys/time.h>

#include <cerrno>
#include <cstring>

#include <hiredis/hiredis.h>

namespace tlbf_dedup {

void RedisReplyDeleter::operator()(redisReply* r) const { freeReplyObject(r); }
void RedisConnection::ContextDeleter::operator()(redisContext* c) const { redisFree(c); }

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

}  // namespace

RedisConnection::RedisConnection(std::string host, int port, std::chrono::milliseconds timeout)
    : address_(host + ":" + std::to_string(port)), timeout_(timeout) {
  c_.reset(redisConnectWithTimeout(host.c_str(), port, to_timeval(timeout)));
  if (!c_) throw RedisUnreachable("cannot connect to " + address_ + ": out of memory");
  if (c_->err) lost("connect to");
  if (redisSetTimeout(c_.get(), to_timeval(timeout)) != REDIS_OK) lost("set the timeout of");
}

RedisConnection::~RedisConnection() = default;
RedisConnection::RedisConnection(RedisConnection&&) noexcept = default;
RedisConnection& RedisConnection::operator=(RedisConnection&&) noexcept = default;

void RedisConnection::lost(const char* doing) const {
  // hiredis reports a read or write that ran out of time as the socket's EAGAIN.
  const bool timed_out = c_->err == REDIS_ERR_IO && (std::strcmp(c_->errstr, std::strerror(EAGAIN)) == 0 ||
                                                     std::strcmp(c_->errstr, std::strerror(EWOULDBLOCK)) == 0);
  if (timed_out)
    throw RedisUnreachable(std::string("cannot ") + doing + " " + address_ +
                           ": timed out, the server gave no answer within " + std::to_string(timeout_.count()) + " ms");
  throw RedisUnreachable(std::string("cannot ") + doing + " " + address_ + ": " +
                         (c_->errstr[0] ? c_->errstr : "connection closed"));
}

void RedisConnection::append(const std::vector<std::string_view>& args) {
  if (c_->err) lost("write to");
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  argv.reserve(args.size());
  lens.reserve(args.size());
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  if (redisAppendCommandArgv(c_.get(), static_cast<int>(args.size()), argv.data(), lens.data()) != REDIS_OK)
    lost("write to");
}

void RedisConnection::send() {
  int done = 0;
  while (!done)
    if (redisBufferWrite(c_.get(), &done) != REDIS_OK) lost("write to");
}

RedisReply RedisConnection::reply() {
  void* r = nullptr;
  if (redisGetReply(c_.get(), &r) != REDIS_OK || r == nullptr) lost("read from");
  return RedisReply(static_cast<redisReply*>(r));
}

RedisReply RedisConnection::call(const std::vector<std::string_view>& args) {
  append(args);
  return reply();
}

bool is_error(const redisReply& r) { return r.type == REDIS_REPLY_ERROR; }

std::string reply_text(const redisReply& r) {
  if (r.type == REDIS_REPLY_ERROR || r.type == REDIS_REPLY_STRING || r.type == REDIS_REPLY_STATUS)
    return std::string(r.str, r.len);
  return {};
}

}  // namespace tlbf_dedup
