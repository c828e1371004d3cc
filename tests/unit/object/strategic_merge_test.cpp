// Cases ported from apimachinery pkg/util/strategicpatch/patch_test.go
// (MergeItem schema: mergingList by name, mergingIntList union, others
// replaced) and Kubernetes documentation examples on built-in kinds.
#include "dgd/object/strategic_merge.h"

#include <gtest/gtest.h>

namespace dgd::object {
namespace {

using nlohmann::json;

// The MergeItem test type of upstream, three levels deep.
std::shared_ptr<FieldSchema> merge_item(int depth) {
  auto s = std::make_shared<FieldSchema>();
  auto merging = std::make_shared<FieldSchema>();
  merging->patch_merge = true;
  merging->patch_merge_key = "name";
  if (depth > 0) merging->elements = merge_item(depth - 1);
  auto ints = std::make_shared<FieldSchema>();
  ints->patch_merge = true;
  auto simple_map = std::make_shared<FieldSchema>();
  simple_map->is_map = true;
  s->fields["mergingList"] = merging;
  s->fields["retainKeysMergingList"] = merging;
  s->fields["mergingIntList"] = ints;
  s->fields["simpleMap"] = simple_map;
  if (depth > 0) {
    auto retain = std::make_shared<FieldSchema>();
    retain->fields["mergingList"] = merging;
    retain->fields["mergingIntList"] = ints;
    s->fields["retainKeysMap"] = retain;
  }
  return s;
}

const FieldSchema& mi() {
  static const auto schema = merge_item(3);
  return *schema;
}

struct SmpCase {
  const char* description;
  const char* original;
  const char* patch;
  const char* result;  // nullptr: expect PatchError whose message contains `error`
  const char* error = "";
};

void PrintTo(const SmpCase& c, std::ostream* os) { *os << c.description; }

class UpstreamSmp : public ::testing::TestWithParam<SmpCase> {};

TEST_P(UpstreamSmp, Applies) {
  const SmpCase& c = GetParam();
  if (c.result == nullptr) {
    try {
      json out = apply_strategic_merge_patch(json::parse(c.original), json::parse(c.patch), mi());
      FAIL() << "expected an error, got " << out.dump();
    } catch (const PatchError& e) {
      EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
      EXPECT_EQ(e.http_status(), 422);
    }
    return;
  }
  json out = apply_strategic_merge_patch(json::parse(c.original), json::parse(c.patch), mi());
  EXPECT_EQ(out, json::parse(c.result)) << out.dump();
}

INSTANTIATE_TEST_SUITE_P(
    PatchTestGo, UpstreamSmp,
    ::testing::Values(
        SmpCase{"unique scalars when merging lists", R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[2,3]})",
                R"({"mergingIntList":[1,2,3]})"},
        SmpCase{"delete map from nested map", R"({"simpleMap":{"key1":1,"key2":1}})",
                R"({"simpleMap":{"$patch":"delete"}})", R"({"simpleMap":{}})"},
        SmpCase{"delete all items from merging list", R"({"mergingList":[{"name":1},{"name":2}]})",
                R"({"mergingList":[{"$patch":"replace"}]})", R"({"mergingList":[]})"},
        SmpCase{"merge empty merging lists", R"({"mergingList":[]})", R"({"mergingList":[]})",
                R"({"mergingList":[]})"},
        SmpCase{"delete all keys from map", R"({"name":1,"value":1})", R"({"$patch":"replace"})", R"({})"},
        SmpCase{"add key and delete all keys from map", R"({"name":1,"value":1})",
                R"({"other":"a","$patch":"replace"})", R"({"other":"a"})"},
        SmpCase{"delete all duplicate entries in a merging list",
                R"({"mergingList":[{"name":1},{"name":1},{"name":2,"value":"a"},{"name":3},{"name":3}]})",
                R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":3,"$patch":"delete"}]})",
                R"({"mergingList":[{"name":2,"value":"a"}]})"},
        SmpCase{"retainKeys list can delete a field when no retainKeys directive present",
                R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})",
                R"({"retainKeysMergingList":[{"name":"foo","value":null}]})",
                R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]})"},
        SmpCase{"retainKeys map merge an empty map", R"({"retainKeysMap":{"name":"foo","value":"a"}})",
                R"({"retainKeysMap":{}})", R"({"retainKeysMap":{"name":"foo","value":"a"}})"},
        SmpCase{"preserve the order from the patch in a merging list",
                R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
                R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"other":"x"}]})",
                R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"value":"b","other":"x"}]})"},
        SmpCase{"preserve the order from the patch in a merging list 2",
                R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
                R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"}]})",
                R"({"mergingList":[{"name":2,"value":"b"},{"name":3,"value":"c"},{"name":1,"value":"a"}]})"},
        SmpCase{"preserve the order from the patch in a merging int list", R"({"mergingIntList":[1,2,3]})",
                R"({"mergingIntList":[3,1]})", R"({"mergingIntList":[2,3,1]})"},
        SmpCase{"$setElementOrder contains item that is not present in the list to be merged",
                R"({"mergingList":[{"name":1},{"name":3}]})",
                R"({"$setElementOrder/mergingList":[{"name":3},{"name":2},{"name":1}],
                    "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
                R"({"mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"},
        SmpCase{"$setElementOrder alone reorders an int list", R"({"mergingIntList":[1,3]})",
                R"({"$setElementOrder/mergingIntList":[3,2,1]})", R"({"mergingIntList":[3,1]})"},
        SmpCase{"should check if order in $setElementOrder and patch list match",
                R"({"mergingList":[{"name":1},{"name":3},{"name":2}]})",
                R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
                    "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
                nullptr, "doesn't match"},
        SmpCase{"missing merge key should error out", R"({"mergingList":[{"name":1,"value":"a"}]})",
                R"({"mergingList":[{"value":"b"}]})", nullptr, "does not contain declared merge key"},
        SmpCase{"$deleteFromPrimitiveList of nonexistent item does not add it", R"({"mergingIntList":[1,2]})",
                R"({"$deleteFromPrimitiveList/mergingIntList":[3]})", R"({"mergingIntList":[1,2]})"},
        SmpCase{"$deleteFromPrimitiveList on nonexistent list does not add the list", R"({"foo":["bar"]})",
                R"({"$deleteFromPrimitiveList/mergingIntList":[3]})", R"({"foo":["bar"]})"},
        SmpCase{"$deleteFromPrimitiveList deletes from a merging list", R"({"mergingIntList":[1,2,3]})",
                R"({"$deleteFromPrimitiveList/mergingIntList":[2]})", R"({"mergingIntList":[1,3]})"},
        SmpCase{"$deleteFromPrimitiveList deletes from a non-merging list", R"({"nonMergingIntList":[1,2,3]})",
                R"({"$deleteFromPrimitiveList/nonMergingIntList":[2]})", R"({"nonMergingIntList":[1,3]})"},
        SmpCase{"delete items in lists of scalars (three-way result)", R"({"mergingIntList":[1,2,3,3,4]})",
                R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
                R"({"mergingIntList":[1,2,4]})"},
        SmpCase{"nested patch merge with empty list", R"({"name":"hi","mergingList":[{"name":"hello2"}]})",
                R"({"$setElementOrder/mergingList":[{"name":"hello"},{"name":"doesntexist"}],
                    "mergingList":[{"name":"hello"},{"$patch":"delete","name":"doesntexist"}]})",
                R"({"name":"hi","mergingList":[{"name":"hello"},{"name":"hello2"}]})"},
        SmpCase{"merge lists of maps (three-way result)",
                R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
                R"({"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],
                    "mergingList":[{"name":4,"value":4},{"name":3,"value":3}]})",
                R"({"mergingList":[{"name":4,"value":4},{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},
                                   {"name":3,"value":3}]})"},
        SmpCase{"replace list of scalars", R"({"nonMergingIntList":[1,4]})", R"({"nonMergingIntList":[2,3]})",
                R"({"nonMergingIntList":[2,3]})"},
        SmpCase{"defined null values remove fields", R"({"name":"a","other":"a"})",
                R"({"name":1,"value":1,"other":null})", R"({"name":1,"value":1})"},
        SmpCase{"unknown $patch value is rejected", R"({"name":1})", R"({"$patch":"frobnicate"})", nullptr,
                "unknown patch type"},
        SmpCase{"$patch merge inside a list is rejected", R"({"mergingList":[{"name":1}]})",
                R"({"mergingList":[{"$patch":"merge"}]})", nullptr, "merging lists cannot yet be specified"},
        SmpCase{"retainKeys clears fields not listed", R"({"retainKeysMap":{"name":"foo","value":"a","other":"b"}})",
                R"({"retainKeysMap":{"$retainKeys":["name","value"],"value":"c"}})",
                R"({"retainKeysMap":{"name":"foo","value":"c"}})"},
        SmpCase{"retainKeys rejects a patched field it does not list", R"({"retainKeysMap":{"name":"foo"}})",
                R"({"retainKeysMap":{"$retainKeys":["name"],"value":"c"}})", nullptr, "$retainKeys"},
        SmpCase{"nested nulls in new values are dropped", R"({})", R"({"simpleMap":{"a":"x","b":null}})",
                R"({"simpleMap":{"a":"x"}})"}));

// Built-in kinds: what `kubectl patch` users rely on.
const FieldSchema& deployment() { return *builtin_schema("apps", "Deployment"); }

json deployment_with(const char* pod_spec) {
  json d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},
                          "spec":{"replicas":1,"template":{"metadata":{"labels":{"app":"w"}},"spec":{}}}})");
  d["spec"]["template"]["spec"] = json::parse(pod_spec);
  return d;
}

json pod_spec_of(const json& d) { return d["spec"]["template"]["spec"]; }

TEST(StrategicMergeBuiltin, ContainersMergeByNameAndImageChangeKeepsOtherContainers) {
  json live = deployment_with(R"({"containers":[{"name":"main","image":"a:1","args":["x"]},
                                                {"name":"sidecar","image":"s:1"}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"main","image":"a:2"}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"],
            json::parse(R"([{"name":"main","image":"a:2","args":["x"]},{"name":"sidecar","image":"s:1"}])"));
}

TEST(StrategicMergeBuiltin, NewContainerIsAddedBeforeServerOnlyOnes) {
  // mergeSortedSlice puts items the live list lacks ahead of server-only items.
  json live = deployment_with(R"({"containers":[{"name":"main","image":"a:1"}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"log","image":"l:1"}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"],
            json::parse(R"([{"name":"log","image":"l:1"},{"name":"main","image":"a:1"}])"));
}

TEST(StrategicMergeBuiltin, DeleteContainerDirective) {
  json live = deployment_with(R"({"containers":[{"name":"main","image":"a:1"},{"name":"sidecar","image":"s:1"}]})");
  json patch = json::parse(
      R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"], json::parse(R"([{"name":"main","image":"a:1"}])"));
}

TEST(StrategicMergeBuiltin, EnvMergesByNameAndNullRemovesAField) {
  json live = deployment_with(
      R"({"containers":[{"name":"main","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"main",
      "env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"][0]["env"],
            json::parse(R"([{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}])"));
}

TEST(StrategicMergeBuiltin, ContainerPortsMergeByContainerPortOnly) {
  // patchMergeKey is containerPort (not containerPort+protocol as in SSA).
  json live = deployment_with(R"({"containers":[{"name":"main","ports":[{"containerPort":8000,"name":"http"}]}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"main",
      "ports":[{"containerPort":8000,"protocol":"TCP","name":"web"},{"containerPort":9090}]}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"][0]["ports"],
            json::parse(R"([{"containerPort":8000,"name":"web","protocol":"TCP"},{"containerPort":9090}])"));
}

TEST(StrategicMergeBuiltin, VolumeSourceSwitchWithRetainKeys) {
  // kubectl sends $retainKeys for volumes (patchStrategy merge,retainKeys).
  json live = deployment_with(R"({"containers":[{"name":"main"}],
      "volumes":[{"name":"cache","emptyDir":{}},{"name":"cfg","configMap":{"name":"c"}}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"volumes":[
      {"name":"cache","$retainKeys":["name","persistentVolumeClaim"],"persistentVolumeClaim":{"claimName":"pvc"}}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["volumes"],
            json::parse(R"([{"name":"cache","persistentVolumeClaim":{"claimName":"pvc"}},
                            {"name":"cfg","configMap":{"name":"c"}}])"));
}

TEST(StrategicMergeBuiltin, TolerationsAndArgsAreReplaced) {
  json live = deployment_with(R"({"containers":[{"name":"main","args":["a","b"]}],
      "tolerations":[{"key":"x","operator":"Exists"}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"main","args":["c"]}],
      "tolerations":[{"key":"y","operator":"Exists"}]}}}})");
  json out = apply_strategic_merge_patch(live, patch, deployment());
  EXPECT_EQ(pod_spec_of(out)["containers"][0]["args"], json::parse(R"(["c"])"));
  EXPECT_EQ(pod_spec_of(out)["tolerations"], json::parse(R"([{"key":"y","operator":"Exists"}])"));
}

TEST(StrategicMergeBuiltin, FinalizersUnionAndDeleteFromPrimitiveList) {
  json live = json::parse(R"({"metadata":{"name":"x","finalizers":["a","b"]}})");
  const FieldSchema& cm = *builtin_schema("", "ConfigMap");
  json out = apply_strategic_merge_patch(live, json::parse(R"({"metadata":{"finalizers":["c","a"]}})"), cm);
  // Patch items in patch order, merged with server-only items by live order.
  EXPECT_EQ(out["metadata"]["finalizers"], json::parse(R"(["c","a","b"])"));
  out = apply_strategic_merge_patch(out, json::parse(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})"),
                                    cm);
  EXPECT_EQ(out["metadata"]["finalizers"], json::parse(R"(["c","b"])"));
}

TEST(StrategicMergeBuiltin, ServicePortsMergeByPort) {
  json live = json::parse(R"({"spec":{"ports":[{"port":8000,"name":"http","targetPort":8000}]}})");
  json out = apply_strategic_merge_patch(
      live, json::parse(R"({"spec":{"ports":[{"port":8000,"targetPort":"http"}]}})"), *builtin_schema("", "Service"));
  EXPECT_EQ(out["spec"]["ports"], json::parse(R"([{"port":8000,"name":"http","targetPort":"http"}])"));
}

TEST(StrategicMergeBuiltin, PatchMustBeAnObject) {
  EXPECT_THROW(apply_strategic_merge_patch(json::object(), json::parse("[1]"), deployment()), PatchError);
  try {
    apply_strategic_merge_patch(json::object(), json::parse("[1]"), deployment());
  } catch (const PatchError& e) {
    EXPECT_EQ(e.http_status(), 400);
  }
}

TEST(StrategicMerge, UserPodTemplateOverOperatorDefaults) {
  // The renderer's use: defaults first, the user's podTemplate wins.
  json defaults = json::parse(R"({"metadata":{"labels":{"app":"w","tier":"worker"}},
    "spec":{"containers":[{"name":"main","image":"dynamo:1","env":[{"name":"DYN_NAMESPACE","value":"ns"},
                                                                     {"name":"LOG","value":"info"}],
                           "resources":{"limits":{"nvidia.com/gpu":"1"}}}],
            "volumes":[{"name":"shm","emptyDir":{"medium":"Memory"}}],
            "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}]}})");
  json user = json::parse(R"({"metadata":{"labels":{"team":"a"}},
    "spec":{"containers":[{"name":"main","env":[{"name":"LOG","value":"debug"},{"name":"EXTRA","value":"1"}],
                           "resources":{"limits":{"memory":"8Gi"}}},
                          {"name":"sidecar","image":"s:1"}],
            "volumes":[{"name":"shm","$patch":"delete"}],
            "tolerations":[{"key":"dedicated","operator":"Exists"}]}})");
  json out = strategic_merge(defaults, user, pod_template_spec_schema());
  EXPECT_EQ(out["metadata"]["labels"], json::parse(R"({"app":"w","tier":"worker","team":"a"})"));
  const json& main = out["spec"]["containers"][0];
  EXPECT_EQ(main["name"], "main");
  EXPECT_EQ(main["image"], "dynamo:1");
  EXPECT_EQ(main["env"], json::parse(R"([{"name":"DYN_NAMESPACE","value":"ns"},{"name":"LOG","value":"debug"},
                                         {"name":"EXTRA","value":"1"}])"));
  EXPECT_EQ(main["resources"]["limits"], json::parse(R"({"nvidia.com/gpu":"1","memory":"8Gi"})"));
  EXPECT_EQ(out["spec"]["containers"][1]["name"], "sidecar");
  EXPECT_EQ(out["spec"]["volumes"], json::array());
  EXPECT_EQ(out["spec"]["tolerations"], json::parse(R"([{"key":"dedicated","operator":"Exists"}])"));
}

}  // namespace
}  // namespace dgd::object
