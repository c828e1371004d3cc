// kube-sim: the OpenAPI endpoints, /openapi/v2 and /openapi/v3, as a 1.32 server publishes
// them: Kubernetes' own document for the built-in kinds, plus a definition and paths for
// every served version of every CRD, built from its openAPIV3Schema.
//
// Contract:
//  - /openapi/v2: the swagger document as JSON (definitions keyed like
//    `com.nvidia.v1beta1.DynamoGraphDeployment`, with `x-kubernetes-group-version-kind`).
//    kube-sim does not encode protobuf: a client that accepts only
//    `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (kubectl) gets an
//    empty protobuf document, which kubectl reads as "no schemas" and then relies on the
//    OpenAPI v3 documents.
//  - /openapi/v3: `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=H"}}}`,
//    one entry per served group-version (and group, and path outside the resource API);
//    /openapi/v3/<path> is that group-version's OpenAPI 3.0 document (paths with
//    requestBody and parameter schemas, `components.schemas` with every definition it
//    reaches, `$ref`s to `#/components/schemas/`). H is the upper-case hex SHA-512 of
//    the document, also its ETag; a stale `hash` is redirected (301) to the current one,
//    and `If-None-Match` with the current ETag gets 304.
//  - Documents are rebuilt when the registry's generation changes (a CRD added, changed
//    or removed). Thread-safe.
#pragma once

#include "kubesim/http_types.h"
#include "kubesim/resource_registry.h"

#include <string>

namespace kubesim::openapi {

// True for the paths this module answers (/openapi/v2, /openapi/v3, /openapi/v3/...).
bool is_openapi_path(const std::string& path);

// The response to GET `path` (`hash` = the query's hash value). Throws ApiError 404 for
// an unknown group-version.
HttpResponse serve_openapi(const ResourceRegistry& registry, const std::string& path, const std::string& hash,
                           const std::string& accept, const std::string& if_none_match);

// The definition name a CRD kind is published under: group labels reversed, then
// version and kind ("nvidia.com", "v1beta1", "DynamoGraphDeployment" ->
// "com.nvidia.v1beta1.DynamoGraphDeployment").
std::string crd_definition_name(const std::string& group, const std::string& version, const std::string& kind);

}  // namespace kubesim::openapi
