// The read-ahead queue between the reading thread and the deciding one: batches arrive in
// the order published and exactly once, the pool bounds how far the producer runs ahead, an
// error travels as the last batch after the ones before it, and stop() frees a producer
// waiting for a batch and a consumer waiting for one, so both threads can be joined.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pipeline/read_ahead.hpp"

using namespace tlbf_dedup;

namespace {

struct Numbers {
  std::vector<int> values;
  std::exception_ptr error;
  bool end = false;
};

// Waits (up to 10 s, for a loaded machine) until `done` holds.
template <class F>
void wait_until(F done) {
  for (int i = 0; i < 10000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

TEST_SUITE("read_ahead") {
  TEST_CASE("batches arrive in order, each once, through a pool of two") {
    ReadAheadQueue<Numbers> queue(2);
    constexpr int kBatches = 1000;
    std::thread producer([&] {
      for (int i = 0; i < kBatches; ++i) {
        Numbers* b = queue.acquire();
        REQUIRE(b != nullptr);
        b->values.assign({i, i + 1});
        b->end = i == kBatches - 1;
        queue.publish(b);
      }
    });
    std::vector<int> seen;
    while (Numbers* b = queue.take()) {
      seen.push_back(b->values.at(0));
      CHECK(b->values.at(1) == b->values.at(0) + 1);
      const bool end = b->end;
      queue.recycle(b);
      if (end) break;
    }
    producer.join();
    REQUIRE(seen.size() == kBatches);
    for (int i = 0; i < kBatches; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
  }

  TEST_CASE("the producer runs at most the pool ahead") {
    ReadAheadQueue<Numbers> queue(3);
    std::atomic<int> acquired{0};
    std::thread producer([&] {
      while (Numbers* b = queue.acquire()) {
        ++acquired;
        queue.publish(b);
      }
    });
    // Nothing is taken: the producer has the three batches and waits for a fourth.
    wait_until([&] { return acquired == 3; });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(acquired == 3);
    queue.recycle(queue.take());
    wait_until([&] { return acquired == 4; });
    CHECK(acquired == 4);
    queue.stop();
    producer.join();
  }

  TEST_CASE("an error comes after the batches published before it") {
    ReadAheadQueue<Numbers> queue(2);
    std::thread producer([&] {
      Numbers* b = queue.acquire();
      b->values = {1};
      queue.publish(b);
      b = queue.acquire();
      b->values = {2};
      try {
        throw std::runtime_error("damaged input");
      } catch (...) {
        b->error = std::current_exception();
      }
      queue.publish(b);
    });
    std::vector<int> seen;
    std::string message;
    while (Numbers* b = queue.take()) {
      seen.insert(seen.end(), b->values.begin(), b->values.end());
      std::exception_ptr error = b->error;
      queue.recycle(b);
      if (error) {
        try {
          std::rethrow_exception(error);
        } catch (const std::runtime_error& e) {
          message = e.what();
        }
        break;
      }
    }
    queue.stop();
    producer.join();
    CHECK(seen == std::vector<int>{1, 2});
    CHECK(message == "damaged input");
  }

  TEST_CASE("stop frees a producer waiting for a free batch") {
    ReadAheadQueue<Numbers> queue(1);
    std::atomic<bool> done{false};
    std::thread producer([&] {
      while (Numbers* b = queue.acquire()) queue.publish(b);  // the second acquire waits
      done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(done);
    queue.stop();
    producer.join();
    CHECK(done);
    // What was published is still handed out, then nothing.
    CHECK(queue.take() != nullptr);
    CHECK(queue.take() == nullptr);
  }

  TEST_CASE("stop frees a consumer waiting for a batch") {
    ReadAheadQueue<Numbers> queue(2);
    bool got_null = false;
    std::thread consumer([&] { got_null = queue.take() == nullptr; });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue.stop();
    consumer.join();
    CHECK(got_null);
    CHECK(queue.acquire() == nullptr);
  }
}
