// PersistentVolumeClaims, ConfigMaps and Secrets, as pkg/apis/core/validation/validation.go
// checks them (ValidatePersistentVolumeClaimSpec, ValidateConfigMap, ValidateSecret).
#include "kubesim/cluster/quantity.h"
#include "kubesim/validation/kinds.h"

#include <algorithm>
#include <stdexcept>

namespace kubesim::validation {

namespace {

constexpr size_t kMaxSecretSize = 1024 * 1024;  // core.MaxSecretSize, also the ConfigMap limit

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Decoded size of a base64 value (data of Secrets and binaryData of ConfigMaps).
size_t base64_size(const std::string& s) {
  size_t pad = 0;
  if (!s.empty() && s.back() == '=') ++pad;
  if (s.size() > 1 && s[s.size() - 2] == '=') ++pad;
  return s.size() / 4 * 3 - std::min(pad, s.size() / 4 * 3);
}

}  // namespace

void validate_pvc(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  const json& modes = array_of(spec, "accessModes");
  if (modes.empty()) errs.required("spec.accessModes", "at least 1 access mode is required");
  if (const json* sel = child(spec, "selector")) validate_label_selector(*sel, "spec.selector", errs);
  bool once_pod = false, other = false;
  for (const auto& m : modes) {
    const std::string mode = text_of(m);
    if (mode != "ReadOnlyMany" && mode != "ReadWriteMany" && mode != "ReadWriteOnce" && mode != "ReadWriteOncePod")
      errs.not_supported("spec.accessModes", go_quote(mode),
                         {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"});
    (mode == "ReadWriteOncePod" ? once_pod : other) = true;
  }
  if (once_pod && other) errs.forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes");
  const json* storage = child(object_of(object_of(spec, "resources"), "requests"), "storage");
  if (!storage) {
    errs.required("spec.resources[storage]");
  } else {
    int64_t milli = 0;
    try {
      milli = cluster::parse_milli(text_of(*storage));
    } catch (const std::exception&) {
    }
    if (milli <= 0) errs.invalid("spec.resources[storage]", go_quote(text_of(*storage)), "must be greater than zero");
  }
  const std::string sc = str_of(spec, "storageClassName");
  if (!sc.empty()) errs.invalid_each("spec.storageClassName", go_quote(sc), is_dns1123_subdomain(sc));
  if (has_str(spec, "volumeMode")) {
    const std::string vm = str_of(spec, "volumeMode");
    if (vm != "Block" && vm != "Filesystem") errs.not_supported("spec.volumeMode", go_quote(vm), {"Block", "Filesystem"});
  }
}

void validate_config_map(const json& obj, ErrorList& errs) {
  size_t total = 0;
  const json& data = object_of(obj, "data");
  const json& binary = object_of(obj, "binaryData");
  for (const auto& [k, v] : data.items()) {
    errs.invalid_each(key_path("data", k), go_quote(k), is_config_map_key(k));
    if (binary.contains(k)) errs.invalid(key_path("data", k), go_quote(k), "duplicate of key present in binaryData");
    total += text_of(v).size();
  }
  for (const auto& [k, v] : binary.items()) {
    errs.invalid_each(key_path("binaryData", k), go_quote(k), is_config_map_key(k));
    total += base64_size(text_of(v));
  }
  if (total > kMaxSecretSize)
    errs.too_long("", static_cast<int64_t>(kMaxSecretSize));
}

void validate_secret(const json& obj, ErrorList& errs) {
  size_t total = 0;
  for (const auto& [k, v] : object_of(obj, "data").items()) {
    errs.invalid_each(key_path("data", k), go_quote(k), is_config_map_key(k));
    total += base64_size(text_of(v));
  }
  if (total > kMaxSecretSize) errs.too_long("data", static_cast<int64_t>(kMaxSecretSize));
  const std::string type = str_of(obj, "type");
  const json& data = object_of(obj, "data");
  if (type == "kubernetes.io/service-account-token") {
    const std::string sa = str_of(object_of(object_of(obj, "metadata"), "annotations"), "kubernetes.io/service-account.name");
    if (sa.empty()) errs.required("metadata.annotations[kubernetes.io/service-account.name]");
  } else if (type == "kubernetes.io/dockercfg") {
    if (!data.contains(".dockercfg")) errs.required("data[.dockercfg]");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    if (!data.contains(".dockerconfigjson")) errs.required("data[.dockerconfigjson]");
  } else if (type == "kubernetes.io/basic-auth") {
    // The real paths carry a literal "%s" (field.NewPath("data[%s]").Key(...)).
    if (!data.contains("username") && !data.contains("password")) {
      errs.required("data[%s][username]");
      errs.required("data[%s][password]");
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (str_of(data, "ssh-privatekey").empty()) errs.required("data[%s][ssh-privatekey]");
  } else if (type == "kubernetes.io/tls") {
    if (!data.contains("tls.crt")) errs.required("data[tls.crt]");
    if (!data.contains("tls.key")) errs.required("data[tls.key]");
  }
}

}  // namespace kubesim::validation
