// Upstream's nvidia.com/v1alpha1 DynamoGraphDeployment → nvidia.com/v1beta1, field by field
// as upstream's conversion (deploy/operator/api/v1alpha1/*_conversion.go, v1beta1 the hub)
// maps it: the services map becomes the components list (sorted by name), componentType /
// subComponentType become type, the per-service pod fields (resources, envs, envFromSecret,
// probes, volumeMounts, extraPodMetadata, extraPodSpec and its mainContainer) become the
// podTemplate with its container main, sharedMemory becomes sharedMemorySize, a
// useAsCompilationCache mount becomes compilationCache.
//
// Where upstream keeps an alpha-only field in an annotation for its own operator, the
// conversion here says what it means in the v1beta1 file instead: a PVC that spec.pvcs asks
// to create is written as a PersistentVolumeClaim document, a PVC a service mounts becomes
// a podTemplate volume. What has no v1beta1 form is reported with its v1alpha1 path.
// Pure: no I/O, never throws. Immutable inputs, no shared state.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/api/field_error.h"

namespace dgd::api {

inline constexpr const char* kV1alpha1ApiVersion = "nvidia.com/v1alpha1";

struct ConversionResult {
  nlohmann::json dgd;                      // the nvidia.com/v1beta1 document
  std::vector<nlohmann::json> claims;      // PersistentVolumeClaims spec.pvcs asked to create
  std::vector<FieldError> errors;          // v1alpha1 fields without a v1beta1 form
  bool ok() const { return !has_errors(errors); }
};

// True for an object whose apiVersion is nvidia.com/v1alpha1 and kind DynamoGraphDeployment.
bool is_v1alpha1_dgd(const nlohmann::json& doc);

// Converts one v1alpha1 DGD document (is_v1alpha1_dgd(doc) must hold).
ConversionResult convert_v1alpha1(const nlohmann::json& doc);

}  // namespace dgd::api
