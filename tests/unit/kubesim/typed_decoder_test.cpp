// Built-in objects read against Kubernetes' OpenAPI document (openapi/typed_decoder.h,
// openapi/field_validation.h): the Go decoder's words for unknown, duplicate and mistyped
// fields, the converter's and structured-merge-diff's, and the store dropping unknown fields
// of writes that do not come through HTTP.
#include "kubesim/api_error.h"
#include "kubesim/openapi/field_validation.h"
#include "kubesim/openapi/openapi_documents.h"
#include "kubesim/openapi/typed_decoder.h"
#include "kubesim/resource_registry.h"
#include "kubesim/store.h"

#include <gtest/gtest.h>

namespace kubesim::openapi {
namespace {

using nlohmann::json;

const SchemaNode& deployment_schema() {
  static const SchemaNode n = resolve_definition("io.k8s.api.apps.v1.Deployment");
  return n;
}

json deployment() {
  return json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
             "template": {"metadata": {"labels": {"a": "b"}},
                          "spec": {"containers": [{"name": "c", "image": "i"}]}}}})");
}

TEST(SchemaWalker, GoTypesAsEncodingJsonNamesThem) {
  const auto& d = deployment_schema();
  EXPECT_EQ(d.go_type(), "v1.Deployment");
  EXPECT_EQ(d.go_struct(), "Deployment");
  auto spec = resolve(*d.field("spec"));
  EXPECT_EQ(resolve(*spec.field("replicas")).go_type(), "int32");
  auto pod = resolve(*resolve(*spec.field("template")).field("spec"));
  EXPECT_EQ(resolve(*pod.field("containers")).go_type(), "[]v1.Container");
  EXPECT_EQ(resolve(*pod.field("nodeSelector")).go_type(), "map[string]string");
  EXPECT_EQ(resolve(*spec.field("strategy")).shape, Shape::Struct);
  EXPECT_EQ(d.field("nope"), nullptr);
}

TEST(TypedDecoder, UnknownFieldsAtEveryDepthInDocumentOrder) {
  auto body = parse_keeping_duplicates(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "zz": 1},
    "spec": {"unknownField": 1, "replicas": 2, "replicas": 3, "template": {"spec": {"containers": [
      {"name": "c", "image": "i"}, {"name": "e", "imagePullPolicyy": "Always"}]}}}})");
  auto found = decode_json(deployment_schema(), body);
  EXPECT_EQ(found.error, "");
  EXPECT_EQ(found.strict, (std::vector<std::string>{
                              R"(unknown field "metadata.zz")", R"(unknown field "spec.unknownField")",
                              R"(duplicate field "spec.replicas")",
                              R"(unknown field "spec.template.spec.containers[1].imagePullPolicyy")"}));
  // Dropped, and the last duplicate kept.
  EXPECT_FALSE(body["metadata"].contains("zz"));
  EXPECT_EQ(body["spec"]["replicas"], 3);
  EXPECT_FALSE(body["spec"]["template"]["spec"]["containers"][1].contains("imagePullPolicyy"));
  EXPECT_EQ(body["spec"].size(), 2u);
}

TEST(TypedDecoder, TypeErrorsInTheGoDecodersWords) {
  auto first_error = [](const std::function<void(json&)>& edit) {
    json d = deployment();
    edit(d);
    return decode_json(deployment_schema(), d).error;
  };
  EXPECT_EQ(first_error([](json& d) { d["spec"]["replicas"] = "3"; }),
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32");
  EXPECT_EQ(first_error([](json& d) { d["spec"]["replicas"] = 2.5; }),
            "json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32");
  EXPECT_EQ(first_error([](json& d) { d["spec"]["template"]["spec"]["containers"][0]["ports"] = json::object(); }),
            "json: cannot unmarshal object into Go struct field Container.spec.template.spec.containers.ports of type "
            "[]v1.ContainerPort");
  EXPECT_EQ(first_error([](json& d) { d["spec"]["strategy"] = {{"rollingUpdate", {{"maxSurge", json::object()}}}}; }),
            "json: cannot unmarshal object into Go value of type int32");
  EXPECT_EQ(first_error([](json& d) { d["spec"]["template"]["spec"]["containers"][0]["resources"] = {{"limits", {{"cpu", true}}}}; }),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(first_error([](json& d) { d["metadata"]["creationTimestamp"] = 5; }),
            "json: cannot unmarshal number into Go value of type string");
  // Allowed: null anywhere, int-or-string either way, quantities as numbers.
  EXPECT_EQ(first_error([](json& d) {
              d["spec"]["replicas"] = nullptr;
              d["spec"]["strategy"] = {{"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", "25%"}}}};
              d["spec"]["template"]["spec"]["containers"][0]["resources"] = {{"limits", {{"cpu", 2}}}};
            }),
            "");
}

TEST(TypedDecoder, StrategicMergeResultsInTheConvertersWords) {
  json d = deployment();
  d["spec"]["replicas"] = "x";
  EXPECT_EQ(convert_unstructured(deployment_schema(), d).error, "cannot convert string to int32");
  d = deployment();
  d["spec"]["template"]["spec"]["containers"] = json::object();
  EXPECT_EQ(convert_unstructured(deployment_schema(), d).error, "cannot restore slice from map");
  d = deployment();
  d["spec"]["selector"] = "x";
  EXPECT_EQ(convert_unstructured(deployment_schema(), d).error, "cannot restore struct from: string");
  d = deployment();
  d["spec"]["paused2"] = true;
  auto found = convert_unstructured(deployment_schema(), d);
  EXPECT_EQ(found.strict, std::vector<std::string>{R"(unknown field "spec.paused2")"});
  EXPECT_FALSE(d["spec"].contains("paused2"));
}

TEST(TypedDecoder, ApplyBodiesInStructuredMergeDiffsWords) {
  json d = deployment();
  d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always";
  d["spec"]["replicas"] = "two";
  EXPECT_EQ(apply_errors(deployment_schema(), d),
            (std::vector<std::string>{".spec.replicas: expected numeric (int or float), got string",
                                      ".spec.template.spec.containers[name=\"c\"].imagePullPolicyy: field not declared in schema"}));
  EXPECT_TRUE(apply_errors(deployment_schema(), deployment()).empty());
}

TEST(FieldValidation, StoreDropsUnknownFieldsOfInProcessWrites) {
  ResourceRegistry reg;
  Store store{reg, StoreOptions{50}};
  const ResourceType& deploy = *reg.find("apps", "v1", "deployments");
  json d = deployment();
  d["spec"]["template"]["spec"]["containers"][0]["bogus"] = 1;
  json copy = d;
  EXPECT_EQ(drop_unknown_fields(deploy, copy), std::vector<std::string>{R"(unknown field "spec.template.spec.containers[0].bogus")"});
  WriteOptions strict;
  strict.strict_fields = true;
  try {
    store.create(deploy, "default", d, strict);
    FAIL() << "created";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_STREQ(e.what(), R"(strict decoding error: unknown field "spec.template.spec.containers[0].bogus")");
  }
  json created = store.create(deploy, "default", d, WriteOptions{});
  EXPECT_FALSE(created["spec"]["template"]["spec"]["containers"][0].contains("bogus"));
}

TEST(OpenApiDocuments, CrdDefinitionNames) {
  EXPECT_EQ(crd_definition_name("nvidia.com", "v1beta1", "DynamoGraphDeployment"), "com.nvidia.v1beta1.DynamoGraphDeployment");
  EXPECT_EQ(crd_definition_name("resource.nvidia.com", "v1beta1", "ComputeDomain"),
            "com.nvidia.resource.v1beta1.ComputeDomain");
}

}  // namespace
}  // namespace kubesim::openapi
