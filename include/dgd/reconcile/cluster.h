// ClusterCache and Cluster: what the DGD reconciler reads and writes, as two narrow
// interfaces. ClusterCache is what the planner reads: the informer caches (they may lag
// the server; the watch brings the reconciler back when they catch up). Cluster adds
// the API server: quorum reads and writes, for the executor.
// The live implementation (operator.h) sits on runtime::Store and
// kube::RestClient; unit tests use an in-memory fake. Implementations must be
// safe to call from several reconcile workers at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/error.h"
#include "dgd/reconcile/child_kinds.h"

namespace dgd::reconcile {

// An object's identity and version as the cache holds it, read without parsing it.
struct CachedVersion {
  std::string key;  // object_key (child_plan.h): "group/Kind/ns/name"
  std::string uid, resource_version;
};

class ClusterCache {
 public:
  virtual ~ClusterCache() = default;

  // The cached DGD, or nullopt when it is gone.
  virtual std::optional<nlohmann::json> get_dgd(const std::string& ns, const std::string& name) = 0;
  // The same without spec (apiVersion, kind, metadata, status): what a status pass reads.
  // The default drops it from get_dgd(); the live cluster never builds it.
  virtual std::optional<nlohmann::json> get_dgd_head(const std::string& ns, const std::string& name);

  // False while the server does not serve `kind` (its CRD is missing): its
  // children are then neither read nor written.
  virtual bool serves(const ChildKind& kind) = 0;

  // Cached objects of `kind` in `ns` with an ownerReference to `owner_uid`.
  virtual std::vector<nlohmann::json> owned(const ChildKind& kind, const std::string& ns,
                                            const std::string& owner_uid) = 0;
  // The cached object of `kind` named ns/name (children carry the operator's
  // label, so only those are cached), or nullopt.
  virtual std::optional<nlohmann::json> cached(const ChildKind& kind, const std::string& ns,
                                               const std::string& name) = 0;
  // The same without spec.template (a Deployment's or Job's pod template, most of its
  // size): what a status reads. The default drops it from cached(); the live cluster
  // never builds it.
  virtual std::optional<nlohmann::json> cached_status(const ChildKind& kind, const std::string& ns,
                                                      const std::string& name);
  // owned() as identities and versions only. The default reads them from owned(); the
  // live cluster parses nothing.
  virtual std::vector<CachedVersion> owned_versions(const ChildKind& kind, const std::string& ns,
                                                    const std::string& owner_uid);

  // Every cached object of `kind` in `ns` (the scaling adapters naming a DGD, whoever made
  // them). The default returns nothing.
  virtual std::vector<nlohmann::json> cached_in(const ChildKind& /*kind*/, const std::string& /*ns*/) { return {}; }
  // The download records of the cache PVC `claim` in `ns` (model_cache.h
  // find_download_record): the cached Jobs labelled nvidia.com/model-cache=<claim>, the
  // operator's and those made outside it (the Job informer selects on that label, so a
  // record needs no LIST). A cache without them returns none.
  virtual std::vector<nlohmann::json> download_records(const std::string& /*ns*/, const std::string& /*claim*/) {
    return {};
  }

  // Placement (placement.h), from the pod and node caches. A cache without them
  // returns nothing and the DGD reports no Placement condition.
  // Cached pods of DGD ns/name (label nvidia.com/dynamo-graph-deployment-name).
  virtual std::vector<nlohmann::json> dgd_pods(const std::string& /*ns*/, const std::string& /*name*/) { return {}; }
  // Every cached pod (the operator's, all DGDs) and every node.
  virtual std::vector<nlohmann::json> cached_pods() { return {}; }
  virtual std::vector<nlohmann::json> cached_nodes() { return {}; }
};

class Cluster : public ClusterCache {
 public:
  // The DGD as the API server has it now (a quorum read, not the cache): nullopt when it
  // is gone. Read before creating children, so a cache that lags a deletion never makes
  // the operator re-create what the garbage collector is removing (upstream #8204).
  virtual kube::Result<std::optional<nlohmann::json>> read_dgd(const std::string& ns, const std::string& name) = 0;

  // The object of `resource` named ns/name as the API server has it (a GET, not a
  // cache): for objects the operator does not label, such as a model-cache PVC the
  // user made. nullopt when it does not exist. Called on rare paths only (before
  // creating a download Job, after one failed).
  virtual kube::Result<std::optional<nlohmann::json>> read(const kube::ResourceRef& resource, const std::string& ns,
                                                           const std::string& name);
  // Objects of `resource` in `ns` that match `label_selector`, from the API server (a LIST).
  virtual kube::Result<std::vector<nlohmann::json>> list(const kube::ResourceRef& resource, const std::string& ns,
                                                         const std::string& label_selector);

  // Server-side apply of `object` (fieldManager dgd-operator, force). Returns the
  // object as stored.
  virtual kube::Result<nlohmann::json> apply(const ChildKind& kind, const nlohmann::json& object) = 0;
  // POST of `object` (a scaling adapter: created once, never applied over). Returns the
  // object as stored; AlreadyExists is an error of kind kAlreadyExists.
  virtual kube::Result<nlohmann::json> create(const ChildKind& kind, const nlohmann::json& object);
  // Merge patch of ns/name's status subresource.
  virtual kube::Result<nlohmann::json> patch_status(const ChildKind& kind, const std::string& ns,
                                                    const std::string& name, const nlohmann::json& patch);
  // Sets spec.replicas of the Deployment `deployment` (a merge patch, field manager
  // dgd-operator). Returns the object as stored.
  virtual kube::Result<nlohmann::json> scale(const ChildKind& kind, const nlohmann::json& deployment,
                                             int32_t replicas) = 0;
  // Deletes `object` (propagationPolicy Background, precondition on its uid);
  // NotFound is success.
  virtual kube::Status remove(const ChildKind& kind, const nlohmann::json& object) = 0;
  // PUT .../status of the DGD (`dgd` carries metadata.resourceVersion: a stale
  // one is a Conflict).
  virtual kube::Result<nlohmann::json> update_status(const nlohmann::json& dgd) = 0;
  // POST of a core v1 Event; AlreadyExists is success.
  virtual kube::Status create_event(const nlohmann::json& event) = 0;
};

}  // namespace dgd::reconcile
