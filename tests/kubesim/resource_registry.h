// kube-sim: the resource types the server knows (built-in kinds and CRD kinds)
// and the discovery documents built from them.
//
// A ResourceType is one group/version/resource as discovery announces it. Storage
// is keyed by group + plural (storage_key()), so every served version of a CRD
// shares one set of objects (no conversion: the stored object is returned with
// the requested apiVersion). The registry is thread-safe; lookups return copies
// (shared_ptr to immutable types), so a CRD deleted concurrently cannot dangle.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace kubesim {

// A subresource as discovery announces it (pods/log, deployments/scale, ...).
struct SubresourceType {
  std::string name;                   // "status", "scale", "log", ...
  std::string group, version, kind;   // what it answers with (autoscaling/v1 Scale, policy/v1 Eviction)
  std::vector<std::string> verbs;
};

struct ResourceType {
  std::string group;    // "" for core
  std::string version;  // "v1", "v1beta1", ...
  std::string kind;
  std::string plural;
  std::string singular;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  bool has_status = false;  // status subresource
  bool has_scale = false;   // scale subresource
  std::string scale_spec_path = ".spec.replicas";
  std::string scale_status_path = ".status.replicas";
  std::string scale_selector_path;  // e.g. ".status.selector" (CRDs) ; built-ins compute it
  bool has_generation = false;      // metadata.generation maintained
  bool builtin = true;              // strategic merge patch allowed
  bool custom = false;              // defined by a CRD (unconditional PUT rejected, pruning)
  std::string crd_name;             // the CRD that defines it
  nlohmann::json printer_columns = nlohmann::json::array();  // CRD additionalPrinterColumns
  nlohmann::json schema;            // CRD openAPIV3Schema of this version (null if none)
  std::string schema_text;          // schema.dump(), the CEL evaluator's cache key, set with it
  bool storage_version = true;
  // Built-in kinds: every subresource of the 1.32 API (discovery/builtin_resources.h);
  // empty for CRD kinds, whose discovery shows the status/scale flags above.
  std::vector<SubresourceType> subresources;
  std::string storage_version_hash;  // legacy discovery's storageVersionHash ("" for none)
  // False for create-only kinds answered per request (SelfSubjectReview, access reviews).
  bool stored = true;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  std::string storage_key() const { return group + "/" + plural; }
  std::string list_kind() const { return kind + "List"; }
  // "deployments.apps" / "pods": how error messages name the resource.
  std::string qualified() const { return group.empty() ? plural : plural + "." + group; }
};

using ResourceTypePtr = std::shared_ptr<const ResourceType>;

class ResourceRegistry {
 public:
  // Starts with the built-in kinds (see resource_registry.cpp for the list).
  ResourceRegistry();

  ResourceTypePtr find(const std::string& group, const std::string& version, const std::string& plural) const;
  // Any served version of group/plural (the storage version preferred).
  ResourceTypePtr find_any_version(const std::string& group, const std::string& plural) const;
  // By apiVersion + kind, as written in an object or an ownerReference.
  ResourceTypePtr find_kind(const std::string& api_version, const std::string& kind) const;
  std::vector<ResourceTypePtr> all() const;
  bool group_version_exists(const std::string& group, const std::string& version) const;

  // Registers (or replaces) the kinds a CRD object defines. Throws ApiError 422 on
  // an unusable CRD. Returns the registered types.
  std::vector<ResourceTypePtr> register_crd(const nlohmann::json& crd);
  void unregister_crd(const std::string& crd_name);
  // Removes every version of group/plural, as on a cluster that lacks it (e.g. the
  // ComputeDomain CRD of NVIDIA's DRA driver). False when nothing was served.
  bool unregister(const std::string& group, const std::string& plural);

  // Discovery documents.
  nlohmann::json aggregated_discovery(bool core, const std::string& api_version) const;  // /api or /apis
  nlohmann::json legacy_api_versions() const;                                           // /api
  nlohmann::json legacy_group_list() const;                                             // /apis
  std::optional<nlohmann::json> legacy_group(const std::string& group) const;            // /apis/<g>
  std::optional<nlohmann::json> legacy_resource_list(const std::string& group, const std::string& version) const;

  // Bumped on every (un)registration; lets caches of discovery invalidate.
  uint64_t generation() const;

 private:
  void add(ResourceType t);
  std::vector<std::string> group_order() const;  // core first, built-ins, then CRD groups sorted

  mutable std::shared_mutex mu_;
  std::vector<ResourceTypePtr> types_;
  uint64_t generation_ = 0;
};

}  // namespace kubesim
