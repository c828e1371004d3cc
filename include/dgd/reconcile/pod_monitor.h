// pod_monitor: the optional Prometheus Operator PodMonitor of a DGD (`dgd-operator run
// --pod-monitors`), named after the DGD. It selects the DGD's pods that carry
// nvidia.com/metrics-enabled=true (render.h) and scrapes, every 5 s, /metrics on the
// container ports upstream names: `http` (frontends, 8000), `system` (workers, 9090) and
// `nixl` (NIXL telemetry, when a podTemplate declares it); the pod labels become the
// series labels upstream's dashboards use (dynamo_namespace, dynamo_component_type,
// dynamo_graph_deployment). Pure; immutable constants.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

inline constexpr const char* kPodMonitorApiVersion = "monitoring.coreos.com/v1";

// The PodMonitor of DGD `dgd_name` in `ns`, without its owner reference.
nlohmann::json pod_monitor(const std::string& ns, const std::string& dgd_name);

}  // namespace dgd::reconcile
