// Store semantics: create/update/get/list, generation rules, optimistic
// concurrency, status subresource masking, history window (410), watch resume,
// pagination, finalizers and garbage collection order.
#include "kubesim/api_error.h"
#include "kubesim/resource_registry.h"
#include "kubesim/store.h"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

class StoreTest : public ::testing::Test {
 protected:
  ResourceRegistry reg;
  Store store{reg, StoreOptions{50}};
  const ResourceType& cm = *reg.find("", "v1", "configmaps");
  const ResourceType& deploy = *reg.find("apps", "v1", "deployments");
  const ResourceType& rs = *reg.find("apps", "v1", "replicasets");
  const ResourceType& pod = *reg.find("", "v1", "pods");
  const ResourceType& ns = *reg.find("", "v1", "namespaces");

  static json configmap(const std::string& name, json data = {{"k", "v"}}) {
    return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", data}};
  }
  static json deployment(const std::string& name, int replicas = 1) {
    return {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", name}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", name}}}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx:1"}}}}}}}}}}};
  }
  static json owned(json obj, const json& owner, bool block) {
    obj["metadata"]["ownerReferences"] = {{{"apiVersion", owner["apiVersion"]}, {"kind", owner["kind"]},
                                           {"name", owner["metadata"]["name"]}, {"uid", owner["metadata"]["uid"]},
                                           {"controller", true}, {"blockOwnerDeletion", block}}};
    return obj;
  }
  void settle_gc() {
    for (int i = 0; i < 50 && store.collect_garbage() > 0; ++i) {
    }
  }
  int code_of(const std::function<void()>& fn) {
    try {
      fn();
    } catch (const ApiError& e) {
      return e.code();
    }
    return 0;
  }
};

TEST_F(StoreTest, CreateSetsServerFieldsAndConflictsOnDuplicate) {
  json c = store.create(cm, "default", configmap("a"));
  EXPECT_FALSE(c["metadata"]["uid"].get<std::string>().empty());
  EXPECT_FALSE(c["metadata"]["creationTimestamp"].get<std::string>().empty());
  EXPECT_FALSE(c["metadata"].contains("generation"));  // ConfigMaps carry no generation
  EXPECT_EQ(c["metadata"]["namespace"], "default");
  EXPECT_EQ(code_of([&] { store.create(cm, "default", configmap("a")); }), 409);
  EXPECT_EQ(code_of([&] { store.create(cm, "nope", configmap("b")); }), 404);  // namespace missing
  json gen = configmap("");
  gen["metadata"] = {{"generateName", "x-"}};
  EXPECT_EQ(store.create(cm, "default", gen)["metadata"]["name"].get<std::string>().rfind("x-", 0), 0u);
  EXPECT_EQ(code_of([&] { store.create(cm, "default", configmap("")); }), 422);
  EXPECT_EQ(code_of([&] { store.create(cm, "default", configmap("Bad_Name")); }), 422);
}

TEST_F(StoreTest, ResourceVersionIsGlobalAndMonotonic) {
  auto a = std::stoull(store.create(cm, "default", configmap("a"))["metadata"]["resourceVersion"].get<std::string>());
  auto b = std::stoull(store.create(cm, "default", configmap("b"))["metadata"]["resourceVersion"].get<std::string>());
  EXPECT_LT(a, b);
  EXPECT_EQ(b, store.current_rv());
}

TEST_F(StoreTest, StaleUpdateIs409AndNoOpUpdateKeepsVersion) {
  json c = store.create(cm, "default", configmap("a"));
  json same = store.update(cm, "default", "a", c);
  EXPECT_EQ(same["metadata"]["resourceVersion"], c["metadata"]["resourceVersion"]);  // nothing changed
  json changed = c;
  changed["data"]["k"] = "v2";
  json after = store.update(cm, "default", "a", changed);
  EXPECT_NE(after["metadata"]["resourceVersion"], c["metadata"]["resourceVersion"]);
  changed["data"]["k"] = "v3";  // still carries the old resourceVersion
  try {
    store.update(cm, "default", "a", changed);
    FAIL() << "stale update accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 409);
    EXPECT_EQ(e.reason(), "Conflict");
    EXPECT_NE(std::string(e.what()).find("the object has been modified"), std::string::npos);
  }
}

TEST_F(StoreTest, GenerationBumpsOnlyOnSpecChanges) {
  json d = store.create(deploy, "default", deployment("web"));
  EXPECT_EQ(d["metadata"]["generation"], 1);
  d["metadata"]["labels"] = {{"x", "y"}};  // metadata only
  d = store.update(deploy, "default", "web", d);
  EXPECT_EQ(d["metadata"]["generation"], 1);
  d["status"] = {{"replicas", 5}};  // status through the main resource is ignored
  d = store.update(deploy, "default", "web", d);
  EXPECT_EQ(d["metadata"]["generation"], 1);
  EXPECT_FALSE(d["status"].contains("replicas"));
  WriteOptions status;
  status.subresource = "status";
  json s = d;
  s["status"] = {{"replicas", 5}};
  s["spec"]["replicas"] = 9;  // spec through /status is ignored
  d = store.update(deploy, "default", "web", s, status);
  EXPECT_EQ(d["metadata"]["generation"], 1);
  EXPECT_EQ(d["status"]["replicas"], 5);
  EXPECT_EQ(d["spec"]["replicas"], 1);
  d["spec"]["replicas"] = 3;
  d = store.update(deploy, "default", "web", d);
  EXPECT_EQ(d["metadata"]["generation"], 2);
  EXPECT_EQ(d["status"]["replicas"], 5);
}

TEST_F(StoreTest, DeploymentDefaults) {
  json d = store.create(deploy, "default", deployment("web"));
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"], 10);
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"], 600);
  const json& c = d["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(c["terminationMessagePath"], "/dev/termination-log");
  EXPECT_EQ(d["spec"]["template"]["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"], 30);
}

TEST_F(StoreTest, ListPaginationIsConsistentAndContinues) {
  for (int i = 0; i < 5; ++i) store.create(cm, "default", configmap("cm" + std::to_string(i)));
  ListOptions lo;
  lo.ns = "default";
  lo.limit = 2;
  std::vector<std::string> names;
  ListResult page = store.list(cm, lo);
  const uint64_t first_rv = page.rv;
  store.create(cm, "default", configmap("cm9"));  // after the first page: must not appear
  for (;;) {
    for (const auto& o : page.items) names.push_back(o["metadata"]["name"]);
    EXPECT_EQ(page.rv, first_rv);
    if (page.continue_token.empty()) break;
    lo.continue_token = page.continue_token;
    page = store.list(cm, lo);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4"}));
}

TEST_F(StoreTest, WatchResumesWithExactlyTheMissedEventsInOrder) {
  store.create(cm, "default", configmap("a"));
  const std::string from = std::to_string(store.current_rv());
  store.create(cm, "default", configmap("b"));
  json a = store.get(cm, "default", "a");
  a["data"]["k"] = "v2";
  store.update(cm, "default", "a", a);
  store.remove(cm, "default", "b");
  WatchOptions wo;
  wo.resource_version = from;
  auto w = store.watch(reg.find("", "v1", "configmaps"), wo);
  std::vector<std::string> got;
  Watcher::Delivered ev;
  while (w->next(Clock::now() + std::chrono::milliseconds(50), &ev) == Watcher::Status::Event)
    got.push_back(ev.type + " " + ev.object["metadata"]["name"].get<std::string>());
  EXPECT_EQ(got, (std::vector<std::string>{"ADDED b", "MODIFIED a", "DELETED b"}));
}

TEST_F(StoreTest, WatchOlderThanHistoryWindowIs410) {
  store.create(cm, "default", configmap("a"));
  const std::string old = std::to_string(store.current_rv());
  json a = store.get(cm, "default", "a");
  for (int i = 0; i < 60; ++i) {  // window is 50 events
    a["data"]["k"] = std::to_string(i);
    a = store.update(cm, "default", "a", a);
  }
  WatchOptions wo;
  wo.resource_version = old;
  try {
    store.watch(reg.find("", "v1", "configmaps"), wo);
    FAIL() << "expired version accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 410);
    EXPECT_EQ(e.reason(), "Expired");
  }
  wo.resource_version = std::to_string(store.current_rv() - 10);  // inside the window
  EXPECT_NO_THROW(store.watch(reg.find("", "v1", "configmaps"), wo));
  store.compact_history();
  EXPECT_THROW(store.watch(reg.find("", "v1", "configmaps"), wo), ApiError);
}

TEST_F(StoreTest, SelectorTransitionsBecomeAddedAndDeleted) {
  json a = configmap("a");
  a["metadata"]["labels"] = {{"team", "x"}};
  a = store.create(cm, "default", a);
  WatchOptions wo;
  wo.resource_version = a["metadata"]["resourceVersion"];
  wo.labels = LabelSelector::parse("team=y");
  auto w = store.watch(reg.find("", "v1", "configmaps"), wo);
  a["metadata"]["labels"]["team"] = "y";
  a = store.update(cm, "default", "a", a);
  a["metadata"]["labels"]["team"] = "z";
  a = store.update(cm, "default", "a", a);
  Watcher::Delivered ev;
  ASSERT_EQ(w->next(Clock::now() + std::chrono::milliseconds(100), &ev), Watcher::Status::Event);
  EXPECT_EQ(ev.type, "ADDED");
  ASSERT_EQ(w->next(Clock::now() + std::chrono::milliseconds(100), &ev), Watcher::Status::Event);
  EXPECT_EQ(ev.type, "DELETED");
  EXPECT_EQ(ev.object["metadata"]["labels"]["team"], "y");  // the last state that matched
}

TEST_F(StoreTest, FinalizersHoldDeletionUntilRemoved) {
  json c = configmap("f");
  c["metadata"]["finalizers"] = {"example.com/hold"};
  store.create(cm, "default", c);
  DeleteResult r = store.remove(cm, "default", "f");
  EXPECT_FALSE(r.deleted);
  json held = store.get(cm, "default", "f");
  EXPECT_TRUE(held["metadata"].contains("deletionTimestamp"));
  held["metadata"]["finalizers"] = json::array();
  store.update(cm, "default", "f", held);
  EXPECT_FALSE(store.try_get(cm, "default", "f").has_value());
}

TEST_F(StoreTest, BackgroundDeletionCollectsDependents) {
  json d = store.create(deploy, "default", deployment("web"));
  json rsobj = deployment("web-rs");
  rsobj["kind"] = "ReplicaSet";
  store.create(rs, "default", owned(rsobj, d, false));
  store.remove(deploy, "default", "web");
  EXPECT_TRUE(store.try_get(rs, "default", "web-rs").has_value());  // the GC has not run yet
  settle_gc();
  EXPECT_FALSE(store.try_get(rs, "default", "web-rs").has_value());
}

TEST_F(StoreTest, ForegroundDeletionRemovesDependentsBeforeOwner) {
  json d = store.create(deploy, "default", deployment("web"));
  json rsobj = deployment("web-rs");
  rsobj["kind"] = "ReplicaSet";
  rsobj = owned(rsobj, d, true);
  rsobj["metadata"]["finalizers"] = {"example.com/hold"};  // keeps the dependent around
  store.create(rs, "default", rsobj);
  DeleteOptions fg;
  fg.propagation = "Foreground";
  store.remove(deploy, "default", "web", fg);
  settle_gc();
  // The blocking dependent is terminating but still there, so the owner stays.
  json owner = store.get(deploy, "default", "web");
  EXPECT_TRUE(owner["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(owner["metadata"]["finalizers"], json::array({"foregroundDeletion"}));
  json dep = store.get(rs, "default", "web-rs");
  EXPECT_TRUE(dep["metadata"].contains("deletionTimestamp"));
  dep["metadata"]["finalizers"] = json::array();
  store.update(rs, "default", "web-rs", dep);
  settle_gc();
  EXPECT_FALSE(store.try_get(rs, "default", "web-rs").has_value());
  EXPECT_FALSE(store.try_get(deploy, "default", "web").has_value());
}

TEST_F(StoreTest, OrphanDeletionStripsOwnerReferences) {
  json d = store.create(deploy, "default", deployment("web"));
  json rsobj = deployment("web-rs");
  rsobj["kind"] = "ReplicaSet";
  store.create(rs, "default", owned(rsobj, d, true));
  DeleteOptions orphan;
  orphan.propagation = "Orphan";
  store.remove(deploy, "default", "web", orphan);
  settle_gc();
  EXPECT_FALSE(store.try_get(deploy, "default", "web").has_value());
  json dep = store.get(rs, "default", "web-rs");
  EXPECT_FALSE(dep["metadata"].contains("ownerReferences"));
}

TEST_F(StoreTest, NamespaceDeletionRemovesContentsThenNamespace) {
  store.create(ns, "", json{{"metadata", {{"name", "team"}}}});
  store.create(cm, "team", configmap("a"));
  store.create(cm, "team", configmap("b"));
  store.remove(ns, "", "team");
  EXPECT_EQ(store.get(ns, "", "team")["status"]["phase"], "Terminating");
  EXPECT_EQ(code_of([&] { store.create(cm, "team", configmap("c")); }), 403);
  settle_gc();
  ListOptions lo;
  lo.ns = "team";
  EXPECT_TRUE(store.list(cm, lo).items.empty());
  EXPECT_FALSE(store.try_get(ns, "", "team").has_value());
}

TEST_F(StoreTest, GracefulPodDeletionWaitsForTheKubelet) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "p"}}},
            {"spec", {{"nodeName", "n1"}, {"terminationGracePeriodSeconds", 20}, {"containers", {{{"name", "c"}, {"image", "x:1"}}}}}}};
  store.create(pod, "default", p);
  json unbound = p;
  unbound["metadata"]["name"] = "q";
  unbound["spec"].erase("nodeName");
  store.create(pod, "default", unbound);
  store.set_graceful_pod_deletion(true);
  EXPECT_TRUE(store.remove(pod, "default", "q").deleted);  // never scheduled: gone at once
  DeleteResult r = store.remove(pod, "default", "p");
  EXPECT_FALSE(r.deleted);
  EXPECT_EQ(r.object["metadata"]["deletionGracePeriodSeconds"], 20);
  DeleteOptions now;
  now.grace_period_seconds = 0;  // the kubelet confirms
  EXPECT_TRUE(store.remove(pod, "default", "p", now).deleted);
}

TEST_F(StoreTest, CrdRegistersAndUnregistersKinds) {
  const ResourceType& crd = *reg.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  json def = {{"metadata", {{"name", "widgets.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"scope", "Namespaced"},
                {"names", {{"plural", "widgets"}, {"kind", "Widget"}, {"shortNames", {"wd"}}}},
                {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true}, {"subresources", {{"status", json::object()}}}}}}}}};
  store.create(crd, "", def);
  auto widgets = reg.find("example.com", "v1", "widgets");
  ASSERT_TRUE(widgets);
  EXPECT_TRUE(widgets->has_status);
  json w = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}, {"spec", {{"a", 1}}}};
  json created = store.create(*widgets, "default", w);
  EXPECT_EQ(created["metadata"]["generation"], 1);
  created["metadata"].erase("resourceVersion");  // custom resources need a resourceVersion on PUT
  EXPECT_EQ(code_of([&] { store.update(*widgets, "default", "w", created); }), 422);
  store.remove(crd, "", "widgets.example.com");
  EXPECT_FALSE(reg.find("example.com", "v1", "widgets"));
}

}  // namespace
}  // namespace kubesim
