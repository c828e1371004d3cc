#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/runtime/store.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;

ObjectPtr obj(const std::string& ns, const std::string& name, const std::string& rv,
              const std::string& owner_uid = "", const std::string& uid = "") {
  json j = {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", name}, {"resourceVersion", rv}, {"uid", uid.empty() ? name + "-uid" : uid}}}};
  if (!ns.empty()) j["metadata"]["namespace"] = ns;
  if (!owner_uid.empty()) {
    j["metadata"]["ownerReferences"] = json::array(
        {{{"apiVersion", "nvidia.com/v1beta1"}, {"kind", "DynamoGraphDeployment"}, {"name", "g"}, {"uid", owner_uid},
          {"controller", true}}});
  }
  return CachedObject::make(j);
}

TEST(CachedObject, DropsManagedFieldsAndLastApplied) {
  json j = json::parse(R"({"metadata":{"name":"a","namespace":"n","resourceVersion":"3",
    "managedFields":[{"manager":"kubectl","fieldsV1":{"f:data":{}}}],
    "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...}","keep":"me"}},
    "data":{"k":"v"}})");
  auto o = CachedObject::make(j);
  json back = o->object();
  EXPECT_FALSE(back["metadata"].contains("managedFields"));
  EXPECT_EQ(back["metadata"]["annotations"], json({{"keep", "me"}}));
  EXPECT_EQ(back["data"]["k"], "v");
  EXPECT_EQ(o->key(), "n/a");
  EXPECT_EQ(o->resource_version(), "3");
  json only_last_applied = json::parse(
      R"({"metadata":{"name":"b","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"x"}}})");
  EXPECT_FALSE(CachedObject::make(only_last_applied)->object()["metadata"].contains("annotations"));
  EXPECT_EQ(CachedObject::make(only_last_applied)->key(), "b") << "cluster-scoped key has no namespace";
}

TEST(Store, IndexesByKeyNamespaceAndOwner) {
  Store s;
  s.upsert(obj("n1", "a", "1", "owner-1"));
  s.upsert(obj("n1", "b", "1", "owner-1"));
  s.upsert(obj("n2", "a", "1", "owner-2"));
  s.upsert(obj("n10", "z", "1"));
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.get("n1", "b")->name(), "b");
  EXPECT_EQ(s.get("n2/a")->ns(), "n2");
  EXPECT_EQ(s.get("n3", "a"), nullptr);
  EXPECT_EQ(s.list("n1").size(), 2u) << "n10 is not part of n1";
  EXPECT_EQ(s.by_owner("owner-1").size(), 2u);
  // Re-parenting moves the object between owner indexes.
  s.upsert(obj("n1", "b", "2", "owner-2"));
  EXPECT_EQ(s.by_owner("owner-1").size(), 1u);
  EXPECT_EQ(s.by_owner("owner-2").size(), 2u);
  EXPECT_NE(s.erase("n2/a"), nullptr);
  EXPECT_EQ(s.erase("n2/a"), nullptr);
  EXPECT_EQ(s.by_owner("owner-2").size(), 1u);
}

TEST(Store, OrdersByNamespaceSlashNameAndKeepsNamespacesApart) {
  // Namespaces that prefix each other ("a", "a-b", "a.b"): the order is that of the
  // "namespace/name" strings, and each namespace is its own range.
  Store s;
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"a", "x"}, {"a-b", "x"}, {"a.b", "y"}, {"a", "a-b"}, {"ab", "x"}, {"a", "z"}, {"b", "a"}, {"a-b", "a"}};
  std::vector<std::string> want;
  for (const auto& [ns, name] : keys) {
    s.upsert(obj(ns, name, "1", "owner"));
    want.push_back(ns + "/" + name);
  }
  std::sort(want.begin(), want.end());
  std::vector<std::string> got;
  for (const auto& o : s.list()) got.push_back(o->key());
  EXPECT_EQ(got, want);
  got.clear();
  for (const auto& o : s.by_owner("owner")) got.push_back(o->key());
  EXPECT_EQ(got, want);
  std::vector<std::string> in_a;
  for (const auto& o : s.list("a")) in_a.push_back(o->name());
  EXPECT_EQ(in_a, (std::vector<std::string>{"a-b", "x", "z"}));
  EXPECT_EQ(s.list("a-b").size(), 2u);
  EXPECT_TRUE(s.list("a-").empty());
  EXPECT_EQ(s.get("a-b/x")->ns(), "a-b");
  EXPECT_EQ(s.get("a.b", "y")->name(), "y");
  // Cluster-scoped keys have no namespace part.
  Store c;
  c.upsert(obj("", "node-b", "1"));
  c.upsert(obj("", "node-a", "1"));
  EXPECT_EQ(c.get("node-a")->name(), "node-a");
  EXPECT_EQ(c.list().front()->key(), "node-a");
  EXPECT_NE(c.erase("node-b"), nullptr);
  EXPECT_EQ(c.size(), 1u);
}

TEST(Store, ReplaceKeepsTheLastOfAKeyListedTwice) {
  Store s;
  s.replace({obj("n", "a", "1", "o1"), obj("n", "a", "2", "o2")});
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.get("n/a")->resource_version(), "2");
  EXPECT_TRUE(s.by_owner("o1").empty());
  EXPECT_EQ(s.by_owner("o2").size(), 1u);
  EXPECT_EQ(s.text_bytes().whole, s.get("n/a")->json_size());
}

TEST(Store, SnapshotsStayValidAfterUpdates) {
  Store s;
  s.upsert(obj("n", "a", "1"));
  ObjectPtr snap = s.get("n", "a");
  s.upsert(obj("n", "a", "2"));
  s.erase("n/a");
  EXPECT_EQ(snap->resource_version(), "1") << "readers hold immutable snapshots";
}

TEST(Store, ReplaceReturnsTheDifferenceAndMarksSynced) {
  Store s;
  EXPECT_FALSE(s.synced());
  auto first = s.replace({obj("n", "a", "1"), obj("n", "b", "1"), obj("n", "c", "1", "o")});
  EXPECT_TRUE(s.synced());
  EXPECT_EQ(first.added.size(), 3u);
  auto d = s.replace({obj("n", "a", "1"), obj("n", "b", "2"), obj("n", "d", "1"),
                      obj("n", "c", "1", "", "new-uid")});
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0]->name(), "d");
  ASSERT_EQ(d.updated.size(), 2u) << "b changed; c was deleted and re-created (new uid)";
  EXPECT_EQ(d.deleted.size(), 0u);
  auto e = s.replace({obj("n", "a", "1")});
  ASSERT_EQ(e.deleted.size(), 3u);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(s.by_owner("o").empty()) << "the owner index is rebuilt with the relist";
}

}  // namespace
}  // namespace dgd::runtime
