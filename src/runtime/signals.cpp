#include "dgd/runtime/signals.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>

namespace dgd::runtime {

namespace {
std::atomic<bool> g_stop_waiter{false};
}

void block_termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::thread start_signal_waiter(kube::CancelSource source) {
  g_stop_waiter = false;
  return std::thread([source]() mutable {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig = 0;
    sigwait(&set, &sig);
    if (!g_stop_waiter) source.cancel();
  });
}

void stop_signal_waiter(std::thread& waiter) {
  if (!waiter.joinable()) return;
  g_stop_waiter = true;
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
}

}  // namespace dgd::runtime
