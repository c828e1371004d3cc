// Syntax checks for the strings a DGD carries (Kubernetes names, quantities, env names,
// PCI addresses, Hugging Face ids). Hand-written, linear time, no std::regex: inputs are
// untrusted and may be huge.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dgd::api::syntax {

// RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63.
bool is_dns1123_label(std::string_view s);
// RFC 1035 label (Service names): [a-z]([-a-z0-9]*[a-z0-9])?, at most 63.
bool is_dns1035_label(std::string_view s);
// RFC 1123 subdomain: labels joined by '.', at most 253.
bool is_dns1123_subdomain(std::string_view s);
// Upstream component name: [A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?, 1..63.
bool is_component_name(std::string_view s);
// Label / annotation key: [prefix/]name, prefix a DNS subdomain, name ≤ 63 of
// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?.
bool is_qualified_name(std::string_view s);
// Label value: empty or ≤ 63 of [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?.
bool is_label_value(std::string_view s);
// Env var name as the API server accepts it: [-._a-zA-Z][-._a-zA-Z0-9]*.
bool is_env_var_name(std::string_view s);
// Kubernetes resource quantity ("200Gi", "1e3", "500m", "0"), read by object::Quantity;
// returns the value in base units (bytes for memory) when it parses, nullopt otherwise.
std::optional<double> parse_quantity(std::string_view s);
// Extended resource name: <domain>/<name>, e.g. rdma/ib, rdma/shared_ib.
bool is_extended_resource_name(std::string_view s);
// PCI address [dddd[dddd]:]bb:dd.f in hex, e.g. 00000000:18:00.0 or 0000:19:00.0.
bool is_pci_address(std::string_view s);
// Hugging Face repo id: [org/]name of [A-Za-z0-9._-], no "..", no leading '.' or '-'.
bool is_model_id(std::string_view s);
// Git revision (commit, branch or tag): [A-Za-z0-9][A-Za-z0-9._/-]*, ≤ 255, no "..".
bool is_revision(std::string_view s);
// A container image reference: non-empty, ≤ 4096, no whitespace or control characters.
bool is_image_ref(std::string_view s);
// A lower-case identifier: [a-z0-9][a-z0-9_]*  (parser names, communicators, ...).
bool is_lower_identifier(std::string_view s);
// An upper-case identifier: [A-Z0-9][A-Z0-9_]*  (attention backends).
bool is_upper_identifier(std::string_view s);
// Absolute, clean POSIX path: starts with '/', no "//", no "." or ".." segment, ≤ 4096.
bool is_clean_absolute_path(std::string_view s);
// True for a positive power of two.
bool is_power_of_two(int64_t v);

// Printable form of a user string for error messages: truncated to 64 characters.
std::string shown(std::string_view s);

}  // namespace dgd::api::syntax
