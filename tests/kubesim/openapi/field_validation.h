// kube-sim: fieldValidation (Ignore, Warn, Strict) for built-in kinds, from the OpenAPI
// document's definitions, with the real server's status codes and words.
//
// Contract:
//  - Only kinds the document defines are checked (builtin_schema); custom resources and
//    kinds missing from the document pass untouched.
//  - A value of the wrong type always fails (400 on create/update, 422 on a patch),
//    whatever the directive. Unknown and duplicate fields fail with Strict (400), become
//    one warning each with Warn (the default when the query parameter is absent), and
//    are dropped silently with Ignore. Unknown fields are never kept.
//  - Server-side apply bodies go through structured-merge-diff's schema, which refuses
//    unknown fields whatever the directive (500, as Kubernetes 1.32 answers).
#pragma once

#include "kubesim/openapi/schema_walker.h"
#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kubesim::openapi {

enum class FieldValidation { Ignore, Warn, Strict };

// The directive of a request's `fieldValidation` query value ("" means Warn). The caller
// rejects values other than the three.
FieldValidation field_validation(const std::string& query_value);

// The definition of `t` in the document (nullopt for CRDs and kinds it lacks).
std::optional<SchemaNode> builtin_schema(const ResourceType& t);

// A create or update body, already parsed into `obj` from `raw` (JSON bodies are re-read
// for field order and duplicate keys). Throws ApiError 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: ...`.
void decode_body(const ResourceType& t, const std::string& raw, const std::string& content_type, nlohmann::json& obj,
                 FieldValidation fv, std::vector<std::string>& warnings);

enum class PatchType { Json, Merge, Strategic };
// The object a JSON, merge or strategic merge patch produced. Throws ApiError 422
// (` "" is invalid: patch: Invalid value: ...`) on a type error, 400 on strict errors.
void decode_patched(const ResourceType& t, PatchType type, const nlohmann::json& patch_body, nlohmann::json& patched,
                    FieldValidation fv, std::vector<std::string>& warnings);

// A server-side apply body. Throws ApiError 500 `failed to create typed patch object
// (<ns>/<name>; <apiVersion>, Kind=<Kind>): <errors>`.
void check_apply_body(const ResourceType& t, const nlohmann::json& body, const std::string& ns, const std::string& name);

// Writes that did not come through HTTP: the unknown fields are dropped from `obj` and
// returned as strict decoding errors.
std::vector<std::string> drop_unknown_fields(const ResourceType& t, nlohmann::json& obj);

// The `Warning` response header value for one warning text: `299 - "<escaped text>"`.
std::string warning_header(const std::string& text);

}  // namespace kubesim::openapi
