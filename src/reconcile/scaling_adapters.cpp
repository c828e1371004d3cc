#include "dgd/reconcile/scaling_adapters.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "dgd/api/defaults.h"
#include "dgd/api/upstream_fields.h"
#include "dgd/api/validate.h"
#include "dgd/reconcile/child_kinds.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/events.h"
#include "dgd/render/render.h"
#include "reconcile/json_path.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::optional<int32_t> replicas_at(const json& obj, const char* pointer) {
  const json::json_pointer p(pointer);
  if (!obj.is_object() || !obj.contains(p)) return std::nullopt;
  const json& v = obj.at(p);
  if (!v.is_number_integer()) return std::nullopt;
  const int64_t n = v.get<int64_t>();
  if (n < 0 || n > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(n);
}

std::string name_of(const json& obj) { return str(obj, {"metadata", "name"}); }

// The adapter scales component `component` of `dgd`: its name is the component's.
bool names_component(const json& adapter, const std::string& dgd, const std::string& component) {
  return str(adapter, {"spec", "dgdRef", "name"}) == dgd &&
         str(adapter, {"spec", "dgdRef", "componentName"}) == component &&
         name_of(adapter) == api::child_name(dgd, component);
}

const api::Component* find_component(const api::Dgd& graph, const std::string& name) {
  for (const auto& c : graph.spec.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

const ChildKind& adapter_kind() { return *find_child_kind(std::string(api::kApiVersion), kAdapterKind); }

bool is_adapter(const json& obj) {
  return obj.is_object() && obj.value("kind", "") == kAdapterKind && obj.value("apiVersion", "") == api::kApiVersion;
}

std::string adapter_dgd(const json& adapter) { return str(adapter, {"spec", "dgdRef", "name"}); }

std::string adapters_fingerprint(const std::vector<json>& adapters) {
  std::vector<std::string> parts;
  for (const auto& a : adapters) {
    const json::json_pointer g("/metadata/generation");
    const int64_t generation = a.contains(g) && a.at(g).is_number_integer() ? a.at(g).get<int64_t>() : 0;
    parts.push_back(name_of(a) + "/" + str(a, {"metadata", "uid"}) + "/" + std::to_string(generation));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + "\n";
  return out;
}

AdapterReplicas adapter_replicas(const std::vector<json>& adapters, const std::string& dgd) {
  AdapterReplicas out;
  for (const auto& a : adapters) {
    const std::string component = str(a, {"spec", "dgdRef", "componentName"});
    auto replicas = replicas_at(a, "/spec/replicas");
    if (!component.empty() && replicas && names_component(a, dgd, component)) out[component] = *replicas;
  }
  return out;
}

void apply_desired_replicas(api::Dgd& graph, const AdapterReplicas& adapters) {
  for (auto& c : graph.spec.components) {
    if (!api::has_scaling_adapter(c)) continue;
    auto it = adapters.find(c.name);
    // No adapter yet: the DGD's count, which the adapter is created with.
    if (it != adapters.end()) c.replicas = it->second;
  }
}

std::string component_selector(const std::string& dgd, const std::string& component) {
  // Keys sorted, as labels.SelectorFromSet(...).String() writes them (upstream's selector).
  return std::string(render::kLabelComponent) + "=" + component + "," + render::kLabelDgdName + "=" + dgd;
}

std::vector<json> desired_adapters(const api::Dgd& graph, const std::string& ns) {
  std::vector<json> out;
  const std::string& dgd = graph.metadata.name;
  for (const auto& c : graph.spec.components) {
    if (!api::has_scaling_adapter(c)) continue;
    json owner = {{"apiVersion", api::kApiVersion}, {"kind", api::kKind},       {"name", dgd},
                  {"uid", ""},                      {"controller", true},      {"blockOwnerDeletion", true}};
    json labels = {{render::kLabelDgdName, dgd}, {render::kLabelComponent, c.name},
                   {render::kLabelManagedBy, render::kManagedByValue}};
    out.push_back({{"apiVersion", api::kApiVersion},
                   {"kind", kAdapterKind},
                   {"metadata",
                    {{"name", api::child_name(dgd, c.name)},
                     {"namespace", ns},
                     {"labels", std::move(labels)},
                     {"ownerReferences", json::array({std::move(owner)})}}},
                   {"spec",
                    {{"replicas", c.replicas.value_or(api::kDefaultReplicas)},
                     {"dgdRef", {{"name", dgd}, {"componentName", c.name}}}}}});
  }
  return out;
}

AdapterPlan plan_adapters(const api::Dgd& graph, const std::string& dgd, const std::string& dgd_uid,
                          const std::vector<json>& adapters, std::vector<json> to_create) {
  AdapterPlan p;
  for (auto& a : to_create) {
    const std::string component = str(a, {"spec", "dgdRef", "componentName"});
    json status = {{"replicas", a.value("/spec/replicas"_json_pointer, api::kDefaultReplicas)},
                   {"selector", component_selector(dgd, component)}};
    p.create.push_back({std::move(a), std::move(status)});
  }
  for (const auto& a : adapters) {
    const std::string component = str(a, {"spec", "dgdRef", "componentName"});
    const api::Component* c = find_component(graph, component);
    // The operator's own adapter of a component that opted out or went is pruned, not refused.
    if ((c == nullptr || !api::has_scaling_adapter(*c)) && is_controlled_by(a, dgd_uid)) continue;
    if (c == nullptr) {
      p.refused.push_back({a, "spec.dgdRef.componentName: Not found: \"" + component + "\": DynamoGraphDeployment " +
                                  dgd + " has no such component; nothing is scaled"});
      continue;
    }
    if (!api::has_scaling_adapter(*c)) {
      p.refused.push_back({a, "spec.dgdRef.componentName: Invalid value: \"" + component + "\": component " +
                                  component + " of DynamoGraphDeployment " + dgd +
                                  " does not set scalingAdapter (add scalingAdapter: {} to it); nothing is scaled"});
      continue;
    }
    if (!names_component(a, dgd, component)) continue;  // refused at admission (the CRD's name rule)
    auto replicas = replicas_at(a, "/spec/replicas");
    if (!replicas) continue;
    const std::string selector = component_selector(dgd, component);
    const auto shown = replicas_at(a, "/status/replicas");
    if (shown == replicas && str(a, {"status", "selector"}) == selector) continue;
    p.status.push_back({name_of(a), {{"replicas", *replicas}, {"selector", selector}},
                        shown.has_value() && shown != replicas});
  }
  return p;
}

AdapterWrites execute_adapter_writes(const AdapterPlan& plan, const json& dgd, Cluster& cluster,
                                     EventRecorder& events, const std::string& id, const std::string& now) {
  AdapterWrites out;
  const ChildKind& kind = adapter_kind();
  const std::string ns = str(dgd, {"metadata", "namespace"});
  auto failed = [&](const std::string& what, const kube::Error& e) {
    if (e.is(kube::ErrorKind::kNotLeader)) out.stop = true;
    out.errors.push_back(what + " failed: " + e.to_string());
  };
  for (const auto& c : plan.create) {
    const std::string name = name_of(c.adapter);
    auto r = cluster.create(kind, c.adapter);
    if (!r) {
      // Made by another pass since the cache was read: it owns its replicas; leave it.
      if (r.error().is(kube::ErrorKind::kAlreadyExists)) continue;
      failed("create " + std::string(kAdapterKind) + " " + name, r.error());
      if (out.stop) return out;
      continue;
    }
    out.created = true;
    const std::string component = str(c.adapter, {"spec", "dgdRef", "componentName"});
    spdlog::info("dgd={}: created {} {} for component {}", id, kAdapterKind, name, component);
    events.record(dgd, "Normal", kReasonAdapterCreated,
                  "Created " + std::string(kAdapterKind) + " " + name + " for component " + component +
                      " (it owns the component's replicas)");
    if (auto s = cluster.patch_status(kind, ns, name, {{"status", c.status}}); !s) {
      failed("status of " + std::string(kAdapterKind) + " " + name, s.error());
      if (out.stop) return out;
    }
  }
  for (const auto& w : plan.status) {
    json status = w.status;
    if (w.scaled) status["lastScaleTime"] = now;
    if (auto s = cluster.patch_status(kind, ns, w.name, {{"status", std::move(status)}}); !s) {
      failed("status of " + std::string(kAdapterKind) + " " + w.name, s.error());
      if (out.stop) return out;
    }
  }
  for (const auto& r : plan.refused) {
    if (events.record(r.adapter, "Warning", kReasonAdapterRefused, r.message)) {
      spdlog::warn("dgd={}: {} {}: {}", id, kAdapterKind, name_of(r.adapter), r.message);
    }
  }
  return out;
}

}  // namespace dgd::reconcile
