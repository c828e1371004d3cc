// kube-sim cluster: the input and output of the simulated controllers.
//
// Every controller is a pure function from a Snapshot (the objects it reads, as
// the store holds them, plus the time) to a list of Writes. cluster.cpp takes the
// snapshot from the store and applies the writes; unit tests build snapshots by
// hand. A Write whose object carries metadata.resourceVersion is conditional on
// it (a stale write is dropped and the next pass recomputes it).
#pragma once

#include "kubesim/cluster/objects.h"

#include <functional>
#include <string>
#include <vector>

namespace kubesim::cluster {

struct Snapshot {
  std::vector<Json> nodes;
  std::vector<Json> pods;
  std::vector<Json> namespaces;
  std::vector<Json> deployments;
  std::vector<Json> replicasets;
  std::vector<Json> jobs;
  std::vector<Json> pvcs;
  std::vector<Json> compute_domains;
  std::vector<Json> claim_templates;
  // False when the server does not serve resourceclaimtemplates: claims are then
  // matched to ComputeDomains by template name only.
  bool claim_templates_served = true;
};

struct Write {
  enum class Op {
    kCreate,        // object is the new object
    kUpdate,        // object is the full object (main resource)
    kUpdateStatus,  // object is the full object; only its status is written
    kBind,          // pods only: object is the pod, node is the target (spec.nodeName + PodScheduled)
    kDelete,        // propagation: "" (default) or Background / Foreground / Orphan
  };
  Op op;
  std::string api_version;  // "v1", "apps/v1", ...
  std::string resource;     // plural: "pods", "replicasets", ...
  std::string ns;
  std::string name;
  Json object;
  std::string node;         // kBind
  std::string propagation;  // kDelete
  bool force = false;       // kDelete of a pod: remove now (grace period 0)
  std::string why;          // for the log line
  std::string manager = "kube-controller-manager";  // field manager recorded by the store

  static Write create(std::string api_version, std::string resource, Json obj, std::string why);
  static Write update(std::string api_version, std::string resource, Json obj, std::string why);
  static Write update_status(std::string api_version, std::string resource, Json obj, std::string why);
  static Write remove(std::string api_version, std::string resource, const Json& obj, std::string why,
                      std::string propagation = "");
};

using Writes = std::vector<Write>;

// Small injectable sources so tests are deterministic.
struct Env {
  TimePoint now;
  // Returns n characters from kNameAlphabet (generated-name suffixes).
  std::function<std::string(size_t n)> random_suffix;
};

}  // namespace kubesim::cluster
