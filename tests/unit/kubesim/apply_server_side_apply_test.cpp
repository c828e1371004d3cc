// kube-sim's server-side apply: scenarios from the Kubernetes documentation
// (reference/using-api/server-side-apply: conflicts, managers, transferring ownership,
// upgrading from client-side apply) on a Deployment typed by the OpenAPI document, and
// randomized cross-checks with the operator's holds_desired.
#include "kubesim/apply/server_side_apply.h"

#include "kubesim/api_error.h"

#include "dgd/object/desired_state.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kubesim::apply {
namespace {

using nlohmann::json;

TypeRef deploy() { return *builtin_type("apps", "v1", "Deployment"); }

ApplyOptions opts(const std::string& manager, bool force = false, const std::string& time = "2026-11-30T06:00:00Z") {
  ApplyOptions o;
  o.manager = manager;
  o.force = force;
  o.status_subresource = true;
  o.time = time;
  return o;
}

UpdateOptions update_opts(const std::string& manager, const std::string& time = "2026-11-30T06:30:00Z") {
  UpdateOptions o;
  o.manager = manager;
  o.status_subresource = true;
  o.time = time;
  return o;
}

json deployment(const char* spec) {
  json d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns"}})");
  d["spec"] = json::parse(spec);
  return d;
}

// The result of an apply that must succeed.
json applied(const json& live, const json& cfg, const ApplyOptions& o) {
  ApplyResult r = server_side_apply(live, cfg, deploy(), o);
  EXPECT_TRUE(r.ok()) << conflict_status(r.conflicts).dump();
  return r.object;
}

const json* entry(const json& obj, const std::string& manager, const std::string& operation = "") {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->contains("managedFields")) return nullptr;
  for (const json& e : (*meta)["managedFields"]) {
    if (e["manager"] == manager && (operation.empty() || e["operation"] == operation)) return &e;
  }
  return nullptr;
}

std::vector<std::string> conflict_fields(const ApplyResult& r) {
  std::vector<std::string> out;
  for (const auto& c : r.conflicts) out.push_back(c.manager + " " + c.field);
  std::sort(out.begin(), out.end());
  return out;
}

const char* kBase = R"({"replicas":3,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"nginx:1"}]}}})";

TEST(ServerSideApply, CreateRecordsApplyEntryWithFieldsV1) {
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  EXPECT_EQ(obj["spec"]["replicas"], 3);
  EXPECT_EQ(obj["metadata"]["name"], "web");
  ASSERT_EQ(obj["metadata"]["managedFields"].size(), 1u);
  const json& e = obj["metadata"]["managedFields"][0];
  EXPECT_EQ(e["manager"], "mgr-a");
  EXPECT_EQ(e["operation"], "Apply");
  EXPECT_EQ(e["apiVersion"], "apps/v1");
  EXPECT_EQ(e["fieldsType"], "FieldsV1");
  EXPECT_EQ(e["time"], "2026-11-30T06:00:00Z");
  EXPECT_FALSE(e.contains("subresource"));
  // Shape as the apiserver writes it: leaves, map entries and list items; a
  // list item carries "." because it is owned itself and has children.
  EXPECT_EQ(e["fieldsV1"], json::parse(R"({"f:spec":{"f:replicas":{},"f:selector":{},
      "f:template":{"f:metadata":{"f:labels":{"f:app":{}}},
                    "f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"));
}

TEST(ServerSideApply, ServerManagedMetadataIsNeverOwned) {
  json cfg = deployment(R"({"replicas":1})");
  cfg["metadata"]["labels"] = {{"a", "b"}};
  cfg["metadata"]["uid"] = "u";
  cfg["metadata"]["resourceVersion"] = "5";
  json obj = applied(nullptr, cfg, opts("m"));
  EXPECT_EQ(entry(obj, "m")->at("fieldsV1"),
            json::parse(R"({"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:replicas":{}}})"));
}

TEST(ServerSideApply, ConflictWhenAnotherApplierOwnsADifferentValue) {
  json live = applied(nullptr, deployment(kBase), opts("mgr-a"));
  ApplyResult r = server_side_apply(live, deployment(R"({"replicas":5})"), deploy(), opts("mgr-b"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(conflict_fields(r), std::vector<std::string>{"mgr-a .spec.replicas"});
  EXPECT_EQ(r.object, live) << "a conflict changes nothing";
  json status = conflict_status(r.conflicts);
  EXPECT_EQ(status["code"], 409);
  EXPECT_EQ(status["reason"], "Conflict");
  EXPECT_EQ(status["message"], "Apply failed with 1 conflict: conflict with \"mgr-a\": .spec.replicas");
  EXPECT_EQ(status["details"]["causes"], json::parse(R"([{"reason":"FieldManagerConflict",
      "message":"conflict with \"mgr-a\"","field":".spec.replicas"}])"));
}

TEST(ServerSideApply, ForceTakesOwnership) {
  json live = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json obj = applied(live, deployment(R"({"replicas":5})"), opts("mgr-b", /*force=*/true));
  EXPECT_EQ(obj["spec"]["replicas"], 5);
  EXPECT_FALSE(entry(obj, "mgr-a")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  EXPECT_EQ(entry(obj, "mgr-b")->at("fieldsV1"), json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  // The former owner now conflicts in turn.
  ApplyResult back = server_side_apply(obj, deployment(kBase), deploy(), opts("mgr-a"));
  EXPECT_EQ(conflict_fields(back), std::vector<std::string>{"mgr-b .spec.replicas"});
}

TEST(ServerSideApply, SameValueIsSharedOwnershipWithoutConflict) {
  json live = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json obj = applied(live, deployment(R"({"replicas":3})"), opts("mgr-b"));
  EXPECT_TRUE(entry(obj, "mgr-a")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  EXPECT_TRUE(entry(obj, "mgr-b")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  // mgr-a drops the field: it stays, because mgr-b still owns it.
  json cfg = deployment(kBase);
  cfg["spec"].erase("replicas");
  obj = applied(obj, cfg, opts("mgr-a"));
  EXPECT_EQ(obj["spec"]["replicas"], 3);
  EXPECT_FALSE(entry(obj, "mgr-a")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  // Now mgr-b is the sole owner and may change it freely.
  obj = applied(obj, deployment(R"({"replicas":7})"), opts("mgr-b"));
  EXPECT_EQ(obj["spec"]["replicas"], 7);
}

TEST(ServerSideApply, OmittedFieldsAreRemovedOnReapply) {
  json cfg = deployment(kBase);
  cfg["metadata"]["labels"] = {{"a", "1"}, {"b", "2"}};
  cfg["spec"]["template"]["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "s:1"}});
  json obj = applied(nullptr, cfg, opts("mgr-a"));
  cfg["metadata"]["labels"].erase("b");
  cfg["spec"]["template"]["spec"]["containers"].erase(1);
  cfg["spec"].erase("replicas");
  obj = applied(obj, cfg, opts("mgr-a"));
  EXPECT_EQ(obj["metadata"]["labels"], json::parse(R"({"a":"1"})"));
  EXPECT_EQ(obj["spec"]["template"]["spec"]["containers"], json::parse(R"([{"name":"main","image":"nginx:1"}])"));
  EXPECT_FALSE(obj["spec"].contains("replicas"));
  EXPECT_EQ(obj["spec"]["selector"], json::parse(R"({"matchLabels":{"app":"web"}})"));
}

TEST(ServerSideApply, DroppingAllOwnedMetadataKeepsNameAndNamespace) {
  // Regression (found by the randomized test): removing the applier's last
  // labels must not prune metadata itself.
  json cfg = deployment(R"({"replicas":1})");
  cfg["metadata"]["labels"] = {{"a", "1"}};
  json obj = applied(nullptr, cfg, opts("m"));
  obj["metadata"]["uid"] = "u-1";
  json next = deployment(R"({"replicas":1})");
  obj = applied(obj, next, opts("m"));
  EXPECT_EQ(obj["metadata"]["name"], "web");
  EXPECT_EQ(obj["metadata"]["namespace"], "ns");
  EXPECT_EQ(obj["metadata"]["uid"], "u-1");
  EXPECT_FALSE(obj["metadata"].contains("labels"));
  // Even when the body omits metadata.name (the URL names the object).
  json nameless = next;
  nameless.erase("metadata");
  cfg["metadata"]["labels"] = {{"b", "2"}};
  obj = applied(obj, cfg, opts("m"));
  obj = applied(obj, nameless, opts("m"));
  EXPECT_EQ(obj["metadata"]["name"], "web");
  EXPECT_FALSE(obj["metadata"].contains("labels"));
}

TEST(ServerSideApply, FieldsSetByOthersSurviveTheAppliersRemovals) {
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  // An Update by another client sets a pod-level field in mgr-a's template.
  json edited = obj;
  edited["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 5;
  obj = record_update(obj, edited, deploy(), update_opts("kubectl-edit"));
  // mgr-a stops applying the template altogether.
  obj = applied(obj, deployment(R"({"replicas":3,"selector":{"matchLabels":{"app":"web"}}})"), opts("mgr-a"));
  EXPECT_EQ(obj["spec"]["template"], json::parse(R"({"spec":{"terminationGracePeriodSeconds":5}})"))
      << "mgr-a's labels and containers go, kubectl-edit's field stays";
}

TEST(ServerSideApply, RemovedListItemTakesOthersFieldsInsideIt) {
  // Upstream prunes an item nobody owns as a whole, even if another manager
  // set a field inside it (no half containers without an image).
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json edited = obj;
  edited["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "Always";
  obj = record_update(obj, edited, deploy(), update_opts("kubectl-edit"));
  obj = applied(obj, deployment(R"({"replicas":3,"selector":{"matchLabels":{"app":"web"}},
      "template":{"spec":{"containers":[]}}})"), opts("mgr-a"));
  EXPECT_EQ(obj["spec"]["template"]["spec"]["containers"], json::array());
}

TEST(ServerSideApply, ListMapItemsAreOwnedPerKey) {
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json sidecar = deployment(R"({"template":{"spec":{"containers":[{"name":"sidecar","image":"s:1"}]}}})");
  obj = applied(obj, sidecar, opts("mgr-b"));
  auto names = [](const json& o) {
    std::vector<std::string> n;
    for (const json& c : o["spec"]["template"]["spec"]["containers"]) n.push_back(c["name"]);
    return n;
  };
  EXPECT_EQ(names(obj), (std::vector<std::string>{"main", "sidecar"}));
  // A different image on mgr-a's container conflicts at the item's field.
  ApplyResult r = server_side_apply(
      obj, deployment(R"({"template":{"spec":{"containers":[{"name":"main","image":"nginx:2"}]}}})"), deploy(),
      opts("mgr-b"));
  EXPECT_EQ(conflict_fields(r),
            std::vector<std::string>{"mgr-a .spec.template.spec.containers[name=\"main\"].image"});
  // mgr-b dropping its sidecar removes only that item.
  obj = applied(obj, deployment(R"({"template":{"spec":{"containers":[]}}})"), opts("mgr-b"));
  EXPECT_EQ(names(obj), (std::vector<std::string>{"main"}));
}

TEST(ServerSideApply, PortsKeyedByContainerPortAndDefaultedProtocol) {
  json cfg = deployment(R"({"template":{"spec":{"containers":[{"name":"main","ports":[{"containerPort":8000}]}]}}})");
  json obj = applied(nullptr, cfg, opts("m"));
  // The server defaults protocol; the next apply must hit the same item.
  obj["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = "TCP";
  cfg["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"] = "http";
  obj = applied(obj, cfg, opts("m"));
  EXPECT_EQ(obj["spec"]["template"]["spec"]["containers"][0]["ports"],
            json::parse(R"([{"containerPort":8000,"protocol":"TCP","name":"http"}])"));
  EXPECT_TRUE(entry(obj, "m")->at("fieldsV1")["f:spec"]["f:template"]["f:spec"]["f:containers"]
                  ["k:{\"name\":\"main\"}"]["f:ports"]
                      .contains("k:{\"containerPort\":8000,\"protocol\":\"TCP\"}"));
}

TEST(ServerSideApply, UpdateMovesOwnershipAndLaterApplyConflicts) {
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json scaled = obj;
  scaled["spec"]["replicas"] = 10;
  obj = record_update(obj, scaled, deploy(), update_opts("kube-controller-manager"));
  const json* e = entry(obj, "kube-controller-manager", "Update");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->at("fieldsV1"), json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  EXPECT_EQ(e->at("time"), "2026-11-30T06:30:00Z");
  EXPECT_FALSE(entry(obj, "mgr-a")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  ApplyResult r = server_side_apply(obj, deployment(kBase), deploy(), opts("mgr-a"));
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].message(), "conflict with \"kube-controller-manager\" using apps/v1");
  EXPECT_EQ(conflict_status(r.conflicts)["message"],
            "Apply failed with 1 conflict: conflict with \"kube-controller-manager\" using apps/v1: .spec.replicas");
  // The operator's pattern: force.
  obj = applied(obj, deployment(kBase), opts("mgr-a", true));
  EXPECT_EQ(obj["spec"]["replicas"], 3);
  EXPECT_EQ(entry(obj, "kube-controller-manager"), nullptr) << "an emptied entry is dropped";
}

TEST(ServerSideApply, ConflictMessageGroupsSeveralManagers) {
  json obj = applied(nullptr, deployment(kBase), opts("mgr-a"));
  json cfg = deployment(R"({"paused":true})");
  obj = applied(obj, cfg, opts("mgr-b"));
  ApplyResult r = server_side_apply(
      obj, deployment(R"({"replicas":1,"paused":false,"template":{"spec":{"containers":[{"name":"main","image":"x"}]}}})"),
      deploy(), opts("mgr-c"));
  ASSERT_EQ(r.conflicts.size(), 3u);
  EXPECT_EQ(conflict_status(r.conflicts)["message"],
            "Apply failed with 3 conflicts: conflicts with \"mgr-a\":\n- .spec.replicas\n"
            "- .spec.template.spec.containers[name=\"main\"].image\nconflicts with \"mgr-b\":\n- .spec.paused");
}

TEST(ServerSideApply, ClientSideApplyUpgradeToKubectlServerSide) {
  // `kubectl apply` (client-side) creates the object with the annotation.
  json cfg = deployment(kBase);
  json created = cfg;
  created["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = cfg.dump();
  UpdateOptions csa = update_opts("kubectl-client-side-apply");
  json live = record_update(nullptr, created, deploy(), csa);
  ASSERT_NE(entry(live, "kubectl-client-side-apply", "Update"), nullptr);

  // Another manager changing replicas conflicts with the client-side applier...
  ApplyResult other = server_side_apply(live, deployment(R"({"replicas":4})"), deploy(), opts("someone"));
  EXPECT_EQ(conflict_fields(other), std::vector<std::string>{"kubectl-client-side-apply .spec.replicas"});
  EXPECT_EQ(other.conflicts[0].message(), "conflict with \"kubectl-client-side-apply\" using apps/v1");

  // ...but `kubectl apply --server-side` (manager "kubectl") takes over the
  // fields of its last-applied configuration without a conflict.
  json next = deployment(kBase);
  next["spec"]["replicas"] = 4;
  json obj = applied(live, next, opts("kubectl"));
  EXPECT_EQ(obj["spec"]["replicas"], 4);
  ASSERT_NE(entry(obj, "kubectl", "Apply"), nullptr);
  EXPECT_FALSE(entry(obj, "kubectl-client-side-apply")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  // The annotation follows the server-side applied configuration.
  json annotation =
      json::parse(obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].get<std::string>());
  EXPECT_EQ(annotation["spec"]["replicas"], 4);
}

TEST(ServerSideApply, KubectlUpgradeDoesNotCoverFieldsChangedSince) {
  json cfg = deployment(kBase);
  json created = cfg;
  created["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = cfg.dump();
  json live = record_update(nullptr, created, deploy(), update_opts("kubectl-client-side-apply"));
  json scaled = live;
  scaled["spec"]["replicas"] = 9;  // an HPA-like writer changed it after the last apply
  live = record_update(live, scaled, deploy(), update_opts("hpa"));
  json next = deployment(kBase);
  next["spec"]["replicas"] = 4;
  ApplyResult r = server_side_apply(live, next, deploy(), opts("kubectl"));
  EXPECT_EQ(conflict_fields(r), std::vector<std::string>{"hpa .spec.replicas"});
}

TEST(ServerSideApply, ObjectWithoutManagedFieldsIsAttributedToBeforeFirstApply) {
  json live = deployment(kBase);
  live["metadata"]["uid"] = "1234";
  ApplyResult r = server_side_apply(live, deployment(R"({"replicas":2})"), deploy(), opts("m"));
  EXPECT_EQ(conflict_fields(r), std::vector<std::string>{"before-first-apply .spec.replicas"});
  json obj = applied(live, deployment(R"({"replicas":3})"), opts("m"));
  ASSERT_NE(entry(obj, "before-first-apply", "Update"), nullptr);
  ASSERT_NE(entry(obj, "m", "Apply"), nullptr);
}

TEST(ServerSideApply, ToleratesOddStoredObjects) {
  json bare = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1}})");
  ApplyResult r = server_side_apply(bare, deployment(R"({"replicas":2})"), deploy(), opts("m"));
  EXPECT_EQ(conflict_fields(r), std::vector<std::string>{"before-first-apply .spec.replicas"});
  json junk = bare;
  junk["metadata"] = {{"managedFields", json::parse(R"([7,{"manager":"x","operation":"Update","fieldsV1":"bad"}])")}};
  EXPECT_TRUE(server_side_apply(junk, deployment(R"({"replicas":2})"), deploy(), opts("m")).ok());
  EXPECT_NO_THROW(record_update(bare, deployment(R"({"replicas":3})"), deploy(), update_opts("u")));
}

TEST(ServerSideApply, StatusIsIgnoredOnTheMainResourceAndOwnedOnStatus) {
  json live = applied(nullptr, deployment(kBase), opts("m"));
  live["status"] = {{"replicas", 3}};
  json cfg = deployment(kBase);
  cfg["status"] = {{"replicas", 100}};
  json obj = applied(live, cfg, opts("m"));
  EXPECT_EQ(obj["status"]["replicas"], 3);
  EXPECT_FALSE(entry(obj, "m")->at("fieldsV1").contains("f:status"));

  ApplyOptions status = opts("ctrl");
  status.subresource = "status";
  json st = deployment(R"({"replicas":99})");
  st["status"] = {{"readyReplicas", 2}};
  obj = applied(obj, st, status);
  EXPECT_EQ(obj["status"]["readyReplicas"], 2);
  EXPECT_EQ(obj["spec"]["replicas"], 3) << "spec is not writable through /status";
  const json* e = entry(obj, "ctrl");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->at("subresource"), "status");
  EXPECT_EQ(e->at("fieldsV1"), json::parse(R"({"f:status":{"f:readyReplicas":{}}})"));
}

TEST(ServerSideApply, NoOpApplyKeepsTheEntryTime) {
  json obj = applied(nullptr, deployment(kBase), opts("m", false, "2026-11-30T06:00:00Z"));
  json again = applied(obj, deployment(kBase), opts("m", false, "2026-11-30T07:00:00Z"));
  EXPECT_EQ(again, obj) << "applying the same configuration must not change the object";
  json changed = applied(obj, deployment(R"({"replicas":4})"), opts("m", false, "2026-11-30T07:00:00Z"));
  EXPECT_EQ(entry(changed, "m")->at("time"), "2026-11-30T07:00:00Z");
}

TEST(ServerSideApply, QuantitiesAreCanonicalBeforeComparison) {
  json cfg = deployment(R"({"template":{"spec":{"containers":[{"name":"main",
      "resources":{"limits":{"memory":"1024Mi","cpu":"1000m"}}}]}}})");
  json obj = applied(nullptr, cfg, opts("a"));
  const json& limits = obj["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(limits, json::parse(R"({"memory":"1Gi","cpu":"1"})"));
  // The same quantity written differently by another applier is no conflict.
  json same = deployment(R"({"template":{"spec":{"containers":[{"name":"main",
      "resources":{"limits":{"memory":"1Gi"}}}]}}})");
  EXPECT_TRUE(server_side_apply(obj, same, deploy(), opts("b")).ok());
}

TEST(ServerSideApply, SetListFinalizersAreOwnedPerValue) {
  json a = deployment(R"({"replicas":1})");
  a["metadata"]["finalizers"] = {"a.example/x"};
  json obj = applied(nullptr, a, opts("a"));
  json b = deployment(R"({})");
  b["metadata"]["finalizers"] = {"b.example/y"};
  obj = applied(obj, b, opts("b"));
  EXPECT_EQ(obj["metadata"]["finalizers"], json::parse(R"(["a.example/x","b.example/y"])"));
  EXPECT_TRUE(entry(obj, "b")->at("fieldsV1")["f:metadata"]["f:finalizers"].contains("v:\"b.example/y\""));
  b["metadata"]["finalizers"] = json::array();
  obj = applied(obj, b, opts("b"));
  EXPECT_EQ(obj["metadata"]["finalizers"], json::parse(R"(["a.example/x"])"));
}

TEST(ServerSideApply, AtomicListsConflictAsAWhole) {
  json obj = applied(nullptr, deployment(R"({"template":{"spec":{"tolerations":[{"key":"a","operator":"Exists"}]}}})"),
                     opts("a"));
  ApplyResult r = server_side_apply(
      obj, deployment(R"({"template":{"spec":{"tolerations":[{"key":"b","operator":"Exists"}]}}})"), deploy(),
      opts("b"));
  EXPECT_EQ(conflict_fields(r), std::vector<std::string>{"a .spec.template.spec.tolerations"});
}

TEST(ServerSideApply, CustomResourcesUseTheCrdSchema) {
  json openapi = json::parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "services":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                  "items":{"type":"object","properties":{"name":{"type":"string"},"replicas":{"type":"integer"}}}},
      "args":{"type":"array","items":{"type":"string"}}}}}})");
  const RootType cr_type = custom_resource_type(openapi);
  const TypeRef& cr = cr_type.root;
  json live = json::parse(R"({"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment",
      "metadata":{"name":"g"},"spec":{"services":[{"name":"Frontend","replicas":1}],"args":["a"]}})");
  ApplyOptions o = opts("a");
  ApplyResult r1 = server_side_apply(nullptr, live, cr, o);
  ASSERT_TRUE(r1.ok());
  json other = json::parse(R"({"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment",
      "metadata":{"name":"g"},"spec":{"services":[{"name":"Worker","replicas":2}]}})");
  ApplyResult r2 = server_side_apply(r1.object, other, cr, opts("b"));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2.object["spec"]["services"].size(), 2u);
  json args = json::parse(R"({"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment",
      "metadata":{"name":"g"},"spec":{"args":["b"]}})");
  ApplyResult r3 = server_side_apply(r2.object, args, cr, opts("b"));
  EXPECT_EQ(conflict_fields(r3), std::vector<std::string>{"a .spec.args"}) << "CR lists are atomic by default";
}

TEST(ServerSideApply, InvalidConfigurationsAreRejected) {
  json live = applied(nullptr, deployment(kBase), opts("m"));
  auto rejects = [&](json cfg, const std::string& what) {
    try {
      server_side_apply(live, cfg, deploy(), opts("m"));
      ADD_FAILURE() << "accepted: " << cfg.dump();
    } catch (const ApiError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  json with_mf = deployment(kBase);
  with_mf["metadata"]["managedFields"] = json::array();
  rejects(with_mf, "managedFields must be nil");
  rejects(deployment(R"({"template":{"spec":{"containers":[{"image":"x"}]}}})"), "omits key field \"name\"");
  rejects(deployment(R"({"template":{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}})"), "duplicate entries");
  json svc = deployment(kBase);
  svc["kind"] = "Service";
  rejects(svc, "kind");
  EXPECT_THROW(server_side_apply(live, deployment(kBase), deploy(), opts("")), ApiError);
  EXPECT_THROW(server_side_apply(live, json::array(), deploy(), opts("m")), ApiError);
  // A quantity that does not parse is stored as given, for validation to report (422).
  json bad = applied(nullptr,
                     deployment(R"({"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"x"}}}]}}})"),
                     opts("m"));
  EXPECT_EQ(bad["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"], "x");
}

TEST(RecordUpdate, CreateOwnsEverythingAndRemovalLeavesEverySet) {
  json created = record_update(nullptr, deployment(kBase), deploy(), update_opts("kubectl-create"));
  const json* e = entry(created, "kubectl-create", "Update");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->at("apiVersion"), "apps/v1");
  EXPECT_TRUE(e->at("fieldsV1")["f:spec"].contains("f:replicas"));
  json obj = applied(created, deployment(R"({"replicas":3})"), opts("a"));  // shares replicas
  json edited = obj;
  edited["spec"].erase("replicas");
  edited["metadata"].erase("managedFields");  // a client that strips it: the server keeps the stored ones
  obj = record_update(obj, edited, deploy(), update_opts("editor"));
  EXPECT_FALSE(entry(obj, "kubectl-create")->at("fieldsV1")["f:spec"].contains("f:replicas"));
  EXPECT_EQ(entry(obj, "a"), nullptr) << "a's only field was removed";
  EXPECT_EQ(entry(obj, "editor"), nullptr) << "removing fields owns nothing";
}

TEST(RecordUpdate, ManagedFieldsCanBeResetAndUntrackedObjectsStayUntracked) {
  json obj = record_update(nullptr, deployment(kBase), deploy(), update_opts("c"));
  json reset = obj;
  reset["metadata"]["managedFields"] = json::parse("[{}]");
  json out = record_update(obj, reset, deploy(), update_opts("c"));
  EXPECT_FALSE(out["metadata"].contains("managedFields"));
  json changed = out;
  changed["spec"]["replicas"] = 1;
  EXPECT_FALSE(record_update(out, changed, deploy(), update_opts("c"))["metadata"].contains("managedFields"));
}

TEST(RecordUpdate, SameManagerAccumulatesAndTimeMovesOnlyOnChange) {
  json obj = record_update(nullptr, deployment(R"({"replicas":1})"), deploy(), update_opts("c", "T1"));
  json next = obj;
  next["spec"]["paused"] = true;
  obj = record_update(obj, next, deploy(), update_opts("c", "T2"));
  const json* e = entry(obj, "c");
  EXPECT_EQ(e->at("fieldsV1"), json::parse(R"({"f:spec":{"f:paused":{},"f:replicas":{}}})"));
  EXPECT_EQ(e->at("time"), "T2");
  json same = record_update(obj, obj, deploy(), update_opts("c", "T3"));
  EXPECT_EQ(entry(same, "c")->at("time"), "T2");
}

TEST(RecordUpdate, MapsAndListsTheWriteCreatesAreOwnedThemselves) {
  // structured-merge-diff's Compare adds the path of a map or list the write creates ("."),
  // as `kubectl create` entries show (f:labels: {".": {}, "f:app": {}}).
  json cm = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"a"}},
                          "data":{"k":"v"}})");
  json created = record_update(nullptr, cm, *builtin_type("", "v1", "ConfigMap"), update_opts("creator"));
  EXPECT_EQ(entry(created, "creator")->at("fieldsV1"),
            json::parse(R"({"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}})"));
  // Emptying the map later does not take it from its creator.
  json emptied = created;
  emptied["data"] = json::object();
  json out = record_update(created, emptied, *builtin_type("", "v1", "ConfigMap"), update_opts("editor"));
  EXPECT_EQ(entry(out, "creator")->at("fieldsV1")["f:data"], json::object());
  EXPECT_EQ(entry(out, "editor"), nullptr);
  // A struct of a typed kind may be a value in its Go zero value: no "." for .spec.
  json dep = record_update(nullptr, deployment(R"({"replicas":1,"template":{"metadata":{"labels":{"app":"w"}}}})"),
                           deploy(), update_opts("creator"));
  EXPECT_EQ(entry(dep, "creator")->at("fieldsV1")["f:spec"],
            json::parse(R"({"f:replicas":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}})"));
}

TEST(RecordUpdate, ACreateComparesWithTheKindsGoZeroValue) {
  // Deployment's zero value holds the value struct spec.strategy and a null PodSpec
  // containers: a create owns neither itself, but owns the pointer structs it fills.
  json dep = record_update(nullptr, deployment(R"({"strategy":{"rollingUpdate":{"maxSurge":1}},
      "template":{"spec":{"containers":[{"name":"c","image":"i"}],
                          "volumes":[{"name":"v","configMap":{"name":"cm"}}]}}})"),
                           deploy(), update_opts("creator"));
  const json& spec = entry(dep, "creator")->at("fieldsV1")["f:spec"];
  EXPECT_FALSE(spec["f:strategy"].contains("."));
  EXPECT_TRUE(spec["f:strategy"]["f:rollingUpdate"].contains("."));
  const json& pod = spec["f:template"]["f:spec"];
  EXPECT_FALSE(pod["f:containers"].contains("."));
  EXPECT_TRUE(pod["f:volumes"].contains("."));
  EXPECT_TRUE(pod["f:volumes"]["k:{\"name\":\"v\"}"]["f:configMap"].contains("."));
  // Refilling a map its creator emptied leaves it with the creator; removing it does not.
  json cm = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{}})");
  json created = record_update(nullptr, cm, *builtin_type("", "v1", "ConfigMap"), update_opts("creator"));
  json refilled = created;
  refilled["data"] = {{"k", "v"}};
  json out = record_update(created, refilled, *builtin_type("", "v1", "ConfigMap"), update_opts("editor"));
  EXPECT_EQ(entry(out, "creator")->at("fieldsV1"), json::parse(R"({"f:data":{}})"));
  json filled = record_update(nullptr, refilled, *builtin_type("", "v1", "ConfigMap"), update_opts("creator"));
  json removed = filled;
  removed.erase("data");
  EXPECT_EQ(entry(record_update(filled, removed, *builtin_type("", "v1", "ConfigMap"), update_opts("editor")), "creator"),
            nullptr);
}

TEST(FieldsV1Of, PredictsOwnership) {
  json cm = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"a":"b"}},
                          "data":{"k":"v","empty":""}})");
  EXPECT_EQ(fields_v1_of(cm, *builtin_type("", "v1", "ConfigMap")),
            json::parse(R"({"f:data":{"f:empty":{},"f:k":{}},"f:metadata":{"f:labels":{"f:a":{}}}})"));
}

}  // namespace
}  // namespace kubesim::apply

namespace kubesim::apply {
namespace {

// Randomized invariants over sequences of applies by three managers: after a
// successful apply the object holds the applied configuration; re-applying
// it changes nothing; a refused apply changes nothing; server-managed fields
// are never owned. Deterministic (fixed seed).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  bool coin() { return next() % 2 == 0; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[next() % v.size()]; }

 private:
  uint64_t s_;
};

json random_config(Rng& rng) {
  json cfg = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns"}})");
  if (rng.coin()) cfg["spec"]["replicas"] = static_cast<int>(rng.next() % 3) + 1;
  for (const char* l : {"a", "b", "c"}) {
    if (rng.coin()) cfg["metadata"]["labels"][l] = rng.pick<std::string>({"v1", "v2"});
  }
  if (rng.coin()) cfg["metadata"]["finalizers"] = rng.coin() ? json{"f1"} : json{"f2", "f1"};
  json containers = json::array();
  std::vector<std::string> names = {"main", "side", "log"};
  if (rng.coin()) std::swap(names[0], names[2]);
  for (const std::string& n : names) {
    if (!rng.coin()) continue;
    json c = {{"name", n}};
    if (rng.coin()) c["image"] = rng.pick<std::string>({"img:1", "img:2"});
    if (rng.coin()) c["args"] = rng.coin() ? json{"--a"} : json{"--a", "--b"};
    json env = json::array();
    for (const char* e : {"A", "B"}) {
      if (rng.coin()) env.push_back({{"name", e}, {"value", rng.pick<std::string>({"1", "2"})}});
    }
    if (!env.empty()) c["env"] = env;
    if (rng.coin()) {
      json port = {{"containerPort", rng.pick<int>({8000, 9090})}};
      if (rng.coin()) port["protocol"] = "TCP";
      c["ports"] = json::array({port});
    }
    if (rng.coin()) c["resources"]["limits"]["cpu"] = rng.pick<std::string>({"1", "1000m", "2", "500m"});
    containers.push_back(c);
  }
  if (!containers.empty()) cfg["spec"]["template"]["spec"]["containers"] = containers;
  if (rng.coin()) {
    cfg["spec"]["template"]["spec"]["tolerations"] =
        json::array({{{"key", rng.pick<std::string>({"x", "y"})}, {"operator", "Exists"}}});
  }
  return cfg;
}

// Returns whether `obj` has managedFields: an apply that owns nothing (only
// apiVersion, kind, name, namespace) leaves none, and a const operator[] on
// the missing key is undefined behaviour (nlohmann asserts without NDEBUG).
bool expect_no_server_fields_owned(const json& obj) {
  const json& md = obj.at("metadata");
  const auto mf = md.find("managedFields");
  if (mf == md.end()) return false;
  for (const json& e : *mf) {
    const json& f = e.at("fieldsV1");
    EXPECT_FALSE(f.contains("f:apiVersion") || f.contains("f:kind")) << f.dump();
    if (f.contains("f:metadata")) {
      for (const char* k : {"f:name", "f:namespace", "f:uid", "f:resourceVersion", "f:managedFields"}) {
        EXPECT_FALSE(f["f:metadata"].contains(k)) << f.dump();
      }
    }
  }
  return true;
}

TEST(ServerSideApplyProperties, RandomApplySequencesKeepTheInvariants) {
  Rng rng(0x5eed1234abcdULL);
  const std::vector<std::string> managers = {"m1", "m2", "m3"};
  int conflicts = 0, applies = 0, untracked = 0;
  for (int round = 0; round < 60; ++round) {
    json live;  // null: create on first apply
    for (int step = 0; step < 8; ++step) {
      json cfg = random_config(rng);
      // One draw per statement: function arguments are evaluated in an unspecified order
      // (g++ and clang differ), and the sequence must be the same under both.
      const std::string manager = rng.pick(managers);
      const bool force = rng.next() % 3 == 0;
      ApplyOptions o = opts(manager, force, "2026-11-30T06:00:" + std::to_string(10 + step) + "Z");
      ApplyResult r = server_side_apply(live, cfg, deploy(), o);
      if (!r.ok()) {
        ++conflicts;
        EXPECT_FALSE(o.force);
        EXPECT_EQ(r.object, live) << "a refused apply must not change the object";
        continue;
      }
      ++applies;
      auto diff = dgd::object::first_difference(r.object, cfg, dgd::object::schema_for_object(cfg));
      EXPECT_FALSE(diff.has_value()) << "round " << round << " step " << step << ": " << *diff << "\ncfg "
                                     << cfg.dump() << "\nresult " << r.object.dump();
      ApplyResult again = server_side_apply(r.object, cfg, deploy(), o);
      ASSERT_TRUE(again.ok()) << conflict_status(again.conflicts).dump();
      EXPECT_EQ(again.object, r.object) << "re-applying must be a no-op";
      if (!expect_no_server_fields_owned(r.object)) ++untracked;
      live = r.object;
    }
  }
  // The sequences exercise both outcomes.
  EXPECT_GT(conflicts, 10);
  EXPECT_GT(applies, 100);
  // And an apply that owns nothing (this seed has some): the object keeps no managedFields.
  EXPECT_GT(untracked, 0);
}

// A random part of `v`: object keys and keyed-list items dropped at random
// (order kept); atomic lists and scalars whole.
json random_subset(const json& v, Rng& rng, const std::string& key = "") {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, child] : v.items()) {
      const bool identity = k == "apiVersion" || k == "kind" || k == "name" || k == "namespace";
      if (!identity && rng.next() % 3 == 0) continue;
      out[k] = random_subset(child, rng, k);
    }
    return out;
  }
  if (v.is_array() && (key == "containers" || key == "env" || key == "ports")) {
    json out = json::array();
    for (const json& item : v) {
      if (rng.next() % 3 == 0) continue;
      json part = random_subset(item, rng);
      for (const char* k : {"name", "containerPort", "protocol"}) {
        if (item.contains(k)) part[k] = item[k];  // keep the item's key
      }
      out.push_back(part);
    }
    return out;
  }
  return v;
}

TEST(ServerSideApplyProperties, HoldsDesiredIsExactlyApplyIsANoOp) {
  // For random live objects and random desired configurations: the live
  // object holds the desired state iff a forced apply of it changes nothing.
  Rng rng(0xdecafbadULL);
  int holds = 0, differs = 0;
  for (int round = 0; round < 400; ++round) {
    json live;
    for (int step = 0; step < 3; ++step) {
      live = server_side_apply(live, random_config(rng), deploy(), opts(rng.pick<std::string>({"m1", "m2"}), true))
                 .object;
    }
    // Half the time, the desired state is a random part of the live one.
    json desired = rng.coin() ? random_subset(live, rng) : random_config(rng);
    if (desired.contains("metadata")) desired["metadata"].erase("managedFields");
    ApplyResult r = server_side_apply(live, desired, deploy(), opts("dgd-operator", true));
    ASSERT_TRUE(r.ok());
    json before = live, after = r.object;
    before["metadata"].erase("managedFields");
    after["metadata"].erase("managedFields");
    const bool held = dgd::object::holds_desired(live, desired, dgd::object::schema_for_object(desired));
    EXPECT_EQ(held, before == after) << "round " << round << "\nlive " << before.dump() << "\ndesired "
                                     << desired.dump() << "\napplied " << after.dump();
    (held ? holds : differs)++;
  }
  EXPECT_GT(holds, 100);
  EXPECT_GT(differs, 50);
}

}  // namespace
}  // namespace kubesim::apply
