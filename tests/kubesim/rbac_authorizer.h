// kube-sim RBAC: the authorizer. Requests are turned into attributes as the
// apiserver's RequestInfoFactory does, then allowed when a rule of a Role or
// ClusterRole bound to the user (RoleBinding in the request's namespace, or any
// ClusterRoleBinding) allows them. The bootstrap policy that every real cluster
// has is built in (not stored): system:discovery, system:basic-user and
// system:public-info-viewer bound to system:authenticated (the last one also to
// system:unauthenticated), so kubectl discovery works for every user.
//
// Who is checked depends on the mode (--authorization-mode):
//   AlwaysAllow      nobody (RBAC objects are stored only),
//   ServiceAccounts  users "system:serviceaccount:<ns>:<name>" (the default, so
//                    existing admin/anonymous/--token users keep full access),
//   RBAC             everybody.
// Members of group system:masters (the --tls admin certificate) are never checked,
// as the real server's privileged group.
//
// Thread-safe. The policy is read from the store and cached; a store listener marks
// the cache stale on any rbac.authorization.k8s.io change.
#pragma once

#include "kubesim/api_error.h"
#include "kubesim/http_types.h"
#include "kubesim/rbac_policy.h"
#include "kubesim/store.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kubesim::rbac {

enum class Mode { AlwaysAllow, ServiceAccounts, RBAC };
// "AlwaysAllow", "ServiceAccounts", "RBAC"; throws std::invalid_argument.
Mode parse_mode(const std::string& s);

// RequestInfoFactory.NewRequestInfo: /api/<v>/..., /apis/<g>/<v>/... with at least a
// resource are resource requests (namespaces/<ns>/..., watch/..., ?watch=true,
// fieldSelector metadata.name=<name> on list/watch); anything else is a
// non-resource request with the lower-case method as its verb.
RequestAttributes request_attributes(const std::string& method, const std::string& path,
                                     const std::map<std::string, std::string>& query);

// 403 Forbidden exactly as the apiserver writes it:
//   pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "x"[: reason]
// details {name, group, kind=<resource>}.
ApiError forbidden(const std::string& user, const RequestAttributes& a, const std::string& reason = "");

// "system:serviceaccount:<ns>:<name>" and its groups.
Identity service_account_identity(const std::string& ns, const std::string& name);
bool is_service_account(const Identity& id);
bool is_privileged(const Identity& id);  // member of system:masters

class Authorizer {
 public:
  Authorizer(Store& store, Mode mode);
  Mode mode() const { return mode_; }

  // Whether RBAC decides for this identity under the mode.
  bool enforced_for(const Identity& id) const;
  // Throws forbidden() when enforced_for(id) and no rule allows `a`.
  void check(const Identity& id, const RequestAttributes& a) const;

  struct Decision {
    bool allowed = false;
    // Allowed: "RBAC: allowed by ClusterRoleBinding \"b\" of ClusterRole \"r\" to User \"u\"";
    // refused: "RBAC: <resolution errors>" (e.g. a binding to a missing role) or "".
    std::string reason;
  };
  // The RBAC decision itself, regardless of the mode.
  Decision authorize(const Identity& id, const RequestAttributes& a) const;
  // RulesFor: every rule bound to `id` by ClusterRoleBindings and, if `ns` is set,
  // by RoleBindings in `ns`. Missing roles are appended to *errors.
  std::vector<PolicyRule> rules_for(const Identity& id, const std::string& ns, std::vector<std::string>* errors) const;
  // The rules of the role a binding refers to (kind Role in `ns`, or ClusterRole);
  // nullopt with *error set when it does not exist.
  std::optional<std::vector<PolicyRule>> role_rules(const std::string& kind, const std::string& name,
                                                    const std::string& ns, std::string* error) const;

  struct Binding {
    std::string ns, name, role_kind, role_name;
    nlohmann::json subjects;
  };
  struct Policy {
    std::map<std::string, std::vector<PolicyRule>> cluster_roles;  // by name
    std::map<std::string, std::vector<PolicyRule>> roles;          // by "ns/name"
    std::vector<Binding> cluster_bindings;
    std::map<std::string, std::vector<Binding>> role_bindings;  // by namespace
  };

 private:
  std::shared_ptr<const Policy> policy() const;
  // Visits each rule that applies, with the binding and the subject that bring it;
  // stops when `fn` returns true.
  bool visit(const Policy& p, const Identity& id, const std::string& ns, std::vector<std::string>* errors,
             const std::function<bool(const PolicyRule&, const Binding&, const nlohmann::json&)>& fn) const;

  Store& store_;
  Mode mode_;
  std::shared_ptr<std::atomic<uint64_t>> changes_;  // bumped by the store listener
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Policy> policy_;
  mutable uint64_t policy_changes_ = ~uint64_t{0};
};

}  // namespace kubesim::rbac
