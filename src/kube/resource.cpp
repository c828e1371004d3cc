#include "dgd/kube/resource.h"

namespace dgd::kube {

std::string ResourceRef::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceRef::to_string() const {
  return group.empty() ? resource + "." + version : resource + "." + version + "." + group;
}

namespace resources {
ResourceRef config_maps() { return {"", "v1", "configmaps", "ConfigMap", true}; }
ResourceRef secrets() { return {"", "v1", "secrets", "Secret", true}; }
ResourceRef services() { return {"", "v1", "services", "Service", true}; }
ResourceRef pods() { return {"", "v1", "pods", "Pod", true}; }
ResourceRef events() { return {"", "v1", "events", "Event", true}; }
ResourceRef namespaces() { return {"", "v1", "namespaces", "Namespace", false}; }
ResourceRef service_accounts() { return {"", "v1", "serviceaccounts", "ServiceAccount", true}; }
ResourceRef persistent_volume_claims() {
  return {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true};
}
ResourceRef deployments() { return {"apps", "v1", "deployments", "Deployment", true}; }
ResourceRef jobs() { return {"batch", "v1", "jobs", "Job", true}; }
ResourceRef leases() { return {"coordination.k8s.io", "v1", "leases", "Lease", true}; }
ResourceRef roles() { return {"rbac.authorization.k8s.io", "v1", "roles", "Role", true}; }
ResourceRef role_bindings() {
  return {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true};
}
ResourceRef custom_resource_definitions() {
  return {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
          false};
}
}  // namespace resources

std::string url_encode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string resource_path(const ResourceRef& ref, std::string_view ns, std::string_view name,
                          std::string_view subresource) {
  std::string p = ref.group.empty() ? "/api/" + ref.version
                                    : "/apis/" + ref.group + "/" + ref.version;
  if (ref.namespaced && !ns.empty()) p += "/namespaces/" + url_encode(ns);
  p += "/" + ref.resource;
  if (!name.empty()) {
    p += "/" + url_encode(name);
    if (!subresource.empty()) p += "/" + url_encode(subresource);
  }
  return p;
}

std::string Query::encode() const {
  std::string q;
  for (const auto& [k, v] : params_) {
    q += q.empty() ? "?" : "&";
    q += url_encode(k) + "=" + url_encode(v);
  }
  return q;
}

}  // namespace dgd::kube
