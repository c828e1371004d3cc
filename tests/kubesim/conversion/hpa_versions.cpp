#include "kubesim/conversion/hpa_versions.h"

namespace kubesim::conversion {

using nlohmann::json;

namespace {

bool is_cpu_utilization(const json& metric, const char* side) {
  if (!metric.is_object() || metric.value("type", "") != "Resource" || !metric.contains("resource")) return false;
  const json& r = metric["resource"];
  if (!r.is_object() || r.value("name", "") != "cpu" || !r.contains(side) || !r[side].is_object()) return false;
  return std::string(side) == "current" ? r[side].contains("averageUtilization")
                                        : r[side].value("type", "") == "Utilization";
}

json field(const json& obj, const char* a, const char* b) {
  if (!obj.is_object() || !obj.contains(a) || !obj[a].is_object() || !obj[a].contains(b)) return json();
  return obj[a][b];
}

}  // namespace

bool converts(const ResourceType& t) {
  return t.group == "autoscaling" && t.version == "v1" && t.kind == "HorizontalPodAutoscaler";
}

json from_storage(const ResourceType& t, json obj) {
  if (!converts(t) || !obj.is_object()) return obj;
  obj["apiVersion"] = t.api_version();
  if (obj.contains("spec") && obj["spec"].is_object()) {
    json& spec = obj["spec"];
    if (spec.contains("metrics") && spec["metrics"].is_array())
      for (const auto& m : spec["metrics"])
        if (is_cpu_utilization(m, "target") && m["resource"]["target"].contains("averageUtilization"))
          spec["targetCPUUtilizationPercentage"] = m["resource"]["target"]["averageUtilization"];
    spec.erase("metrics");
    spec.erase("behavior");
  }
  if (obj.contains("status") && obj["status"].is_object()) {
    json& status = obj["status"];
    if (status.contains("currentMetrics") && status["currentMetrics"].is_array())
      for (const auto& m : status["currentMetrics"])
        if (is_cpu_utilization(m, "current"))
          status["currentCPUUtilizationPercentage"] = m["resource"]["current"]["averageUtilization"];
    status.erase("currentMetrics");
    status.erase("conditions");
    // Both are required (not omitempty) in v1's status.
    if (!status.contains("currentReplicas")) status["currentReplicas"] = 0;
    if (!status.contains("desiredReplicas")) status["desiredReplicas"] = 0;
  }
  return obj;
}

json to_storage(const ResourceType& t, json obj, const json* current) {
  if (!converts(t) || !obj.is_object()) return obj;
  obj["apiVersion"] = "autoscaling/v2";
  const json stored_spec = current && current->is_object() ? current->value("spec", json::object()) : json::object();
  const json stored_status = current && current->is_object() ? current->value("status", json::object()) : json::object();
  if (obj.contains("spec") && obj["spec"].is_object()) {
    json& spec = obj["spec"];
    // Metrics v1 cannot name stay as stored; the cpu target is v1's to set.
    json metrics = json::array();
    if (spec.contains("targetCPUUtilizationPercentage") && !spec["targetCPUUtilizationPercentage"].is_null())
      metrics.push_back({{"type", "Resource"},
                         {"resource", {{"name", "cpu"},
                                       {"target", {{"type", "Utilization"},
                                                   {"averageUtilization", spec["targetCPUUtilizationPercentage"]}}}}}});
    const json old = field(json{{"spec", stored_spec}}, "spec", "metrics");
    if (old.is_array())
      for (const auto& m : old)
        if (!is_cpu_utilization(m, "target")) metrics.push_back(m);
    spec.erase("targetCPUUtilizationPercentage");
    if (!metrics.empty()) spec["metrics"] = metrics;
    if (stored_spec.contains("behavior")) spec["behavior"] = stored_spec["behavior"];
  }
  if (obj.contains("status") && obj["status"].is_object()) {
    json& status = obj["status"];
    json current_metrics = json::array();
    if (status.contains("currentCPUUtilizationPercentage") && !status["currentCPUUtilizationPercentage"].is_null())
      current_metrics.push_back(
          {{"type", "Resource"},
           {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", status["currentCPUUtilizationPercentage"]}}}}}});
    if (stored_status.contains("currentMetrics") && stored_status["currentMetrics"].is_array())
      for (const auto& m : stored_status["currentMetrics"])
        if (!is_cpu_utilization(m, "current")) current_metrics.push_back(m);
    status.erase("currentCPUUtilizationPercentage");
    if (!current_metrics.empty()) status["currentMetrics"] = current_metrics;
    if (stored_status.contains("conditions")) status["conditions"] = stored_status["conditions"];
  }
  return obj;
}

}  // namespace kubesim::conversion
