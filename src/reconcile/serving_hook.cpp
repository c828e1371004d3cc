// The Serving checks' side of the operator: building them from the options, and the
// reconcile hook that adds the Serving condition (serving.h).
#include <nlohmann/json.hpp>

#include "dgd/api/dgd.h"
#include "dgd/kube/rest_client.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/serving.h"
#include "dgd/reconcile/smoke_http.h"

namespace dgd::reconcile {

using nlohmann::json;

std::unique_ptr<ServingChecks> make_serving_checks(const ServingOptions& options,
                                                   std::shared_ptr<kube::RestClient> client) {
  if (!options.enabled) return nullptr;
  ServingChecks::TransportFactory factory;
  if (options.via == "apiserver-proxy") {
    factory = [client](const std::string& ns, const SmokePlan& plan) {
      return make_apiserver_proxy_smoke_transport(client, ns, plan.frontend_service, plan.frontend_port);
    };
  } else {
    factory = [](const std::string& ns, const SmokePlan& plan) {
      return make_url_smoke_transport(service_dns_url(ns, plan.frontend_service, plan.frontend_port));
    };
  }
  return std::make_unique<ServingChecks>(options, std::move(factory));
}

void add_serving_condition(ServingChecks& checks, EventRecorder& events, const json& dgd, const std::string& ns,
                           const std::string& name, const api::Dgd& user, const api::Dgd& graph, StatusInput& in) {
  api::Dgd named = graph;
  if (named.metadata.name.empty()) named.metadata.name = name;
  add_serving_condition(checks, events, dgd, ns, name, smoke_plan(user, named), in);
}

void add_serving_condition(ServingChecks& checks, EventRecorder& events, const json& dgd, const std::string& ns,
                           const std::string& name, const SmokePlan& plan, StatusInput& in) {
  bool ready = false;
  const json status = compute_status(in);
  for (const auto& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") ready = c.value("status", "") == "True";
  }
  std::optional<Condition> previous;
  if (in.previous_status != nullptr && in.previous_status->is_object()) {
    for (const auto& c : in.previous_status->value("conditions", json::array())) {
      if (c.is_object() && c.value("type", "") == kConditionServing) {
        previous = Condition{kConditionServing, c.value("status", ""), c.value("reason", ""), c.value("message", "")};
      }
    }
  }
  const std::string uid = dgd.value("/metadata/uid"_json_pointer, std::string());
  ServingChecks::Observation o = checks.observe(ns + "/" + name, ns, uid, in.generation, ready, plan, previous);
  if (o.condition) in.extra_conditions.push_back(*o.condition);
  if (o.event) events.record(dgd, std::get<0>(*o.event), std::get<1>(*o.event), std::get<2>(*o.event));
}

}  // namespace dgd::reconcile
