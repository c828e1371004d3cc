// "Does the live object already hold what we want?": the test that lets the
// operator skip a write at steady state (DESIGN §3, apply only what differs).
//
// Pure; thread-compatible.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "dgd/object/field_schema.h"

namespace dgd::object {

// True when applying `desired` (server-side apply) to `live` would change
// nothing the caller asked for, i.e. every field of `desired` is in `live`
// with an equal value:
//  - objects: recursive; fields only in live (server defaults, other
//    managers' fields, status) are ignored;
//  - map-lists: each desired item is found in live by its key and holds
//    recursively (keys with defaults, e.g. protocol TCP, are filled first);
//    set-lists: each desired value is in live; for both, the desired items
//    must appear in live in the same relative order (an apply would reorder
//    them), other live items may sit anywhere; atomic lists: equal whole,
//    order included. Caveat: items of an atomic list that the server
//    defaults (e.g. CRD schema defaults inside custom-resource list items)
//    never compare equal; give such items every defaulted field;
//  - scalars: equal JSON values; numbers by value (1 == 1.0), so a float that
//    the server re-encodes as an integer still matches; a string never equals
//    a number ("4" != 4) except at quantity fields, where both sides are
//    canonicalized ("1024Mi" == "1Gi", 4 == "4", "1000m" == "1");
//  - desired null: the field must be absent (or null) in live;
//  - empty object / empty list in desired: in a typed built-in kind the
//    server does not store an empty list or an empty Go map (labels: {}), so
//    absent in live counts as equal there; elsewhere (emptyDir: {}, custom
//    resources) the field must exist in live.
// Server-managed metadata in `desired` (uid, resourceVersion, generation,
// creationTimestamp, managedFields, selfLink) is ignored.
// Caller duty: leave out of `desired` zero values of non-pointer Go fields
// (hostNetwork: false, serviceAccountName: "", ...): a real apiserver does
// not store them, so they would never compare equal (a write every pass).
bool holds_desired(const nlohmann::json& live, const nlohmann::json& desired,
                   const FieldSchema& schema);

// The first path (".spec.template.spec.containers[name=\"main\"].image") where
// holds_desired fails, or nullopt when it holds. For logs and events.
std::optional<std::string> first_difference(const nlohmann::json& live,
                                            const nlohmann::json& desired,
                                            const FieldSchema& schema);

}  // namespace dgd::object
