// What /metrics shows before anything happened: the series dashboards and alerts read
// are there at 0, with the process collector's series and the build info.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "common/prom_text.h"
#include "dgd/kube/metrics.h"
#include "dgd/runtime/condition_gauge.h"
#include "dgd/runtime/controller.h"
#include "dgd/runtime/informer.h"
#include "dgd/runtime/process_metrics.h"

namespace dgd::runtime {
namespace {

std::vector<testing::PromSample> samples_of(const kube::MetricsRegistry& r) {
  std::vector<testing::PromSample> out;
  const std::string text = r.render();
  EXPECT_EQ(testing::check_prometheus_text(text, &out), "") << text;
  return out;
}

const testing::PromSample* find_sample(const std::vector<testing::PromSample>& all, const std::string& name,
                                const std::map<std::string, std::string>& labels = {}) {
  for (const auto& s : all) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) return &s;
  }
  return nullptr;
}
// The sample found points into `all`: a temporary vector would be freed before it is read.
const testing::PromSample* find_sample(std::vector<testing::PromSample>&& all, const std::string& name,
                                const std::map<std::string, std::string>& labels = {}) = delete;

TEST(ProcessMetrics, ProcessSeriesAndBuildInfoAreSampled) {
  kube::MetricsRegistry r;
  set_build_info("dgd_test_build_info", {{"version", "1.2.3"}, {"revision", "abc"}});
  sample_process_metrics(r);
  const auto all = samples_of(r);
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                           "process_start_time_seconds", "process_open_fds", "process_max_fds"}) {
    EXPECT_NE(find_sample(all, name), nullptr) << name;
  }
  EXPECT_GT(find_sample(all, "process_resident_memory_bytes")->value, 0);
  EXPECT_GT(find_sample(all, "process_open_fds")->value, 2);  // stdin, stdout, stderr at least
  EXPECT_GT(find_sample(all, "process_start_time_seconds")->value, 1.6e9);
  const auto* info = find_sample(all, "dgd_test_build_info", {{"version", "1.2.3"}, {"revision", "abc"}});
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->value, 1);
}

TEST(ProcessMetrics, CpuSecondsNeverGoBack) {
  kube::MetricsRegistry r;
  sample_process_metrics(r);
  const auto before = samples_of(r);
  const double first = find_sample(before, "process_cpu_seconds_total")->value;
  volatile double spin = 0;
  for (int i = 0; i < 20'000'000; ++i) spin = spin + i;
  sample_process_metrics(r);
  const auto after = samples_of(r);
  EXPECT_GE(find_sample(after, "process_cpu_seconds_total")->value, first);
}

class NoReconcile : public Reconciler {
 public:
  ReconcileResult reconcile(const ObjectKey&) override { return ReconcileResult::done(); }
};

TEST(StartMetrics, AControllersCountersArePresentAtZeroBeforeAnyReconcile) {
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  ControllerOptions o;
  o.name = "things";
  o.metrics = metrics;
  Controller c(o, std::make_shared<NoReconcile>());
  const auto all = samples_of(*metrics);
  const auto* errors = find_sample(all, "controller_runtime_reconcile_errors_total", {{"controller", "things"}});
  ASSERT_NE(errors, nullptr);
  EXPECT_EQ(errors->value, 0);
  for (const char* result : {"success", "error", "requeue_after"}) {
    const auto* total = find_sample(all, "controller_runtime_reconcile_total", {{"controller", "things"}, {"result", result}});
    ASSERT_NE(total, nullptr) << result;
    EXPECT_EQ(total->value, 0);
  }
}

TEST(StartMetrics, AnInformersRelistsArePresentAtZeroBeforeItStarts) {
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  InformerOptions o;
  o.resource = kube::ResourceRef{"apps", "v1", "deployments", "Deployment", true};
  o.metrics = metrics;
  Informer inf(nullptr, o);
  const auto all = samples_of(*metrics);
  const auto* relists = find_sample(all, "dgd_informer_relists_total", {{"resource", "deployments.v1.apps"}});
  ASSERT_NE(relists, nullptr);
  EXPECT_EQ(relists->value, 0);
  EXPECT_NE(find_sample(all, "dgd_informer_cache_objects", {{"resource", "deployments.v1.apps"}}), nullptr);
}

ObjectPtr dgd_with(const std::string& name, const nlohmann::json& conditions) {
  nlohmann::json o = {{"apiVersion", "nvidia.com/v1beta1"},
                      {"kind", "DynamoGraphDeployment"},
                      {"metadata", {{"name", name}, {"namespace", "ns"}, {"resourceVersion", "1"}}},
                      {"spec", {{"components", nlohmann::json::array()}}}};
  if (!conditions.is_null()) o["status"] = {{"conditions", conditions}};
  return CachedObject::make(std::move(o));
}

double graphs(const kube::MetricsRegistry& r, const std::string& ready, const std::string& serving) {
  const auto samples = samples_of(r);
  const auto* s = find_sample(samples, "dgd_graphs", {{"ready", ready}, {"serving", serving}});
  return s ? s->value : -1;
}

TEST(ConditionGauge, CountsObjectsByTheirConditionsThroughAddUpdateAndDelete) {
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  EventHandler h = condition_gauge(metrics, {"dgd_graphs", "Graphs.", {"Ready", "Serving"}});
  size_t series = 0;
  for (const auto& s : samples_of(*metrics)) series += s.name == "dgd_graphs" && s.value == 0;
  EXPECT_EQ(series, 9u) << "every combination at 0 from the start";

  const nlohmann::json not_ready = {{{"type", "Ready"}, {"status", "False"}}};
  const nlohmann::json serving = {{{"type", "Ready"}, {"status", "True"}}, {{"type", "Serving"}, {"status", "True"}}};
  h.on_add(dgd_with("a", nlohmann::json()));
  h.on_add(dgd_with("b", not_ready));
  EXPECT_EQ(graphs(*metrics, "Unknown", "Unknown"), 1) << "no status: Unknown";
  EXPECT_EQ(graphs(*metrics, "False", "Unknown"), 1) << "no Serving condition: Unknown";
  h.on_update(dgd_with("b", not_ready), dgd_with("b", serving));
  EXPECT_EQ(graphs(*metrics, "False", "Unknown"), 0);
  EXPECT_EQ(graphs(*metrics, "True", "True"), 1);
  h.on_update(dgd_with("b", serving), dgd_with("b", serving));
  EXPECT_EQ(graphs(*metrics, "True", "True"), 1) << "an update that changes nothing counts once";
  h.on_delete(dgd_with("b", serving));
  h.on_delete(dgd_with("never-added", serving));
  EXPECT_EQ(graphs(*metrics, "True", "True"), 0);
  EXPECT_EQ(graphs(*metrics, "Unknown", "Unknown"), 1);
}

}  // namespace
}  // namespace dgd::runtime
