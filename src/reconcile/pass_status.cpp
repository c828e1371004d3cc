#include "dgd/reconcile/pass_status.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "dgd/object/desired_state.h"
#include "dgd/object/field_schema.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/placement_status.h"
#include "dgd/reconcile/serving.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

// The apply of `key` in the plan, or null.
const ChildWrite* applied_write(const Plan& plan, const std::string& key) {
  for (const auto& w : plan.apply) {
    if (object_key(w.object) == key) return &w;
  }
  return nullptr;
}

// Whether an applied Deployment holds the template the pass wants.
bool holds_template(const Plan& plan, const json& applied, const ChildWrite& want) {
  return is_controlled_by(applied, plan.uid) &&
         object::holds_desired(applied, want.object, object::schema_for_object(want.object));
}

void add_model_cache(const Plan& plan, const Execution& ex, StatusInput& in) {
  const ModelCacheSpec& spec = *plan.memo->cache;
  ModelCacheObservation seen;
  const auto& job = plan.kind == PlanKind::kSync ? ex.job : plan.job;
  if (job) seen.job = &*job;
  seen.claim_missing = ex.claim_missing;
  for (const auto& p : ex.job_pods) seen.job_pods.push_back(&p);
  const ModelCacheVerdict verdict = assess_model_cache(spec, seen);
  in.extra_conditions.push_back(verdict.condition);
  if (verdict.hold_workers) {
    in.held_back_reason = kReasonWaitingForModelCache;
    in.held_back_message = "the workers wait for the model cache: " + verdict.condition.message;
  }
}

}  // namespace

StatusInput observe_status(const Plan& plan, const Execution& ex, ClusterCache& cache, ServingChecks* serving,
                           EventRecorder& events, const runtime::ObjectKey& key, const std::string& now) {
  StatusInput in;
  in.generation = plan.generation;
  in.now = now;
  if (auto st = plan.dgd.find("status"); st != plan.dgd.end()) in.previous_status = &*st;
  in.spec_errors = plan.spec_errors;
  in.backend_framework = plan.backend_framework;
  in.restart = plan.restart;
  in.sync_problems = plan.sync_problems;
  in.sync_problems.insert(in.sync_problems.end(), ex.sync_problems.begin(), ex.sync_problems.end());
  for (const auto& c : plan.components) {
    ComponentObservation obs{c.name, c.type, c.desired_replicas, nullptr, c.template_current};
    const std::string k = "apps/Deployment/" + key.ns + "/" + c.deployment;
    if (auto a = ex.applied.find(k); a != ex.applied.end()) {
      obs.deployment = &a->second;
      if (const ChildWrite* w = applied_write(plan, k)) obs.template_current = holds_template(plan, a->second, *w);
    } else if (auto l = plan.deployments.find(k); l != plan.deployments.end()) {
      obs.deployment = &l->second;
    }
    if (auto olds = plan.old_deployments.find(c.name); olds != plan.old_deployments.end()) {
      for (const auto& old : olds->second) {
        if (auto a = ex.applied.find(old); a != ex.applied.end()) {
          in.previous_generations[c.name].push_back(&a->second);
        } else if (auto l = plan.deployments.find(old); l != plan.deployments.end()) {
          in.previous_generations[c.name].push_back(&l->second);
        }
      }
    }
    in.components.push_back(obs);
  }
  json previous_rolling;
  if (in.previous_status != nullptr && in.previous_status->is_object()) {
    if (auto r = in.previous_status->find("rollingUpdate"); r != in.previous_status->end()) previous_rolling = *r;
  }
  std::optional<RolloutProgress> progress;
  if (plan.kind == PlanKind::kSync) {
    progress = plan.rollout;
  } else if (plan.kind == PlanKind::kStatusOnly) {
    // A memo is kept only once no old generation is left (Execution::settled).
    progress.emplace();
    for (const auto& c : plan.components) {
      if (c.type == "worker" || c.type == "prefill" || c.type == "decode") progress->workers.push_back(c.name);
    }
    std::sort(progress->workers.begin(), progress->workers.end());
  }
  in.rolling_update = rolling_update_status(previous_rolling, progress, now);
  if (plan.kind == PlanKind::kInvalidSpec || !plan.memo) return in;
  if (plan.memo->cache) add_model_cache(plan, ex, in);
  if (auto placement = placement_status(cache, key.ns, key.name, plan.memo->placement)) {
    in.extra_conditions.push_back(*placement);
  }
  if (serving != nullptr) add_serving_condition(*serving, events, plan.dgd, key.ns, key.name, plan.memo->smoke, in);
  return in;
}

std::shared_ptr<const DgdMemo> memo_after(const Plan& plan, const Execution& ex, const StatusInput& in) {
  auto memo = std::make_shared<DgdMemo>(*plan.memo);
  memo->held_workers = !in.held_back_reason.empty();
  memo->plan_in_full = plan.plan_in_full;
  for (const auto& w : plan.apply) {
    const std::string k = object_key(w.object);
    auto a = ex.applied.find(k);
    if (a == ex.applied.end()) continue;
    ChildRecord r = record_child(*w.kind, a->second, is_controlled_by(a->second, plan.uid));
    r.before_write = w.live_version;
    memo->children[k] = std::move(r);
  }
  for (size_t i = 0; i < memo->components.size() && i < in.components.size(); ++i) {
    memo->components[i].template_current = in.components[i].template_current;
  }
  return memo;
}

}  // namespace dgd::reconcile
