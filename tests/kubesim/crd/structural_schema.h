// kube-sim: the checks apiextensions-apiserver runs on the openAPIV3Schema of an
// apiextensions.k8s.io/v1 CRD version before it accepts the CRD, in the real server's order:
//  - `nullable` at the root;
//  - structural schema (apiserver/schema ValidateStructural): types specified, `items` for
//    arrays, no `additionalProperties` at the root, metadata at the root restricted to name and
//    generateName, the int-or-string and embedded-resource extensions, nothing but value
//    validation under allOf/anyOf/oneOf/not, every field named there also specified outside;
//    sorted as the real list is;
//  - when structural: `default`s pruned and valid against their schema;
//  - the OpenAPI checks of ValidateCustomResourceDefinitionOpenAPISchema: unsupported
//    keywords ($ref, additionalItems, ...), properties with additionalProperties, uniqueItems,
//    list and map types, list-map keys required or defaulted, defaults in top-level metadata.
// Errors carry field paths under `path` ("spec.versions[0].schema"). Pure function.
#pragma once

#include "kubesim/crd/field_error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::crd {

FieldErrors check_openapi_v3_schema(const nlohmann::json& schema, const std::string& path);

}  // namespace kubesim::crd
