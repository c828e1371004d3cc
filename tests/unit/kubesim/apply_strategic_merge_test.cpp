// kube-sim's strategic merge patch: cases ported from apimachinery
// pkg/util/strategicpatch/patch_test.go (the MergeItem type, here written as an OpenAPI
// schema with the patch extensions: mergingList merged by name, mergingIntList a union,
// others replaced) and Kubernetes documentation examples on built-in kinds typed by the
// OpenAPI document.
#include "kubesim/apply/strategic_merge.h"

#include "kubesim/api_error.h"

#include <gtest/gtest.h>

namespace kubesim::apply {
namespace {

using nlohmann::json;

// The MergeItem test type of upstream, three levels deep.
json merge_item(int depth) {
  json item = depth > 0 ? merge_item(depth - 1) : json{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  json merging = {{"type", "array"}, {"x-kubernetes-patch-strategy", "merge"},
                  {"x-kubernetes-patch-merge-key", "name"}, {"items", item}};
  json retain_merging = merging;
  retain_merging["x-kubernetes-patch-strategy"] = "merge,retainKeys";
  json ints = {{"type", "array"}, {"x-kubernetes-patch-strategy", "merge"}, {"items", {{"type", "integer"}}}};
  json s = {{"type", "object"},
            {"x-kubernetes-preserve-unknown-fields", true},
            {"properties",
             {{"mergingList", merging},
              {"retainKeysMergingList", retain_merging},
              {"mergingIntList", ints},
              {"simpleMap", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}};
  if (depth > 0) {
    s["properties"]["retainKeysMap"] = {{"type", "object"},
                                        {"x-kubernetes-preserve-unknown-fields", true},
                                        {"properties", {{"mergingList", merging}, {"mergingIntList", ints}}}};
  }
  return s;
}

TypeRef mi() {
  static const RootType type = custom_resource_type(merge_item(3));
  return type.root;
}

struct SmpCase {
  const char* description;
  const char* original;
  const char* patch;
  const char* result;  // nullptr: expect an error whose library message contains `error`
  const char* error = "";
  int code = 500;  // the HTTP status of that error
};

void PrintTo(const SmpCase& c, std::ostream* os) { *os << c.description; }

class UpstreamSmp : public ::testing::TestWithParam<SmpCase> {};

TEST_P(UpstreamSmp, Applies) {
  const SmpCase& c = GetParam();
  if (c.result == nullptr) {
    try {
      json out = apply_strategic_merge_patch(json::parse(c.original), json::parse(c.patch), mi());
      FAIL() << "expected an error, got " << out.dump();
    } catch (const StrategicMergeError& e) {
      EXPECT_NE(e.library_message().find(c.error), std::string::npos) << e.library_message();
      EXPECT_EQ(e.code(), c.code) << e.library_message();
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
                R"({"retainKeysMap":{"$retainKeys":["name"],"value":"c"}})", nullptr,
                "invalid patch format of retainKeys", 400},
        SmpCase{"a list of lists is refused as unprocessable", R"({"mergingIntList":[]})",
                R"({"mergingIntList":[[2]]})", nullptr, "lists of lists are not supported", 422},
        SmpCase{"nested nulls in new values are dropped", R"({})", R"({"simpleMap":{"a":"x","b":null}})",
                R"({"simpleMap":{"a":"x"}})"}));

// Built-in kinds: what `kubectl patch` users rely on.
TypeRef deployment() { return *builtin_type("apps", "v1", "Deployment"); }

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
  const TypeRef cm = *builtin_type("", "v1", "ConfigMap");
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
      live, json::parse(R"({"spec":{"ports":[{"port":8000,"targetPort":"http"}]}})"), *builtin_type("", "v1", "Service"));
  EXPECT_EQ(out["spec"]["ports"], json::parse(R"([{"port":8000,"name":"http","targetPort":"http"}])"));
}

TEST(StrategicMergeBuiltin, PatchMustBeAnObject) {
  EXPECT_THROW(apply_strategic_merge_patch(json::object(), json::parse("[1]"), deployment()), ApiError);
  try {
    apply_strategic_merge_patch(json::object(), json::parse("[1]"), deployment());
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_STREQ(e.what(), "json: cannot unmarshal array into Go value of type map[string]interface {}");
  }
}

TEST(StrategicMergeBuiltin, MissingMergeKeyIsTheServersUnknownError) {
  // No Status wraps it: a 500 whose message is the library's, with Go's map formatting.
  json live = deployment_with(R"({"containers":[{"name":"main","image":"a:1"}]})");
  json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"image":"b","ports":[{"containerPort":80}]}]}}}})");
  try {
    apply_strategic_merge_patch(live, patch, deployment());
    FAIL() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 500);
    EXPECT_EQ(e.to_status().count("reason"), 0u);
    EXPECT_STREQ(e.what(), "map: map[image:b ports:[map[containerPort:80]]] does not contain declared merge key: name");
  }
}

}  // namespace
}  // namespace kubesim::apply
