// A std::thread that runs with every signal blocked.
//
// The program's stop signals (SIGINT, SIGTERM, SIGHUP) set a flag and interrupt the blocking
// call they land in (no SA_RESTART): the main thread's read or write, which then sees the flag.
// A helper thread (read-ahead, decompression) must not take them instead, or the main thread
// would stay blocked, e.g. writing to a reader that stopped reading. Invariant: the new thread
// starts with all signals blocked and the calling thread's mask is restored, whether the
// thread starts or its constructor throws.
#pragma once

#include <signal.h>

#include <thread>
#include <utility>

namespace tlbf_dedup {

template <class... Args>
std::thread signal_free_thread(Args&&... args) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  struct Restore {
    sigset_t& mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{old};
  return std::thread(std::forward<Args>(args)...);
}

}  // namespace tlbf_dedup
