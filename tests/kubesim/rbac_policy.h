// kube-sim RBAC: policy rules and the two questions asked of them, as
// k8s.io/kubernetes pkg/apis/rbac/v1 (RuleAllows) and
// pkg/registry/rbac/validation (Covers, BreakdownRule) answer them:
//  - does a rule allow one request (request attributes below)?
//  - do a user's rules cover every permission of other rules (escalation check)?
// Pure functions on values; no store, no locks.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::rbac {

// What the authorizer sees of a request (k8s.io/apiserver RequestInfo).
struct RequestAttributes {
  bool resource_request = false;
  // Resource requests: get list watch create update patch delete deletecollection
  // (or bind/escalate for the RBAC checks); non-resource: the lower-case HTTP method.
  std::string verb;
  std::string path;  // non-resource requests: the URL path
  std::string api_group, api_version, resource, subresource, ns, name;

  // "pods", "deployments/scale": what a rule's resources list names.
  std::string combined_resource() const { return subresource.empty() ? resource : resource + "/" + subresource; }
};

// An rbac.authorization.k8s.io/v1 PolicyRule.
struct PolicyRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names, non_resource_urls;

  static PolicyRule from_json(const nlohmann::json& rule);  // missing/ill-typed lists are empty
  nlohmann::json to_json() const;                          // empty lists omitted
  // "{APIGroups:[""], Resources:["pods"], Verbs:["get"]}", as the apiserver prints a
  // missing permission in its escalation error.
  std::string compact_string() const;
};

std::vector<PolicyRule> rules_from_json(const nlohmann::json& rules);  // a Role's .rules

// RuleAllows: verb, group, resource (with "*" and "*/<sub>"), resourceNames; or
// nonResourceURLs (exact, "*", or a "prefix*").
bool rule_allows(const PolicyRule& rule, const RequestAttributes& a);
bool rules_allow(const std::vector<PolicyRule>& rules, const RequestAttributes& a);

// BreakdownRule: one rule per (group, resource, verb[, resourceName]) and per
// (nonResourceURL, verb).
std::vector<PolicyRule> breakdown(const PolicyRule& rule);
// Covers: the rules of `servant` that no rule of `owner` covers (empty: covered).
std::vector<PolicyRule> uncovered(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant);

}  // namespace kubesim::rbac
