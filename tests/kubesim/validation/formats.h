// kube-sim validation: the string formats of apimachinery's util/validation
// (IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName,
// IsValidLabelValue, IsRelaxedEnvVarName, IsConfigMapKey, IsValidPortName, ...) and
// the name functions of api/validation (NameIsDNSSubdomain, ... with their
// generateName prefix form). Each returns the messages the real function returns,
// empty when the value is valid. Loops, not std::regex: std::regex recurses per
// character and overflows the stack on long input.
#pragma once

#include <string>
#include <vector>

namespace kubesim::validation {

using Messages = std::vector<std::string>;

Messages is_dns1123_label(const std::string& v);
Messages is_dns1123_subdomain(const std::string& v);
Messages is_dns1035_label(const std::string& v);
Messages is_qualified_name(const std::string& v);
Messages is_label_value(const std::string& v);
Messages is_relaxed_env_var_name(const std::string& v);
Messages is_config_map_key(const std::string& v);
Messages is_valid_port_name(const std::string& v);
Messages is_valid_port_num(long long port);
Messages is_valid_percent(const std::string& v);
Messages is_path_segment_name(const std::string& v);  // RBAC object names

// The name rule a kind's metadata.name follows.
enum class NameRule { dns1123_subdomain, dns1123_label, dns1035_label, path_segment };
// `prefix`: validating a generateName (a trailing '-' is allowed).
Messages name_messages(NameRule rule, const std::string& name, bool prefix);

}  // namespace kubesim::validation
