#include "dgd/runtime/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

namespace dgd::runtime {
namespace {

struct BuildInfo {
  std::mutex mu;
  std::string name;
  kube::Labels labels;
};
BuildInfo& build_info() {
  static BuildInfo info;
  return info;
}

// Fields 14 (utime), 15 (stime), 22 (starttime, in clock ticks since boot) and 23 (vsize)
// of /proc/self/stat; the command name (field 2) may hold spaces, so count after its ')'.
struct Stat {
  double cpu_seconds = 0, start_ticks = 0, virtual_bytes = 0;
  bool ok = false;
};
Stat read_stat() {
  Stat s;
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return s;
  std::istringstream fields(text.substr(close + 2));  // from field 3 (state)
  std::string f;
  double utime = 0, stime = 0;
  for (int i = 3; fields >> f; ++i) {
    if (i == 14) utime = std::stod(f);
    if (i == 15) stime = std::stod(f);
    if (i == 22) s.start_ticks = std::stod(f);
    if (i == 23) {
      s.virtual_bytes = std::stod(f);
      s.ok = true;
      break;
    }
  }
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  s.cpu_seconds = (utime + stime) / hz;
  return s;
}

double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

double resident_bytes() {
  std::ifstream in("/proc/self/statm");
  double size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

double open_fds() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return 0;
  double n = 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(d);
  return n - 1;  // the descriptor opendir holds
}

}  // namespace

void set_build_info(std::string name, kube::Labels labels) {
  auto& info = build_info();
  std::lock_guard<std::mutex> l(info.mu);
  info.name = std::move(name);
  info.labels = std::move(labels);
}

void sample_process_metrics(kube::MetricsRegistry& metrics) {
  {
    auto& info = build_info();
    std::lock_guard<std::mutex> l(info.mu);
    if (!info.name.empty()) {
      metrics.gauge(info.name, "A metric with a constant '1' value labeled by the build's version.", info.labels).set(1);
    }
  }
  const Stat stat = read_stat();
  if (!stat.ok) return;
  // A counter the kernel keeps: advanced to its reading (serialised, so two scrapes at
  // once cannot add the same CPU time twice).
  static std::mutex cpu_mu;
  {
    std::lock_guard<std::mutex> l(cpu_mu);
    kube::Counter& cpu = metrics.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.");
    if (stat.cpu_seconds > cpu.value()) cpu.inc(stat.cpu_seconds - cpu.value());
  }
  static const double start = boot_time_seconds() + stat.start_ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  metrics.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.").set(start);
  metrics.gauge("process_resident_memory_bytes", "Resident memory size in bytes.").set(resident_bytes());
  metrics.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.").set(stat.virtual_bytes);
  metrics.gauge("process_open_fds", "Number of open file descriptors.").set(open_fds());
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    metrics.gauge("process_max_fds", "Maximum number of open file descriptors.")
        .set(nofile.rlim_cur == RLIM_INFINITY ? -1 : static_cast<double>(nofile.rlim_cur));
  }
}

}  // namespace dgd::runtime
