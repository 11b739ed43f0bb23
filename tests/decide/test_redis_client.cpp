// RedisConnection (src/decide/redis/redis_client.hpp) against a server that takes the
// connection and never answers: the read runs out of time, and the message says so.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "decide/redis/redis_client.hpp"

TEST_SUITE("redis_client") {
  TEST_CASE("a server that never answers is a timeout, said as one") {
    // A listening socket that never accepts: the kernel completes the connection, nothing replies.
    const int server = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(server >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(server, 4) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    tlbf_dedup::RedisConnection c("127.0.0.1", ntohs(addr.sin_port), std::chrono::milliseconds(200));
    const std::string said = "cannot read from 127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) +
                             ": timed out, the server gave no answer within 200 ms";
    CHECK_THROWS_WITH_AS(c.call({"PING"}), doctest::Contains(said.c_str()), tlbf_dedup::RedisUnreachable);
    ::close(server);
  }
}
