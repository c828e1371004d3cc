#include "kubesim/defaults/served_kind_defaults.h"

namespace kubesim::defaults {

using nlohmann::json;

namespace {

json& object_field(json& obj, const char* key) {
  if (!obj.contains(key) || !obj[key].is_object()) obj[key] = json::object();
  return obj[key];
}

void set_default(json& obj, const char* key, const json& value) {
  if (obj.is_object() && (!obj.contains(key) || obj[key].is_null())) obj[key] = value;
}

bool has_list(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_array() && !obj[key].empty();
}

void default_ports(json& ports, bool name_too) {
  if (!ports.is_array()) return;
  for (auto& p : ports) {
    if (!p.is_object()) continue;
    set_default(p, "protocol", "TCP");
    if (name_too) set_default(p, "name", "");
  }
}

// autoscaling/v2 SetDefaults_HorizontalPodAutoscaler and GenerateHPAScaleUpRules /
// GenerateHPAScaleDownRules.
void default_hpa(json& spec) {
  set_default(spec, "minReplicas", 1);
  if (!has_list(spec, "metrics"))
    spec["metrics"] = json::array({{{"type", "Resource"},
                                    {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  if (!spec.contains("behavior") || !spec["behavior"].is_object()) return;
  json& b = spec["behavior"];
  json& up = object_field(b, "scaleUp");
  set_default(up, "stabilizationWindowSeconds", 0);
  set_default(up, "selectPolicy", "Max");
  if (!has_list(up, "policies"))
    up["policies"] = json::array({{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}},
                                  {{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}});
  json& down = object_field(b, "scaleDown");
  set_default(down, "selectPolicy", "Max");
  if (!has_list(down, "policies"))
    down["policies"] = json::array({{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}});
}

}  // namespace

void apply_served_kind_defaults(const ResourceType& t, json& obj) {
  if (!obj.is_object()) return;
  const std::string key = t.group + "/" + t.kind;
  if (key == "apps/StatefulSet") {
    json& s = object_field(obj, "spec");
    set_default(s, "replicas", 1);
    set_default(s, "revisionHistoryLimit", 10);
    set_default(s, "podManagementPolicy", "OrderedReady");
    json& us = object_field(s, "updateStrategy");
    if (!us.contains("type")) {
      us["type"] = "RollingUpdate";
      object_field(us, "rollingUpdate");
    }
    if (us["type"] == "RollingUpdate" && us.contains("rollingUpdate") && us["rollingUpdate"].is_object())
      set_default(us["rollingUpdate"], "partition", 0);
    json& retention = object_field(s, "persistentVolumeClaimRetentionPolicy");
    set_default(retention, "whenDeleted", "Retain");
    set_default(retention, "whenScaled", "Retain");
  } else if (key == "apps/DaemonSet") {
    json& s = object_field(obj, "spec");
    set_default(s, "revisionHistoryLimit", 10);
    json& us = object_field(s, "updateStrategy");
    set_default(us, "type", "RollingUpdate");
    if (us["type"] == "RollingUpdate") {
      json& ru = object_field(us, "rollingUpdate");
      set_default(ru, "maxUnavailable", 1);
      set_default(ru, "maxSurge", 0);
    }
  } else if (key == "batch/CronJob") {
    json& s = object_field(obj, "spec");
    set_default(s, "concurrencyPolicy", "Allow");
    set_default(s, "suspend", false);
    set_default(s, "successfulJobsHistoryLimit", 3);
    set_default(s, "failedJobsHistoryLimit", 1);
  } else if (key == "autoscaling/HorizontalPodAutoscaler") {
    default_hpa(object_field(obj, "spec"));
  } else if (key == "networking.k8s.io/NetworkPolicy") {
    json& s = object_field(obj, "spec");
    if (!has_list(s, "policyTypes")) {
      s["policyTypes"] = json::array({"Ingress"});
      if (has_list(s, "egress")) s["policyTypes"].push_back("Egress");
    }
    for (const char* dir : {"ingress", "egress"})
      if (s.contains(dir) && s[dir].is_array())
        for (auto& rule : s[dir])
          if (rule.is_object() && rule.contains("ports")) default_ports(rule["ports"], false);
  } else if (key == "discovery.k8s.io/EndpointSlice") {
    if (obj.contains("ports")) default_ports(obj["ports"], true);
  } else if (key == "/Endpoints") {
    if (obj.contains("subsets") && obj["subsets"].is_array())
      for (auto& subset : obj["subsets"])
        if (subset.is_object() && subset.contains("ports")) default_ports(subset["ports"], false);
  } else if (key == "scheduling.k8s.io/PriorityClass") {
    set_default(obj, "preemptionPolicy", "PreemptLowerPriority");
  } else if (key == "storage.k8s.io/StorageClass") {
    set_default(obj, "reclaimPolicy", "Delete");
    set_default(obj, "volumeBindingMode", "Immediate");
  } else if (key == "/PersistentVolume") {
    json& s = object_field(obj, "spec");
    set_default(s, "persistentVolumeReclaimPolicy", "Retain");
    set_default(s, "volumeMode", "Filesystem");
  }
}

void initial_status(const ResourceType& t, json& obj, const std::string& now) {
  // persistentvolume strategy PrepareForCreate (PersistentVolumeLastPhaseTransitionTime, GA in 1.31).
  if (t.group.empty() && t.kind == "PersistentVolume") obj["status"] = {{"phase", "Pending"}, {"lastPhaseTransitionTime", now}};
  // desiredReplicas is not omitempty: an HPA always shows it.
  if (t.group == "autoscaling" && t.kind == "HorizontalPodAutoscaler") obj["status"] = {{"desiredReplicas", 0}};
}

}  // namespace kubesim::defaults
