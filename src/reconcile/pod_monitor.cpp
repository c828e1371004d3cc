#include "dgd/reconcile/pod_monitor.h"

#include <cctype>

#include "dgd/render/render.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

// A pod label as Prometheus' Kubernetes discovery names it.
std::string pod_label_meta(const std::string& label) {
  std::string out = "__meta_kubernetes_pod_label_";
  for (char ch : label) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

json copy_label(const char* pod_label, const char* target) {
  return {{"action", "replace"}, {"sourceLabels", json::array({pod_label_meta(pod_label)})}, {"targetLabel", target}};
}

json endpoint(const char* port, bool frontend) {
  json relabelings = json::array({copy_label(render::kLabelComponentType, "dynamo_component_type"),
                                  copy_label(render::kLabelDgdName, "dynamo_graph_deployment")});
  // Workers label their own series with dynamo_namespace; the frontend's are labelled here.
  if (frontend) relabelings.push_back(copy_label(render::kLabelDynamoNamespace, "dynamo_namespace"));
  json e = {{"port", port}, {"path", "/metrics"}, {"interval", "5s"}, {"relabelings", std::move(relabelings)}};
  if (frontend) e["honorLabels"] = true;
  return e;
}

}  // namespace

json pod_monitor(const std::string& ns, const std::string& dgd_name) {
  const json labels = {{render::kLabelManagedBy, render::kManagedByValue}, {render::kLabelDgdName, dgd_name}};
  return {{"apiVersion", kPodMonitorApiVersion},
          {"kind", "PodMonitor"},
          {"metadata", {{"name", dgd_name}, {"namespace", ns}, {"labels", labels}}},
          {"spec",
           {{"selector", {{"matchLabels", {{render::kLabelDgdName, dgd_name}, {render::kLabelMetricsEnabled, "true"}}}}},
            {"namespaceSelector", {{"matchNames", json::array({ns})}}},
            {"podMetricsEndpoints",
             json::array({endpoint("http", true), endpoint("system", false), endpoint("nixl", false)})}}}};
}

}  // namespace dgd::reconcile
