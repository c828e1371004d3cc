#include "kubesim/discovery/builtin_resources.h"

#include "kubesim/openapi/swagger_document.h"

#include "dgd/kube/base64.h"
#include <openssl/sha.h>

#include <algorithm>
#include <map>
#include <set>

namespace kubesim::discovery {

using nlohmann::json;

namespace {

// What the OpenAPI document does not say about a resource, as a 1.32 server has it.
// Short names and categories: ShortNames()/Categories() of the REST storage in
// k8s.io/kubernetes pkg/registry/<group>/<resource>/storage/storage.go (release-1.32),
// as `kubectl api-resources` shows them (kubernetes/website#35206, kubernetes#128095).
struct ResourceFacts {
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string storage_group_version;  // when objects are stored in another version
};

const std::map<std::string, ResourceFacts>& facts() {
  static const std::vector<std::string> all = {"all"};
  static const std::vector<std::string> ext = {"api-extensions"};
  static const std::map<std::string, ResourceFacts> table = {
      {"/componentstatuses", {{"cs"}, {}, ""}},
      {"/configmaps", {{"cm"}, {}, ""}},
      {"/endpoints", {{"ep"}, {}, ""}},
      {"/events", {{"ev"}, {}, ""}},
      {"/limitranges", {{"limits"}, {}, ""}},
      {"/namespaces", {{"ns"}, {}, ""}},
      {"/nodes", {{"no"}, {}, ""}},
      {"/persistentvolumeclaims", {{"pvc"}, {}, ""}},
      {"/persistentvolumes", {{"pv"}, {}, ""}},
      {"/pods", {{"po"}, all, ""}},
      {"/replicationcontrollers", {{"rc"}, all, ""}},
      {"/resourcequotas", {{"quota"}, {}, ""}},
      {"/serviceaccounts", {{"sa"}, {}, ""}},
      {"/services", {{"svc"}, all, ""}},
      {"admissionregistration.k8s.io/mutatingwebhookconfigurations", {{}, ext, ""}},
      {"admissionregistration.k8s.io/validatingwebhookconfigurations", {{}, ext, ""}},
      {"admissionregistration.k8s.io/validatingadmissionpolicies", {{}, ext, ""}},
      {"admissionregistration.k8s.io/validatingadmissionpolicybindings", {{}, ext, ""}},
      {"apiextensions.k8s.io/customresourcedefinitions", {{"crd", "crds"}, ext, ""}},
      {"apiregistration.k8s.io/apiservices", {{}, ext, ""}},
      {"apps/daemonsets", {{"ds"}, all, ""}},
      {"apps/deployments", {{"deploy"}, all, ""}},
      {"apps/replicasets", {{"rs"}, all, ""}},
      {"apps/statefulsets", {{"sts"}, all, ""}},
      // Both versions live in one storage, autoscaling/v2 (the group's first priority).
      {"autoscaling/horizontalpodautoscalers", {{"hpa"}, all, "autoscaling/v2"}},
      {"batch/cronjobs", {{"cj"}, all, ""}},
      {"batch/jobs", {{}, all, ""}},
      {"certificates.k8s.io/certificatesigningrequests", {{"csr"}, {}, ""}},
      // events.k8s.io Events are core Events on a real server (same etcd key and hash).
      {"events.k8s.io/events", {{"ev"}, {}, "v1"}},
      {"networking.k8s.io/ingresses", {{"ing"}, {}, ""}},
      {"networking.k8s.io/networkpolicies", {{"netpol"}, {}, ""}},
      {"policy/poddisruptionbudgets", {{"pdb"}, {}, ""}},
      {"scheduling.k8s.io/priorityclasses", {{"pc"}, {}, ""}},
      {"storage.k8s.io/storageclasses", {{"sc"}, {}, ""}},
  };
  return table;
}

// Served group versions besides the GA ones.
bool served(const std::string& group, const std::string& version) {
  if (group == "resource.k8s.io") return version == "v1beta1";
  if (group == "internal.apiserver.k8s.io" || group == "storagemigration.k8s.io") return false;
  return version.find("alpha") == std::string::npos && version.find("beta") == std::string::npos;
}

struct PathParts {
  std::string group, version, resource, subresource;
  bool namespaced = false, item = false, watch = false;
};

// /api/v1[/watch][/namespaces/{namespace}]/<resource>[/{name}[/<sub>]], /apis/<g>/<v>/...
bool parse_path(const std::string& path, PathParts* out) {
  std::vector<std::string> s;
  for (size_t start = 1; start <= path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    s.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  size_t i = 0;
  if (s.size() >= 3 && s[0] == "api") {
    out->version = s[1];
    i = 2;
  } else if (s.size() >= 4 && s[0] == "apis") {
    out->group = s[1];
    out->version = s[2];
    i = 3;
  } else {
    return false;
  }
  if (s[i] == "watch") {
    out->watch = true;
    ++i;
  }
  if (i + 2 < s.size() && s[i] == "namespaces" && s[i + 1] == "{namespace}") {
    out->namespaced = true;
    i += 2;
  }
  if (i >= s.size() || s[i].empty() || s[i].front() == '{') return false;
  out->resource = s[i++];
  if (i < s.size()) {
    if (s[i] != "{name}") return false;
    out->item = true;
    ++i;
  }
  if (i < s.size()) {
    if (s[i].empty() || s[i].front() == '{') return false;
    out->subresource = s[i++];
  }
  return i == s.size();  // proxy paths with a trailing {path} are the same subresource
}

// x-kubernetes-action of one operation as the discovery verb; "" for none. A connect
// action answers each HTTP method as its verb (HEAD and OPTIONS are not listed).
std::string verb_of(const std::string& method, const std::string& action) {
  if (action == "connect") {
    if (method == "get") return "get";
    if (method == "post") return "create";
    if (method == "put") return "update";
    if (method == "patch") return "patch";
    if (method == "delete") return "delete";
    return "";
  }
  if (action == "post") return "create";
  if (action == "put") return "update";
  if (action == "get" || action == "list" || action == "patch" || action == "delete" || action == "deletecollection")
    return action;
  return "";
}

struct Collected {
  ResourceType type;
  std::set<std::string> verbs;
  bool watchable = false;
  std::map<std::string, SubresourceType> subs;
  std::map<std::string, std::set<std::string>> sub_verbs;
};

}  // namespace

std::string storage_version_hash(const std::string& group, const std::string& version, const std::string& kind) {
  const std::string gvk = group + "/" + version + "/" + kind;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return dgd::kube::base64_encode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

const std::vector<std::string>& builtin_group_order() {
  // k8s.io/kubernetes pkg/controlplane/apiserver/aggregator.go apiVersionPriorities
  // (release-1.32): descending group priority; equal priorities by name.
  static const std::vector<std::string> order = {
      "", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
      "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
      "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
      "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "flowcontrol.apiserver.k8s.io", "resource.k8s.io"};
  return order;
}

namespace {

std::vector<ResourceType> derive_builtin_resource_types() {
  const json& paths = openapi::swagger().at("paths");
  std::map<std::string, Collected> by_key;  // "group/version/resource"
  for (const auto& [path, ops] : paths.items()) {
    PathParts p;
    if (!parse_path(path, &p) || !served(p.group, p.version)) continue;
    auto [it, fresh] = by_key.try_emplace(p.group + "/" + p.version + "/" + p.resource);
    Collected& c = it->second;
    if (fresh) c.type.namespaced = false;  // namespaced once any path is under namespaces/{namespace}
    c.type.group = p.group;
    c.type.version = p.version;
    c.type.plural = p.resource;
    if (p.namespaced) c.type.namespaced = true;
    if (p.watch) {
      if (p.subresource.empty()) c.watchable = true;
      continue;
    }
    for (const auto& [method, op] : ops.items()) {
      if (!op.is_object() || !op.contains("x-kubernetes-action")) continue;
      const std::string verb = verb_of(method, op.value("x-kubernetes-action", ""));
      const json gvk = op.value("x-kubernetes-group-version-kind", json::object());
      if (p.subresource.empty()) {
        if (!verb.empty()) c.verbs.insert(verb);
        if (c.type.kind.empty() && gvk.is_object()) c.type.kind = gvk.value("kind", "");
        continue;
      }
      SubresourceType& s = c.subs[p.subresource];
      s.name = p.subresource;
      if (s.kind.empty() && gvk.is_object()) {
        s.group = gvk.value("group", "");
        s.version = gvk.value("version", "");
        s.kind = gvk.value("kind", "");
      }
      if (!verb.empty()) c.sub_verbs[p.subresource].insert(verb);
    }
  }

  std::vector<ResourceType> out;
  for (auto& [key, c] : by_key) {
    ResourceType t = std::move(c.type);
    if (t.kind.empty()) continue;
    if (c.watchable) c.verbs.insert("watch");
    t.verbs.assign(c.verbs.begin(), c.verbs.end());  // sorted, as discovery lists them
    t.singular = t.kind;
    std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
    // Review kinds (create only) are answered per request and never stored.
    t.stored = c.verbs.count("get") > 0;
    for (auto& [name, s] : c.subs) {
      auto v = c.sub_verbs[name];
      s.verbs.assign(v.begin(), v.end());
      if (name == "status") t.has_status = true;
      if (name == "scale") t.has_scale = true;
      t.subresources.push_back(std::move(s));
    }
    std::string storage_group = t.group, storage_version = t.version;
    auto f = facts().find(t.group + "/" + t.plural);
    if (f != facts().end()) {
      t.short_names = f->second.short_names;
      t.categories = f->second.categories;
      const std::string& sgv = f->second.storage_group_version;
      if (!sgv.empty()) {
        const auto slash = sgv.find('/');
        storage_group = slash == std::string::npos ? "" : sgv.substr(0, slash);
        storage_version = slash == std::string::npos ? sgv : sgv.substr(slash + 1);
      }
    }
    // Which version kube-sim's store keeps: another version of the same group shares its
    // storage (autoscaling/v1 HPAs are the v2 objects); events.k8s.io Events are kept
    // apart from core Events here, though a real server hashes them as core Events.
    t.storage_version = storage_group != t.group || storage_version == t.version;
    if (t.stored) t.storage_version_hash = storage_version_hash(storage_group, storage_version, t.kind);
    out.push_back(std::move(t));
  }
  const auto& order = builtin_group_order();
  auto rank = [&](const ResourceType& t) {
    auto it = std::find(order.begin(), order.end(), t.group);
    return it == order.end() ? order.size() : static_cast<size_t>(it - order.begin());
  };
  std::stable_sort(out.begin(), out.end(), [&](const ResourceType& a, const ResourceType& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (a.group != b.group) return a.group < b.group;
    if (a.version != b.version) return a.version > b.version;
    return a.plural < b.plural;
  });
  return out;
}

}  // namespace

std::vector<ResourceType> builtin_resource_types() {
  // Derived once: every registry (a CRD dry run builds a scratch one) starts from it.
  static const std::vector<ResourceType> derived = derive_builtin_resource_types();
  return derived;
}

}  // namespace kubesim::discovery
