#include "dgd/runtime/process_memory.h"

#include <cstdlib>  // defines __GLIBC__

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "dgd/kube/metrics.h"
#include "dgd/runtime/shared_text.h"

namespace dgd::runtime {

void sample_memory_metrics(kube::MetricsRegistry& metrics) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const struct mallinfo2 mi = mallinfo2();
  const char* help = "Bytes of the malloc heap: in use, and free but not returned to the OS.";
  metrics.gauge("dgd_process_heap_bytes", help, {{"state", "in_use"}}).set(static_cast<double>(mi.uordblks + mi.hblkhd));
  metrics.gauge("dgd_process_heap_bytes", help, {{"state", "free"}}).set(static_cast<double>(mi.fordblks));
#endif
  const SharedTextPool& pool = SharedTextPool::global();
  metrics.gauge("dgd_shared_text_values", "Values the informer caches share (each held once).")
      .set(static_cast<double>(pool.size()));
  metrics.gauge("dgd_shared_text_bytes", "Bytes of the values the informer caches share.")
      .set(static_cast<double>(pool.bytes()));
}

bool release_free_heap(size_t min_free) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  if (mallinfo2().fordblks < min_free) return false;
  malloc_trim(0);
  return true;
#else
  (void)min_free;
  return false;
#endif
}

}  // namespace dgd::runtime
