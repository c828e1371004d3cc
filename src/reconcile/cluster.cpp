#include "dgd/reconcile/cluster.h"

#include "dgd/reconcile/child_plan.h"

namespace dgd::reconcile {
namespace {

// For Cluster implementations (test fakes) that do not model direct reads.
kube::Error not_implemented(const std::string& what) {
  kube::Error e;
  e.kind = kube::ErrorKind::kMethodNotAllowed;
  e.message = "this Cluster does not implement " + what;
  e.request = what;
  return e;
}

}  // namespace

kube::Result<std::optional<nlohmann::json>> Cluster::read(const kube::ResourceRef& resource, const std::string& ns,
                                                          const std::string& name) {
  return not_implemented("GET " + resource.to_string() + " " + ns + "/" + name);
}

kube::Result<std::vector<nlohmann::json>> Cluster::list(const kube::ResourceRef& resource, const std::string& ns,
                                                        const std::string& label_selector) {
  return not_implemented("LIST " + resource.to_string() + " " + ns + " -l " + label_selector);
}

kube::Result<nlohmann::json> Cluster::create(const ChildKind& kind, const nlohmann::json& object) {
  return not_implemented("POST " + kind.resource.to_string() + " " + object.value("/metadata/name"_json_pointer, std::string()));
}

kube::Result<nlohmann::json> Cluster::patch_status(const ChildKind& kind, const std::string& ns, const std::string& name,
                                                   const nlohmann::json& /*patch*/) {
  return not_implemented("PATCH " + kind.resource.to_string() + "/status " + ns + "/" + name);
}

std::optional<nlohmann::json> ClusterCache::get_dgd_head(const std::string& ns, const std::string& name) {
  auto o = get_dgd(ns, name);
  if (o && o->is_object()) o->erase("spec");
  return o;
}

std::optional<nlohmann::json> ClusterCache::cached_status(const ChildKind& kind, const std::string& ns,
                                                    const std::string& name) {
  auto o = cached(kind, ns, name);
  if (o) {
    auto spec = o->find("spec");
    if (spec != o->end() && spec->is_object()) spec->erase("template");
  }
  return o;
}

std::vector<CachedVersion> ClusterCache::owned_versions(const ChildKind& kind, const std::string& ns,
                                                       const std::string& owner_uid) {
  std::vector<CachedVersion> out;
  for (const auto& o : owned(kind, ns, owner_uid)) {
    const nlohmann::json& m = o.value("metadata", nlohmann::json::object());
    out.push_back({object_key(o), m.value("uid", ""), m.value("resourceVersion", "")});
  }
  return out;
}

}  // namespace dgd::reconcile
