#include "kubesim/authorization/impersonation.h"

#include "kubesim/api_error.h"

#include <algorithm>

namespace kubesim::authorization {

namespace {

// The impersonation filter asks the whole authorizer chain, where system:masters is
// always allowed; kube-sim's unchecked users (--authorization-mode) are allowed as well.
void require(const rbac::Authorizer& authz, const Identity& requester, const rbac::RequestAttributes& a) {
  if (!authz.enforced_for(requester)) return;
  const auto d = authz.authorize(requester, a);
  if (!d.allowed) throw rbac::forbidden(requester.user.empty() ? "system:anonymous" : requester.user, a, d.reason);
}

rbac::RequestAttributes impersonate_attributes(const std::string& group, const std::string& resource,
                                               const std::string& ns, const std::string& name) {
  rbac::RequestAttributes a;
  a.resource_request = true;
  a.verb = "impersonate";
  a.api_group = group;
  a.api_version = group.empty() ? "" : "v1";
  a.resource = resource;
  a.ns = ns;
  a.name = name;
  return a;
}

}  // namespace

Identity impersonate(const rbac::Authorizer& authz, const Identity& requester,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string user, uid;
  bool has_user = false, has_uid = false, has_extra = false;
  std::vector<std::string> groups;
  std::vector<std::pair<std::string, std::string>> extras;  // key, value
  const std::string extra_prefix = "impersonate-extra-";
  for (const auto& [name, value] : headers) {
    if (name == "impersonate-user") {
      user = value;
      has_user = !value.empty();
    } else if (name == "impersonate-group") {
      groups.push_back(value);
    } else if (name == "impersonate-uid") {
      uid = value;
      has_uid = !value.empty();
    } else if (name.rfind(extra_prefix, 0) == 0) {
      extras.emplace_back(name.substr(extra_prefix.size()), value);
      has_extra = true;
    }
  }
  if (!has_user && groups.empty() && !has_uid && !has_extra) return requester;
  if (!has_user)
    throw ApiError(500, "InternalError",
                   "Internal error occurred: requested impersonation of groups, uid or extras without impersonating a user");

  Identity acting;
  const std::string sa_prefix = "system:serviceaccount:";
  // serviceaccount.SplitUsername: "system:serviceaccount:<ns>:<name>" with both parts set;
  // any other name is a User.
  std::string ns, name;
  if (user.rfind(sa_prefix, 0) == 0 && std::count(user.begin(), user.end(), ':') == 3) {
    const std::string rest = user.substr(sa_prefix.size());
    ns = rest.substr(0, rest.find(':'));
    name = rest.substr(rest.find(':') + 1);
  }
  if (!ns.empty() && !name.empty()) {
    require(authz, requester, impersonate_attributes("", "serviceaccounts", ns, name));
    acting.user = user;
    if (groups.empty()) acting.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
  } else {
    require(authz, requester, impersonate_attributes("", "users", "", user));
    acting.user = user;
  }
  for (const auto& g : groups) {
    require(authz, requester, impersonate_attributes("", "groups", "", g));
    acting.groups.push_back(g);
  }
  if (has_uid) require(authz, requester, impersonate_attributes("authentication.k8s.io", "uids", "", uid));
  for (const auto& [key, value] : extras) {
    auto a = impersonate_attributes("authentication.k8s.io", "userextras", "", value);
    a.subresource = key;
    require(authz, requester, a);
  }
  const bool anonymous = acting.user == "system:anonymous";
  const std::string implied = anonymous ? "system:unauthenticated" : "system:authenticated";
  const bool has_implied = std::any_of(acting.groups.begin(), acting.groups.end(), [&](const std::string& g) {
    return g == "system:unauthenticated" || (!anonymous && g == "system:authenticated");
  });
  if (!has_implied) acting.groups.push_back(implied);
  return acting;
}

}  // namespace kubesim::authorization
