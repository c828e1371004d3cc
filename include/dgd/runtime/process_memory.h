// The operator process's heap: gauges for /metrics and handing free pages back to the OS.
// glibc keeps freed memory in its arenas; after a burst of reconciles (each parses its
// children, renders, applies) that memory stays resident, interleaved with the caches'
// long-lived objects, unless malloc_trim returns its free pages. Thread-safe.
#pragma once
#include <cstddef>

namespace dgd::kube {
class MetricsRegistry;
}

namespace dgd::runtime {

// Sets dgd_process_heap_bytes{state="in_use"|"free"} (glibc only) and
// dgd_shared_text_values / dgd_shared_text_bytes (shared_text.h). Called when /metrics
// is served, so they cost nothing between scrapes.
void sample_memory_metrics(kube::MetricsRegistry& metrics);

// malloc_trim when the heap holds at least `min_free` bytes free; true if it ran.
// A no-op (false) without glibc.
bool release_free_heap(size_t min_free);

}  // namespace dgd::runtime
