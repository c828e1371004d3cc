#include "render/internal.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "dgd/api/upstream_fields.h"
#include "dgd/api/validate.h"
#include "dgd/render/render.h"

namespace dgd::render::detail {

std::string service_account_name(const std::string& dgd) { return dgd + "-k8s-service-discovery"; }
std::string role_name(const std::string& dgd) { return dgd + "-k8s-service-discovery-role"; }
std::string role_binding_name(const std::string& dgd) { return dgd + "-k8s-service-discovery-binding"; }
std::string compute_domain_name(const std::string& dgd) { return dgd + "-compute-domain"; }
std::string claim_template_name(const std::string& dgd) { return dgd + "-compute-domain-channel"; }
std::string sglang_config_map_name(const std::string& dgd) { return dgd + "-sglang-config"; }

std::string sglang_config_key(const api::Dgd& graph, const api::Component& component) {
  const std::string type = component.type ? api::to_string(*component.type) : "worker";
  int same = 0;
  for (const auto& c : graph.spec.components) {
    if (c.engine && c.type == component.type) ++same;
  }
  if (same <= 1) return type + ".yaml";
  std::string lower = component.name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return lower + ".yaml";
}

std::string namespace_of(const api::Dgd& graph, const std::string& default_namespace) {
  return graph.metadata.namespace_.empty() ? default_namespace : graph.metadata.namespace_;
}

json graph_labels(const api::Dgd& graph) {
  json labels = json::object();
  for (const auto& [k, v] : graph.spec.labels) labels[k] = v;
  labels[kLabelDgdName] = graph.metadata.name;
  labels[kLabelManagedBy] = kManagedByValue;
  return labels;
}

json component_labels(const api::Dgd& graph, const api::Component& c, const std::string& ns) {
  json labels = graph_labels(graph);
  labels[kLabelComponent] = c.name;
  labels[kLabelComponentType] = c.type ? api::to_string(*c.type) : "worker";
  labels[kLabelDynamoNamespace] = component_dynamo_namespace(ns, graph.metadata.name, c);
  return labels;
}

json child_metadata(const api::Dgd& graph, const std::string& name, const std::string& ns,
                   const json& labels, bool owned) {
  json m(json::value_t::object);
  put(m, "name", name);
  put(m, "namespace", ns);
  put(m, "labels", labels);
  if (!graph.spec.annotations.empty()) {
    json& a = put(m, "annotations", json::object());
    for (const auto& [k, v] : graph.spec.annotations) a[k] = v;
  }
  if (owned) {
    json ref(json::value_t::object);
    put(ref, "apiVersion", api::kApiVersion);
    put(ref, "kind", api::kKind);
    put(ref, "name", graph.metadata.name);
    put(ref, "uid", "");
    put(ref, "controller", true);
    put(ref, "blockOwnerDeletion", true);
    json refs(json::value_t::array);
    refs.push_back(std::move(ref));
    put(m, "ownerReferences", std::move(refs));
  }
  return m;
}

json env_var(const std::string& name, const std::string& value) {
  // Built in place: the initializer-list form allocates two arrays on the way (render
  // makes dozens of these per component).
  json j(json::value_t::object);
  auto& o = j.get_ref<json::object_t&>();
  o.emplace("name", name);
  o.emplace("value", value);
  return j;
}

json env_json(const api::EnvVar& e) {
  json j = {{"name", e.name}};
  if (e.value) j["value"] = *e.value;
  if (!e.value_from.is_null()) j["valueFrom"] = e.value_from;
  return j;
}

const std::string& string_at(const json& obj, const char* key) {
  static const std::string kEmpty;
  if (!obj.is_object()) return kEmpty;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

// An EnvVar's value is a Go string with omitempty: the API server stores `value: ""` as no
// value at all (the variable is still set, to the empty string). The desired object says
// it the same way, so that it compares equal to what the server keeps.
namespace {
void drop_empty_values(json& env) {
  for (auto& item : env.get_ref<json::array_t&>()) {
    auto v = item.find("value");
    if (v != item.end() && v->is_string() && v->get_ref<const std::string&>().empty()) item.erase(v);
  }
}
}  // namespace

json merge_env(json base, json over) {
  json out = base.is_array() ? std::move(base) : json::array();
  drop_empty_values(out);
  if (!over.is_array() || over.empty()) return out;
  drop_empty_values(over);
  // Each item's name looked up once. The pointers stay valid while `out` grows (a json
  // value's members live on the heap, not in the array), and the one of a replaced item
  // is taken again from its new value.
  auto& items = out.get_ref<json::array_t&>();
  std::vector<const std::string*> names;
  names.reserve(items.size() + over.size());
  for (const auto& existing : items) names.push_back(&string_at(existing, "name"));
  for (auto& item : over.get_ref<json::array_t&>()) {
    const std::string& name = string_at(item, "name");
    size_t i = 0;
    while (i < names.size() && *names[i] != name) ++i;
    if (i < names.size()) {
      items[i] = std::move(item);
      names[i] = &string_at(items[i], "name");
    } else {
      items.push_back(std::move(item));
      names.push_back(&string_at(items.back(), "name"));
    }
  }
  return out;
}

void sort_by(json& array, const char* key) {
  if (!array.is_array() || array.size() < 2) return;
  // Each item's key looked up once, not twice per comparison; then a stable sort of
  // the (key, position) pairs and the items moved into that order.
  auto& items = array.get_ref<json::array_t&>();
  std::vector<std::pair<const std::string*, size_t>> order;
  order.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) order.emplace_back(&string_at(items[i], key), i);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  json::array_t sorted;
  sorted.reserve(items.size());
  for (const auto& [k, i] : order) sorted.push_back(std::move(items[i]));
  items = std::move(sorted);
}

void sort_by_number(json& array, const char* key) {
  if (!array.is_array()) return;
  std::stable_sort(array.begin(), array.end(), [key](const json& a, const json& b) {
    return a.value(key, 0LL) < b.value(key, 0LL);
  });
}

json& main_container(json& pod_template) {
  json& containers = pod_template["spec"]["containers"];
  if (!containers.is_array()) containers = json::array();
  for (auto& c : containers) {
    if (string_at(c, "name") == "main") return c;
  }
  containers.insert(containers.begin(), json{{"name", "main"}});
  return containers.front();
}

api::BackendFramework framework_of(const api::Dgd& graph) {
  return graph.spec.backend_framework.value_or(api::BackendFramework::kVllm);
}

}  // namespace dgd::render::detail

namespace dgd::render {

std::string dynamo_namespace(const std::string& k8s_namespace, const std::string& dgd_name) {
  return k8s_namespace + "-" + dgd_name;
}

std::string component_dynamo_namespace(const std::string& k8s_namespace, const std::string& dgd_name,
                                     const api::Component& c) {
  // Upstream's ComputeDynamoNamespace: globalDynamoNamespace puts the component in "dynamo".
  return api::uses_global_dynamo_namespace(c) ? api::kGlobalDynamoNamespace : dynamo_namespace(k8s_namespace, dgd_name);
}

}  // namespace dgd::render
