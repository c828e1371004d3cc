// kube-sim: server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io`).
//
// Columns follow what kubectl shows against a real cluster for pods, deployments,
// replicasets, statefulsets, daemonsets, HPAs, ingresses, services, nodes, jobs,
// namespaces, configmaps, secrets, PVCs and events (priority-1 columns appear with `-o wide`); CRDs use their
// additionalPrinterColumns (simple JSONPath); everything else gets Name and Age.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim {

// include_object: "Metadata" (default; PartialObjectMetadata), "Object" or "None".
nlohmann::json make_table(const ResourceType& t, const std::vector<nlohmann::json>& objects, bool with_columns,
                          const std::string& include_object);
// kubectl's HumanDuration of now - `rfc3339`.
std::string human_age(const std::string& rfc3339);
// A small JSONPath evaluator (.a.b, .a[0], .a[*].b, [?(@.k=="v")]) as CRD printer
// columns use it; values joined by "," as kubectl prints them.
std::string eval_jsonpath(const nlohmann::json& obj, const std::string& path);

}  // namespace kubesim
