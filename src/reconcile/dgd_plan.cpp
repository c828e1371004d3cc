#include "dgd/reconcile/dgd_plan.h"

#include <algorithm>
#include <set>

#include "dgd/api/validate.h"
#include "dgd/object/desired_state.h"
#include "dgd/object/field_schema.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/desired_extras.h"
#include "dgd/reconcile/placement_status.h"
#include "dgd/reconcile/spec_pipeline.h"
#include "dgd/reconcile/worker_generations.h"
#include "dgd/render/worker_generation.h"
#include "reconcile/object_meta.h"
#include "reconcile/plan_shortcuts.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::string describe(const json& obj) { return obj.value("kind", "") + " " + meta_string(obj, "name"); }

bool holds(const json& live, const json& desired) {
  return object::holds_desired(live, desired, object::schema_for_object(desired));
}

// The desired children of `spec` the server can take, owned by the DGD.
std::vector<json> desired_children(const Snapshot& s, const json& dgd, SpecResult& spec, Plan& p) {
  std::vector<json> desired;
  for (auto& obj : spec.rendered->objects) {
    const ChildKind* kind = find_child_kind(obj.value("apiVersion", ""), obj.value("kind", ""));
    if (kind == nullptr) {
      p.sync_problems.push_back(describe(obj) + ": the operator does not manage this kind");
      continue;
    }
    if (!s.cache.serves(*kind)) {
      const std::string why = describe(obj) + ": the API server does not serve " + kind->resource.to_string() +
                              " (install its CustomResourceDefinition)";
      p.sync_problems.push_back(why);
      p.kinds_not_served.push_back(why);
      continue;
    }
    obj["metadata"]["namespace"] = s.key.ns;
    if (has_owner_placeholder(obj)) set_controller_owner(obj, dgd);
    desired.push_back(std::move(obj));
  }
  return desired;
}

// The scaling adapters that name this DGD, whoever made them: their counts are the
// desired replicas of the components that set scalingAdapter.
std::vector<json> adapters_of(const Snapshot& s) {
  std::vector<json> adapters;
  if (!s.cache.serves(adapter_kind())) return adapters;
  for (auto& a : s.cache.cached_in(adapter_kind(), s.key.ns)) {
    if (adapter_dgd(a) == s.key.name) adapters.push_back(std::move(a));
  }
  return adapters;
}

// The children as the cache shows them, by object_key. `by_key` points into `objects`,
// which is not changed after it is built; moving keeps the pointers valid, copying would not.
struct LiveChildren {
  LiveChildren() = default;
  LiveChildren(LiveChildren&&) = default;
  LiveChildren(const LiveChildren&) = delete;
  std::vector<json> objects;
  std::map<std::string, const json*> by_key;
};

// Those the DGD owns; desired ones it does not (a kept cache PVC); and, when the cache
// has no Job of ours, a download run outside the operator (the recipe pages'
// model-download) that holds this model and revision: the one to wait on.
LiveChildren live_children(const Snapshot& s, const std::string& uid, std::vector<json>& desired, DgdMemo& m) {
  LiveChildren live;
  for (const auto& kind : child_kinds()) {
    if (!s.cache.serves(kind)) continue;
    for (auto& o : s.cache.owned(kind, s.key.ns, uid)) live.objects.push_back(std::move(o));
  }
  std::set<std::string> live_keys;
  for (const auto& o : live.objects) live_keys.insert(object_key(o));
  for (const auto& d : desired) {
    if (live_keys.count(object_key(d)) > 0) continue;
    const ChildKind* kind = find_child_kind(d.value("apiVersion", ""), d.value("kind", ""));
    if (auto o = s.cache.cached(*kind, s.key.ns, meta_string(d, "name"))) live.objects.push_back(std::move(*o));
  }
  if (m.cache && !m.cache->job_name.empty() && s.download_records != nullptr) {
    const std::string ours = "batch/Job/" + s.key.ns + "/" + m.cache->job_name;
    const json* record = find_download_record(*m.cache, *s.download_records);
    const bool cached = std::any_of(live.objects.begin(), live.objects.end(),
                                    [&](const json& o) { return object_key(o) == ours; });
    if (!cached && record != nullptr) {
      std::erase_if(desired, [&](const json& d) { return object_key(d) == ours; });
      m.cache->job_name = meta_string(*record, "name");
      live.objects.push_back(*record);
    }
  }
  for (const auto& o : live.objects) live.by_key[object_key(o)] = &o;
  return live;
}

// The download Job and a cache PVC are shared by the DGDs that use the same cache:
// whoever controls one drives it; the others only wait for it.
void leave_others_shared_objects(std::vector<json>& desired, const LiveChildren& live, const std::string& uid) {
  std::erase_if(desired, [&](const json& d) {
    const std::string kind = d.value("kind", "");
    if (kind != "Job" && kind != "PersistentVolumeClaim") return false;
    auto l = live.by_key.find(object_key(d));
    return l != live.by_key.end() && !is_controlled_by(*l->second, uid) && has_controller_ref(*l->second);
  });
}

// The model cache: a download Job the cache lacks is created after the other children
// (it is owned by the PVC, read then); one that exists is left as it is (its pod
// template is immutable). Until it has completed the workers are held back. Returns the
// keys of the children left as they are.
std::set<std::string> plan_download(const Snapshot& s, std::vector<json>& desired, const LiveChildren& live,
                                    DgdMemo& m, Plan& p) {
  std::set<std::string> held_as_is;
  if (!m.cache) return held_as_is;
  if (!m.cache->job_name.empty()) {
    const std::string job_key = "batch/Job/" + s.key.ns + "/" + m.cache->job_name;
    auto jt = std::find_if(desired.begin(), desired.end(), [&](const json& d) { return object_key(d) == job_key; });
    if (auto l = live.by_key.find(job_key); l != live.by_key.end()) {
      p.job = *l->second;
      held_as_is.insert(job_key);
    } else if (jt != desired.end()) {
      p.download_job = std::move(*jt);
    }
    if (jt != desired.end()) desired.erase(jt);
  }
  ModelCacheObservation seen;
  if (p.job) seen.job = &*p.job;
  m.held_workers = assess_model_cache(*m.cache, seen).hold_workers;
  return held_as_is;
}

// Held workers keep the replicas they have (none for a new Deployment).
void hold_workers(std::vector<json>& desired, const LiveChildren& live) {
  std::set<std::string> workers;
  std::map<std::string, int64_t> live_replicas;
  for (const auto& d : desired) {
    if (d.value("kind", "") == "Deployment" && render::is_worker_object(d)) workers.insert(meta_string(d, "name"));
  }
  for (const auto& [k, o] : live.by_key) {
    if (o->value("kind", "") == "Deployment") live_replicas[k] = o->value("/spec/replicas"_json_pointer, int64_t{1});
  }
  hold_back_workers(desired, workers, live_replicas);
}

// The writes: applies of what differs, removals of what is no longer desired (old
// worker generations are the generation step's), adapters to create once. Children left
// as they are go into the memo as the cache shows them.
std::vector<json> plan_writes(const std::vector<json>& desired, const LiveChildren& live,
                              const std::set<std::string>& held_as_is, const GenerationStep& generations, DgdMemo& m,
                              Plan& p) {
  std::vector<const json*> live_ptrs;
  for (const auto& o : live.objects) live_ptrs.push_back(&o);
  const ChildPlan diff = plan_children(desired, live_ptrs, p.uid, holds);
  std::set<std::string> applying;
  std::vector<json> adapters_to_create;
  for (const json* d : diff.apply) {
    const std::string k = object_key(*d);
    if (held_as_is.count(k) > 0) continue;
    if (is_adapter(*d)) {  // created once, never applied over: it owns its replicas
      if (live.by_key.count(k) == 0) adapters_to_create.push_back(*d);
      continue;
    }
    applying.insert(k);
    ChildWrite w{find_child_kind(d->value("apiVersion", ""), d->value("kind", "")), *d, false, "", ""};
    if (auto l = live.by_key.find(k); l != live.by_key.end()) {
      w.exists = true;
      w.live_version = meta_string(*l->second, "resourceVersion");
      auto first = object::first_difference(*l->second, *d, object::schema_for_object(*d));
      w.change = first ? *first : "ownerReferences";
    }
    p.apply.push_back(std::move(w));
  }
  for (const json* o : diff.remove) {
    if (generations.old_keys.count(object_key(*o)) > 0) continue;
    if (const ChildKind* kind = find_child_kind(o->value("apiVersion", ""), o->value("kind", ""))) {
      p.remove.push_back({kind, *o, true, "", ""});
    }
  }
  for (const auto& d : desired) {
    const std::string k = object_key(d);
    auto l = live.by_key.find(k);
    if (applying.count(k) > 0 || l == live.by_key.end() || d.value("kind", "") == "Job") continue;
    const ChildKind* kind = find_child_kind(d.value("apiVersion", ""), d.value("kind", ""));
    m.children[k] = record_child(*kind, *l->second, is_controlled_by(*l->second, p.uid));
  }
  return adapters_to_create;
}

// Each component's Deployment (of the serving generation), its desired replicas and
// whether its pod template is what the DGD asks; the Deployments the status reads.
void summarise_components(const Snapshot& s, const api::Dgd& graph, const std::vector<json>& desired,
                          const LiveChildren& live, const GenerationStep& generations, Plan& p) {
  for (const auto& c : graph.spec.components) {
    auto name = generations.deployment_of.find(c.name);
    auto want_replicas = generations.desired_of.find(c.name);
    DgdMemo::Component mc{c.name, c.type ? api::to_string(*c.type) : "worker",
                          want_replicas != generations.desired_of.end() ? want_replicas->second : c.replicas.value_or(1),
                          name != generations.deployment_of.end() ? name->second : api::child_name(s.key.name, c.name),
                          false};
    const std::string k = deployment_key(s.key.ns, mc.deployment);
    auto want = std::find_if(desired.begin(), desired.end(), [&](const json& d) { return object_key(d) == k; });
    if (auto l = live.by_key.find(k); l != live.by_key.end()) {
      mc.template_current = want != desired.end() && is_controlled_by(*l->second, p.uid) && holds(*l->second, *want);
      p.deployments[k] = *l->second;
    }
    if (auto olds = p.old_deployments.find(c.name); olds != p.old_deployments.end()) {
      for (const auto& old : olds->second) p.deployments[old] = *live.by_key.at(old);
    }
    p.components.push_back(mc);
  }
}

}  // namespace

bool Plan::creates() const {
  return download_job.has_value() || !adapters.create.empty() ||
         std::any_of(apply.begin(), apply.end(), [](const ChildWrite& w) { return !w.exists; });
}

Plan plan(const Snapshot& s, const recipes::Catalog& catalog, const DgdMemo* memo,
          const render::RenderOptions& render_options) {
  std::optional<json> head = s.cache.get_dgd_head(s.key.ns, s.key.name);
  if (!head) return begin_plan(PlanKind::kGone, json());
  if (!meta_string(*head, "deletionTimestamp").empty()) return begin_plan(PlanKind::kDeleting, std::move(*head));
  std::vector<json> adapters = adapters_of(s);
  const std::string adapters_seen = adapters_fingerprint(adapters);
  if (memo != nullptr && memo->adapters != adapters_seen) memo = nullptr;
  if (memo != nullptr) {
    std::map<std::string, json> views;
    switch (check_memo(*memo, *head, s.cache, views)) {
      case MemoCheck::kEchoPending:
        return begin_plan(PlanKind::kWaitForCache, std::move(*head));
      case MemoCheck::kCurrent:
        if (auto p = status_plan(s, *head, *memo, views)) return std::move(*p);
        break;
      case MemoCheck::kStale:
        break;
    }
  }
  std::optional<json> whole = s.cache.get_dgd(s.key.ns, s.key.name);
  if (!whole) return begin_plan(PlanKind::kGone, json());
  if (!meta_string(*whole, "deletionTimestamp").empty()) return begin_plan(PlanKind::kDeleting, std::move(*whole));
  const json& dgd = *whole;
  const AdapterReplicas adapter_counts = adapter_replicas(adapters, s.key.name);
  SpecOptions spec_options;
  spec_options.adapter_replicas = &adapter_counts;
  spec_options.render = render_options;
  SpecResult spec = run_spec_pipeline(dgd, s.key.ns, catalog, spec_options);
  if (!spec.errors.empty()) return invalid_plan(s, std::move(*whole), std::move(spec.errors));

  Plan p = begin_plan(PlanKind::kSync, dgd);
  const api::Dgd& graph = spec.expanded->graph;
  if (const auto& backend = graph.spec.backend_framework) p.backend_framework = api::to_string(*backend);
  auto m = std::make_shared<DgdMemo>();
  m->uid = p.uid;
  m->fingerprint = dgd_fingerprint(dgd);
  m->adapters = adapters_seen;
  m->cache = model_cache_spec(graph);
  m->placement = placement_components(graph);
  api::Dgd named = graph;
  if (named.metadata.name.empty()) named.metadata.name = s.key.name;
  m->smoke = smoke_plan(spec.user, named);
  for (auto& a : desired_adapters(named, s.key.ns)) spec.rendered->objects.push_back(std::move(a));

  std::vector<json> desired = desired_children(s, dgd, spec, p);
  const LiveChildren live = live_children(s, p.uid, desired, *m);
  leave_others_shared_objects(desired, live, p.uid);
  const std::set<std::string> held_as_is = plan_download(s, desired, live, *m, p);
  // Replicas of each worker generation (worker_generations.h), before the hold caps them.
  GenerationStep generations = plan_worker_generations(desired, live.objects, p.uid, m->held_workers);
  if (m->held_workers) hold_workers(desired, live);
  add_desired_extras(s, dgd, desired, live.objects, p);  // restart stamps, the PodMonitor
  std::vector<json> adapters_to_create = plan_writes(desired, live, held_as_is, generations, *m, p);

  for (auto& o : generations.remove) p.remove.push_back({&deployment_kind(), std::move(o), true, "", ""});
  p.scale = std::move(generations.scale);
  p.rollout = generations.progress;
  p.old_deployments = std::move(generations.old_of);
  summarise_components(s, graph, desired, live, generations, p);
  m->components = p.components;
  p.memo = std::move(m);
  p.adapters = plan_adapters(graph, s.key.name, p.uid, adapters, std::move(adapters_to_create));
  return p;
}

}  // namespace dgd::reconcile
