#include "reconcile/plan_shortcuts.h"

#include "dgd/reconcile/child_plan.h"
#include "dgd/render/render.h"
#include "reconcile/object_meta.h"

namespace dgd::reconcile {

using nlohmann::json;

const ChildKind& deployment_kind() { return *find_child_kind("apps/v1", "Deployment"); }

std::string deployment_key(const std::string& ns, const std::string& name) {
  return "apps/Deployment/" + ns + "/" + name;
}

Plan begin_plan(PlanKind kind, json dgd) {
  Plan p;
  p.kind = kind;
  p.uid = meta_string(dgd, "uid");
  p.generation = generation_of(dgd);
  p.dgd = std::move(dgd);
  return p;
}

std::optional<Plan> status_plan(const Snapshot& s, json head, const DgdMemo& memo,
                                std::map<std::string, json>& views) {
  Plan p = begin_plan(PlanKind::kStatusOnly, std::move(head));
  for (const auto& c : memo.components) {
    const std::string key = deployment_key(s.key.ns, c.deployment);
    auto view = views.find(key);
    if (view == views.end()) {
      auto o = s.cache.cached_status(deployment_kind(), s.key.ns, c.deployment);
      if (!o) return std::nullopt;
      view = views.emplace(key, std::move(*o)).first;
    }
    p.deployments[key] = std::move(view->second);
  }
  p.components = memo.components;
  if (memo.cache && !memo.cache->job_name.empty()) {
    p.job = s.cache.cached_status(*find_child_kind("batch/v1", "Job"), s.key.ns, memo.cache->job_name);
    ModelCacheObservation seen;
    if (p.job) seen.job = &*p.job;
    const bool lost = !p.job || p.job->value("/status/failed"_json_pointer, 0) > 0;
    if (lost || assess_model_cache(*memo.cache, seen).hold_workers != memo.held_workers) return std::nullopt;
  }
  p.memo = std::make_shared<DgdMemo>(memo);
  return p;
}

Plan invalid_plan(const Snapshot& s, json dgd, std::vector<std::string> errors) {
  Plan p = begin_plan(PlanKind::kInvalidSpec, std::move(dgd));
  p.spec_errors = std::move(errors);
  std::map<std::string, json> by_component;
  if (s.cache.serves(deployment_kind())) {
    for (auto& o : s.cache.owned(deployment_kind(), s.key.ns, p.uid)) {
      if (!is_controlled_by(o, p.uid)) continue;
      const json labels = o.value("/metadata/labels"_json_pointer, json::object());
      const std::string component = labels.value(render::kLabelComponent, "");
      if (!component.empty()) by_component[component] = std::move(o);
    }
  }
  for (auto& [component, dep] : by_component) {
    const json labels = dep.value("/metadata/labels"_json_pointer, json::object());
    p.components.push_back({component, labels.value(render::kLabelComponentType, ""),
                            static_cast<int32_t>(dep.value("/spec/replicas"_json_pointer, 1)),
                            meta_string(dep, "name"), true});
    const std::string k = object_key(dep);
    p.deployments[k] = std::move(dep);
  }
  return p;
}

}  // namespace dgd::reconcile
