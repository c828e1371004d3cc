// kube-sim: a decoded Kubernetes protobuf message as the JSON the API server would hold.
//
// Field names are the descriptors' JSON names. A field is emitted when the body carries it,
// except a zero value of a non-pointer Go field (gogoproto.nullable=false), which Go cannot
// tell from an absent one; repeated fields and maps are emitted when not empty, `bytes` as
// base64. Kubernetes' own wire types become their JSON forms: meta/v1 Time and MicroTime
// (RFC 3339, null when zero), Duration (Go's duration string), FieldsV1 and
// runtime.RawExtension (the embedded JSON), resource.Quantity (its string),
// intstr.IntOrString (number or string), and named string slices (Verbs, ExtraValue:
// `repeated string items`) as arrays.
// Throws std::invalid_argument when an embedded JSON document does not parse.
#pragma once

#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace kubesim::protobuf {

nlohmann::json message_to_json(const google::protobuf::Message& message);

// Go's time.Duration.String() of `nanoseconds` ("1h0m0s", "1.5s", "300ms", "0s").
std::string go_duration_string(int64_t nanoseconds);

}  // namespace kubesim::protobuf
