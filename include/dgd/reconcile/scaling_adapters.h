// Scaling adapters: upstream's DynamoGraphDeploymentScalingAdapter (DGDSA), one per component
// that sets scalingAdapter, named <dgd>-<lowercase component>. The adapter owns the
// component's replicas: kubectl scale, an HPA, KEDA or the planner write its spec.replicas
// through the scale subresource, and the operator renders the component's Deployment with
// that count (desired_replicas, before render). The operator creates an adapter once, with
// spec.replicas seeded from the DGD, never writes its spec afterwards, writes its status
// (replicas, the pods' selector, lastScaleTime) and deletes it when the component opts out
// or goes (it is a controlled child: prune). An adapter that names a component it cannot
// scale is reported on itself (a Warning Event naming spec.dgdRef) and scales nothing.
// Planning is pure; execute_adapter_writes does the writes. Immutable values; stateless.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/api/dgd.h"
#include "dgd/reconcile/cluster.h"

namespace dgd::reconcile {

class EventRecorder;

inline constexpr const char* kAdapterKind = "DynamoGraphDeploymentScalingAdapter";
inline constexpr const char* kReasonAdapterCreated = "AdapterCreated";
inline constexpr const char* kReasonAdapterRefused = "InvalidScaleTarget";

// nvidia.com/v1beta1 dynamographdeploymentscalingadapters: a child kind, optional (served
// once its CRD is installed). Its informer is not label-scoped: an adapter someone else made
// that names a DGD is read too.
const ChildKind& adapter_kind();
bool is_adapter(const nlohmann::json& obj);

// The adapter's spec.dgdRef.name ("" when absent): the DGD an adapter event wakes.
std::string adapter_dgd(const nlohmann::json& adapter);

// Identity and generation of each adapter in `adapters`: a pass whose memo recorded another
// value plans in full (an adapter someone else made owns no ownerReference to the DGD, so
// the memo's child records do not see it).
std::string adapters_fingerprint(const std::vector<nlohmann::json>& adapters);

// Component name -> spec.replicas of the adapters that scale a component of `dgd`: those
// named <dgd>-<lowercase component> whose spec.dgdRef names dgd and the component.
using AdapterReplicas = std::map<std::string, int32_t>;
AdapterReplicas adapter_replicas(const std::vector<nlohmann::json>& adapters, const std::string& dgd);

// The desired replica count of each component, applied to the expanded graph before it is
// rendered: a component that sets scalingAdapter and has an adapter runs the adapter's
// count; any other component the count its spec says. Every part that renders or rolls out
// a component's pods reads components[].replicas of the graph after this step.
void apply_desired_replicas(api::Dgd& graph, const AdapterReplicas& adapters);

// The adapter of each component of `graph` that sets scalingAdapter, as the operator creates
// it: labels and dgdRef as upstream, spec.replicas seeded from the component, the DGD's
// controller ownerReference placeholder (uid "", as render's children).
std::vector<nlohmann::json> desired_adapters(const api::Dgd& graph, const std::string& ns);

// The label selector of a component's pods: an adapter's status.selector (the HPA reads it
// through the scale subresource to find the pods whose utilisation it averages).
std::string component_selector(const std::string& dgd, const std::string& component);

struct AdapterPlan {
  struct Create {
    nlohmann::json adapter;  // with its controller ownerReference
    nlohmann::json status;   // written right after the create
  };
  struct StatusWrite {
    std::string name;
    nlohmann::json status;   // replicas, selector
    bool scaled = false;     // replicas changed: lastScaleTime is set too
  };
  struct Refusal {
    nlohmann::json adapter;
    std::string message;     // "spec.dgdRef...: ..."
  };
  std::vector<Create> create;
  std::vector<StatusWrite> status;
  std::vector<Refusal> refused;
  bool empty() const { return create.empty() && status.empty() && refused.empty(); }
};

// What to write about the adapters of DGD ns/`dgd` (uid `dgd_uid`; its expanded `graph`,
// after apply_desired_replicas): `adapters` are the cached ones naming it
// (spec.dgdRef.name), `to_create` the desired ones the cache lacks.
AdapterPlan plan_adapters(const api::Dgd& graph, const std::string& dgd, const std::string& dgd_uid,
                          const std::vector<nlohmann::json>& adapters, std::vector<nlohmann::json> to_create);

struct AdapterWrites {
  bool stop = false;                 // leadership lost
  bool created = false;              // an adapter was created (the pass does not settle)
  std::vector<std::string> errors;   // writes that failed
};

// Creates the adapters (POST: a create never overwrites an adapter another pass made),
// writes their status, and records one Warning Event per refused adapter. `dgd` is the
// object Normal events are about; `now` the RFC 3339 time of lastScaleTime.
AdapterWrites execute_adapter_writes(const AdapterPlan& plan, const nlohmann::json& dgd, Cluster& cluster,
                                     EventRecorder& events, const std::string& id, const std::string& now);

}  // namespace dgd::reconcile
