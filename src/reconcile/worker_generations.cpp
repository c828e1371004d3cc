#include "dgd/reconcile/worker_generations.h"

#include <algorithm>

#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/worker_rollout.h"
#include "dgd/render/render.h"
#include "dgd/render/worker_generation.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::string label(const json& obj, const char* key) {
  return obj.value("/metadata/labels"_json_pointer, json::object()).value(key, "");
}

int32_t int_at(const json& obj, const json::json_pointer& at, int32_t otherwise) {
  const json v = obj.value(at, json());
  return v.is_number_integer() ? static_cast<int32_t>(v.get<int64_t>()) : otherwise;
}

bool is_deployment(const json& obj) { return obj.value("kind", "") == "Deployment"; }

}  // namespace

GenerationStep plan_worker_generations(std::vector<json>& desired, const std::vector<json>& live,
                                       const std::string& owner_uid, bool hold) {
  GenerationStep step;
  std::map<std::string, const json*> live_by_key;
  for (const auto& o : live) live_by_key[object_key(o)] = &o;

  RolloutInput input;
  input.hold = hold;
  std::set<std::string> desired_keys;
  for (const auto& d : desired) {
    if (!is_deployment(d)) continue;
    desired_keys.insert(object_key(d));
    const std::string component = label(d, render::kLabelComponent);
    const int32_t replicas = int_at(d, "/spec/replicas"_json_pointer, 1);
    step.deployment_of[component] = d.value("/metadata/name"_json_pointer, "");
    step.desired_of[component] = replicas;
    if (!render::is_worker_object(d)) continue;
    step.progress.generation = label(d, render::kLabelWorkerHash);
    step.progress.workers.push_back(component);
    DesiredWorker w{component, replicas, 0, 0, rollout_bounds(d.value("/spec/strategy"_json_pointer, json()), replicas)};
    if (auto l = live_by_key.find(object_key(d)); l != live_by_key.end()) {
      w.replicas = int_at(*l->second, "/spec/replicas"_json_pointer, 1);
      w.available = int_at(*l->second, "/status/availableReplicas"_json_pointer, 0);
    }
    input.workers.push_back(std::move(w));
  }
  std::map<std::string, const json*> old_by_key;
  for (const auto& o : live) {
    const std::string key = object_key(o);
    if (!is_deployment(o) || !render::is_worker_object(o) || desired_keys.count(key) > 0 ||
        !is_controlled_by(o, owner_uid)) {
      continue;
    }
    old_by_key[key] = &o;
    const std::string component = label(o, render::kLabelComponent);
    step.old_keys.insert(key);
    step.old_of[component].push_back(key);
    input.old.push_back({key, label(o, render::kLabelWorkerHash), component,
                         int_at(o, "/spec/replicas"_json_pointer, 1),
                         int_at(o, "/status/availableReplicas"_json_pointer, 0),
                         !o.value("/metadata/deletionTimestamp"_json_pointer, json()).is_null(),
                         o.value("/metadata/creationTimestamp"_json_pointer, "")});
  }

  const RolloutTargets targets = rollout_targets(input);
  int64_t asked = 0;
  for (auto& d : desired) {
    if (!is_deployment(d) || !render::is_worker_object(d)) continue;
    auto t = targets.new_replicas.find(label(d, render::kLabelComponent));
    if (t == targets.new_replicas.end()) continue;
    d["spec"]["replicas"] = t->second;
    asked += t->second;
  }
  for (const auto& o : input.old) {
    if (o.terminating) continue;
    auto t = targets.old_replicas.find(o.key);
    const int32_t target = t == targets.old_replicas.end() ? o.replicas : t->second;
    if (target == 0) {
      step.remove.push_back(*old_by_key[o.key]);
    } else if (target != o.replicas) {
      step.scale.push_back({*old_by_key[o.key], target});
    }
  }
  std::sort(step.progress.workers.begin(), step.progress.workers.end());
  step.progress.in_progress = targets.in_progress;
  step.progress.pending = targets.in_progress && (hold || asked == 0);
  step.progress.updated_components = targets.updated_components;
  return step;
}

json rolling_update_status(const json& previous, const std::optional<RolloutProgress>& progress,
                           const std::string& now) {
  const bool had = previous.is_object();
  const std::string phase = had ? previous.value("phase", "") : "";
  const bool was_rolling = phase == "Pending" || phase == "InProgress";
  const std::string started = was_rolling && previous.contains("startTime") && previous["startTime"].is_string()
                                  ? previous["startTime"].get<std::string>()
                                  : now;
  if (!progress) return had ? previous : json();
  if (progress->in_progress) {
    json out = {{"phase", progress->pending ? "Pending" : "InProgress"}, {"startTime", started}};
    if (!progress->updated_components.empty()) out["updatedComponents"] = progress->updated_components;
    return out;
  }
  if (!was_rolling) return had ? previous : json();
  json out = {{"phase", "Completed"}, {"startTime", started}, {"endTime", now}};
  if (!progress->workers.empty()) out["updatedComponents"] = progress->workers;
  return out;
}

}  // namespace dgd::reconcile
