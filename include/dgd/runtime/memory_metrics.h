// Memory gauges of the process for /metrics (docs/operations.md): what the heap holds in
// use and free (glibc's mallinfo2), and what the informer caches share (shared_text.h).
// Sampled when /metrics is served, so they cost nothing between scrapes. Thread-safe.
#pragma once

namespace dgd::kube {
class MetricsRegistry;
}

namespace dgd::runtime {

// Sets dgd_process_heap_bytes{state="in_use"|"free"} (glibc only) and
// dgd_shared_text_values / dgd_shared_text_bytes.
void sample_memory_metrics(kube::MetricsRegistry& metrics);

}  // namespace dgd::runtime
