// kube-sim: a decoded Kubernetes protobuf message as the JSON the API server would hold.
//
// The JSON names are Go's JSON tags, which the descriptors do not carry: proto fields are
// named after the Go fields (`uID` for `uid`, `Webhooks`, `aPIGroup`), and an embedded Go
// struct tagged `json:",inline"` is a message field of its own (Volume.volumeSource,
// Probe.handler). So each field is resolved against the type's definition in the Kubernetes
// OpenAPI document (openapi/swagger_document.h): the property of the same name, else of the
// same name ignoring case, else (a message field) its fields inlined into the parent, as Go
// writes them. A type the document lacks keeps the descriptors' json_name.
//
// A field is emitted when the body carries it, except a zero value of a non-pointer Go field
// (gogoproto.nullable=false), which Go cannot tell from an absent one and writes only when
// its tag has no omitempty (the definition's `required` list). Repeated fields and maps are
// emitted when not empty, `bytes` as base64. Kubernetes' own wire types become their JSON
// forms: meta/v1 Time and MicroTime (RFC 3339, null when zero), Duration (Go's duration
// string), FieldsV1 and runtime.RawExtension (the embedded JSON), resource.Quantity (its
// string), intstr.IntOrString (number or string), and named string slices (Verbs,
// ExtraValue: `repeated string items`) as arrays.
// Throws std::invalid_argument when an embedded JSON document does not parse.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kubesim::protobuf {

nlohmann::json message_to_json(const google::protobuf::Message& message);

// How a field of a message type appears in JSON.
struct JsonField {
  const google::protobuf::FieldDescriptor* field = nullptr;
  std::string key;               // the JSON name (empty when inlined)
  bool inlined = false;          // the message's fields are written into the parent
  bool in_openapi = false;       // the key (or, inlined, the parent) comes from the OpenAPI type
  bool written_when_zero = false;  // in the definition's `required` list: Go has no omitempty
};

// The fields of `type` as JSON; `enclosing` is the OpenAPI definition of the type it is
// inlined into (used when `type` has no definition of its own). Thread-safe, cached.
const std::vector<JsonField>& json_fields(const google::protobuf::Descriptor* type,
                                          const nlohmann::json* enclosing = nullptr);

// The OpenAPI definition of a message type (k8s.io.api.core.v1.Pod -> io.k8s.api.core.v1.Pod);
// nullptr when the document has none.
const nlohmann::json* openapi_definition_of(const google::protobuf::Descriptor* type);

// Whether message_to_json writes `type` as a JSON value of its own rather than an object of
// its fields (Time, Quantity, IntOrString, RawExtension, the string slices, ...).
bool is_wire_type(const google::protobuf::Descriptor* type);

// Go's time.Duration.String() of `nanoseconds` ("1h0m0s", "1.5s", "300ms", "0s").
std::string go_duration_string(int64_t nanoseconds);

}  // namespace kubesim::protobuf
