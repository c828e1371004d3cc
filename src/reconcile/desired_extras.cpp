#include "dgd/reconcile/desired_extras.h"

#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/pod_monitor.h"
#include "dgd/reconcile/restart.h"

namespace dgd::reconcile {

using nlohmann::json;

void add_desired_extras(const Snapshot& s, const json& dgd, std::vector<json>& desired, const std::vector<json>& live,
                        Plan& plan) {
  plan.restart = plan_restart(dgd, desired, live);
  plan.plan_in_full = plan.restart->is_object() && plan.restart->value("phase", "") == "Restarting";
  if (!s.pod_monitors) return;
  json monitor = pod_monitor(s.key.ns, s.key.name);
  const ChildKind* kind = find_child_kind(kPodMonitorApiVersion, "PodMonitor");
  if (kind == nullptr || !s.cache.serves(*kind)) {
    plan.kinds_not_served.push_back("PodMonitor " + s.key.name + ": the API server does not serve " +
                                    (kind ? kind->resource.to_string() : std::string("PodMonitor")) +
                                    " (install the Prometheus Operator's CustomResourceDefinitions)");
    plan.plan_in_full = true;
    return;
  }
  set_controller_owner(monitor, dgd);
  desired.push_back(std::move(monitor));
}

}  // namespace dgd::reconcile
