// kube-sim: a built-in object read as the API server reads it into its Go types.
//
// The API server never stores JSON it was sent: it decodes the body into the kind's Go
// struct (fields, types), then encodes that. Whatever the struct has no field for is
// gone, and a value of the wrong type fails the request. Three readers do this, each
// with its own words, and kube-sim speaks all three:
//  - decode_json: sigs.k8s.io/json (Go's encoding/json, case-sensitive, strict mode), for
//    create and update bodies and the result of JSON and merge patches;
//  - convert_unstructured: apimachinery's runtime.DefaultUnstructuredConverter, for the
//    result of a strategic merge patch;
//  - apply_errors: structured-merge-diff's typed conversion of a server-side apply body.
// The first two also remove the unknown fields from the value they check, so what the
// caller stores is what the real server would have stored.
#pragma once

#include "kubesim/openapi/schema_walker.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::openapi {

struct DecodeFindings {
  // The decoding error that fails the request, as the decoder words it ("" = none), e.g.
  // `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`.
  std::string error;
  // Strict decoding errors in the order met: `unknown field "spec.x"`, `duplicate field "spec.y"`.
  std::vector<std::string> strict;
};

// encoding/json into the struct `root`. Keys of `body` marked by parse_keeping_duplicates
// count as duplicates. Unknown fields (and duplicate markers) are removed from `body`.
DecodeFindings decode_json(const SchemaNode& root, nlohmann::json& body);
DecodeFindings decode_json(const SchemaNode& root, nlohmann::ordered_json& body);

// DefaultUnstructuredConverter.FromUnstructuredWithValidation into `root`: the first
// conversion error (`cannot convert string to int32`) and the unknown fields, which are
// removed from `obj`.
DecodeFindings convert_unstructured(const SchemaNode& root, nlohmann::json& obj);

// structured-merge-diff's validation of an apply configuration against `root`: each
// error as `.spec.x: field not declared in schema` (list items named by their list-map
// keys, `[name="main"]`). Empty when the body fits.
std::vector<std::string> apply_errors(const SchemaNode& root, const nlohmann::json& obj);

// JSON text parsed in document order, with each repeated key kept under a marked name
// (decode_json reports it and keeps the last value, as Go does). Throws
// std::invalid_argument when `text` is not JSON.
nlohmann::ordered_json parse_keeping_duplicates(const std::string& text);

}  // namespace kubesim::openapi
