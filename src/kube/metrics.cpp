#include "dgd/kube/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dgd::kube {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)),
      counts_(new std::atomic<unsigned long>[bounds_.size() + 1]) {
  std::sort(bounds_.begin(), bounds_.end());
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::observe(double v) {
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<double> latency_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

MetricsRegistry::Family& MetricsRegistry::family_locked(std::string_view name,
                                                        std::string_view help, Type type) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{type, std::string(help), {}, {}, {}}).first;
  } else if (it->second.type != type) {
    throw std::logic_error("metric " + std::string(name) + " registered with two types");
  }
  return it->second;
}

Counter& MetricsRegistry::counter(std::string_view name, std::string_view help,
                                  const Labels& labels) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = family_locked(name, help, Type::kCounter);
  auto& p = f.counters[labels];
  if (!p) p = std::make_unique<Counter>();
  return *p;
}

Gauge& MetricsRegistry::gauge(std::string_view name, std::string_view help, const Labels& labels) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = family_locked(name, help, Type::kGauge);
  auto& p = f.gauges[labels];
  if (!p) p = std::make_unique<Gauge>();
  return *p;
}

Histogram& MetricsRegistry::histogram(std::string_view name, std::string_view help,
                                      const Labels& labels, const std::vector<double>& buckets) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = family_locked(name, help, Type::kHistogram);
  auto& p = f.histograms[labels];
  if (!p) p = std::make_unique<Histogram>(buckets);
  return *p;
}

namespace {

std::string escape(std::string_view s, bool quote) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quote && c == '"') out += "\\\"";
    else out.push_back(c);
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // The shortest of %.15g / %.17g that reads back as the same double (0.1, not 0.1000...01).
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer short forms for integral values (counts).
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string label_text(const Labels& labels, const char* extra_key = nullptr,
                       const std::string& extra_value = {}) {
  if (labels.empty() && !extra_key) return "";
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) s += ",";
    first = false;
    s += k + "=\"" + escape(v, true) + "\"";
  }
  if (extra_key) {
    if (!first) s += ",";
    s += std::string(extra_key) + "=\"" + escape(extra_value, true) + "\"";
  }
  return s + "}";
}

}  // namespace

std::string MetricsRegistry::render() const {
  std::lock_guard<std::mutex> l(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    const char* type = f.type == Type::kCounter ? "counter" : f.type == Type::kGauge ? "gauge" : "histogram";
    out += "# HELP " + name + " " + escape(f.help, false) + "\n";
    out += "# TYPE " + name + " " + type + "\n";
    for (const auto& [labels, c] : f.counters) out += name + label_text(labels) + " " + number(c->value()) + "\n";
    for (const auto& [labels, g] : f.gauges) out += name + label_text(labels) + " " + number(g->value()) + "\n";
    for (const auto& [labels, h] : f.histograms) {
      unsigned long cumulative = 0;
      const auto& b = h->upper_bounds();
      // Read the buckets first and derive the count from them, so a scrape racing an
      // observe() still shows a consistent histogram (+Inf bucket == _count).
      for (size_t i = 0; i < b.size(); ++i) {
        cumulative += h->bucket(i);
        out += name + "_bucket" + label_text(labels, "le", number(b[i])) + " " + std::to_string(cumulative) + "\n";
      }
      cumulative += h->bucket(b.size());
      out += name + "_bucket" + label_text(labels, "le", "+Inf") + " " + std::to_string(cumulative) + "\n";
      out += name + "_sum" + label_text(labels) + " " + number(h->sum()) + "\n";
      out += name + "_count" + label_text(labels) + " " + std::to_string(cumulative) + "\n";
    }
  }
  return out;
}

}  // namespace dgd::kube
