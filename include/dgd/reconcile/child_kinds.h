// The kinds of object a DGD's children can be, and where the API serves them.
//
// One entry per kind the renderer emits (render.h), and the scaling adapters
// (scaling_adapters.h). The operator runs one informer per entry, label-scoped
// but for the adapters; `optional` kinds come from a CRD that a
// cluster may lack (ComputeDomain needs NVIDIA's DRA driver), so their absence
// is reported in the status of the DGDs that need them instead of stopping the
// operator. Plain values; immutable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgd/kube/resource.h"

namespace dgd::reconcile {

struct ChildKind {
  kube::ResourceRef resource;  // group, version, plural, kind
  bool optional = false;       // served only when a CRD is installed
};

// Every child kind, in the renderer's order (ServiceAccount ... Deployment).
const std::vector<ChildKind>& child_kinds();

// The entry whose kind (and group, from `api_version`, e.g. "apps/v1") match, or nullptr.
const ChildKind* find_child_kind(std::string_view api_version, std::string_view kind);

// The DGD resource itself (nvidia.com/v1beta1 dynamographdeployments).
kube::ResourceRef dgd_resource();

// Label every child carries (render.h): informers on children select on it.
std::string child_label_selector();

}  // namespace dgd::reconcile
