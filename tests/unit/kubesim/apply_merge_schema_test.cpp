// kube-sim's merge types: derived from Kubernetes' own OpenAPI document (built-in kinds)
// and from a CRD's openAPIV3Schema. Expectations are the Kubernetes API's list and map
// semantics; the sweep checks every field of the document against its own extensions.
#include "kubesim/apply/merge_schema.h"

#include "kubesim/openapi/swagger_document.h"
#include "kubesim/resource_registry.h"

#include <gtest/gtest.h>

namespace kubesim::apply {
namespace {

using nlohmann::json;

TypeRef def(const char* name) {
  auto t = definition_type(name);
  EXPECT_TRUE(t.has_value()) << name;
  return t.value_or(deduced());
}

using Keys = std::vector<std::string>;

TEST(MergeSchema, PodSpecListsFromTheDocument) {
  TypeRef pod = *builtin_type("", "v1", "Pod");
  TypeRef spec = pod.field("spec");
  EXPECT_EQ(spec.atom->name, "io.k8s.api.core.v1.PodSpec");

  TypeRef containers = spec.field("containers");
  EXPECT_EQ(containers.list_type(), ListType::map);
  EXPECT_EQ(containers.list_keys(), Keys{"name"});
  EXPECT_EQ(containers.patch_strategy, "merge");
  EXPECT_EQ(containers.patch_merge_key, "name");

  TypeRef ports = containers.item().field("ports");
  EXPECT_EQ(ports.list_type(), ListType::map);
  EXPECT_EQ(ports.list_keys(), (Keys{"containerPort", "protocol"}));
  // Strategic merge keys ports by containerPort only.
  EXPECT_EQ(ports.patch_merge_key, "containerPort");
  EXPECT_EQ(ports.key_default("protocol"), json("TCP"));
  EXPECT_FALSE(ports.key_default("containerPort").has_value());

  TypeRef volumes = spec.field("volumes");
  EXPECT_EQ(volumes.list_type(), ListType::map);
  EXPECT_EQ(volumes.list_keys(), Keys{"name"});
  EXPECT_EQ(volumes.patch_strategy, "merge,retainKeys");
  EXPECT_TRUE(volumes.patch_merge());

  TypeRef env = containers.item().field("env");
  EXPECT_EQ(env.list_type(), ListType::map);
  EXPECT_EQ(env.list_keys(), Keys{"name"});

  EXPECT_EQ(spec.field("tolerations").list_type(), ListType::atomic);
  EXPECT_FALSE(spec.field("tolerations").patch_merge());
  EXPECT_EQ(containers.item().field("args").list_type(), ListType::atomic);
  EXPECT_EQ(containers.item().field("command").list_type(), ListType::atomic);

  TypeRef pull = spec.field("imagePullSecrets");
  EXPECT_EQ(pull.list_type(), ListType::map);
  EXPECT_EQ(pull.list_keys(), Keys{"name"});

  TypeRef node_selector = spec.field("nodeSelector");
  EXPECT_TRUE(node_selector.allows_map());
  EXPECT_TRUE(node_selector.map_atomic());
  // Node affinity terms are an atomic struct (NodeSelector has structType=atomic).
  EXPECT_TRUE(spec.field("affinity").field("nodeAffinity").field("requiredDuringSchedulingIgnoredDuringExecution")
                  .map_atomic());
}

TEST(MergeSchema, ObjectMetaAndSelectors) {
  TypeRef meta = (*builtin_type("apps", "v1", "Deployment")).field("metadata");
  EXPECT_EQ(meta.atom->name, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(meta.field("finalizers").list_type(), ListType::set);
  EXPECT_EQ(meta.field("ownerReferences").list_type(), ListType::map);
  EXPECT_EQ(meta.field("ownerReferences").list_keys(), Keys{"uid"});
  TypeRef labels = meta.field("labels");
  EXPECT_TRUE(labels.allows_map());
  EXPECT_FALSE(labels.map_atomic());
  EXPECT_FALSE(labels.is_struct_field("app")) << "label keys are map entries";
  EXPECT_TRUE(labels.field("app").allows_scalar());

  // A LabelSelector is atomic as a whole; its matchLabels map is granular inside.
  TypeRef selector = (*builtin_type("apps", "v1", "Deployment")).field("spec").field("selector");
  EXPECT_EQ(selector.atom->name, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector");
  EXPECT_TRUE(selector.map_atomic());
  EXPECT_FALSE(selector.field("matchLabels").map_atomic());
  EXPECT_EQ(selector.field("matchExpressions").list_type(), ListType::atomic);
}

TEST(MergeSchema, StrategiesQuantitiesAndUntypedValues) {
  TypeRef dspec = (*builtin_type("apps", "v1", "Deployment")).field("spec");
  EXPECT_EQ(dspec.field("strategy").patch_strategy, "retainKeys");
  EXPECT_TRUE(def("io.k8s.api.policy.v1.PodDisruptionBudgetSpec").field("selector").patch_replace());

  TypeRef limits = def("io.k8s.api.core.v1.ResourceRequirements").field("limits");
  EXPECT_FALSE(limits.map_atomic());
  EXPECT_TRUE(limits.field("nvidia.com/gpu").quantity());
  EXPECT_TRUE(limits.field("nvidia.com/gpu").allows_scalar());
  EXPECT_FALSE(limits.field("nvidia.com/gpu").allows_map());

  TypeRef port = def("io.k8s.api.core.v1.ServicePort").field("targetPort");  // IntOrString
  EXPECT_TRUE(port.allows_scalar());
  EXPECT_FALSE(port.allows_map());
  TypeRef raw = def("io.k8s.api.apps.v1.ControllerRevision").field("data");  // RawExtension
  EXPECT_TRUE(raw.allows_scalar());
  EXPECT_FALSE(raw.allows_map());
}

TEST(MergeSchema, MapTypeOnARefOverridesTheNamedType) {
  // ObjectReference is an atomic struct; PersistentVolumeSpec.claimRef says granular.
  EXPECT_TRUE(def("io.k8s.api.core.v1.ServiceAccount").field("secrets").item().map_atomic());
  TypeRef claim = def("io.k8s.api.core.v1.PersistentVolumeSpec").field("claimRef");
  EXPECT_EQ(claim.atom->name, "io.k8s.api.core.v1.ObjectReference");
  EXPECT_FALSE(claim.map_atomic());
}

TEST(MergeSchema, RecursiveTypesAreShared) {
  TypeRef props = def("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps");
  EXPECT_EQ(props.field("properties").field("spec").atom, props.atom);
  EXPECT_EQ(props.field("items").atom->name,
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray");
}

// Every field of every definition: the derived list type and keys are what the field's
// own extensions say (x-kubernetes-list-type first, then the patch strategy), and a
// $ref is followed to the named type.
TEST(MergeSchema, EveryDocumentedFieldFollowsItsExtensions) {
  const json& defs = openapi::swagger()["definitions"];
  int lists = 0, refs = 0;
  for (const auto& [name, d] : defs.items()) {
    if (!d.contains("properties")) continue;
    TypeRef type = def(name.c_str());
    for (const auto& [field, p] : d["properties"].items()) {
      TypeRef f = type.field(field);
      ASSERT_TRUE(type.is_struct_field(field)) << name << "." << field;
      EXPECT_EQ(f.patch_strategy, p.value("x-kubernetes-patch-strategy", "")) << name << "." << field;
      EXPECT_EQ(f.patch_merge_key, p.value("x-kubernetes-patch-merge-key", "")) << name << "." << field;
      if (p.contains("$ref")) {
        ++refs;
        std::string target = p["$ref"].get<std::string>().substr(std::string("#/definitions/").size());
        EXPECT_EQ(f.atom->name, target) << name << "." << field;
      }
      if (p.value("type", "") != "array") continue;
      ++lists;
      std::string list_type = p.value("x-kubernetes-list-type", "");
      std::string strategy = p.value("x-kubernetes-patch-strategy", "");
      ListType want = ListType::atomic;
      Keys keys;
      if (list_type == "map") {
        want = ListType::map;
        keys = p["x-kubernetes-list-map-keys"].get<Keys>();
      } else if (list_type == "set") {
        want = ListType::set;
      } else if (list_type.empty() && strategy.rfind("merge", 0) == 0) {
        want = p.contains("x-kubernetes-patch-merge-key") ? ListType::map : ListType::set;
        if (want == ListType::map) keys = {p["x-kubernetes-patch-merge-key"].get<std::string>()};
      }
      EXPECT_EQ(f.list_type(), want) << name << "." << field;
      EXPECT_EQ(f.list_keys(), keys) << name << "." << field;
    }
  }
  EXPECT_GT(lists, 300);
  EXPECT_GT(refs, 600);
}

TEST(MergeSchema, CustomResourcesFromTheirSchema) {
  json schema = json::parse(R"({"type":"object","properties":{
    "spec":{"type":"object","properties":{
      "services":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","zone"],
                  "items":{"type":"object","properties":{"name":{"type":"string"},
                                                         "zone":{"type":"string","default":"a"}}}},
      "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
      "args":{"type":"array","items":{"type":"string"}},
      "limits":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"string"}},
      "config":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
      "count":{"x-kubernetes-int-or-string":true},
      "ports":{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"port",
               "items":{"type":"object"}},
      "hosts":{"type":"array","x-kubernetes-patch-strategy":"merge","items":{"type":"string"}},
      "volumes":{"type":"array","x-kubernetes-patch-strategy":"retainKeys","items":{"type":"object"}}}}}})");
  RootType cr = custom_resource_type(schema);
  TypeRef spec = cr.root.field("spec");
  EXPECT_EQ(spec.field("services").list_type(), ListType::map);
  EXPECT_EQ(spec.field("services").list_keys(), (Keys{"name", "zone"}));
  EXPECT_EQ(spec.field("services").key_default("zone"), json("a"));
  EXPECT_EQ(spec.field("tags").list_type(), ListType::set);
  EXPECT_EQ(spec.field("args").list_type(), ListType::atomic) << "CR lists are atomic unless the schema says";
  EXPECT_TRUE(spec.field("limits").map_atomic());
  // preserve-unknown-fields: unknown keys are deduced (maps granular, lists atomic).
  TypeRef config = spec.field("config");
  EXPECT_FALSE(config.is_struct_field("anything"));
  EXPECT_FALSE(config.field("anything").map_atomic());
  EXPECT_EQ(config.field("anything").list_type(), ListType::atomic);
  EXPECT_TRUE(spec.field("count").allows_scalar());
  // Without x-kubernetes-list-type, a merge patch strategy makes the list associative.
  EXPECT_EQ(spec.field("ports").list_type(), ListType::map);
  EXPECT_EQ(spec.field("ports").list_keys(), Keys{"port"});
  EXPECT_EQ(spec.field("hosts").list_type(), ListType::set);
  EXPECT_EQ(spec.field("volumes").list_type(), ListType::atomic);
  // metadata is the document's ObjectMeta.
  EXPECT_EQ(cr.root.field("metadata").field("finalizers").list_type(), ListType::set);
  EXPECT_EQ(cr.root.field("metadata").field("ownerReferences").list_keys(), Keys{"uid"});
}

TEST(MergeSchema, SchemalessAndUndocumentedKinds) {
  RootType cr = custom_resource_type(nullptr);
  EXPECT_FALSE(cr.root.field("spec").is_struct_field("x"));
  EXPECT_EQ(cr.root.field("spec").field("list").list_type(), ListType::atomic);
  EXPECT_EQ(cr.root.field("metadata").field("finalizers").list_type(), ListType::set);

  // resource.k8s.io/v1beta1 is not in the 1.32 document: deduced, with ObjectMeta.
  ResourceRegistry registry;
  auto rct = registry.find("resource.k8s.io", "v1beta1", "resourceclaimtemplates");
  ASSERT_TRUE(rct);
  RootType t = type_of(*rct);
  EXPECT_EQ(t.root.field("metadata").field("finalizers").list_type(), ListType::set);
  EXPECT_EQ(t.root.field("spec").field("x").list_type(), ListType::atomic);

  auto deployments = registry.find("apps", "v1", "deployments");
  ASSERT_TRUE(deployments);
  EXPECT_EQ(type_of(*deployments).root.atom->name, "io.k8s.api.apps.v1.Deployment");
}

}  // namespace
}  // namespace kubesim::apply
