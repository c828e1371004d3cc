// kube-sim: the Kubernetes 1.32 OpenAPI v2 document, the source of truth for built-in kinds.
//
// kube-sim imitates a real API server, so what it knows of built-in kinds (field types,
// list-map keys, patch strategies, the resources a 1.32 server serves) comes from the
// document Kubernetes publishes, not from hand-written tables. The document is embedded at
// build time from DGD_KUBE_OPENAPI (default ../shared/referees/kubernetes-1.32-swagger.json)
// and parsed once, on first use; `kube-sim --openapi FILE` reads another one instead.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kubesim::openapi {

// Replaces the embedded document with the one in `path` (before the first swagger() call).
// Throws std::runtime_error when the file cannot be read or is not an OpenAPI v2 document.
void load_swagger_file(const std::string& path);

// The whole document: {"swagger": "2.0", "info", "paths", "definitions", ...}. Thread-safe.
const nlohmann::json& swagger();

// The definition name ("io.k8s.api.apps.v1.Deployment") whose x-kubernetes-group-version-kind
// lists group/version/kind; nullopt for kinds the document does not define (CRDs).
std::optional<std::string> definition_name(const std::string& group, const std::string& version,
                                           const std::string& kind);

// The definition itself; nullptr when absent. `name` as in "#/definitions/<name>".
const nlohmann::json* definition(const std::string& name);

}  // namespace kubesim::openapi
