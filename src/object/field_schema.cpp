#include "dgd/object/field_schema.h"

#include <utility>

namespace dgd::object {

using nlohmann::json;

const FieldSchema& FieldSchema::field(std::string_view name) const {
  auto it = fields.find(std::string(name));
  if (it != fields.end() && it->second) return *it->second;
  if (is_map && elements) return *elements;
  return unknown();
}

const FieldSchema& FieldSchema::items() const { return elements ? *elements : unknown(); }

const FieldSchema& FieldSchema::unknown() {
  static const FieldSchema kUnknown;
  return kUnknown;
}

namespace {

using Node = std::shared_ptr<FieldSchema>;

Node make() { return std::make_shared<FieldSchema>(); }

Node with(std::initializer_list<std::pair<const std::string, Node>> children) {
  Node n = make();
  for (const auto& [name, child] : children) n->fields[name] = child;
  return n;
}

Node leaf_quantity() {
  Node n = make();
  n->quantity = true;
  return n;
}

// A Go map[string]string (labels, annotations, data).
Node string_map(bool atomic = false) {
  Node n = make();
  n->is_map = true;
  if (atomic) n->map_type = FieldSchema::MapType::kAtomic;
  return n;
}

// A Go map of resource name to Quantity (requests, limits, capacity).
Node quantity_map() {
  Node n = make();
  n->is_map = true;
  n->elements = leaf_quantity();
  return n;
}

// An associative list. `smp_key` empty: strategic merge replaces it.
Node keyed_list(std::vector<std::string> keys, Node item, std::string smp_key) {
  Node n = make();
  n->list_type = FieldSchema::ListType::kMap;
  n->list_keys = std::move(keys);
  n->elements = item ? item : make();
  if (!smp_key.empty()) {
    n->patch_merge = true;
    n->patch_merge_key = std::move(smp_key);
  }
  return n;
}

Node set_list(bool smp_merge) {
  Node n = make();
  n->list_type = FieldSchema::ListType::kSet;
  n->patch_merge = smp_merge;
  return n;
}

Node conditions() { return keyed_list({"type"}, nullptr, "type"); }

// A struct replaced whole (Go `+structType=atomic`: OwnerReference, LabelSelector,
// LocalObjectReference, ObjectReference).
Node atomic_struct() {
  Node n = make();
  n->map_type = FieldSchema::MapType::kAtomic;
  return n;
}

Node object_meta() {
  static const Node meta = [] {
    Node owner_refs = keyed_list({"uid"}, atomic_struct(), "uid");
    return with({
        {"labels", string_map()},
        {"annotations", string_map()},
        {"finalizers", set_list(true)},
        {"ownerReferences", owner_refs},
    });
  }();
  return meta;
}

Node label_selector() {
  Node n = with({{"matchLabels", string_map()}});
  n->map_type = FieldSchema::MapType::kAtomic;
  return n;
}

Node resource_requirements() {
  return with({
      {"requests", quantity_map()},
      {"limits", quantity_map()},
      {"claims", keyed_list({"name"}, nullptr, "")},
  });
}

Node container() {
  Node ports = keyed_list({"containerPort", "protocol"}, nullptr, "containerPort");
  ports->list_key_defaults["protocol"] = "TCP";
  return with({
      {"ports", ports},
      {"env", keyed_list({"name"}, nullptr, "name")},
      {"volumeMounts", keyed_list({"mountPath"}, nullptr, "mountPath")},
      {"volumeDevices", keyed_list({"devicePath"}, nullptr, "devicePath")},
      {"resources", resource_requirements()},
      // resizePolicy: an atomic list.
  });
}

Node pod_spec() {
  static const Node spec = [] {
    Node c = container();
    Node volume = with({{"emptyDir", with({{"sizeLimit", leaf_quantity()}})}});
    Node volumes = keyed_list({"name"}, volume, "name");
    Node topology = keyed_list({"topologyKey", "whenUnsatisfiable"}, nullptr, "topologyKey");
    return with({
        {"containers", keyed_list({"name"}, c, "name")},
        {"initContainers", keyed_list({"name"}, c, "name")},
        {"ephemeralContainers", keyed_list({"name"}, c, "name")},
        {"volumes", volumes},
        {"imagePullSecrets", keyed_list({"name"}, atomic_struct(), "name")},
        {"hostAliases", keyed_list({"ip"}, nullptr, "ip")},
        {"resourceClaims", keyed_list({"name"}, nullptr, "name")},
        {"schedulingGates", keyed_list({"name"}, nullptr, "name")},
        {"topologySpreadConstraints", topology},
        {"nodeSelector", string_map(/*atomic=*/true)},
        {"overhead", quantity_map()},
        {"resources", resource_requirements()},
        // tolerations, affinity (node selector terms), readinessGates,
        // securityContext lists, dnsConfig lists: atomic by default.
    });
  }();
  return spec;
}

Node pod_template_spec() {
  static const Node tmpl = with({{"metadata", object_meta()}, {"spec", pod_spec()}});
  return tmpl;
}

Node root(std::initializer_list<std::pair<const std::string, Node>> children) {
  Node n = with(children);
  n->fields["metadata"] = object_meta();
  n->typed = true;
  return n;
}

// Kinds with a pod template under spec.template and a status with conditions (keyed by
// type, except Job's, which the API declares atomic).
Node workload(bool keyed_conditions = true) {
  Node spec = with({});
  spec->fields["selector"] = label_selector();
  spec->fields["template"] = pod_template_spec();
  Node status = keyed_conditions ? with({{"conditions", conditions()}}) : with({});
  return root({{"spec", spec}, {"status", status}});
}

Node pvc_spec() {
  return with({{"resources", with({{"requests", quantity_map()}, {"limits", quantity_map()}})},
               {"selector", label_selector()}});
}

using Key = std::pair<std::string, std::string>;

const std::map<Key, Node>& builtins() {
  static const std::map<Key, Node> table = [] {
    std::map<Key, Node> t;
    Node pod_status = with({{"conditions", conditions()}});
    t[{"", "Pod"}] = root({{"spec", pod_spec()}, {"status", pod_status}});
    t[{"", "PodTemplate"}] = root({{"template", pod_template_spec()}});
    Node svc_ports = keyed_list({"port", "protocol"}, nullptr, "port");
    svc_ports->list_key_defaults["protocol"] = "TCP";
    t[{"", "Service"}] = root({{"spec", with({{"ports", svc_ports}, {"selector", string_map(true)}})},
                               {"status", with({{"conditions", conditions()}})}});
    t[{"", "ConfigMap"}] = root({{"data", string_map()}, {"binaryData", string_map()}});
    t[{"", "Secret"}] = root({{"data", string_map()}, {"stringData", string_map()}});
    t[{"", "ServiceAccount"}] = root({{"secrets", keyed_list({"name"}, atomic_struct(), "name")}});
    t[{"", "PersistentVolumeClaim"}] =
        root({{"spec", pvc_spec()},
              {"status", with({{"capacity", quantity_map()}, {"allocatedResources", quantity_map()},
                               {"conditions", conditions()}})}});
    t[{"", "Namespace"}] = root({{"status", with({{"conditions", conditions()}})}});
    t[{"", "Node"}] = root({{"spec", with({{"podCIDRs", set_list(true)}})},
                            {"status", with({{"capacity", quantity_map()},
                                             {"allocatable", quantity_map()},
                                             {"conditions", conditions()}})}});
    t[{"", "Event"}] = root({});
    t[{"events.k8s.io", "Event"}] = root({});
    t[{"apps", "Deployment"}] = workload();
    t[{"apps", "ReplicaSet"}] = workload();
    t[{"apps", "DaemonSet"}] = workload();
    t[{"apps", "StatefulSet"}] = workload();
    t[{"batch", "Job"}] = workload(/*keyed_conditions=*/false);
    t[{"coordination.k8s.io", "Lease"}] = root({});
    t[{"rbac.authorization.k8s.io", "Role"}] = root({});
    t[{"rbac.authorization.k8s.io", "ClusterRole"}] = root({});
    t[{"rbac.authorization.k8s.io", "RoleBinding"}] = root({});
    t[{"rbac.authorization.k8s.io", "ClusterRoleBinding"}] = root({});
    t[{"apiextensions.k8s.io", "CustomResourceDefinition"}] =
        root({{"status", with({{"conditions", conditions()}})}});
    t[{"resource.k8s.io", "ResourceClaimTemplate"}] = root({});
    return t;
  }();
  return table;
}

FieldSchema convert_openapi(const json& schema, int depth) {
  FieldSchema node;
  if (!schema.is_object() || depth > 64) return node;
  auto str = [&](const char* key) -> std::string {
    auto it = schema.find(key);
    return it != schema.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string list_type = str("x-kubernetes-list-type");
  if (list_type == "set") {
    node.list_type = FieldSchema::ListType::kSet;
  } else if (list_type == "map") {
    node.list_type = FieldSchema::ListType::kMap;
    auto keys = schema.find("x-kubernetes-list-map-keys");
    if (keys != schema.end() && keys->is_array()) {
      for (const json& k : *keys) {
        if (k.is_string()) node.list_keys.push_back(k.get<std::string>());
      }
    }
    if (node.list_keys.empty()) node.list_type = FieldSchema::ListType::kAtomic;
  }
  if (str("x-kubernetes-map-type") == "atomic") node.map_type = FieldSchema::MapType::kAtomic;
  auto props = schema.find("properties");
  if (props != schema.end() && props->is_object()) {
    for (const auto& [name, sub] : props->items()) {
      node.fields[name] = std::make_shared<const FieldSchema>(convert_openapi(sub, depth + 1));
    }
  }
  auto items = schema.find("items");
  if (items != schema.end() && items->is_object()) {
    node.elements = std::make_shared<const FieldSchema>(convert_openapi(*items, depth + 1));
    // Key defaults: a key field with a `default` in the item schema.
    auto item_props = items->find("properties");
    if (node.list_type == FieldSchema::ListType::kMap && item_props != items->end() && item_props->is_object()) {
      for (const std::string& k : node.list_keys) {
        auto p = item_props->find(k);
        if (p != item_props->end() && p->is_object() && p->contains("default")) {
          node.list_key_defaults[k] = (*p)["default"];
        }
      }
    }
  }
  auto additional = schema.find("additionalProperties");
  if (additional != schema.end() && (additional->is_object() || (additional->is_boolean() && additional->get<bool>()))) {
    node.is_map = true;
    if (additional->is_object()) {
      node.elements = std::make_shared<const FieldSchema>(convert_openapi(*additional, depth + 1));
    }
  }
  return node;
}

}  // namespace

FieldSchema FieldSchema::from_openapi_v3(const json& schema) { return convert_openapi(schema, 0); }

FieldSchema FieldSchema::custom_resource(const json& openapi_v3) {
  FieldSchema root = from_openapi_v3(openapi_v3);
  root.is_map = false;
  root.fields["metadata"] = object_meta();
  root.typed = false;
  return root;
}

const FieldSchema* builtin_schema(std::string_view group, std::string_view kind) {
  const auto& table = builtins();
  auto it = table.find(Key(std::string(group), std::string(kind)));
  return it == table.end() ? nullptr : it->second.get();
}

const FieldSchema& schema_for_object(const json& object) {
  static const FieldSchema kCustom = FieldSchema::custom_resource(json());
  if (!object.is_object()) return kCustom;
  auto text = [&](const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string api_version = text("apiVersion");
  std::string kind = text("kind");
  auto slash = api_version.find('/');
  std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const FieldSchema* s = builtin_schema(group, kind);
  return s ? *s : kCustom;
}

const FieldSchema& pod_spec_schema() { return *pod_spec(); }
const FieldSchema& pod_template_spec_schema() { return *pod_template_spec(); }
const FieldSchema& object_meta_schema() { return *object_meta(); }

}  // namespace dgd::object
