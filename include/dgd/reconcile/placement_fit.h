// Placement fit: would a pod fit on a node, and if not, what exactly is short.
//
// ClusterFit holds a view of the cluster (nodes, and the bound pods that use their
// allocatable) and evaluates a pod against every node with the default scheduler's
// filters, in its order: NodeUnschedulable, TaintToleration (NoSchedule/NoExecute),
// NodeAffinity (nodeSelector + required node affinity), NodeResourcesFit (requests,
// limits standing in for missing requests, init containers, extended resources such
// as nvidia.com/gpu and rdma/ib), InterPodAffinity (required affinity and
// anti-affinity with topologyKey, and existing pods' anti-affinity), and the NVLink
// clique rule of the NVIDIA DRA driver: pods whose resourceClaims come from one
// ResourceClaimTemplate (one ComputeDomain) share one nvidia.com/gpu.clique, which
// the first bound pod fixes. Unlike the scheduler it records EVERY failing filter
// per node, so a caller can say "no node with 4 free nvidia.com/gpu other than the
// prefill node" rather than a histogram.
//
// Used by the Placement status (placement.h, with the pods the operator caches) and
// by `dgdctl plan` (with every pod of the cluster). Pure and deterministic: ties go
// to the node name. Not thread-safe for bind(); const members may run concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// Resource amounts in milli-units (Quantity::milli_value): cpu 4 -> 4000, nvidia.com/gpu
// 4 -> 4000, memory 1Gi -> 1073741824000.
using ResourceAmounts = std::map<std::string, int64_t>;

// The pod's effective request (what NodeResourcesFit compares), and a node's allocatable.
ResourceAmounts pod_requests(const nlohmann::json& pod);
ResourceAmounts node_allocatable(const nlohmann::json& node);
// "4", "500m", "8Gi": an amount for a message.
std::string format_amount(const std::string& resource, int64_t milli);

enum class FitFilter {
  kUnschedulable,        // spec.unschedulable (cordoned)
  kTaint,                // an untolerated NoSchedule/NoExecute taint
  kNodeSelector,         // nodeSelector / required node affinity
  kResources,            // not enough free allocatable
  kPodAffinity,          // required pod affinity (e.g. same nvidia.com/gpu.clique)
  kPodAntiAffinity,      // the pod's required anti-affinity (e.g. prefill vs decode)
  kExistingAntiAffinity, // a bound pod's anti-affinity against this pod
  kClique,               // ComputeDomain clique: no clique label, or another clique
};

struct ResourceShortfall {
  std::string resource;
  int64_t wanted = 0;       // the pod's request
  int64_t allocatable = 0;  // the node's
  int64_t free = 0;         // allocatable minus what bound pods request
};

// Why one node refuses the pod. Every failing filter is listed.
struct NodeRefusal {
  std::string node;
  std::vector<FitFilter> filters;
  std::string taint;                          // kTaint: "key=value:Effect"
  std::vector<ResourceShortfall> shortfalls;  // kResources
  std::string clique;                         // kClique: the node's clique ("" = no label)
  bool fails(FitFilter f) const;
};

struct FitResult {
  std::optional<std::string> node;  // the chosen node (packing GPUs/RDMA, spreading others)
  std::vector<NodeRefusal> refused; // every node that cannot take the pod, by name
};

struct FitOptions {
  // Only nodes in this nvidia.com/gpu.clique ("" = all nodes).
  std::string only_clique;
  // Ignore the clique rule and required pod affinity (to ask "could it fit at all?").
  bool ignore_clique = false;
};

inline constexpr const char* kCliqueLabel = "nvidia.com/gpu.clique";
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

class ClusterFit {
 public:
  // `pods`: pods that use node capacity once bound (spec.nodeName set, phase not
  // Succeeded/Failed); others are ignored. Nodes are kept by name order.
  ClusterFit(std::vector<nlohmann::json> nodes, const std::vector<nlohmann::json>& pods);

  FitResult fit(const nlohmann::json& pod, const FitOptions& options = {}) const;
  // Records `pod` as bound to `node` (simulation of a schedule).
  void bind(const nlohmann::json& pod, const std::string& node);

  const std::vector<nlohmann::json>& nodes() const { return nodes_; }
  const nlohmann::json* node(const std::string& name) const;
  // The clique label of a node ("" when none).
  std::string clique_of(const std::string& node) const;
  // The clique already fixed for a ComputeDomain claim of `pod` by a bound pod ("" = none).
  std::string fixed_clique(const nlohmann::json& pod) const;
  // Names of the bound pods on `node` matching `selector` (a metav1.LabelSelector) in `ns`.
  std::vector<std::string> pods_on(const std::string& node, const nlohmann::json& selector,
                                   const std::string& ns) const;

 private:
  struct Bound {
    nlohmann::json pod;
    size_t node;
  };
  void add_bound(nlohmann::json pod, size_t node);

  std::vector<nlohmann::json> nodes_;
  std::map<std::string, size_t> index_;
  std::vector<ResourceAmounts> alloc_, used_;
  std::vector<int64_t> pod_count_;
  std::vector<Bound> bound_;
  std::map<std::string, std::string> claim_clique_;  // "ns/claimTemplate" -> clique of its first bound pod
};

// True when the labels (a JSON object, may be null) match the metav1.LabelSelector.
// A null or empty selector matches everything.
bool label_selector_matches(const nlohmann::json& selector, const nlohmann::json& labels);

// The pod's resource claim template names ("ns/name").
std::vector<std::string> claim_templates_of(const nlohmann::json& pod);

}  // namespace dgd::reconcile
