// Built-in schemas follow the listType / patchMergeKey markers of the
// Kubernetes API types (k8s.io/api core/v1, apps/v1, meta/v1); CRD schemas
// follow the x-kubernetes-* extensions.
#include "dgd/object/field_schema.h"

#include <gtest/gtest.h>

namespace dgd::object {
namespace {

using nlohmann::json;
using LT = FieldSchema::ListType;

const FieldSchema& at(const FieldSchema& root, std::initializer_list<const char*> path) {
  const FieldSchema* s = &root;
  for (const char* p : path) s = std::string(p) == "[]" ? &s->items() : &s->field(p);
  return *s;
}

TEST(BuiltinSchema, LooksUpByGroupAndKind) {
  EXPECT_NE(builtin_schema("apps", "Deployment"), nullptr);
  EXPECT_NE(builtin_schema("", "Pod"), nullptr);
  EXPECT_NE(builtin_schema("batch", "Job"), nullptr);
  EXPECT_NE(builtin_schema("rbac.authorization.k8s.io", "Role"), nullptr);
  EXPECT_EQ(builtin_schema("", "Deployment"), nullptr);
  EXPECT_EQ(builtin_schema("nvidia.com", "DynamoGraphDeployment"), nullptr);
  EXPECT_TRUE(builtin_schema("apps", "Deployment")->typed);
}

TEST(BuiltinSchema, PodTemplateListsInEveryWorkload) {
  for (auto [group, kind] : {std::pair{"apps", "Deployment"}, {"apps", "ReplicaSet"}, {"batch", "Job"},
                             {"apps", "StatefulSet"}}) {
    const FieldSchema& pod = at(*builtin_schema(group, kind), {"spec", "template", "spec"});
    const FieldSchema& containers = pod.field("containers");
    EXPECT_EQ(containers.list_type, LT::kMap) << kind;
    EXPECT_EQ(containers.list_keys, std::vector<std::string>{"name"});
    EXPECT_EQ(containers.patch_merge_key, "name");
    EXPECT_TRUE(containers.patch_merge);
    EXPECT_EQ(pod.field("initContainers").list_keys, std::vector<std::string>{"name"});
  }
  const FieldSchema& pod = at(*builtin_schema("", "Pod"), {"spec"});
  const FieldSchema& c = pod.field("containers").items();
  EXPECT_EQ(c.field("env").list_keys, std::vector<std::string>{"name"});
  EXPECT_EQ(c.field("volumeMounts").list_keys, std::vector<std::string>{"mountPath"});
  EXPECT_EQ(c.field("volumeMounts").patch_merge_key, "mountPath");
  const FieldSchema& ports = c.field("ports");
  EXPECT_EQ(ports.list_keys, (std::vector<std::string>{"containerPort", "protocol"}));
  EXPECT_EQ(ports.patch_merge_key, "containerPort");
  EXPECT_EQ(ports.list_key_defaults.at("protocol"), "TCP");
  EXPECT_TRUE(c.field("resources").field("limits").field("nvidia.com/gpu").quantity);
  EXPECT_TRUE(c.field("resources").field("requests").is_map);
  EXPECT_EQ(c.field("resources").field("claims").list_keys, std::vector<std::string>{"name"});
  EXPECT_FALSE(c.field("resources").field("claims").patch_merge);
  EXPECT_EQ(c.field("args").list_type, LT::kAtomic);
  EXPECT_FALSE(c.field("args").patch_merge);
  EXPECT_EQ(pod.field("volumes").list_keys, std::vector<std::string>{"name"});
  EXPECT_TRUE(at(pod, {"volumes", "[]", "emptyDir", "sizeLimit"}).quantity);
  EXPECT_EQ(pod.field("tolerations").list_type, LT::kAtomic);
  EXPECT_EQ(pod.field("imagePullSecrets").list_keys, std::vector<std::string>{"name"});
  EXPECT_EQ(pod.field("resourceClaims").list_keys, std::vector<std::string>{"name"});
  EXPECT_EQ(pod.field("nodeSelector").map_type, FieldSchema::MapType::kAtomic);
  EXPECT_EQ(at(pod, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                     "nodeSelectorTerms"})
                .list_type,
            LT::kAtomic);
  EXPECT_EQ(at(*builtin_schema("", "Pod"), {"status", "conditions"}).list_keys, std::vector<std::string>{"type"});
}

TEST(BuiltinSchema, MetadataServiceAndRbac) {
  const FieldSchema& meta = builtin_schema("", "ConfigMap")->field("metadata");
  EXPECT_EQ(meta.field("finalizers").list_type, LT::kSet);
  EXPECT_TRUE(meta.field("finalizers").patch_merge);
  EXPECT_EQ(meta.field("ownerReferences").list_keys, std::vector<std::string>{"uid"});
  EXPECT_TRUE(meta.field("labels").is_map);
  EXPECT_EQ(meta.field("managedFields").list_type, LT::kAtomic);
  const FieldSchema& ports = at(*builtin_schema("", "Service"), {"spec", "ports"});
  EXPECT_EQ(ports.list_keys, (std::vector<std::string>{"port", "protocol"}));
  EXPECT_EQ(ports.patch_merge_key, "port");
  EXPECT_EQ(builtin_schema("rbac.authorization.k8s.io", "Role")->field("rules").list_type, LT::kAtomic);
  EXPECT_TRUE(at(*builtin_schema("", "PersistentVolumeClaim"), {"spec", "resources", "requests", "storage"}).quantity);
  EXPECT_EQ(at(*builtin_schema("apps", "Deployment"), {"status", "conditions"}).patch_merge_key, "type");
}

TEST(SchemaForObject, BuiltinOrCustom) {
  const FieldSchema& d = schema_for_object(json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment"})"));
  EXPECT_EQ(&d, builtin_schema("apps", "Deployment"));
  const FieldSchema& svc = schema_for_object(json::parse(R"({"apiVersion":"v1","kind":"Service"})"));
  EXPECT_EQ(&svc, builtin_schema("", "Service"));
  const FieldSchema& cr = schema_for_object(json::parse(R"({"apiVersion":"nvidia.com/v1alpha1","kind":"X"})"));
  EXPECT_FALSE(cr.typed);
  EXPECT_EQ(cr.field("metadata").field("ownerReferences").list_keys, std::vector<std::string>{"uid"});
  EXPECT_EQ(cr.field("spec").field("anything").list_type, LT::kAtomic);
  EXPECT_FALSE(schema_for_object(json::parse(R"({"apiVersion":7,"kind":null})")).typed);
  EXPECT_FALSE(schema_for_object(json::parse("[]")).typed);
}

TEST(FromOpenApiV3, ListAndMapTypes) {
  json schema = json::parse(R"({"type":"object","properties":{
    "spec":{"type":"object","properties":{
      "services":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port"],
                  "items":{"type":"object","properties":{"name":{"type":"string"},
                                                          "port":{"type":"integer","default":80}}}},
      "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
      "args":{"type":"array","items":{"type":"string"}},
      "explicitAtomic":{"type":"array","x-kubernetes-list-type":"atomic"},
      "mapWithoutKeys":{"type":"array","x-kubernetes-list-type":"map"},
      "selector":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"string"}},
      "envs":{"type":"object","additionalProperties":{"type":"object","properties":{
          "list":{"type":"array","x-kubernetes-list-type":"set"}}}},
      "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}})");
  FieldSchema s = FieldSchema::from_openapi_v3(schema);
  const FieldSchema& spec = s.field("spec");
  EXPECT_EQ(spec.field("services").list_type, LT::kMap);
  EXPECT_EQ(spec.field("services").list_keys, (std::vector<std::string>{"name", "port"}));
  EXPECT_EQ(spec.field("services").list_key_defaults.at("port"), 80);
  EXPECT_EQ(spec.field("tags").list_type, LT::kSet);
  EXPECT_EQ(spec.field("args").list_type, LT::kAtomic);
  EXPECT_EQ(spec.field("explicitAtomic").list_type, LT::kAtomic);
  EXPECT_EQ(spec.field("mapWithoutKeys").list_type, LT::kAtomic) << "a map list without keys cannot be merged";
  EXPECT_EQ(spec.field("selector").map_type, FieldSchema::MapType::kAtomic);
  EXPECT_TRUE(spec.field("selector").is_map);
  EXPECT_TRUE(spec.field("envs").is_map);
  EXPECT_EQ(spec.field("envs").field("any-key").field("list").list_type, LT::kSet);
  EXPECT_FALSE(spec.field("free").is_map);
  EXPECT_FALSE(s.typed);
}

TEST(FromOpenApiV3, OddInputGivesDefaults) {
  for (const char* odd : {"null", "[]", "7", R"({"properties":[]})", R"({"items":"x","x-kubernetes-list-type":5})"}) {
    FieldSchema s = FieldSchema::from_openapi_v3(json::parse(odd));
    EXPECT_EQ(s.list_type, LT::kAtomic) << odd;
    EXPECT_TRUE(s.fields.empty()) << odd;
  }
  FieldSchema cr = FieldSchema::custom_resource(nullptr);
  EXPECT_TRUE(cr.field("metadata").field("labels").is_map);
}

TEST(Subschemas, PodTemplateSpecHasMetadataAndSpec) {
  EXPECT_EQ(pod_template_spec_schema().field("spec").field("containers").list_keys, std::vector<std::string>{"name"});
  EXPECT_TRUE(pod_template_spec_schema().field("metadata").field("annotations").is_map);
  EXPECT_EQ(&pod_template_spec_schema().field("spec"), &pod_spec_schema());
  EXPECT_EQ(object_meta_schema().field("finalizers").list_type, LT::kSet);
}

}  // namespace
}  // namespace dgd::object
