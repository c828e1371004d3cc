// kube-sim: user impersonation (`kubectl --as=U --as-group=G`), as the apiserver's
// impersonation filter (k8s.io/apiserver pkg/endpoints/filters/impersonation.go) does it:
// the headers Impersonate-User, Impersonate-Group (repeatable), Impersonate-Uid and
// Impersonate-Extra-<key> ask to act as another user; each requested identity is
// authorized as verb `impersonate` on users / groups / serviceaccounts (core group;
// a ServiceAccount user name is checked as that ServiceAccount in its namespace),
// uids and userextras/<key> (authentication.k8s.io). A refusal is the usual 403,
// e.g. `users "bob" is forbidden: User "x" cannot impersonate resource "users" in API
// group "" at the cluster scope`. The impersonated user gets system:authenticated
// (system:unauthenticated for system:anonymous) unless a group says otherwise; a
// ServiceAccount without groups gets its fixed groups.
#pragma once

#include "kubesim/http_types.h"
#include "kubesim/rbac_authorizer.h"

#include <string>
#include <utility>
#include <vector>

namespace kubesim::authorization {

// The identity the request acts as: `requester` itself when no Impersonate-* header is
// present. `headers` are the request's headers in order (lower-case names, repeated
// headers kept). Throws ApiError 403 when an impersonation is not allowed, 500 (as
// upstream) for groups, uid or extras without a user.
Identity impersonate(const rbac::Authorizer& authz, const Identity& requester,
                     const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace kubesim::authorization
