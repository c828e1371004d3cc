// SIGTERM / SIGINT handling for the operator's main (cpp-stack.md §2.5, §2.7): block the
// signals before any thread exists (so every thread inherits the mask), then let one
// thread sigwait() and cancel a CancelSource.
#pragma once
#include <thread>

#include "dgd/kube/cancel.h"

namespace dgd::runtime {

// Blocks SIGTERM and SIGINT in the calling thread. Call first in main, before the cpprest
// thread pool or any other thread starts.
void block_termination_signals();

// Starts a detached-on-exit waiter: on SIGTERM/SIGINT it cancels `source`. The returned
// thread ends after the first signal; join it, or call stop_signal_waiter() to end it
// without a signal.
std::thread start_signal_waiter(kube::CancelSource source);
// Wakes the waiter thread (sends it SIGTERM) so it can be joined during a normal exit.
void stop_signal_waiter(std::thread& waiter);

}  // namespace dgd::runtime
