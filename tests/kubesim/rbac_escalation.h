// kube-sim RBAC: escalation prevention on writes of RBAC objects, as the real
// server's policy-based Role/Binding storage does
// (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased):
//  - a Role/ClusterRole may be created or updated when the user holds every
//    permission it grants (in its namespace; cluster-wide for a ClusterRole), or
//    has the `escalate` verb on roles/clusterroles;
//  - a RoleBinding/ClusterRoleBinding when the user has `bind` on the referenced
//    role, or holds every permission of that role (404 if it does not exist).
// Otherwise 403 with the apiserver's message ("... is attempting to grant RBAC
// permissions not currently held: ..."). system:masters members and users RBAC is
// not enforced for (Authorizer::enforced_for) are not checked.
#pragma once

#include "kubesim/http_types.h"
#include "kubesim/rbac_authorizer.h"
#include "kubesim/resource_registry.h"
#include "kubesim/store.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace kubesim::rbac {

// Throws ApiError 403 (or 404 for a binding to a missing role) when writing
// `object` (the RBAC object as it will be stored) would escalate.
void check_escalation(const Authorizer& authz, const Identity& id, const ResourceType& t, const std::string& ns,
                      const nlohmann::json& object);

// The hook the API server calls before a create/update/patch by a user RBAC is
// enforced for (others return at once):
//  - a server-side apply that would create the object also needs `create` (403);
//  - for RBAC kinds, computes the object the write will store (create/update: the
//    body; patch: the patch applied to the stored object, as the API server will
//    apply it) and calls check_escalation. Errors of the body or patch propagate as
//    the API server would raise them.
void admit_write(const Authorizer& authz, Store& store, const Identity& id, const ResourceType& t,
                 const std::string& verb, const std::string& ns, const std::string& name, const std::string& body,
                 const std::string& content_type, const std::map<std::string, std::string>& query,
                 const std::string& field_manager);

}  // namespace kubesim::rbac
