// ResourceRef names a kind's REST collection (group, version, plural resource, scope) and
// builds its URL paths: core kinds live under /api/v1, groups under /apis/<group>/<version>.
// Plain values; immutable after construction.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgd::kube {

struct ResourceRef {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, lower case: "deployments"
  std::string kind;      // "Deployment" (logs, bookmarks)
  bool namespaced = true;

  // "apps/v1", or "v1" for the core group.
  std::string api_version() const;
  // "deployments.v1.apps" / "configmaps.v1": for logs and metric labels.
  std::string to_string() const;
  bool operator==(const ResourceRef&) const = default;
};

// The kinds the runtime itself and the operator use.
namespace resources {
ResourceRef config_maps();
ResourceRef secrets();
ResourceRef services();
ResourceRef pods();
ResourceRef events();
ResourceRef namespaces();
ResourceRef service_accounts();
ResourceRef persistent_volume_claims();
ResourceRef deployments();
ResourceRef jobs();
ResourceRef leases();
ResourceRef roles();
ResourceRef role_bindings();
ResourceRef custom_resource_definitions();
}  // namespace resources

// Path of the collection (name empty) or of one object, optionally a subresource.
// `ns` is ignored for cluster-scoped resources and may be empty for "all namespaces".
// Segments are percent-encoded. Example: /apis/apps/v1/namespaces/ns/deployments/web/status
std::string resource_path(const ResourceRef& ref, std::string_view ns, std::string_view name = {},
                          std::string_view subresource = {});

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

// Query parameters in insertion order; empty values are kept ("?a=").
class Query {
 public:
  Query& add(std::string key, std::string value) {
    params_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Query& add_if(bool cond, std::string key, std::string value) {
    return cond ? add(std::move(key), std::move(value)) : *this;
  }
  bool empty() const { return params_.empty(); }
  // "" or "?a=1&b=x%2Fy".
  std::string encode() const;

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

}  // namespace dgd::kube
