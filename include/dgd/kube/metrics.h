// MetricsRegistry: counters, gauges and histograms with labels, rendered in the
// Prometheus text exposition format 0.0.4. Names are documented in docs/operations.md.
// Thread-safe: series are created under a lock; updates are lock-free atomics. A
// reference returned by counter()/gauge()/histogram() stays valid as long as the registry.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgd::kube {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  void dec(double v = 1) { value_.fetch_sub(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double v);
  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Non-cumulative count of bucket i (i == bounds.size() is +Inf).
  unsigned long bucket(size_t i) const { return counts_[i].load(std::memory_order_relaxed); }
  unsigned long count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<unsigned long>[]> counts_;
  std::atomic<unsigned long> count_{0};
  std::atomic<double> sum_{0};
};

// Default latency buckets (seconds): 5 ms .. 60 s.
std::vector<double> latency_buckets();

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Returns the series `name{labels}`, creating family and series on first use.
  // REQUIRES: a name is always used with the same type and the same label names.
  Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {});
  Histogram& histogram(std::string_view name, std::string_view help, const Labels& labels = {},
                       const std::vector<double>& buckets = latency_buckets());

  // Prometheus text format: families sorted by name, each with HELP and TYPE.
  std::string render() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Family {
    Type type;
    std::string help;
    std::map<Labels, std::unique_ptr<Counter>> counters;
    std::map<Labels, std::unique_ptr<Gauge>> gauges;
    std::map<Labels, std::unique_ptr<Histogram>> histograms;
  };
  Family& family_locked(std::string_view name, std::string_view help, Type type);
  mutable std::mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
};

}  // namespace dgd::kube
