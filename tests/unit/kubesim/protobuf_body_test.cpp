// Kubernetes protobuf request bodies: kubectl's own bodies (captured by
// protobuf_bodies/capture.py) decode to the JSON kubectl itself prints for the same object
// (`--dry-run=client -o json`, Go's encoder); every field the decoder can emit for any kind
// Kubernetes defines resolves, with the same shape, to a property of its type in the
// Kubernetes 1.32 OpenAPI document (or is an inlined Go struct whose fields do).
#include "kubesim/api_error.h"
#include "kubesim/openapi/swagger_document.h"
#include "kubesim/protobuf/descriptor_set.h"
#include "kubesim/protobuf/message_json.h"
#include "kubesim/protobuf/protobuf_body.h"
#include "kubesim/resource_registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace kubesim {
namespace {

using nlohmann::json;
namespace gp = google::protobuf;

const std::string fixtures = std::string(DGD_SOURCE_DIR) + "/tests/unit/kubesim/protobuf_bodies/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ProtobufBodyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!protobuf_bodies_supported()) GTEST_SKIP() << "built without kubectl: no Kubernetes descriptors embedded";
  }
};

// The cases capture.py saved with kubectl's own JSON of the object.
TEST_F(ProtobufBodyTest, KubectlBodiesDecodeToTheObjectKubectlPrints) {
  for (const char* name : {"namespace", "secret", "configmap", "serviceaccount", "deployment", "job", "role",
                           "rolebinding", "clusterrole", "priorityclass", "quota", "service", "pdb", "cronjob"}) {
    SCOPED_TRACE(name);
    const json expected = json::parse(read_file(fixtures + name + ".json"));
    EXPECT_EQ(decode_protobuf_body(read_file(fixtures + name + ".pb")), expected);
  }
}

TEST_F(ProtobufBodyTest, SecretDataIsBase64OfTheLiteral) {
  const json secret = decode_protobuf_body(read_file(fixtures + "secret.pb"));
  EXPECT_EQ(secret["data"]["HF_TOKEN"], "aGZfYWJj");  // base64("hf_abc")
}

// kubectl prints no object for these two; the expectation is the command line:
// `kubectl auth can-i get pods -n ns1`, `kubectl create token sa1 -n ns1 --duration=1h --audience=aud1`.
TEST_F(ProtobufBodyTest, AuthCanIAndCreateToken) {
  EXPECT_EQ(decode_protobuf_body(read_file(fixtures + "selfsubjectaccessreview.pb")),
            (json{{"apiVersion", "authorization.k8s.io/v1"},
                  {"kind", "SelfSubjectAccessReview"},
                  {"metadata", {{"creationTimestamp", nullptr}}},
                  {"spec", {{"resourceAttributes", {{"namespace", "ns1"}, {"verb", "get"}, {"resource", "pods"}}}}},
                  {"status", {{"allowed", false}}}}));
  EXPECT_EQ(decode_protobuf_body(read_file(fixtures + "tokenrequest.pb")),
            (json{{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"metadata", {{"creationTimestamp", nullptr}}},
                  {"spec", {{"audiences", {"aud1"}}, {"expirationSeconds", 3600}}},
                  // TokenRequestStatus tags `token` without omitempty: Go writes "".
                  {"status", {{"expirationTimestamp", nullptr}, {"token", ""}}}}));
}

TEST_F(ProtobufBodyTest, MalformedBodiesAre400WithTheSerializersWords) {
  auto message = [](const std::string& body) {
    try {
      decode_protobuf_body(body);
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), 400);
      return std::string(e.what());
    }
    return std::string("(decoded)");
  };
  EXPECT_EQ(message("{\"kind\":\"Namespace\"}"),
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  EXPECT_EQ(message(std::string("k8s\0", 4)), "empty body");
  const std::string deployment = read_file(fixtures + "deployment.pb");
  for (size_t cut = 5; cut < deployment.size(); cut += 7) EXPECT_NE(message(deployment.substr(0, cut)), "(decoded)");
  std::string unknown_kind = read_file(fixtures + "namespace.pb");
  const auto at = unknown_kind.find("Namespace");
  ASSERT_NE(at, std::string::npos);
  unknown_kind.replace(at, 9, "Namespacf");
  EXPECT_EQ(message(unknown_kind),
            "no kind \"Namespacf\" is registered for version \"v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
}

TEST_F(ProtobufBodyTest, KubernetesWireTypesBecomeTheirJsonForms) {
  const auto* pool = protobuf::kubernetes_descriptors();
  auto time = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.apimachinery.pkg.apis.meta.v1.Time"));
  EXPECT_EQ(protobuf::message_to_json(*time), nullptr);  // Go's zero time
  const auto* r = time->GetReflection();
  r->SetInt64(time.get(), time->GetDescriptor()->FindFieldByName("seconds"), 1700000000);
  r->SetInt32(time.get(), time->GetDescriptor()->FindFieldByName("nanos"), 123456789);
  EXPECT_EQ(protobuf::message_to_json(*time), "2023-11-14T22:13:20Z");
  auto micro = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime"));
  micro->GetReflection()->SetInt64(micro.get(), micro->GetDescriptor()->FindFieldByName("seconds"), 1700000000);
  micro->GetReflection()->SetInt32(micro.get(), micro->GetDescriptor()->FindFieldByName("nanos"), 123456789);
  EXPECT_EQ(protobuf::message_to_json(*micro), "2023-11-14T22:13:20.123456Z");
  auto raw = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.apimachinery.pkg.runtime.RawExtension"));
  raw->GetReflection()->SetString(raw.get(), raw->GetDescriptor()->FindFieldByName("raw"), "{\"a\":[1]}");
  EXPECT_EQ(protobuf::message_to_json(*raw), (json{{"a", {1}}}));
  raw->GetReflection()->SetString(raw.get(), raw->GetDescriptor()->FindFieldByName("raw"), "{not json");
  EXPECT_THROW(protobuf::message_to_json(*raw), std::invalid_argument);
}

// Go's JSON names where the proto names differ: inlined structs and Go-cased field names.
TEST_F(ProtobufBodyTest, InlinedStructsAndGoFieldNamesTakeTheJsonNames) {
  const auto* pool = protobuf::kubernetes_descriptors();
  auto volume = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.api.core.v1.Volume"));
  auto set = [](gp::Message* m, const char* field, const std::string& value) {
    m->GetReflection()->SetString(m, m->GetDescriptor()->FindFieldByName(field), value);
  };
  auto sub = [](gp::Message* m, const char* field) {
    return m->GetReflection()->MutableMessage(m, m->GetDescriptor()->FindFieldByName(field));
  };
  set(volume.get(), "name", "config");
  set(sub(sub(sub(volume.get(), "volumeSource"), "configMap"), "localObjectReference"), "name", "settings");
  EXPECT_EQ(protobuf::message_to_json(*volume), (json{{"name", "config"}, {"configMap", {{"name", "settings"}}}}));

  auto probe = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.api.core.v1.Probe"));
  auto* http_get = sub(sub(probe.get(), "handler"), "httpGet");
  set(http_get, "path", "/health");
  auto* port = sub(http_get, "port");
  port->GetReflection()->SetInt64(port, port->GetDescriptor()->FindFieldByName("type"), 1);
  set(port, "strVal", "http");
  probe->GetReflection()->SetInt32(probe.get(), probe->GetDescriptor()->FindFieldByName("initialDelaySeconds"), 0);
  // initialDelaySeconds is a non-pointer int32 with omitempty: its zero is not written.
  EXPECT_EQ(protobuf::message_to_json(*probe), (json{{"httpGet", {{"path", "/health"}, {"port", "http"}}}}));

  auto ref = protobuf::new_message(pool->FindMessageTypeByName("k8s.io.api.networking.v1.IngressClassParametersReference"));
  set(ref.get(), "aPIGroup", "example.com");
  set(ref.get(), "kind", "Params");
  set(ref.get(), "name", "p");
  EXPECT_EQ(protobuf::message_to_json(*ref), (json{{"apiGroup", "example.com"}, {"kind", "Params"}, {"name", "p"}}));
}

// Go's time.Duration.String() (its own table in time_test.go).
TEST(GoDurationString, MatchesGo) {
  const int64_t ns = 1, us = 1000 * ns, ms = 1000 * us, s = 1000 * ms, min = 60 * s, h = 60 * min;
  EXPECT_EQ(protobuf::go_duration_string(0), "0s");
  EXPECT_EQ(protobuf::go_duration_string(1 * ns), "1ns");
  EXPECT_EQ(protobuf::go_duration_string(1100 * ns), "1.1µs");
  EXPECT_EQ(protobuf::go_duration_string(2200 * us), "2.2ms");
  EXPECT_EQ(protobuf::go_duration_string(3300 * ms), "3.3s");
  EXPECT_EQ(protobuf::go_duration_string(4 * min + 5 * s), "4m5s");
  EXPECT_EQ(protobuf::go_duration_string(4 * min + 5001 * ms), "4m5.001s");
  EXPECT_EQ(protobuf::go_duration_string(5 * h + 6 * min + 7001 * ms), "5h6m7.001s");
  EXPECT_EQ(protobuf::go_duration_string(8 * min + 1 * ns), "8m0.000000001s");
  EXPECT_EQ(protobuf::go_duration_string(INT64_MAX), "2562047h47m16.854775807s");
  EXPECT_EQ(protobuf::go_duration_string(INT64_MIN), "-2562047h47m16.854775808s");
  EXPECT_EQ(protobuf::go_duration_string(-1 * h), "-1h0m0s");
}

// --- every field the decoder can emit, against the OpenAPI document -------------------------

const json* resolve(const json& schema) {
  const json* s = &schema;
  if (s->contains("allOf") && (*s)["allOf"].is_array() && !(*s)["allOf"].empty()) s = &(*s)["allOf"][0];
  if (!s->contains("$ref")) return s;
  const std::string ref = (*s)["$ref"].get<std::string>();
  return openapi::definition(ref.substr(ref.rfind('/') + 1));
}

// The JSON shape message_json.cpp gives a message type, and what the OpenAPI schema must say.
void expect_shape(const gp::Descriptor* type, const json& schema, const std::string& where,
                  std::set<std::string>& visited, const json* enclosing = nullptr);

void expect_value_shape(const gp::FieldDescriptor* f, const json& schema, const std::string& where,
                        std::set<std::string>& visited) {
  const json* s = resolve(schema);
  ASSERT_NE(s, nullptr) << where;
  if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) return expect_shape(f->message_type(), *s, where, visited);
  const std::string type = s->value("type", "");
  switch (f->cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_STRING:
      EXPECT_EQ(type, "string") << where;
      if (f->type() == gp::FieldDescriptor::TYPE_BYTES) {
        EXPECT_EQ(s->value("format", ""), "byte") << where;
      }
      break;
    case gp::FieldDescriptor::CPPTYPE_BOOL: EXPECT_EQ(type, "boolean") << where; break;
    case gp::FieldDescriptor::CPPTYPE_FLOAT:
    case gp::FieldDescriptor::CPPTYPE_DOUBLE: EXPECT_EQ(type, "number") << where; break;
    default: EXPECT_EQ(type, "integer") << where; break;
  }
}

void expect_shape(const gp::Descriptor* type, const json& s, const std::string& where, std::set<std::string>& visited,
                  const json* enclosing) {
  const std::string name = type->full_name();
  const std::string meta = "k8s.io.apimachinery.pkg.apis.meta.v1.";
  if (name == meta + "Time" || name == meta + "MicroTime") {
    EXPECT_EQ(s.value("type", ""), "string") << where;
    EXPECT_EQ(s.value("format", ""), "date-time") << where;
    return;
  }
  if (name == meta + "Duration" || name == "k8s.io.apimachinery.pkg.api.resource.Quantity") {
    EXPECT_EQ(s.value("type", ""), "string") << where;
    return;
  }
  if (name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") {
    EXPECT_EQ(s.value("format", ""), "int-or-string") << where;
    return;
  }
  if (name == meta + "FieldsV1" || name == "k8s.io.apimachinery.pkg.runtime.RawExtension") {
    EXPECT_EQ(s.value("type", ""), "object") << where;
    return;
  }
  if (protobuf::is_wire_type(type)) {  // the string slices
    EXPECT_EQ(s.value("type", ""), "array") << where;
    EXPECT_EQ(s.contains("items") ? s["items"].value("type", "") : "", "string") << where;
    return;
  }
  // An inlined type is checked in every parent; others once.
  if (!enclosing && !visited.insert(name).second) return;
  if (type->field_count() == 0) return;  // an empty struct (StorageVersionSpec)
  ASSERT_TRUE(s.contains("properties")) << where << " (" << name << ") has no properties in the OpenAPI document";
  const json& props = s["properties"];
  for (const auto& jf : protobuf::json_fields(type, enclosing)) {
    const auto* f = jf.field;
    ASSERT_TRUE(jf.in_openapi) << where << ": " << name << "." << f->name() << " is not in the OpenAPI type";
    if (jf.inlined) {
      expect_shape(f->message_type(), s, where + "(inline " + f->name() + ")", visited, &s);
      continue;
    }
    const std::string at = where + "." + jf.key;
    ASSERT_TRUE(props.contains(jf.key)) << at;
    const json& p = props[jf.key];
    if (f->is_map()) {
      EXPECT_EQ(p.value("type", ""), "object") << at;
      ASSERT_TRUE(p.contains("additionalProperties")) << at;
      expect_value_shape(f->message_type()->map_value(), p["additionalProperties"], at + "[*]", visited);
    } else if (f->is_repeated()) {
      EXPECT_EQ(p.value("type", ""), "array") << at;
      ASSERT_TRUE(p.contains("items")) << at;
      expect_value_shape(f, p["items"], at + "[]", visited);
    } else {
      expect_value_shape(f, p, at, visited);
    }
  }
}

// Every kind of the OpenAPI document kubectl has a descriptor for: field names and shapes.
TEST_F(ProtobufBodyTest, EveryEmittedFieldExistsInTheOpenApiType) {
  std::set<std::string> visited;
  int kinds = 0;
  for (const auto& [def_name, def] : openapi::swagger()["definitions"].items()) {
    if (!def.contains("x-kubernetes-group-version-kind")) continue;
    for (const auto& gvk : def["x-kubernetes-group-version-kind"]) {
      const auto* type = protobuf::message_type_of(gvk.value("group", ""), gvk.value("version", ""), gvk.value("kind", ""));
      if (!type || type->full_name() != "k8s.io." + def_name.substr(7)) continue;
      ++kinds;
      expect_shape(type, def, def_name, visited);
    }
  }
  EXPECT_GT(kinds, 200);
}

// Every built-in kind kube-sim serves has a message type, except those of the apiextensions
// and kube-aggregator servers (CustomResourceDefinition, APIService), whose protos kubectl
// does not link; kubectl sends those kinds as JSON.
TEST_F(ProtobufBodyTest, EveryServedBuiltinKindHasAMessageType) {
  ResourceRegistry registry;
  for (const auto& t : registry.all()) {
    if (!t->builtin || t->group == "apiextensions.k8s.io" || t->group == "apiregistration.k8s.io") continue;
    EXPECT_NE(protobuf::message_type_of(t->group, t->version, t->kind), nullptr) << t->group << "/" << t->kind;
  }
}

}  // namespace
}  // namespace kubesim
