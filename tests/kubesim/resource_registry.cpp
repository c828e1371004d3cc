#include "kubesim/resource_registry.h"

#include "kubesim/api_error.h"
#include "kubesim/discovery/builtin_resources.h"

#include <algorithm>
#include <set>

namespace kubesim {

using nlohmann::json;

namespace {

ResourceType make(std::string group, std::string version, std::string kind, std::string plural, bool namespaced,
                  std::vector<std::string> short_names = {}, std::vector<std::string> categories = {}) {
  ResourceType t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = std::move(kind);
  t.plural = std::move(plural);
  t.singular = t.kind;
  std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
  t.namespaced = namespaced;
  t.short_names = std::move(short_names);
  t.categories = std::move(categories);
  return t;
}


// Built-in kinds carry their subresources; a CRD kind has status and scale when declared.
std::vector<SubresourceType> subresources_of(const ResourceType& t) {
  if (!t.subresources.empty()) return t.subresources;
  std::vector<SubresourceType> out;
  if (t.has_scale) out.push_back({"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
  if (t.has_status) out.push_back({"status", t.group, t.version, t.kind, {"get", "patch", "update"}});
  return out;
}

}  // namespace

ResourceRegistry::ResourceRegistry() {
  // metadata.generation: the kinds whose REST strategy sets it (PrepareForCreate
  // Generation = 1, bumped when the spec changes) in k8s.io/kubernetes pkg/registry, release-1.32.
  static const std::set<std::string> with_generation = {
      "/replicationcontrollers", "/podtemplates", "apps/deployments", "apps/replicasets", "apps/statefulsets",
      "apps/daemonsets", "batch/jobs", "batch/cronjobs", "policy/poddisruptionbudgets", "networking.k8s.io/ingresses",
      "networking.k8s.io/ingressclasses", "networking.k8s.io/networkpolicies", "discovery.k8s.io/endpointslices",
      "admissionregistration.k8s.io/mutatingwebhookconfigurations",
      "admissionregistration.k8s.io/validatingwebhookconfigurations",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "admissionregistration.k8s.io/validatingadmissionpolicybindings", "apiextensions.k8s.io/customresourcedefinitions",
      "resource.k8s.io/deviceclasses", "resource.k8s.io/resourceslices"};
  for (auto& t : discovery::builtin_resource_types()) {
    t.has_generation = with_generation.count(t.group + "/" + t.plural) > 0;
    add(std::move(t));
  }
  // ComputeDomain is a CRD on real clusters (NVIDIA DRA driver); served here as if
  // that CRD were installed: custom-resource semantics (no strategic merge).
  ResourceType cd = make("resource.nvidia.com", "v1beta1", "ComputeDomain", "computedomains", true);
  cd.has_status = true;
  cd.has_generation = true;
  cd.builtin = false;
  cd.custom = true;
  add(cd);
}

void ResourceRegistry::add(ResourceType t) {
  types_.push_back(std::make_shared<const ResourceType>(std::move(t)));
  ++generation_;
}

ResourceTypePtr ResourceRegistry::find(const std::string& group, const std::string& version,
                                       const std::string& plural) const {
  std::shared_lock lock(mu_);
  for (const auto& t : types_)
    if (t->group == group && t->version == version && t->plural == plural) return t;
  return nullptr;
}

ResourceTypePtr ResourceRegistry::find_any_version(const std::string& group, const std::string& plural) const {
  std::shared_lock lock(mu_);
  ResourceTypePtr found;
  for (const auto& t : types_)
    if (t->group == group && t->plural == plural) {
      if (t->storage_version) return t;
      if (!found) found = t;
    }
  return found;
}

ResourceTypePtr ResourceRegistry::find_kind(const std::string& api_version, const std::string& kind) const {
  std::string group, version = api_version;
  if (auto slash = api_version.find('/'); slash != std::string::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
  std::shared_lock lock(mu_);
  for (const auto& t : types_)
    if (t->group == group && t->version == version && t->kind == kind) return t;
  return nullptr;
}

std::vector<ResourceTypePtr> ResourceRegistry::all() const {
  std::shared_lock lock(mu_);
  return types_;
}

bool ResourceRegistry::group_version_exists(const std::string& group, const std::string& version) const {
  std::shared_lock lock(mu_);
  for (const auto& t : types_)
    if (t->group == group && t->version == version) return true;
  return false;
}

uint64_t ResourceRegistry::generation() const {
  std::shared_lock lock(mu_);
  return generation_;
}

std::vector<ResourceTypePtr> ResourceRegistry::register_crd(const json& crd) {
  const std::string name = crd.value("/metadata/name"_json_pointer, std::string());
  const json& spec = crd.contains("spec") ? crd["spec"] : json::object();
  const std::string group = spec.value("group", "");
  const json names = spec.value("names", json::object());
  const std::string plural = names.value("plural", "");
  const std::string kind = names.value("kind", "");
  json causes = json::array();
  if (group.empty()) causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.group"}, {"message", "Required value"}});
  if (plural.empty())
    causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.names.plural"}, {"message", "Required value"}});
  if (kind.empty())
    causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.names.kind"}, {"message", "Required value"}});
  if (!group.empty() && !plural.empty() && name != plural + "." + group)
    causes.push_back({{"reason", "FieldValueInvalid"}, {"field", "metadata.name"},
                      {"message", "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group"}});
  const json versions = spec.value("versions", json::array());
  if (!versions.is_array() || versions.empty())
    causes.push_back({{"reason", "FieldValueRequired"}, {"field", "spec.versions"}, {"message", "Required value: must have exactly one version marked as storage version"}});
  if (!causes.empty()) throw ApiError::invalid("apiextensions.k8s.io", "CustomResourceDefinition", name, causes);

  std::vector<ResourceType> fresh;
  for (const auto& v : versions) {
    if (!v.value("served", true)) continue;
    ResourceType t;
    t.group = group;
    t.version = v.value("name", "");
    t.kind = kind;
    t.plural = plural;
    t.singular = names.value("singular", "");
    if (t.singular.empty()) {
      t.singular = kind;
      std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
    }
    t.namespaced = spec.value("scope", "Namespaced") != "Cluster";
    t.short_names = names.value("shortNames", std::vector<std::string>{});
    t.categories = names.value("categories", std::vector<std::string>{});
    const json subs = v.value("subresources", json::object());
    t.has_status = subs.contains("status");
    if (subs.contains("scale")) {
      t.has_scale = true;
      const json& sc = subs["scale"];
      t.scale_spec_path = sc.value("specReplicasPath", ".spec.replicas");
      t.scale_status_path = sc.value("statusReplicasPath", ".status.replicas");
      t.scale_selector_path = sc.value("labelSelectorPath", "");
    }
    t.has_generation = true;
    t.builtin = false;
    t.custom = true;
    t.crd_name = name;
    t.printer_columns = v.value("additionalPrinterColumns", json::array());
    if (v.contains("schema") && v["schema"].contains("openAPIV3Schema")) {
      t.schema = v["schema"]["openAPIV3Schema"];
      t.schema_text = t.schema.dump();
    }
    t.storage_version = v.value("storage", false);
    fresh.push_back(std::move(t));
  }

  std::unique_lock lock(mu_);
  for (const auto& t : types_)
    if (!t->custom && t->group == group && t->plural == plural && t->crd_name.empty() && t->kind != kind)
      throw ApiError::invalid("apiextensions.k8s.io", "CustomResourceDefinition", name,
                              json::array({{{"reason", "FieldValueInvalid"}, {"field", "spec.names.plural"},
                                            {"message", "Invalid value: \"" + plural + "\": already served by a built-in kind"}}}));
  types_.erase(std::remove_if(types_.begin(), types_.end(),
                              [&](const ResourceTypePtr& t) {
                                return t->crd_name == name || (t->group == group && t->plural == plural);
                              }),
               types_.end());
  std::vector<ResourceTypePtr> out;
  for (auto& t : fresh) {
    auto p = std::make_shared<const ResourceType>(std::move(t));
    types_.push_back(p);
    out.push_back(p);
  }
  ++generation_;
  return out;
}

void ResourceRegistry::unregister_crd(const std::string& crd_name) {
  std::unique_lock lock(mu_);
  types_.erase(std::remove_if(types_.begin(), types_.end(),
                              [&](const ResourceTypePtr& t) { return t->crd_name == crd_name; }),
               types_.end());
  ++generation_;
}

bool ResourceRegistry::unregister(const std::string& group, const std::string& plural) {
  std::unique_lock lock(mu_);
  const size_t before = types_.size();
  types_.erase(std::remove_if(types_.begin(), types_.end(),
                              [&](const ResourceTypePtr& t) { return t->group == group && t->plural == plural; }),
               types_.end());
  ++generation_;
  return types_.size() != before;
}

std::vector<std::string> ResourceRegistry::group_order() const {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& g : discovery::builtin_group_order()) {
    for (const auto& t : types_)
      if (t->group == g && seen.insert(g).second) order.push_back(g);
  }
  std::set<std::string> rest;
  for (const auto& t : types_)
    if (!seen.count(t->group)) rest.insert(t->group);
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

namespace {

// Versions of a group, preferred first: the storage version, then by name descending (v1 > v1beta1).
std::vector<std::string> versions_of(const std::vector<ResourceTypePtr>& types, const std::string& group) {
  std::vector<std::string> vs;
  std::string storage;
  for (const auto& t : types)
    if (t->group == group) {
      if (std::find(vs.begin(), vs.end(), t->version) == vs.end()) vs.push_back(t->version);
    }
  std::sort(vs.begin(), vs.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& v) { return v.find("alpha") != std::string::npos ? 0 : v.find("beta") != std::string::npos ? 1 : 2; };
    if (rank(a) != rank(b)) return rank(a) > rank(b);
    return a > b;
  });
  return vs;
}

}  // namespace

json ResourceRegistry::aggregated_discovery(bool core, const std::string& api_version) const {
  std::shared_lock lock(mu_);
  json items = json::array();
  for (const auto& g : group_order()) {
    if (core != g.empty()) continue;
    json versions = json::array();
    for (const auto& v : versions_of(types_, g)) {
      json resources = json::array();
      for (const auto& t : types_) {
        if (t->group != g || t->version != v) continue;
        // ConvertGroupVersionIntoToDiscovery: a built-in kind's APIResource leaves group
        // and version empty (the client reads them as the enclosing group version) unless
        // a subresource answers with another one (autoscaling/v1 Scale); a CRD names them.
        auto kind_of = [&](const std::string& group, const std::string& version, const std::string& kind) {
          const bool same = group == t->group && version == t->version;
          if (t->custom || !same) return json{{"group", group}, {"version", version}, {"kind", kind}};
          return json{{"group", ""}, {"version", ""}, {"kind", kind}};
        };
        json r = {{"resource", t->plural},
                  {"responseKind", kind_of(t->group, t->version, t->kind)},
                  {"scope", t->namespaced ? "Namespaced" : "Cluster"},
                  {"singularResource", t->singular},
                  {"verbs", t->verbs}};
        if (!t->short_names.empty()) r["shortNames"] = t->short_names;
        if (!t->categories.empty()) r["categories"] = t->categories;
        json subs = json::array();
        for (const auto& s : subresources_of(*t))
          subs.push_back({{"subresource", s.name},
                          {"responseKind", kind_of(s.group, s.version, s.kind)},
                          {"verbs", s.verbs}});
        if (!subs.empty()) r["subresources"] = subs;
        resources.push_back(r);
      }
      versions.push_back({{"version", v}, {"resources", resources}, {"freshness", "Current"}});
    }
    items.push_back({{"metadata", {{"name", g}, {"creationTimestamp", nullptr}}}, {"versions", versions}});
  }
  return {{"kind", "APIGroupDiscoveryList"}, {"apiVersion", api_version}, {"metadata", json::object()}, {"items", items}};
}

json ResourceRegistry::legacy_api_versions() const {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}})}};
}

json ResourceRegistry::legacy_group_list() const {
  json groups = json::array();
  {
    std::shared_lock lock(mu_);
    for (const auto& g : group_order()) {
      if (g.empty()) continue;
      json vs = json::array();
      for (const auto& v : versions_of(types_, g)) vs.push_back({{"groupVersion", g + "/" + v}, {"version", v}});
      groups.push_back({{"name", g}, {"versions", vs}, {"preferredVersion", vs[0]}});
    }
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> ResourceRegistry::legacy_group(const std::string& group) const {
  std::shared_lock lock(mu_);
  auto vers = versions_of(types_, group);
  if (vers.empty() || group.empty()) return std::nullopt;
  json vs = json::array();
  for (const auto& v : vers) vs.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return json{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", group}, {"versions", vs}, {"preferredVersion", vs[0]}};
}

std::optional<json> ResourceRegistry::legacy_resource_list(const std::string& group, const std::string& version) const {
  std::shared_lock lock(mu_);
  json resources = json::array();
  bool any = false;
  for (const auto& t : types_) {
    if (t->group != group || t->version != version) continue;
    any = true;
    json r = {{"name", t->plural}, {"singularName", t->singular}, {"namespaced", t->namespaced},
              {"kind", t->kind}, {"verbs", t->verbs}};
    if (!t->short_names.empty()) r["shortNames"] = t->short_names;
    if (!t->categories.empty()) r["categories"] = t->categories;
    if (!t->storage_version_hash.empty()) r["storageVersionHash"] = t->storage_version_hash;
    resources.push_back(r);
    // Subresources follow their resource (the list is sorted by name, as upstream's).
    for (const auto& s : subresources_of(*t)) {
      json sr = {{"name", t->plural + "/" + s.name}, {"singularName", ""}, {"namespaced", t->namespaced},
                 {"kind", s.kind}, {"verbs", s.verbs}};
      if (s.group != t->group || s.version != t->version) {
        sr["group"] = s.group;
        sr["version"] = s.version;
      }
      resources.push_back(sr);
    }
  }
  if (!any) return std::nullopt;
  return json{{"kind", "APIResourceList"}, {"apiVersion", "v1"},
              {"groupVersion", group.empty() ? version : group + "/" + version}, {"resources", resources}};
}

}  // namespace kubesim
