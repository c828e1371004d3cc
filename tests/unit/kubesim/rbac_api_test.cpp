// RBAC through the API server (in process, no sockets): ServiceAccount tokens from
// the TokenRequest subresource, 403 with the apiserver's Status, bindings and their
// scopes, watch/subresource/resourceNames, the bootstrap discovery policy, policy
// changes taking effect at once, escalation prevention, and the modes.
#include "kubesim/api_server.h"
#include "kubesim/protobuf/protobuf_body.h"
#include "kubesim/rbac_tokens.h"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

using nlohmann::json;

struct Capture : ResponseWriter {
  HttpResponse resp;
  std::string chunks;
  void send(const HttpResponse& r) override { resp = r; }
  bool start_stream(int status, const std::string&) override {
    resp.status = status;
    return true;
  }
  bool write_chunk(const std::string& d) override {
    chunks += d;
    return true;
  }
  void end_stream() override {}
};

struct Reply {
  int status = 0;
  json body;
};

class RbacApiTest : public ::testing::Test {
 protected:
  explicit RbacApiTest(rbac::Mode mode = rbac::Mode::ServiceAccounts) : api(store, tokens, log, options(mode)) {
    admin_id.user = "admin";
    admin_id.groups = {"system:masters"};
    tokens.add("admin-token", admin_id);
    admin("POST", "/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "x"}}}});
    admin("POST", "/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "y"}}}});
    admin("POST", "/api/v1/namespaces/x/serviceaccounts",
          {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "sa"}}}});
  }
  static ApiServerOptions options(rbac::Mode mode) {
    ApiServerOptions o;
    o.authorization_mode = mode;
    return o;
  }

  Reply call(const std::string& method, const std::string& target, const std::string& token, const std::string& body = "",
             const std::string& content_type = "application/json") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
    if (!body.empty()) req.headers["content-type"] = content_type;
    req.headers["user-agent"] = "rbac-test/1";
    Capture out;
    api.handle(req, out);
    Reply r;
    r.status = out.resp.status;
    const std::string& text = out.resp.body.empty() ? out.chunks : out.resp.body;
    r.body = json::parse(text.substr(0, text.find('\n')), nullptr, false);
    return r;
  }
  Reply admin(const std::string& method, const std::string& target, const json& body = nullptr) {
    return call(method, target, "admin-token", body.is_null() ? "" : body.dump());
  }
  Reply as_sa(const std::string& method, const std::string& target, const json& body = nullptr,
              const std::string& content_type = "application/json") {
    return call(method, target, sa_token(), body.is_null() ? "" : body.dump(), content_type);
  }
  const std::string& sa_token() {
    if (token_.empty()) {
      Reply r = admin("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token", json::object());
      EXPECT_EQ(r.status, 201) << r.body.dump();
      token_ = r.body["status"]["token"];
    }
    return token_;
  }
  void role(const std::string& ns, const std::string& name, json rules) {
    const bool cluster = ns.empty();
    json obj = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", cluster ? "ClusterRole" : "Role"},
                {"metadata", {{"name", name}}}, {"rules", rules}};
    auto r = admin("POST", cluster ? "/apis/rbac.authorization.k8s.io/v1/clusterroles"
                                   : "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", obj);
    ASSERT_EQ(r.status, 201) << r.body.dump();
  }
  Reply bind(const std::string& ns, const std::string& name, const std::string& role_kind, const std::string& role_name,
             const std::string& by_token = "admin-token") {
    const bool cluster = ns.empty();
    json obj = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", cluster ? "ClusterRoleBinding" : "RoleBinding"},
                {"metadata", {{"name", name}}},
                {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role_name}}},
                {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "sa"}, {"namespace", "x"}}})}};
    return call("POST",
                cluster ? "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
                        : "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
                by_token, obj.dump());
  }
  static json rule(json verbs, json groups, json resources) {
    return {{"verbs", verbs}, {"apiGroups", groups}, {"resources", resources}};
  }

  ResourceRegistry registry;
  Store store{registry};
  TokenAuthenticator tokens;
  RequestLog log;
  Identity admin_id;
  ApiServer api;
  std::string token_;
};

TEST_F(RbacApiTest, TokenRequestGivesTheServiceAccountIdentity) {
  Reply tr = admin("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token",
                   {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", {{"expirationSeconds", 1200}}}});
  ASSERT_EQ(tr.status, 201) << tr.body.dump();
  EXPECT_EQ(tr.body["kind"], "TokenRequest");
  EXPECT_EQ(tr.body["spec"]["expirationSeconds"], 1200);
  EXPECT_EQ(tr.body["spec"]["audiences"], json::array({rbac::kApiAudience}));
  EXPECT_TRUE(tr.body["status"]["expirationTimestamp"].is_string());
  const std::string token = tr.body["status"]["token"];
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2) << "JWT-shaped: " << token;

  Reply who = call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", token,
                   R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  ASSERT_EQ(who.status, 201) << who.body.dump();  // system:basic-user allows it
  EXPECT_EQ(who.body["status"]["userInfo"]["username"], "system:serviceaccount:x:sa");
  EXPECT_EQ(who.body["status"]["userInfo"]["groups"],
            json::array({"system:serviceaccounts", "system:serviceaccounts:x", "system:authenticated"}));
  auto items = log.since(0)["items"];
  EXPECT_EQ(items.back()["user"], "system:serviceaccount:x:sa");
}

TEST_F(RbacApiTest, TokenRequestErrors) {
  EXPECT_EQ(admin("POST", "/api/v1/namespaces/x/serviceaccounts/nope/token", json::object()).status, 404);
  Reply r = admin("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token", {{"spec", {{"expirationSeconds", 60}}}});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["message"],
            "TokenRequest.authentication.k8s.io \"sa\" is invalid: spec.expirationSeconds: Invalid value: 60: may not "
            "specify a duration less than 10 minutes");
  // Only POST: a GET of the subresource is not served.
  EXPECT_EQ(admin("GET", "/api/v1/namespaces/x/serviceaccounts/sa/token").status, 404);
}

// What `kubectl create token sa -n x --duration 20m --audience aud1 --audience aud2
// --bound-object-kind Pod --bound-object-name p1 --bound-object-uid 0d46...` sends (kubectl 1.32, -v=8).
const std::string kKubectlTokenRequest(
    "\x6b\x38\x73\x00\x0a\x28\x0a\x18\x61\x75\x74\x68\x65\x6e\x74\x69\x63\x61\x74\x69\x6f\x6e\x2e\x6b\x38\x73\x2e\x69"
    "\x6f\x2f\x76\x31\x12\x0c\x54\x6f\x6b\x65\x6e\x52\x65\x71\x75\x65\x73\x74\x12\x5e\x0a\x10\x0a\x00\x12\x00\x1a\x00"
    "\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00\x12\x44\x0a\x04\x61\x75\x64\x31\x0a\x04\x61\x75\x64\x32\x1a\x33\x0a\x03"
    "\x50\x6f\x64\x12\x02\x76\x31\x1a\x02\x70\x31\x22\x24\x30\x64\x34\x36\x39\x31\x65\x64\x2d\x36\x35\x39\x62\x2d\x34"
    "\x39\x33\x35\x2d\x61\x38\x33\x32\x2d\x33\x35\x35\x66\x37\x37\x65\x65\x34\x37\x63\x63\x20\xb0\x09\x1a\x04\x0a\x00"
    "\x12\x00\x1a\x00\x22\x00",
    0x92);

TEST_F(RbacApiTest, KubectlsProtobufTokenRequestIsDecoded) {
  if (!protobuf_bodies_supported()) GTEST_SKIP() << "built without kubectl: no Kubernetes descriptors embedded";
  json body = rbac::token_request_body(kKubectlTokenRequest, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(body, (json{{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenRequest"},
                        {"metadata", {{"creationTimestamp", nullptr}}},
                        {"spec",
                         {{"audiences", {"aud1", "aud2"}},
                          {"expirationSeconds", 1200},
                          {"boundObjectRef",
                           {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "p1"},
                            {"uid", "0d4691ed-659b-4935-a832-355f77ee47cc"}}}}},
                        {"status", {{"expirationTimestamp", nullptr}, {"token", ""}}}}));
  EXPECT_EQ(rbac::token_request_body("", "application/vnd.kubernetes.protobuf"), json::object());
  EXPECT_THROW(rbac::token_request_body(kKubectlTokenRequest.substr(0, 60), "application/vnd.kubernetes.protobuf"),
               ApiError);
  // Through the server: the pod p1 of that uid does not exist -> 404.
  Reply r = call("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token", "admin-token", kKubectlTokenRequest,
                 "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(r.status, 404) << r.body.dump();
  EXPECT_EQ(r.body["message"], "pods \"p1\" not found");
}

TEST_F(RbacApiTest, ATokenForAnotherAudienceOrADeletedServiceAccountIsRefused) {
  Reply other = admin("POST", "/api/v1/namespaces/x/serviceaccounts/sa/token", {{"spec", {{"audiences", {"vault"}}}}});
  ASSERT_EQ(other.status, 201);
  EXPECT_EQ(call("GET", "/api", other.body["status"]["token"]).status, 401);
  const std::string token = sa_token();
  EXPECT_EQ(call("GET", "/api", token).status, 200);
  ASSERT_EQ(admin("DELETE", "/api/v1/namespaces/x/serviceaccounts/sa").status, 200);
  EXPECT_EQ(call("GET", "/api", token).status, 401);
  // A new ServiceAccount of the same name has another uid: the old token stays dead.
  admin("POST", "/api/v1/namespaces/x/serviceaccounts",
        {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "sa"}}}});
  EXPECT_EQ(call("GET", "/api", token).status, 401);
}

TEST_F(RbacApiTest, WithoutBindingsAServiceAccountIsForbiddenWithTheRealStatus) {
  Reply r = as_sa("GET", "/api/v1/namespaces/x/pods");
  ASSERT_EQ(r.status, 403);
  EXPECT_EQ(r.body, (json{{"kind", "Status"},
                          {"apiVersion", "v1"},
                          {"metadata", json::object()},
                          {"status", "Failure"},
                          {"message",
                           "pods is forbidden: User \"system:serviceaccount:x:sa\" cannot list resource \"pods\" in API "
                           "group \"\" in the namespace \"x\""},
                          {"reason", "Forbidden"},
                          {"details", {{"kind", "pods"}}},
                          {"code", 403}}));
  // The request log records the refusal with what was refused.
  auto last = log.since(0)["items"].back();
  EXPECT_EQ(last["code"], 403);
  EXPECT_EQ(last["verb"], "list");
  EXPECT_EQ(last["resource"], "pods");
  EXPECT_EQ(last["namespace"], "x");
}

TEST_F(RbacApiTest, DiscoveryIsAllowedToEveryAuthenticatedUser) {
  for (const char* p : {"/api", "/apis", "/api/v1", "/apis/apps/v1", "/version", "/openapi/v2", "/openapi/v3"})
    EXPECT_EQ(as_sa("GET", p).status, 200) << p;
  EXPECT_EQ(as_sa("GET", "/openapi/v3/apis/no.such.group/v1").status, 404);  // allowed, not served
}

TEST_F(RbacApiTest, RoleBindingGrantsInItsNamespaceClusterRoleBindingEverywhere) {
  role("x", "pod-reader", json::array({rule({"get", "list"}, {""}, {"pods"})}));
  ASSERT_EQ(bind("x", "read-pods", "Role", "pod-reader").status, 201);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/pods").status, 200);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/y/pods").status, 403);
  EXPECT_EQ(as_sa("GET", "/api/v1/pods").status, 403);  // all namespaces is the cluster scope

  role("", "node-reader", json::array({rule({"list"}, {""}, {"nodes", "pods"})}));
  ASSERT_EQ(bind("y", "nodes-in-y", "ClusterRole", "node-reader").status, 201);
  Reply r = as_sa("GET", "/api/v1/nodes");
  EXPECT_EQ(r.status, 403) << "a RoleBinding never grants cluster-scoped resources";
  EXPECT_EQ(r.body["message"],
            "nodes is forbidden: User \"system:serviceaccount:x:sa\" cannot list resource \"nodes\" in API group \"\" at "
            "the cluster scope");
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/y/pods").status, 200);  // ClusterRole through a RoleBinding: in y
  ASSERT_EQ(bind("", "nodes-everywhere", "ClusterRole", "node-reader").status, 201);
  EXPECT_EQ(as_sa("GET", "/api/v1/nodes").status, 200);
  EXPECT_EQ(as_sa("GET", "/api/v1/pods").status, 200);
}

TEST_F(RbacApiTest, WatchIsItsOwnVerb) {
  role("x", "list-only", json::array({rule({"list"}, {""}, {"configmaps"})}));
  ASSERT_EQ(bind("x", "b", "Role", "list-only").status, 201);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/configmaps").status, 200);
  Reply r = as_sa("GET", "/api/v1/namespaces/x/configmaps?watch=true&timeoutSeconds=1");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body["message"].get<std::string>().find("cannot watch resource \"configmaps\""), std::string::npos);
  EXPECT_EQ(as_sa("GET", "/api/v1/watch/namespaces/x/configmaps?timeoutSeconds=1").status, 403);
}

TEST_F(RbacApiTest, SubresourcesNeedTheirOwnRules) {
  admin("POST", "/apis/apps/v1/namespaces/x/deployments",
        {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "d"}}},
         {"spec", {{"replicas", 1}, {"selector", {{"matchLabels", {{"app", "d"}}}}},
                   {"template", {{"metadata", {{"labels", {{"app", "d"}}}}},
                                 {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}});
  role("x", "deploy", json::array({rule({"get", "update", "patch"}, {"apps"}, {"deployments"})}));
  ASSERT_EQ(bind("x", "b", "Role", "deploy").status, 201);
  EXPECT_EQ(as_sa("GET", "/apis/apps/v1/namespaces/x/deployments/d").status, 200);
  Reply r = as_sa("PATCH", "/apis/apps/v1/namespaces/x/deployments/d/scale", {{"spec", {{"replicas", 3}}}},
                  "application/merge-patch+json");
  ASSERT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "deployments.apps \"d\" is forbidden: User \"system:serviceaccount:x:sa\" cannot patch resource "
            "\"deployments/scale\" in API group \"apps\" in the namespace \"x\"");
  EXPECT_EQ(r.body["details"], (json{{"name", "d"}, {"group", "apps"}, {"kind", "deployments"}}));
  role("x", "scale", json::array({rule({"patch"}, {"apps"}, {"deployments/scale"})}));
  ASSERT_EQ(bind("x", "b2", "Role", "scale").status, 201);
  EXPECT_EQ(as_sa("PATCH", "/apis/apps/v1/namespaces/x/deployments/d/scale", {{"spec", {{"replicas", 3}}}},
                  "application/merge-patch+json").status, 200);
}

TEST_F(RbacApiTest, ResourceNamesAllowOnlyThoseObjects) {
  for (const char* n : {"mine", "other"})
    admin("POST", "/api/v1/namespaces/x/configmaps",
          {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", n}}}});
  role("x", "one", json::array({{{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"configmaps"}},
                                 {"resourceNames", {"mine"}}}}));
  ASSERT_EQ(bind("x", "b", "Role", "one").status, 201);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/configmaps/mine").status, 200);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/configmaps/other").status, 403);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/configmaps").status, 403);
  Reply r = as_sa("GET", "/api/v1/namespaces/x/configmaps?fieldSelector=metadata.name%3Dmine");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["items"].size(), 1u);
}

TEST_F(RbacApiTest, PolicyChangesTakeEffectAtOnceAndMissingRolesAreNamed) {
  ASSERT_EQ(bind("x", "dangling", "ClusterRole", "not-there").status, 201);
  Reply r = as_sa("GET", "/api/v1/namespaces/x/services");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "services is forbidden: User \"system:serviceaccount:x:sa\" cannot list resource \"services\" in API group "
            "\"\" in the namespace \"x\": RBAC: clusterrole.rbac.authorization.k8s.io \"not-there\" not found");
  role("", "not-there", json::array({rule({"list"}, {""}, {"services"})}));
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/services").status, 200);
  ASSERT_EQ(admin("DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/rolebindings/dangling").status, 200);
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/services").status, 403);
}

TEST_F(RbacApiTest, CreatingARoleWithPermissionsNotHeldIsForbiddenUnlessEscalate) {
  role("x", "role-writer", json::array({rule({"create", "update", "patch", "get"}, {"rbac.authorization.k8s.io"},
                                             {"roles"}),
                                        rule({"get", "list"}, {""}, {"pods"})}));
  ASSERT_EQ(bind("x", "b", "Role", "role-writer").status, 201);
  json worker = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"}, {"metadata", {{"name", "worker"}}},
                 {"rules", json::array({rule({"get", "list"}, {""}, {"pods"})})}};
  EXPECT_EQ(as_sa("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles", worker).status, 201);

  worker["metadata"]["name"] = "greedy";
  worker["rules"].push_back(rule({"get", "watch"}, {""}, {"secrets"}));
  Reply r = as_sa("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles", worker);
  ASSERT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "roles.rbac.authorization.k8s.io \"greedy\" is forbidden: user \"system:serviceaccount:x:sa\" "
            "(groups=[\"system:serviceaccounts\" \"system:serviceaccounts:x\" \"system:authenticated\"]) is attempting "
            "to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" "
            "\"watch\"]}");
  EXPECT_EQ(r.body["details"], (json{{"name", "greedy"}, {"group", "rbac.authorization.k8s.io"}, {"kind", "roles"}}));

  // The same through server-side apply and merge patch of the stored role.
  worker["metadata"]["name"] = "worker";
  Reply ssa = as_sa("PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles/worker?fieldManager=t&force=true", worker,
                    "application/apply-patch+yaml");
  EXPECT_EQ(ssa.status, 403) << ssa.body.dump();
  Reply merge = as_sa("PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles/worker",
                      {{"rules", worker["rules"]}}, "application/merge-patch+json");
  EXPECT_EQ(merge.status, 403);
  EXPECT_EQ(admin("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles/worker").body["rules"].size(), 1u);

  role("x", "escalator", json::array({{{"verbs", {"escalate"}}, {"apiGroups", {"rbac.authorization.k8s.io"}},
                                       {"resources", {"roles"}}}}));
  ASSERT_EQ(bind("x", "b2", "Role", "escalator").status, 201);
  EXPECT_EQ(as_sa("PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/x/roles/worker?fieldManager=t&force=true", worker,
                  "application/apply-patch+yaml").status, 200);
}

TEST_F(RbacApiTest, BindingNeedsBindOrTheRolesPermissions) {
  role("x", "binder", json::array({rule({"create"}, {"rbac.authorization.k8s.io"}, {"rolebindings"}),
                                   rule({"get"}, {""}, {"pods"})}));
  ASSERT_EQ(bind("x", "b", "Role", "binder").status, 201);
  role("x", "pod-get", json::array({rule({"get"}, {""}, {"pods"})}));
  role("x", "secret-get", json::array({rule({"get"}, {""}, {"secrets"})}));
  EXPECT_EQ(bind("x", "ok", "Role", "pod-get", sa_token()).status, 201);
  Reply r = bind("x", "no", "Role", "secret-get", sa_token());
  ASSERT_EQ(r.status, 403);
  EXPECT_NE(r.body["message"].get<std::string>().find(
                "rolebindings.rbac.authorization.k8s.io \"no\" is forbidden: user \"system:serviceaccount:x:sa\""),
            std::string::npos);
  EXPECT_EQ(bind("x", "missing", "Role", "not-there", sa_token()).status, 404);

  role("x", "may-bind", json::array({{{"verbs", {"bind"}}, {"apiGroups", {"rbac.authorization.k8s.io"}},
                                      {"resources", {"roles"}}, {"resourceNames", {"secret-get"}}}}));
  ASSERT_EQ(bind("x", "b2", "Role", "may-bind").status, 201);
  EXPECT_EQ(bind("x", "no", "Role", "secret-get", sa_token()).status, 201);
}

TEST_F(RbacApiTest, AnApplyThatCreatesTheObjectNeedsCreate) {
  role("x", "cm-patch", json::array({rule({"get", "patch"}, {""}, {"configmaps"})}));
  ASSERT_EQ(bind("x", "b", "Role", "cm-patch").status, 201);
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}, {"data", {{"k", "v"}}}};
  Reply r = as_sa("PATCH", "/api/v1/namespaces/x/configmaps/c?fieldManager=op", cm, "application/apply-patch+yaml");
  ASSERT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "configmaps \"c\" is forbidden: User \"system:serviceaccount:x:sa\" cannot create resource \"configmaps\" in "
            "API group \"\" in the namespace \"x\"");
  EXPECT_EQ(admin("GET", "/api/v1/namespaces/x/configmaps/c").status, 404);
  ASSERT_EQ(admin("POST", "/api/v1/namespaces/x/configmaps", cm).status, 201);
  cm["data"]["k"] = "w";
  EXPECT_EQ(as_sa("PATCH", "/api/v1/namespaces/x/configmaps/c?fieldManager=op&force=true", cm,
                  "application/apply-patch+yaml").status, 200);
}

TEST_F(RbacApiTest, ServiceAccountsModeLeavesOtherUsersAlone) {
  Identity alice;
  alice.user = "alice";
  tokens.add("alice-token", alice);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/x/secrets", "alice-token").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/x/secrets", "").status, 200);  // anonymous, no --require-auth
}

class RbacModeTest : public RbacApiTest {
 protected:
  RbacModeTest() : RbacApiTest(rbac::Mode::RBAC) {
    Identity alice;
    alice.user = "alice";
    tokens.add("alice-token", alice);
  }
};

TEST_F(RbacModeTest, EveryoneButSystemMastersIsChecked) {
  EXPECT_EQ(call("GET", "/api/v1/namespaces/x/secrets", "alice-token").status, 403);
  EXPECT_EQ(call("GET", "/api", "alice-token").status, 200);
  Reply anon = call("GET", "/api/v1/namespaces/x/secrets", "");
  EXPECT_EQ(anon.status, 403);
  EXPECT_EQ(anon.body["message"],
            "secrets is forbidden: User \"system:anonymous\" cannot list resource \"secrets\" in API group \"\" in the "
            "namespace \"x\"");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/x/secrets", "admin-token").status, 200);
}

class AlwaysAllowTest : public RbacApiTest {
 protected:
  AlwaysAllowTest() : RbacApiTest(rbac::Mode::AlwaysAllow) {}
};

TEST_F(AlwaysAllowTest, ServiceAccountTokensAuthenticateButAreNotChecked) {
  EXPECT_EQ(as_sa("GET", "/api/v1/namespaces/x/secrets").status, 200);
}

}  // namespace
}  // namespace kubesim
