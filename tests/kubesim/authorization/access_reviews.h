// kube-sim: the create-only review kinds, answered per request and never stored, as
// k8s.io/kubernetes pkg/registry/authorization/*/rest.go and
// pkg/registry/authentication/selfsubjectreview answer them:
//   authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview,
//   LocalSubjectAccessReview (may the subject do this?), SelfSubjectRulesReview (what
//   may I do in a namespace?), authentication.k8s.io/v1 SelfSubjectReview (who am I?).
// Decisions come from the RBAC authorizer with its reasons (`RBAC: allowed by
// ClusterRoleBinding "x" of ClusterRole "y" to User "z"`); users kube-sim does not check
// under --authorization-mode (system:masters always) are allowed, as the real server's
// privileged-group authorizer allows them.
#pragma once

#include "kubesim/http_types.h"
#include "kubesim/rbac_authorizer.h"
#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::authorization {

// True when `t` is one of the kinds above.
bool is_review(const ResourceType& t);

// The created review (HTTP 201) for a POST of `body` by `requester` to kind `t` in
// namespace `ns` (LocalSubjectAccessReview only). Throws ApiError: 400 for a malformed
// request, 422 with the field errors of the upstream validation.
nlohmann::json answer_review(const ResourceType& t, const std::string& ns, const nlohmann::json& body,
                             const Identity& requester, const rbac::Authorizer& authz);

}  // namespace kubesim::authorization
