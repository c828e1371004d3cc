// desired_extras: what a full plan adds to the rendered children beyond the spec: the
// restart stamps on the Deployments' pod templates (restart.h) and, with
// Snapshot::pod_monitors, the DGD's PodMonitor (pod_monitor.h). A PodMonitor the server
// does not serve (no prometheus-operator CRD) is left out and named in
// Plan::kinds_not_served (one KindNotServed Event per generation); the graph's readiness
// does not depend on it, and the next pass plans in full to create it once the kind is
// served. Pure: reads the snapshot's cache only.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/dgd_plan.h"

namespace dgd::reconcile {

// `desired`: the rendered children, owned and namespaced; `live`: the DGD's cached
// children. Sets plan.restart and plan.plan_in_full.
void add_desired_extras(const Snapshot& s, const nlohmann::json& dgd, std::vector<nlohmann::json>& desired,
                        const std::vector<nlohmann::json>& live, Plan& plan);

}  // namespace dgd::reconcile
