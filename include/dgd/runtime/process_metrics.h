// The process collector of Prometheus' client libraries, for /metrics: process_* series
// (CPU, resident and virtual memory, start time, open and maximum file descriptors, read
// from /proc at each scrape) and a `<program>_build_info{...} 1` series. Thread-safe.
#pragma once
#include <string>

#include "dgd/kube/metrics.h"

namespace dgd::runtime {

// Sets process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_start_time_seconds, process_open_fds and
// process_max_fds (Linux; elsewhere none), and the build info set below.
void sample_process_metrics(kube::MetricsRegistry& metrics);

// The series every scrape shows as `name{labels} 1`, e.g. dgd_operator_build_info
// {version="0.1.0",revision="..."}. Call once at start, before serving /metrics.
void set_build_info(std::string name, kube::Labels labels);

}  // namespace dgd::runtime
