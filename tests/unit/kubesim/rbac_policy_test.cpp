// RBAC rule evaluation (rbac_policy.h) and request attributes
// (rbac_authorizer.h request_attributes), cases as upstream's rbac_test.go and
// policy_comparator_test.go exercise them.
#include "kubesim/rbac_authorizer.h"
#include "kubesim/rbac_policy.h"

#include <gtest/gtest.h>

namespace kubesim::rbac {
namespace {

RequestAttributes res(std::string verb, std::string group, std::string resource, std::string sub = "",
                      std::string name = "", std::string ns = "x") {
  RequestAttributes a;
  a.resource_request = true;
  a.verb = std::move(verb);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  a.ns = std::move(ns);
  return a;
}

RequestAttributes url(std::string path, std::string verb = "get") {
  RequestAttributes a;
  a.verb = std::move(verb);
  a.path = std::move(path);
  return a;
}

PolicyRule rule(std::vector<std::string> verbs, std::vector<std::string> groups, std::vector<std::string> resources,
                std::vector<std::string> names = {}) {
  return PolicyRule{std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

TEST(RbacRuleAllows, VerbsGroupsAndResourcesMatchExactlyOrByWildcard) {
  const auto r = rule({"get", "list"}, {"apps"}, {"deployments"});
  EXPECT_TRUE(rule_allows(r, res("get", "apps", "deployments")));
  EXPECT_TRUE(rule_allows(r, res("list", "apps", "deployments")));
  EXPECT_FALSE(rule_allows(r, res("watch", "apps", "deployments")));
  EXPECT_FALSE(rule_allows(r, res("get", "", "deployments")));  // the core group is "" and distinct
  EXPECT_FALSE(rule_allows(r, res("get", "apps", "replicasets")));
  EXPECT_TRUE(rule_allows(rule({"*"}, {"*"}, {"*"}), res("deletecollection", "batch", "jobs", "status")));
}

TEST(RbacRuleAllows, ASubresourceNeedsItsOwnEntryOrStarSlashSub) {
  EXPECT_FALSE(rule_allows(rule({"update"}, {"apps"}, {"deployments"}), res("update", "apps", "deployments", "scale")));
  EXPECT_TRUE(rule_allows(rule({"update"}, {"apps"}, {"deployments/scale"}), res("update", "apps", "deployments", "scale")));
  EXPECT_FALSE(rule_allows(rule({"update"}, {"apps"}, {"deployments/scale"}), res("update", "apps", "deployments")));
  EXPECT_TRUE(rule_allows(rule({"patch"}, {"*"}, {"*/status"}), res("patch", "nvidia.com", "dynamographdeployments", "status")));
  EXPECT_FALSE(rule_allows(rule({"patch"}, {"*"}, {"*/status"}), res("patch", "apps", "deployments", "scale")));
}

TEST(RbacRuleAllows, ResourceNamesLimitNamedRequestsOnly) {
  const auto r = rule({"get", "list", "update"}, {"coordination.k8s.io"}, {"leases"}, {"dgd-operator-leader"});
  EXPECT_TRUE(rule_allows(r, res("get", "coordination.k8s.io", "leases", "", "dgd-operator-leader")));
  EXPECT_FALSE(rule_allows(r, res("get", "coordination.k8s.io", "leases", "", "other")));
  EXPECT_FALSE(rule_allows(r, res("list", "coordination.k8s.io", "leases")));  // a list has no name
}

TEST(RbacRuleAllows, NonResourceUrlsExactOrPrefixStar) {
  PolicyRule r{{"get"}, {}, {}, {}, {"/apis/*", "/version"}};
  EXPECT_TRUE(rule_allows(r, url("/apis/apps/v1")));
  EXPECT_TRUE(rule_allows(r, url("/version")));
  EXPECT_FALSE(rule_allows(r, url("/version/x")));
  EXPECT_FALSE(rule_allows(r, url("/api/v1")));
  EXPECT_FALSE(rule_allows(r, url("/apis/apps/v1", "post")));
  EXPECT_FALSE(rule_allows(r, res("get", "", "apis")));  // a URL rule never allows a resource request
}

TEST(RbacCovers, SubRulesMissingFromTheOwnersRulesAreReported) {
  const std::vector<PolicyRule> owner = {rule({"get", "list", "watch"}, {""}, {"pods", "endpoints"}),
                                         rule({"*"}, {"nvidia.com"}, {"dynamoworkermetadatas"})};
  EXPECT_TRUE(uncovered(owner, {rule({"get", "watch"}, {""}, {"pods"}),
                                rule({"create", "delete"}, {"nvidia.com"}, {"dynamoworkermetadatas"})})
                  .empty());
  auto missing = uncovered(owner, {rule({"get", "create"}, {""}, {"pods", "secrets"})});
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(missing[0].compact_string(), R"({APIGroups:[""], Resources:["pods"], Verbs:["create"]})");
  EXPECT_EQ(missing[1].compact_string(), R"({APIGroups:[""], Resources:["secrets"], Verbs:["get"]})");
  EXPECT_EQ(missing[2].compact_string(), R"({APIGroups:[""], Resources:["secrets"], Verbs:["create"]})");
}

TEST(RbacCovers, WildcardsAndNamesCoverOnlyWhatTheyMean) {
  // A servant's "*" is only covered by an owner's "*".
  EXPECT_FALSE(uncovered({rule({"get"}, {""}, {"pods", "services"})}, {rule({"get"}, {""}, {"*"})}).empty());
  EXPECT_TRUE(uncovered({rule({"get"}, {"*"}, {"*"})}, {rule({"get"}, {"apps"}, {"deployments/scale"})}).empty());
  EXPECT_TRUE(uncovered({rule({"patch"}, {"apps"}, {"*/scale"})}, {rule({"patch"}, {"apps"}, {"deployments/scale"})}).empty());
  // Owner limited to names does not cover every name; it covers those names.
  EXPECT_FALSE(uncovered({rule({"get"}, {""}, {"configmaps"}, {"a"})}, {rule({"get"}, {""}, {"configmaps"})}).empty());
  EXPECT_TRUE(uncovered({rule({"get"}, {""}, {"configmaps"}, {"a", "b"})}, {rule({"get"}, {""}, {"configmaps"}, {"b"})}).empty());
  PolicyRule urls{{"get"}, {}, {}, {}, {"/metrics"}};
  EXPECT_FALSE(uncovered({PolicyRule{{"get"}, {}, {}, {}, {"/healthz"}}}, {urls}).empty());
  EXPECT_TRUE(uncovered({PolicyRule{{"get"}, {}, {}, {}, {"/*"}}}, {urls}).empty());
}

TEST(RbacRequestAttributes, ResourceRequestsAsTheApiserverParsesThem) {
  auto a = request_attributes("GET", "/api/v1/namespaces/x/pods", {});
  EXPECT_TRUE(a.resource_request);
  EXPECT_EQ(a.verb, "list");
  EXPECT_EQ(a.ns, "x");
  EXPECT_EQ(a.resource, "pods");

  EXPECT_EQ(request_attributes("GET", "/api/v1/namespaces/x/pods", {{"watch", "true"}}).verb, "watch");
  EXPECT_EQ(request_attributes("GET", "/api/v1/namespaces/x/pods", {{"watch", "1"}}).verb, "watch");
  EXPECT_EQ(request_attributes("GET", "/api/v1/watch/namespaces/x/pods", {}).verb, "watch");
  a = request_attributes("GET", "/api/v1/namespaces/x/pods", {{"fieldSelector", "metadata.name=p1"}});
  EXPECT_EQ(a.verb, "list");
  EXPECT_EQ(a.name, "p1");  // resourceNames can allow a single-object list/watch

  a = request_attributes("PUT", "/apis/apps/v1/namespaces/x/deployments/d/scale", {});
  EXPECT_EQ(a.verb, "update");
  EXPECT_EQ(a.api_group, "apps");
  EXPECT_EQ(a.combined_resource(), "deployments/scale");
  EXPECT_EQ(a.name, "d");

  a = request_attributes("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token", {});
  EXPECT_EQ(a.verb, "create");
  EXPECT_EQ(a.combined_resource(), "serviceaccounts/token");

  EXPECT_EQ(request_attributes("DELETE", "/api/v1/namespaces/x/configmaps", {}).verb, "deletecollection");
  a = request_attributes("GET", "/api/v1/namespaces/x", {});  // a namespace is in its own namespace
  EXPECT_EQ(a.resource, "namespaces");
  EXPECT_EQ(a.name, "x");
  EXPECT_EQ(a.ns, "x");
  a = request_attributes("PUT", "/api/v1/namespaces/x/finalize", {});
  EXPECT_EQ(a.combined_resource(), "namespaces/finalize");
  a = request_attributes("GET", "/api/v1/nodes/n1", {});
  EXPECT_EQ(a.ns, "");
  EXPECT_EQ(a.verb, "get");
}

TEST(RbacRequestAttributes, DiscoveryPathsAreNonResourceRequests) {
  for (const char* p : {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/openapi/v2"}) {
    auto a = request_attributes("GET", p, {});
    EXPECT_FALSE(a.resource_request) << p;
    EXPECT_EQ(a.verb, "get") << p;
    EXPECT_EQ(a.path, p);
  }
  EXPECT_EQ(request_attributes("POST", "/apis", {}).verb, "post");
}

TEST(RbacForbidden, MessageAndDetailsAsTheApiserverWritesThem) {
  auto e = forbidden("system:serviceaccount:ns:sa", res("list", "", "pods"));
  EXPECT_EQ(e.code(), 403);
  EXPECT_STREQ(e.what(),
               "pods is forbidden: User \"system:serviceaccount:ns:sa\" cannot list resource \"pods\" in API group \"\" "
               "in the namespace \"x\"");
  EXPECT_EQ(e.to_status()["reason"], "Forbidden");
  EXPECT_EQ(e.to_status()["details"], (nlohmann::json{{"kind", "pods"}}));

  e = forbidden("u", res("patch", "nvidia.com", "dynamographdeployments", "status", "g1", "dynamo"));
  EXPECT_STREQ(e.what(),
               "dynamographdeployments.nvidia.com \"g1\" is forbidden: User \"u\" cannot patch resource "
               "\"dynamographdeployments/status\" in API group \"nvidia.com\" in the namespace \"dynamo\"");
  EXPECT_EQ(e.to_status()["details"],
            (nlohmann::json{{"name", "g1"}, {"group", "nvidia.com"}, {"kind", "dynamographdeployments"}}));

  e = forbidden("u", res("watch", "", "nodes", "", "", ""), "RBAC: clusterrole.rbac.authorization.k8s.io \"r\" not found");
  EXPECT_STREQ(e.what(),
               "nodes is forbidden: User \"u\" cannot watch resource \"nodes\" in API group \"\" at the cluster scope: "
               "RBAC: clusterrole.rbac.authorization.k8s.io \"r\" not found");
  e = forbidden("u", url("/metrics"));
  EXPECT_STREQ(e.what(), "forbidden: User \"u\" cannot get path \"/metrics\"");
}

}  // namespace
}  // namespace kubesim::rbac
