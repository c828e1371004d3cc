// The informer against kube-sim: it converges to exactly the server's state through cut
// watches, compacted history (410 on resume) and changes made while it was disconnected,
// and its handlers see every final state (deletions during a disconnect arrive as deletes).
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/kubesim_process.h"
#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"
#include "dgd/runtime/informer.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;
using namespace std::chrono_literals;

template <class F>
bool eventually(F f, std::chrono::milliseconds limit = 30s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

// What the handlers saw: the last state of each key ("" = deleted), and deletions.
struct Seen {
  std::mutex mu;
  std::map<std::string, std::string> rv;  // key -> resourceVersion, or "" after a delete
  std::vector<std::string> deletes;
  EventHandler handler() {
    EventHandler h;
    h.on_add = [this](const ObjectPtr& o) { set(o->key(), o->resource_version()); };
    h.on_update = [this](const ObjectPtr&, const ObjectPtr& o) { set(o->key(), o->resource_version()); };
    h.on_delete = [this](const ObjectPtr& o) {
      std::lock_guard<std::mutex> l(mu);
      rv[o->key()] = "";
      deletes.push_back(o->key());
    };
    return h;
  }
  void set(const std::string& k, const std::string& v) {
    std::lock_guard<std::mutex> l(mu);
    rv[k] = v;
  }
  std::map<std::string, std::string> live() {
    std::lock_guard<std::mutex> l(mu);
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : rv) {
      if (!v.empty()) out[k] = v;
    }
    return out;
  }
  bool deleted(const std::string& k) {
    std::lock_guard<std::mutex> l(mu);
    return std::find(deletes.begin(), deletes.end(), k) != deletes.end();
  }
};

std::map<std::string, std::string> server_state(kube::RestClient& c, const std::string& ns) {
  std::map<std::string, std::string> out;
  auto l = c.list(kube::resources::config_maps(), ns);
  if (!l) return {{"<error>", l.error().to_string()}};
  for (const auto& i : (*l)["items"]) {
    out[ns + "/" + i["metadata"]["name"].get<std::string>()] = i["metadata"]["resourceVersion"].get<std::string>();
  }
  return out;
}

std::map<std::string, std::string> cache_state(const Informer& inf) {
  std::map<std::string, std::string> out;
  for (const auto& o : inf.store().list()) out[o->key()] = o->resource_version();
  return out;
}

void create_namespace(kube::RestClient& c, const std::string& ns) {
  auto r = c.create(kube::resources::namespaces(), "",
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  ASSERT_TRUE(r.ok() || r.error().kind == kube::ErrorKind::kAlreadyExists) << r.error().to_string();
}

json cm(const std::string& name, const std::string& v) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", {{"v", v}}}};
}

InformerOptions cm_informer(const std::string& ns) {
  InformerOptions o;
  o.resource = kube::resources::config_maps();
  o.ns = ns;
  o.page_size = 7;  // several pages
  o.backoff.initial = 20ms;
  o.backoff.max = 500ms;
  return o;
}

TEST(InformerKubeSim, ConvergesThroughWatchesCutEveryFewEvents) {
  KubeSimProcess sim({"--watch-cut-after", "3"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  kube::ClientOptions co;
  co.user_agent = "informer-test";
  auto client = std::make_shared<kube::RestClient>(sim.config(), co);
  kube::RestClient writer(sim.config(), kube::ClientOptions{});
  create_namespace(writer, "inf");
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(writer.create(kube::resources::config_maps(), "inf", cm("pre-" + std::to_string(i), "0")).ok());

  Informer inf(client, cm_informer("inf"));
  Seen seen;
  inf.add_handler(seen.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(30s));
  EXPECT_EQ(inf.store().size(), 20u) << "paged list (page size 7) got every object";

  for (int i = 0; i < 40; ++i) {
    std::string name = "obj-" + std::to_string(i % 13);
    auto got = writer.get(kube::resources::config_maps(), "inf", name);
    if (got) {
      if (i % 3 == 0) {
        ASSERT_TRUE(writer.remove(kube::resources::config_maps(), "inf", name).ok());
      } else {
        ASSERT_TRUE(writer.patch(kube::resources::config_maps(), "inf", name, kube::PatchType::kMerge,
                                 {{"data", {{"v", std::to_string(i)}}}}).ok());
      }
    } else {
      ASSERT_TRUE(writer.create(kube::resources::config_maps(), "inf", cm(name, std::to_string(i))).ok());
    }
  }
  ASSERT_TRUE(writer.remove(kube::resources::config_maps(), "inf", "pre-3").ok());
  auto want = server_state(writer, "inf");
  ASSERT_TRUE(eventually([&] { return cache_state(inf) == want; })) << "cache did not converge";
  EXPECT_TRUE(eventually([&] { return seen.live() == want; })) << "handlers missed a final state";
  EXPECT_TRUE(seen.deleted("inf/pre-3"));
  EXPECT_EQ(inf.relists(), 0) << "cut watches resume from the last resourceVersion without relisting";
}

TEST(InformerKubeSim, RelistsAfterCompactionAndDeliversChangesMadeWhileDisconnected) {
  // The informer authenticates with its own token; revoking it keeps the informer
  // disconnected (its reconnects get 401) while we change the world.
  KubeSimProcess sim({"--token", "informer-token=informer"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  kube::RestConfig ic = sim.config();
  ic.token = "informer-token";
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  kube::ClientOptions co;
  co.max_retries = 0;
  auto client = std::make_shared<kube::RestClient>(ic, co);
  kube::RestClient writer(sim.config(), kube::ClientOptions{});
  auto cms = kube::resources::config_maps();
  create_namespace(writer, "d");
  for (const char* n : {"keep", "change", "remove", "other"}) ASSERT_TRUE(writer.create(cms, "d", cm(n, "0")).ok());

  auto opts = cm_informer("d");
  opts.metrics = metrics;
  Informer inf(client, opts);
  Seen seen;
  inf.add_handler(seen.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(30s));
  ASSERT_EQ(inf.store().size(), 4u);

  ASSERT_TRUE(sim.admin("DELETE", "/sim/v1/tokens/informer-token").ok());
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/cut-watches").ok());
  // Disconnected: a deletion, an update, a creation, a delete-and-recreate.
  ASSERT_TRUE(writer.remove(cms, "d", "remove").ok());
  ASSERT_TRUE(writer.patch(cms, "d", "change", kube::PatchType::kMerge, {{"data", {{"v", "1"}}}}).ok());
  ASSERT_TRUE(writer.create(cms, "d", cm("new", "0")).ok());
  ASSERT_TRUE(writer.remove(cms, "d", "other").ok());
  ASSERT_TRUE(writer.create(cms, "d", cm("other", "again")).ok());
  // Compact so the informer's resourceVersion is too old to resume: it must relist.
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/compact").ok());
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/tokens", R"({"token":"informer-token","user":"informer"})").ok());

  auto want = server_state(writer, "d");
  ASSERT_TRUE(eventually([&] { return cache_state(inf) == want; })) << "cache did not converge";
  EXPECT_TRUE(eventually([&] { return seen.live() == want; }));
  EXPECT_TRUE(seen.deleted("d/remove")) << "a deletion during the disconnect is delivered as a delete";
  EXPECT_GE(inf.relists(), 1) << "the resume got 410 and the informer relisted";
  EXPECT_NE(metrics->render().find("dgd_informer_relists_total{resource=\"configmaps.v1\"}"), std::string::npos);
  EXPECT_NE(metrics->render().find("dgd_informer_cache_objects{resource=\"configmaps.v1\"} 4"), std::string::npos)
      << metrics->render();
}

TEST(InformerKubeSim, LabelSelectorScopesTheCache) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  auto client = std::make_shared<kube::RestClient>(sim.config(), kube::ClientOptions{});
  auto cms = kube::resources::config_maps();
  create_namespace(*client, "s");
  create_namespace(*client, "t");
  json mine = cm("mine", "1");
  mine["metadata"]["labels"] = {{"app.kubernetes.io/managed-by", "dgd-operator"}};
  ASSERT_TRUE(client->create(cms, "s", mine).ok());
  ASSERT_TRUE(client->create(cms, "s", cm("theirs", "1")).ok());
  auto o = cm_informer("");
  o.label_selector = "app.kubernetes.io/managed-by=dgd-operator";
  Informer inf(client, o);
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(30s));
  json later = cm("later", "1");
  later["metadata"]["labels"] = {{"app.kubernetes.io/managed-by", "dgd-operator"}};
  ASSERT_TRUE(client->create(cms, "t", later).ok());
  ASSERT_TRUE(client->create(cms, "t", cm("ignored", "1")).ok());
  EXPECT_TRUE(eventually([&] { return inf.store().get("t", "later") != nullptr; }));
  EXPECT_EQ(inf.store().get("s", "theirs"), nullptr);
  EXPECT_EQ(inf.store().get("t", "ignored"), nullptr);
  EXPECT_NE(inf.store().get("s", "mine"), nullptr);
}

TEST(InformerKubeSim, ProjectionAppliesToListedAndWatchedObjects) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  auto client = std::make_shared<kube::RestClient>(sim.config(), kube::ClientOptions{});
  auto cms = kube::resources::config_maps();
  create_namespace(*client, "p");
  auto two = [](const std::string& name, const std::string& v) {
    json c = cm(name, v);
    c["data"]["big"] = std::string(1000, 'x');
    c["binaryData"] = {{"b", "AAAA"}};
    return c;
  };
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(client->create(cms, "p", two("listed-" + std::to_string(i), "1")).ok());
  auto o = cm_informer("p");  // pages of 7: the projection applies on every page
  o.projection = FieldProjection({"data.v"});
  Informer inf(client, o);
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(30s));
  ASSERT_EQ(inf.store().size(), 10u);
  auto listed = inf.store().get("p", "listed-9");
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ(listed->object()["data"], json({{"v", "1"}}));
  EXPECT_FALSE(listed->object().contains("binaryData"));
  EXPECT_FALSE(listed->uid().empty());

  ASSERT_TRUE(client->create(cms, "p", two("watched", "2")).ok());
  ASSERT_TRUE(client->patch(cms, "p", "listed-0", kube::PatchType::kMerge, {{"data", {{"v", "3"}}}}).ok());
  ASSERT_TRUE(eventually([&] {
    auto w = inf.store().get("p", "watched");
    auto l = inf.store().get("p", "listed-0");
    return w && l && l->object()["data"]["v"] == "3";
  }));
  EXPECT_EQ(inf.store().get("p", "watched")->object()["data"], json({{"v", "2"}}));
  EXPECT_EQ(inf.store().get("p", "listed-0")->object()["data"], json({{"v", "3"}}));
  EXPECT_EQ(inf.store().get("p", "watched")->object()["metadata"]["name"], "watched");
}

}  // namespace
}  // namespace dgd::runtime
