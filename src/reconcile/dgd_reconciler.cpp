#include "dgd/reconcile/dgd_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <optional>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/object/desired_state.h"
#include "dgd/object/field_schema.h"
#include "dgd/kube/watch_scan.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/placement_status.h"
#include "dgd/reconcile/serving.h"
#include "dgd/reconcile/smoke.h"
#include "dgd/reconcile/status.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {

using nlohmann::json;
using runtime::ReconcileResult;

namespace {

// Delay before retrying after an API error: 100 ms doubling to 5 min. The
// controller's own rate limiter would log every retry; this keeps one line per
// problem (report_problem) while still backing off.
std::chrono::milliseconds retry_delay(int failures) {
  const int shift = std::min(failures, 12);
  return std::min(std::chrono::milliseconds(100) * (1 << shift), std::chrono::milliseconds(300000));
}

// Longest wait between two progress-only status writes (DgdReconcilerOptions).
constexpr int64_t kMaxProgressIntervalMs = 60000;

// How often a DGD whose model-cache PVC does not exist looks for it again.
constexpr std::chrono::seconds kClaimPollInterval{10};

// Longest a status pass trusts the last full pass: a bound on how long a change that
// came without an event (a CRD removed, a missed classification) goes unseen.
constexpr std::chrono::seconds kSteadyMaxAge{30};
// How long a status pass waits for the watch event of a Deployment the last full pass
// created before it makes the full pass instead (the event normally comes in milliseconds).
constexpr std::chrono::seconds kEchoWait{10};
// A download Job another pass created (or is creating) stands in for the cache's view of it
// this long: the cache has it within milliseconds; a claim whose pass died is free after it.
constexpr std::chrono::seconds kDownloadClaimAge{10};
constexpr std::chrono::seconds kDownloadClaimPoll{1};

std::string meta_string(const json& obj, const char* field) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

int64_t generation_of(const json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return 0;
  auto g = m->find("generation");
  return g != m->end() && g->is_number_integer() ? g->get<int64_t>() : 0;
}

bool has_owner_placeholder(const json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end()) return false;
  auto refs = m->find("ownerReferences");
  if (refs == m->end() || !refs->is_array()) return false;
  return std::any_of(refs->begin(), refs->end(), [](const json& r) { return r.value("uid", "").empty(); });
}

bool has_controller_ref(const json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end()) return false;
  auto refs = m->find("ownerReferences");
  if (refs == m->end() || !refs->is_array()) return false;
  return std::any_of(refs->begin(), refs->end(), [](const json& r) { return r.value("controller", false); });
}

// What the spec pipeline reads of the DGD besides its spec: uid (owner references),
// generation (every spec edit moves it), labels and annotations.
std::string spec_fingerprint(const json& dgd) {
  std::string fp = meta_string(dgd, "uid") + "\n" + std::to_string(generation_of(dgd));
  auto m = dgd.find("metadata");
  if (m != dgd.end() && m->is_object()) {
    for (const char* k : {"labels", "annotations"}) {
      auto f = m->find(k);
      fp += "\n";
      if (f != m->end()) fp += std::to_string(std::hash<std::string>{}(f->dump()));
    }
  }
  return fp;
}

// The model cache's condition, and Ready's reason while the workers wait for it.
void report_model_cache(const ModelCacheVerdict& verdict, StatusInput& in) {
  in.extra_conditions.push_back(verdict.condition);
  if (verdict.hold_workers) {
    in.held_back_reason = kReasonWaitingForModelCache;
    in.held_back_message = "the workers wait for the model cache: " + verdict.condition.message;
  }
}

std::string describe(const json& obj) { return obj.value("kind", "") + " " + meta_string(obj, "name"); }

void append_errors(const std::vector<api::FieldError>& from, std::vector<std::string>& to) {
  for (const auto& e : from) {
    if (e.severity == api::Severity::kError) to.push_back(e.str());
  }
}

// Errors found in the expanded graph name its component indexes; rewrite them to the
// index of the same component in the user's DGD so the path points at what the user
// wrote (a component only the recipe has keeps the graph's index and says so).
std::vector<std::string> graph_errors_as_user_paths(const std::vector<api::FieldError>& errors,
                                                    const api::Dgd& graph, const api::Dgd& user) {
  std::vector<std::string> out;
  for (const auto& e : errors) {
    if (e.severity != api::Severity::kError) continue;
    api::FieldError mapped = e;
    const std::string prefix = "spec.components[";
    if (e.path.rfind(prefix, 0) == 0) {
      const auto close = e.path.find(']', prefix.size());
      if (close != std::string::npos) {
        const size_t index = std::strtoul(e.path.substr(prefix.size(), close - prefix.size()).c_str(), nullptr, 10);
        if (index < graph.spec.components.size()) {
          const std::string& name = graph.spec.components[index].name;
          const auto& uc = user.spec.components;
          auto it = std::find_if(uc.begin(), uc.end(), [&](const api::Component& c) { return c.name == name; });
          if (it != uc.end()) {
            mapped.path = prefix + std::to_string(it - uc.begin()) + e.path.substr(close);
          } else {
            mapped.message += " (in component \"" + name + "\" of recipe " + user.spec.recipe.value_or("") + ")";
          }
        }
      }
    }
    out.push_back(mapped.str());
  }
  return out;
}

}  // namespace

struct DgdReconciler::SteadyState {
  struct Component {
    std::string name, type;
    int32_t desired_replicas = 0;
    std::string deployment;  // its Deployment's name
    bool template_current = false;
  };
  std::string fingerprint;  // spec_fingerprint of the DGD that pass read
  std::chrono::steady_clock::time_point at;
  std::vector<Component> components;
  std::vector<std::pair<std::string, int32_t>> placement;  // placement_components
  std::optional<ModelCacheSpec> cache;  // model_cache_spec of the graph
  bool held_workers = false;            // that pass held the workers back
  SmokePlan smoke;
};

DgdReconciler::~DgdReconciler() = default;

void DgdReconciler::note_spec_change(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  // Only DGDs this process reconciles: a key it never saw gets the full pass anyway.
  if (uids_.count(key) > 0) spec_changed_.insert(key);
}

void DgdReconciler::note_child_change(const std::string& key, const std::string& child,
                                      const std::string& resource_version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (uids_.count(key) == 0) return;
  auto d = echoes_.find(key);
  if (d != echoes_.end()) {
    auto e = d->second.find(child);
    if (e != d->second.end()) {
      const bool echo = e->second.after == resource_version;
      d->second.erase(e);  // its event came: later ones are someone else's
      if (d->second.empty()) echoes_.erase(d);
      if (echo) return;
    }
  }
  if (auto p = applying_.find(key); p != applying_.end()) {
    // The event may have overtaken the response of the apply that wrote it: the pass
    // decides when it has that response (note_own_write) or when it ends.
    p->second[child] = resource_version;
    return;
  }
  if (spec_changed_.insert(key).second) {
    spdlog::debug("dgd={}: {} changed (resourceVersion {}): next pass is full", key, child, resource_version);
  }
}

void DgdReconciler::begin_applies(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  echoes_.erase(key);  // an earlier pass's writes whose events never came
  applying_[key];
}

void DgdReconciler::note_own_write(const std::string& key, const std::string& child, const std::string& before,
                                   const std::string& after) {
  // An apply that changed nothing keeps the resourceVersion and sends no event.
  if (after == before) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto p = applying_.find(key); p != applying_.end()) {
    auto early = p->second.find(child);
    if (early != p->second.end() && early->second == after) {
      p->second.erase(early);  // its event came first
      return;
    }
  }
  echoes_[key][child] = Echo{before, after};
}

void DgdReconciler::end_applies(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto p = applying_.find(key);
  if (p == applying_.end()) return;
  // Events during the pass that were not the echo of its own writes.
  if (!p->second.empty() && spec_changed_.insert(key).second) {
    spdlog::debug("dgd={}: {} changed while the pass applied: next pass is full", key, p->second.begin()->first);
  }
  applying_.erase(p);
}

DgdReconciler::DownloadClaim DgdReconciler::claim_download(const std::string& download) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  auto it = downloads_.find(download);
  if (it != downloads_.end() && now - it->second.at < kDownloadClaimAge) return {false, it->second.job};
  downloads_[download] = {now, nullptr};
  return {true, nullptr};
}

void DgdReconciler::finish_download_claim(const std::string& download, const json* created) {
  std::lock_guard<std::mutex> lock(mu_);
  if (created == nullptr) {
    downloads_.erase(download);
  } else {
    downloads_[download] = {std::chrono::steady_clock::now(), std::make_shared<const json>(*created)};
  }
  // Old entries: the cache has long had those Jobs.
  const auto now = std::chrono::steady_clock::now();
  for (auto it = downloads_.begin(); it != downloads_.end();) {
    it = now - it->second.at >= kDownloadClaimAge ? downloads_.erase(it) : std::next(it);
  }
}

std::optional<std::string> DgdReconciler::pending_echo(const std::string& key, const std::string& child) {
  std::lock_guard<std::mutex> lock(mu_);
  auto d = echoes_.find(key);
  if (d == echoes_.end()) return std::nullopt;
  auto e = d->second.find(child);
  if (e == d->second.end()) return std::nullopt;
  return e->second.before;
}

std::shared_ptr<const DgdReconciler::SteadyState> DgdReconciler::take_steady(const std::string& key,
                                                                              const std::string& fingerprint) {
  std::lock_guard<std::mutex> lock(mu_);
  // Taken by every pass: a change noted after this point brings the next pass back full.
  const bool changed = spec_changed_.erase(key) > 0;
  auto it = steady_.find(key);
  if (it == steady_.end()) return nullptr;
  if (changed || it->second->fingerprint != fingerprint ||
      std::chrono::steady_clock::now() - it->second->at > kSteadyMaxAge) {
    steady_.erase(it);
    return nullptr;
  }
  return it->second;
}

ReconcileResult DgdReconciler::status_pass(const runtime::ObjectKey& key, const json& dgd, const SteadyState& steady,
                                           StatusInput& status_in) {
  const std::string id = key.str();
  const ChildKind* deployments = find_child_kind("apps/v1", "Deployment");
  std::vector<std::optional<json>> live(steady.components.size());  // kept alive for status_in
  for (size_t i = 0; i < steady.components.size(); ++i) {
    const auto& c = steady.components[i];
    live[i] = cluster_.cached_status(*deployments, key.ns, c.deployment);
    if (auto before = pending_echo(id, "apps/Deployment/" + key.ns + "/" + c.deployment)) {
      // The last full pass wrote it, and the cache still holds the version before that
      // write (or, for a create, nothing): a status from it would describe the old
      // template. Its watch event brings this DGD back; the requeue only bounds the wait
      // should that event never come (created and deleted while the watch was down).
      if (live[i] ? meta_string(*live[i], "resourceVersion") == *before : before->empty()) {
        return ReconcileResult::after(kEchoWait);
      }
    }
    if (!live[i]) {
      // Gone since the full pass (its delete event is on its way): make the full pass now.
      {
        std::lock_guard<std::mutex> lock(mu_);
        steady_.erase(id);
      }
      return reconcile(key);
    }
    ComponentObservation obs;
    obs.name = c.name;
    obs.type = c.type;
    obs.desired_replicas = c.desired_replicas;
    obs.deployment = &*live[i];
    obs.template_current = c.template_current;
    status_in.components.push_back(obs);
  }
  // The download Job's state is read here: only a change of whether the workers wait
  // for it (or a Job that is gone or failed) needs the full pass.
  std::optional<json> job;
  if (steady.cache) {
    ModelCacheObservation seen;
    if (!steady.cache->job_name.empty()) {
      job = cluster_.cached_status(*find_child_kind("batch/v1", "Job"), key.ns, steady.cache->job_name);
      if (job) seen.job = &*job;
    }
    const ModelCacheVerdict verdict = assess_model_cache(*steady.cache, seen);
    const bool job_lost = !steady.cache->job_name.empty() && (!job || job->value("/status/failed"_json_pointer, 0) > 0);
    if (job_lost || verdict.hold_workers != steady.held_workers) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        steady_.erase(id);
      }
      return reconcile(key);
    }
    report_model_cache(verdict, status_in);
  }
  if (auto placement = placement_status(cluster_, key.ns, key.name, steady.placement)) {
    status_in.extra_conditions.push_back(*placement);
  }
  if (options_.serving != nullptr) {
    add_serving_condition(*options_.serving, events_, dgd, key.ns, key.name, steady.smoke, status_in);
  }
  return finish_pass(id, dgd, status_in.generation, status_in, {}, {}, false);
}

namespace {

constexpr std::string_view kDeploymentRevisionAnnotation = "deployment.kubernetes.io/revision";

// `text` (a JSON object) as "key=value" spans without status, metadata.resourceVersion,
// metadata.managedFields and the Deployment controller's revision annotation; nullopt when
// it is not a JSON object. Equal objects in compact form give equal strings (the cache
// holds nlohmann dumps: sorted keys).
std::optional<std::string> without_status(std::string_view text) {
  kube::JsonScanner s(text);
  std::string out;
  out.reserve(text.size());
  auto append_value = [&]() {
    const size_t start = s.pos();
    if (!s.value()) return false;
    out.append(text.substr(start, s.pos() - start));
    out += ',';
    return true;
  };
  std::string_view key;
  if (!s.begin_object()) return std::nullopt;
  while (s.next_member(key)) {
    if (key == "status") {
      if (!s.value()) return std::nullopt;
      continue;
    }
    out.append(key);
    out += '=';
    if (key == "metadata" && s.peek() == '{') {
      std::string_view mk;
      s.begin_object();
      while (s.next_member(mk)) {
        if (mk == "resourceVersion" || mk == "managedFields") {
          if (!s.value()) return std::nullopt;
          continue;
        }
        if (mk == "annotations" && s.peek() == '{') {
          // The Deployment controller's revision counter is its bookkeeping, set after
          // every rollout: not a change anyone made to the object (nor is the empty
          // annotations map it may leave behind).
          const size_t mark = out.size();
          out.append(mk);
          out += ":{";
          bool any = false;
          std::string_view ak;
          s.begin_object();
          while (s.next_member(ak)) {
            if (ak == kDeploymentRevisionAnnotation) {
              if (!s.value()) return std::nullopt;
              continue;
            }
            any = true;
            out.append(ak);
            out += ':';
            if (!append_value()) return std::nullopt;
          }
          if (any) {
            out += "};";
          } else {
            out.resize(mark);
          }
          continue;
        }
        out.append(mk);
        out += ':';
        if (!append_value()) return std::nullopt;
      }
      out += ';';
    } else if (!append_value()) {
      return std::nullopt;
    }
  }
  if (!s.ok() || !s.at_end()) return std::nullopt;
  return out;
}

}  // namespace

bool changed_outside_status(std::string_view before, std::string_view after) {
  const auto a = without_status(before);
  if (!a) return true;
  const auto b = without_status(after);
  return !b || *a != *b;
}

DgdReconciler::DgdReconciler(Cluster& cluster, const recipes::Catalog& catalog, DgdReconcilerOptions options)
    : cluster_(cluster), catalog_(catalog), options_(std::move(options)), events_(cluster, options_.instance) {}

void DgdReconciler::report_problem(const std::string& key, const std::string& problem) {
  bool is_new = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& last = last_problem_[key];
    is_new = last != problem;
    last = problem;
  }
  if (is_new) {
    spdlog::warn("dgd={}: {}", key, problem);
  } else {
    spdlog::debug("dgd={}: still: {}", key, problem);
  }
}

void DgdReconciler::clear_problem(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_problem_.erase(key) > 0) spdlog::info("dgd={}: recovered", key);
  failures_.erase(key);
}

ReconcileResult DgdReconciler::retry(const std::string& key) {
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    n = failures_[key]++;
  }
  return ReconcileResult::after(retry_delay(n));
}

ReconcileResult DgdReconciler::reconcile(const runtime::ObjectKey& key) {
  const std::string id = key.str();
  // The DGD without its spec first: a status pass needs no more, and most passes are.
  std::optional<json> found = cluster_.get_dgd_head(key.ns, key.name);
  if (!found) {
    // Deleted: the garbage collector removes the children (ownerReferences).
    if (options_.serving != nullptr) options_.serving->forget(id);
    note_job_use(id, "");
    std::string uid;
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_problem_.erase(id);
      failures_.erase(id);
      last_status_write_.erase(id);
      steady_.erase(id);
      spec_changed_.erase(id);
      echoes_.erase(id);
      applying_.erase(id);
      auto it = uids_.find(id);
      if (it != uids_.end()) {
        uid = it->second;
        uids_.erase(it);
      }
    }
    if (!uid.empty()) {
      events_.forget(uid);
      std::lock_guard<std::mutex> lock(mu_);
      created_.erase(created_.lower_bound(uid + "\n"), created_.lower_bound(uid + "\x0b"));
    }
    return ReconcileResult::done();
  }
  json& dgd = *found;
  const std::string uid = meta_string(dgd, "uid");
  {
    std::lock_guard<std::mutex> lock(mu_);
    uids_[id] = uid;
  }
  if (!meta_string(dgd, "deletionTimestamp").empty()) {
    // Being deleted (plain, foreground or orphan): never re-create or touch children;
    // the garbage collector and the DGD's own finalizers finish the job.
    spdlog::debug("dgd={}: being deleted; nothing to do", id);
    return ReconcileResult::done();
  }
  const int64_t generation = generation_of(dgd);
  StatusInput status_in;
  status_in.generation = generation;
  status_in.now = now_rfc3339();
  auto prev_status = dgd.find("status");
  if (prev_status != dgd.end()) status_in.previous_status = &*prev_status;

  // Nothing but statuses changed since a full pass found every child as desired.
  const std::string fingerprint = spec_fingerprint(dgd);
  if (auto steady = take_steady(id, fingerprint)) {
    spdlog::debug("dgd={}: status pass (children as the full pass left them)", id);
    return status_pass(key, dgd, *steady, status_in);
  }
  spdlog::debug("dgd={}: full pass", id);
  {
    std::optional<json> whole = cluster_.get_dgd(key.ns, key.name);
    // Replaced, or a new generation, since the head was read: start again from the cache.
    if (!whole || meta_string(*whole, "uid") != uid || generation_of(*whole) != generation) return reconcile(key);
    dgd = std::move(*whole);
    prev_status = dgd.find("status");
    status_in.previous_status = prev_status != dgd.end() ? &*prev_status : nullptr;
  }

  // --- spec: parse -> validate -> expand -> validate the graph -> render.
  std::vector<std::string> spec_errors;
  api::ParseResult parsed = api::fromJson(dgd);
  std::optional<recipes::ExpandResult> expanded;
  std::optional<render::RenderResult> rendered;
  if (!parsed.document) {
    spec_errors.push_back("the object is not a DynamoGraphDeployment document");
  }
  append_errors(parsed.errors, spec_errors);
  if (spec_errors.empty()) append_errors(api::validate(parsed.dgd), spec_errors);
  if (spec_errors.empty()) {
    expanded = recipes::expand(catalog_, parsed.dgd);
    append_errors(expanded->errors, spec_errors);
  }
  if (spec_errors.empty()) {
    api::ValidateOptions complete;
    complete.mode = api::ValidationMode::kComplete;
    spec_errors = graph_errors_as_user_paths(api::validate(expanded->graph, complete), expanded->graph, parsed.dgd);
  }
  if (spec_errors.empty()) {
    render::RenderOptions ro;
    ro.defaultNamespace = key.ns;
    rendered = render::render(expanded->graph, ro);
    append_errors(rendered->errors, spec_errors);
  }

  // Live children, by kind; kept alive for the pointers handed to the planner.
  std::vector<json> live_store;
  auto collect_owned = [&] {
    for (const auto& kind : child_kinds()) {
      if (!cluster_.serves(kind)) continue;
      for (auto& o : cluster_.owned(kind, key.ns, uid)) live_store.push_back(std::move(o));
    }
  };

  if (!spec_errors.empty()) {
    // Nothing is applied or deleted: the previous generation keeps serving. Report the
    // Deployments still there so `kubectl get dgd -o yaml` shows what serves.
    collect_owned();
    std::map<std::string, const json*> deployments;  // component -> Deployment
    for (const auto& o : live_store) {
      if (o.value("kind", "") != "Deployment" || !is_controlled_by(o, uid)) continue;
      const json& labels = o["metadata"].value("labels", json::object());
      const std::string component = labels.value(render::kLabelComponent, "");
      if (!component.empty()) deployments[component] = &o;
    }
    for (const auto& [component, dep] : deployments) {
      ComponentObservation c;
      c.name = component;
      c.type = (*dep)["metadata"]["labels"].value(render::kLabelComponentType, "");
      c.desired_replicas = static_cast<int32_t>(dep->value("/spec/replicas"_json_pointer, 1));
      c.deployment = dep;
      c.template_current = true;
      status_in.components.push_back(c);
    }
    status_in.spec_errors = spec_errors;
    std::string joined;
    for (const auto& e : spec_errors) joined += (joined.empty() ? "" : "; ") + e;
    report_problem(id, "invalid spec (generation " + std::to_string(generation) + "), nothing changed: " + joined);
    events_.record(dgd, "Warning", kReasonInvalidSpec, joined);
    json status = compute_status(status_in);
    if (prev_status == dgd.end() || status_changed(*prev_status, status)) {
      json updated = dgd;
      updated["status"] = status;
      if (auto r = cluster_.update_status(updated); !r) {
        if (r.error().is(kube::ErrorKind::kNotFound)) return ReconcileResult::done();
        report_problem(id, "status write failed: " + r.error().to_string());
        return retry(id);
      }
    }
    // An edit brings us back; nothing to retry.
    std::lock_guard<std::mutex> lock(mu_);
    failures_.erase(id);
    return ReconcileResult::done();
  }

  // The download Job this DGD uses, recorded before the caches are read (dgds_using_job).
  std::optional<ModelCacheSpec> cache = model_cache_spec(expanded->graph);
  note_job_use(id, cache && !cache->job_name.empty() ? key.ns + "/" + cache->job_name : "");

  // --- children.
  std::vector<json> desired;
  std::vector<std::string> sync_problems;
  for (auto& obj : rendered->objects) {
    const ChildKind* kind = find_child_kind(obj.value("apiVersion", ""), obj.value("kind", ""));
    if (kind == nullptr) {
      sync_problems.push_back(describe(obj) + ": the operator does not manage this kind");
      continue;
    }
    if (!cluster_.serves(*kind)) {
      const std::string why = describe(obj) + ": the API server does not serve " + kind->resource.to_string() +
                              " (install its CustomResourceDefinition)";
      sync_problems.push_back(why);
      events_.record(dgd, "Warning", kReasonKindNotServed, why);
      continue;
    }
    obj["metadata"]["namespace"] = key.ns;
    if (has_owner_placeholder(obj)) set_controller_owner(obj, dgd);
    desired.push_back(std::move(obj));
  }
  collect_owned();
  {
    // Desired children not (or no longer) owned by this DGD, e.g. a kept model cache.
    std::map<std::string, bool> seen;
    for (const auto& o : live_store) seen[object_key(o)] = true;
    for (const auto& d : desired) {
      if (seen.count(object_key(d)) > 0) continue;
      const ChildKind* kind = find_child_kind(d.value("apiVersion", ""), d.value("kind", ""));
      if (auto o = cluster_.cached(*kind, key.ns, meta_string(d, "name"))) live_store.push_back(std::move(*o));
    }
  }
  // The model-download Job is shared by the DGDs that use the same cache, model and
  // revision, and so is a cache PVC: whoever controls it (the cache PVC, a DGD) drives
  // it; the others only wait for it, rather than fight over its controller reference.
  desired.erase(std::remove_if(desired.begin(), desired.end(),
                               [&](const json& d) {
                                 const std::string kind = d.value("kind", "");
                                 if (kind != "Job" && kind != "PersistentVolumeClaim") return false;
                                 const std::string k = object_key(d);
                                 for (const auto& o : live_store) {
                                   if (object_key(o) != k) continue;
                                   return !is_controlled_by(o, uid) && has_controller_ref(o);
                                 }
                                 return false;
                               }),
                desired.end());
  // --- model cache (model_cache.h): a missing download Job is created after the other
  // children (it is owned by the PVC, whose uid is known then); until it has completed
  // the workers are held back.
  std::optional<json> new_job;
  std::optional<json> recent_job;  // the Job another pass just created, until the cache has it
  bool download_in_flight = false;
  std::string download_claim;  // "ns/job" this pass claimed to create
  struct ReleaseClaim {  // on every way out: a create that did not happen frees the claim
    DgdReconciler& r;
    const std::string& download;
    ~ReleaseClaim() {
      if (!download.empty()) r.finish_download_claim(download, nullptr);
    }
  } release_claim{*this, download_claim};
  ModelCacheObservation cache_seen;
  // Keys of live children left exactly as they are: the download Job once it exists (its
  // pod template is immutable, and it may come from an older operator or another DGD).
  std::set<std::string> held_as_is;
  if (cache && !cache->job_name.empty() && !cluster_.cached(*find_child_kind("batch/v1", "Job"), key.ns, cache->job_name)) {
    // No Job of ours: a download run outside the operator (the recipe pages' model-download)
    // may already hold this model and revision; then it is the one to wait on.
    auto jobs = cluster_.list(kube::resources::jobs(), key.ns, std::string(render::kLabelModelCache) + "=" + cache->claim);
    if (const json* record = jobs ? find_download_record(*cache, *jobs) : nullptr) {
      const std::string ours = cache->job_name;
      desired.erase(std::remove_if(desired.begin(), desired.end(),
                                   [&](const json& d) { return d.value("kind", "") == "Job" && meta_string(d, "name") == ours; }),
                    desired.end());
      cache->job_name = meta_string(*record, "name");
      note_job_use(id, key.ns + "/" + cache->job_name);
      live_store.push_back(*record);
    }
  }
  if (cache) {
    if (!cache->job_name.empty()) {
      auto jt = std::find_if(desired.begin(), desired.end(), [&](const json& d) {
        return d.value("kind", "") == "Job" && meta_string(d, "name") == cache->job_name;
      });
      const std::string job_key = "batch/Job/" + key.ns + "/" + cache->job_name;
      for (const auto& o : live_store) {
        if (object_key(o) == job_key) cache_seen.job = &o;
      }
      const std::string download = key.ns + "/" + cache->job_name;
      if (cache_seen.job != nullptr) {
        held_as_is.insert(job_key);
      } else if (jt != desired.end()) {
        // DGDs sharing the cache are reconciled at once: only the first creates the Job;
        // the others use what its create returned until the cache has it.
        const DownloadClaim claim = claim_download(download);
        if (claim.mine) {
          new_job = std::move(*jt);
          download_claim = download;
        } else if (claim.created) {
          recent_job = *claim.created;
          cache_seen.job = &*recent_job;
          held_as_is.insert(job_key);
        } else {
          download_in_flight = true;  // another pass is creating it right now
        }
        desired.erase(jt);
      }
    }
    if (assess_model_cache(*cache, cache_seen).hold_workers) {
      std::set<std::string> workers;
      for (const auto& c : expanded->graph.spec.components) {
        if (!c.type || api::isWorkerType(*c.type)) workers.insert(api::childName(key.name, c.name));
      }
      std::map<std::string, int64_t> live_replicas;
      for (const auto& o : live_store) {
        if (o.value("kind", "") == "Deployment") {
          live_replicas[object_key(o)] = o.value("/spec/replicas"_json_pointer, int64_t{1});
        }
      }
      hold_back_workers(desired, workers, live_replicas);
    }
  }

  std::vector<const json*> live;
  live.reserve(live_store.size());
  for (const auto& o : live_store) live.push_back(&o);
  std::map<std::string, const json*> live_by_key;
  for (const json* o : live) live_by_key[object_key(*o)] = o;

  auto holds = [](const json& l, const json& d) { return object::holds_desired(l, d, object::schema_for_object(d)); };
  ChildPlan plan = plan_children(desired, live, uid, holds);
  plan.apply.erase(std::remove_if(plan.apply.begin(), plan.apply.end(),
                                  [&](const json* d) { return held_as_is.count(object_key(*d)) > 0; }),
                   plan.apply.end());

  // Creating a child? Make sure the DGD is not being deleted: the cache of DGDs may lag
  // the garbage collector deleting children (their watch is another stream).
  const bool creates = new_job.has_value() ||
                       std::any_of(plan.apply.begin(), plan.apply.end(),
                                   [&](const json* d) { return live_by_key.count(object_key(*d)) == 0; });
  if (creates) {
    auto now = cluster_.read_dgd(key.ns, key.name);
    if (!now) {
      report_problem(id, "reading the DGD before creating children failed: " + now.error().to_string());
      return retry(id);
    }
    if (!*now || meta_string(**now, "uid") != uid || !meta_string(**now, "deletionTimestamp").empty()) {
      spdlog::debug("dgd={}: being deleted (server state); creating nothing", id);
      return ReconcileResult::done();
    }
  }
  std::map<std::string, json> applied;  // object key -> object as stored after our apply
  begin_applies(id);
  struct EndApplies {  // on every way out of the pass
    DgdReconciler& r;
    const std::string& id;
    ~EndApplies() { r.end_applies(id); }
  } end_applies_guard{*this, id};
  std::vector<std::string> api_errors;
  std::vector<std::string> created_now, updated_now;  // for one event each
  for (const json* d : plan.apply) {
    const ChildKind* kind = find_child_kind(d->value("apiVersion", ""), d->value("kind", ""));
    const std::string k = object_key(*d);
    auto before = live_by_key.find(k);
    std::string change;
    if (before != live_by_key.end()) {
      auto diff = object::first_difference(*before->second, *d, object::schema_for_object(*d));
      change = diff ? *diff : "ownerReferences";
    }
    auto r = cluster_.apply(*kind, *d);
    if (!r) {
      const kube::Error& e = r.error();
      if (e.is(kube::ErrorKind::kNotLeader)) return ReconcileResult::done();  // the manager stops us
      const std::string why = "apply " + describe(*d) + " failed: " + e.to_string();
      api_errors.push_back(why);
      sync_problems.push_back(describe(*d) + ": " + (e.message.empty() ? std::string(kube::to_string(e.kind)) : e.message));
      events_.record(dgd, "Warning", kReasonApplyFailed, why);
      continue;
    }
    applied[k] = std::move(r).value();
    note_own_write(id, k, before != live_by_key.end() ? meta_string(*before->second, "resourceVersion") : "",
                   meta_string(applied[k], "resourceVersion"));
    if (before == live_by_key.end()) {
      bool again = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        again = !created_.insert(uid + "\n" + k).second;
      }
      if (again) {
        // Its own event: someone or something deletes the operator's children.
        const std::string what = "Re-created " + describe(*d) + " (it was deleted outside the operator)";
        spdlog::info("dgd={}: {}", id, what);
        events_.record(dgd, "Normal", kReasonChildCreated, what);
      } else {
        spdlog::info("dgd={}: created {}", id, describe(*d));
        created_now.push_back(describe(*d));
      }
    } else {
      spdlog::info("dgd={}: updated {} (differed at {})", id, describe(*d), change);
      updated_now.push_back(describe(*d) + " (differed at " + change + ")");
    }
  }
  // One event per kind of change in this pass, naming every child (events.h).
  if (!created_now.empty())
    events_.record(dgd, "Normal", kReasonChildCreated, summarize_children("Created", created_now));
  if (!updated_now.empty())
    events_.record(dgd, "Normal", kReasonChildUpdated, summarize_children("Updated", updated_now));
  std::vector<std::string> deleted_now;
  for (const json* o : plan.remove) {
    const ChildKind* kind = find_child_kind(o->value("apiVersion", ""), o->value("kind", ""));
    if (kind == nullptr) continue;
    if (auto s = cluster_.remove(*kind, *o); !s) {
      if (s.error().is(kube::ErrorKind::kNotLeader)) return ReconcileResult::done();
      api_errors.push_back("delete " + describe(*o) + " failed: " + s.error().to_string());
      continue;
    }
    spdlog::info("dgd={}: deleted {} (no longer in the spec)", id, describe(*o));
    deleted_now.push_back(describe(*o));
  }
  if (!deleted_now.empty()) {
    events_.record(dgd, "Normal", kReasonChildDeleted,
                   summarize_children("Deleted", deleted_now) + " (no longer in the spec)");
  }

  // The download Job, owned by the cache PVC; none while the PVC does not exist.
  bool waiting_for_claim = false;
  if (new_job) {
    auto pvc = cluster_.read(kube::resources::persistent_volume_claims(), key.ns, cache->claim);
    if (!pvc) {
      if (pvc.error().is(kube::ErrorKind::kNotLeader)) return ReconcileResult::done();
      api_errors.push_back("reading PVC " + cache->claim + " before creating Job " + cache->job_name +
                           " failed: " + pvc.error().to_string());
    } else if (!*pvc) {
      cache_seen.claim_missing = true;
      waiting_for_claim = true;
    } else {
      own_by_claim(*new_job, **pvc);
      auto r = cluster_.apply(*find_child_kind("batch/v1", "Job"), *new_job);
      if (!r) {
        if (r.error().is(kube::ErrorKind::kNotLeader)) return ReconcileResult::done();
        const std::string why = "apply " + describe(*new_job) + " failed: " + r.error().to_string();
        api_errors.push_back(why);
        events_.record(dgd, "Warning", kReasonApplyFailed, why);
      } else {
        const std::string k = object_key(*new_job);
        applied[k] = std::move(r).value();
        cache_seen.job = &applied[k];
        finish_download_claim(download_claim, &applied[k]);
        download_claim.clear();
        const std::string what = "Created " + describe(*new_job) + " (download of " + cache->what() +
                                 " into PVC " + cache->claim + ")";
        spdlog::info("dgd={}: created {} (download of {} into PVC {})", id, describe(*new_job), cache->what(), cache->claim);
        events_.record(dgd, "Normal", kReasonDownloadStarted, what);
      }
    }
  }
  std::vector<json> job_pods;
  if (cache_seen.job != nullptr && cache_seen.job->value("/status/failed"_json_pointer, 0) > 0) {
    // Why the download failed is in its pods' termination messages.
    auto pods = cluster_.list(kube::resources::pods(), key.ns, "job-name=" + cache->job_name);
    if (pods) {
      job_pods = std::move(pods).value();
    } else {
      spdlog::debug("dgd={}: listing the pods of Job {}: {}", id, cache->job_name, pods.error().to_string());
    }
  }
  for (const auto& p : job_pods) cache_seen.job_pods.push_back(&p);
  if (cache) {
    const ModelCacheVerdict verdict = assess_model_cache(*cache, cache_seen);
    report_model_cache(verdict, status_in);
  }

  // --- status.
  status_in.sync_problems = sync_problems;
  auto steady = std::make_shared<SteadyState>();
  steady->fingerprint = fingerprint;
  steady->cache = cache;
  steady->held_workers = !status_in.held_back_reason.empty();
  for (const auto& c : expanded->graph.spec.components) {
    ComponentObservation obs;
    obs.name = c.name;
    obs.type = c.type ? api::toString(*c.type) : "worker";
    obs.desired_replicas = c.replicas.value_or(1);
    const std::string dep_name = api::childName(key.name, c.name);
    const json* want = nullptr;
    for (const auto& d : desired) {
      if (d.value("kind", "") == "Deployment" && meta_string(d, "name") == dep_name) want = &d;
    }
    const std::string k = "apps/Deployment/" + key.ns + "/" + dep_name;
    if (auto a = applied.find(k); a != applied.end()) {
      obs.deployment = &a->second;
    } else if (auto l = live_by_key.find(k); l != live_by_key.end()) {
      obs.deployment = l->second;
    }
    if (obs.deployment != nullptr && want != nullptr) {
      obs.template_current = is_controlled_by(*obs.deployment, uid) && holds(*obs.deployment, *want);
    }
    status_in.components.push_back(obs);
    steady->components.push_back({obs.name, obs.type, obs.desired_replicas, dep_name, obs.template_current});
  }
  steady->placement = placement_components(expanded->graph);
  if (auto placement = placement_status(cluster_, key.ns, key.name, steady->placement)) {
    status_in.extra_conditions.push_back(*placement);
  }
  if (options_.serving != nullptr) {
    api::Dgd named = expanded->graph;
    if (named.metadata.name.empty()) named.metadata.name = key.name;
    steady->smoke = smoke_plan(parsed.dgd, named);
    add_serving_condition(*options_.serving, events_, dgd, key.ns, key.name, steady->smoke, status_in);
  }
  // Every child as desired and nothing pending: later passes may be status passes.
  // Applies that succeeded count as done: what they returned is what the cache will hold,
  // and their watch events are recognised as their echo (note_child_change).
  const bool settled = api_errors.empty() && sync_problems.empty() && plan.remove.empty() &&
                       !new_job.has_value() && !waiting_for_claim && !download_in_flight;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (settled) {
      steady->at = std::chrono::steady_clock::now();
      steady_[id] = std::move(steady);
    } else {
      steady_.erase(id);
    }
  }
  ReconcileResult result =
      finish_pass(id, dgd, generation, status_in, std::move(api_errors), sync_problems, waiting_for_claim);
  if (download_in_flight && (result.requeue_after.count() == 0 || result.requeue_after > kDownloadClaimPoll)) {
    result.requeue_after = kDownloadClaimPoll;  // its add event normally comes first
  }
  return result;
}

ReconcileResult DgdReconciler::finish_pass(const std::string& id, const json& dgd, int64_t generation,
                                           const StatusInput& status_in, std::vector<std::string> api_errors,
                                           const std::vector<std::string>& sync_problems, bool waiting_for_claim) {
  const json* prev = status_in.previous_status;
  json status = compute_status(status_in);
  const bool changed = prev == nullptr || status_changed(*prev, status);
  // Progress only (counts, messages): not sooner than the progress interval after this
  // DGD's last status write; the requeue below writes it then, if still true.
  std::chrono::milliseconds progress_wait{0};
  const bool transition = changed && status_transition(prev, status);
  if (changed && !transition) progress_wait = progress_delay(id);
  if (changed && progress_wait.count() > 0) {
    spdlog::debug("dgd={}: status progress written in {} ms", id, progress_wait.count());
  } else if (changed) {
    auto ready_of = [](const json& st) -> std::pair<std::string, int64_t> {
      for (const auto& c : st.value("conditions", json::array())) {
        if (c.value("type", "") == "Ready") return {c.value("status", ""), c.value("observedGeneration", int64_t{0})};
      }
      return {"", 0};
    };
    // The API server takes only status from a status write (and the resourceVersion as
    // the precondition): the spec is left out rather than sent back at every write.
    json updated = json::object();
    for (const char* k : {"apiVersion", "kind", "metadata"}) {
      auto it = dgd.find(k);
      if (it != dgd.end()) updated[k] = *it;
    }
    updated["status"] = status;
    auto r = cluster_.update_status(updated);
    if (!r) {
      if (r.error().is(kube::ErrorKind::kNotLeader) || r.error().is(kube::ErrorKind::kNotFound)) {
        return ReconcileResult::done();
      }
      if (r.error().is(kube::ErrorKind::kConflict)) {
        // The cache lags our own previous write: read again shortly, quietly.
        spdlog::debug("dgd={}: status conflict; retrying", id);
        return retry(id);
      }
      api_errors.push_back("status write failed: " + r.error().to_string());
      // Refused (RBAC: the install lacks dynamographdeployments/status): the status cannot say
      // so, an Event can (kubectl describe dgd). Not for transient errors: their text varies.
      if (r.error().is(kube::ErrorKind::kForbidden))
        events_.record(dgd, "Warning", kReasonStatusWriteFailed, "status write failed: " + r.error().to_string());
    } else {
      note_status_write(id, transition);
      if (spdlog::should_log(spdlog::level::debug)) {
        std::string conds;
        for (const auto& c : status.value("conditions", json::array())) {
          conds += " " + c.value("type", "") + "=" + c.value("status", "") + "/" + c.value("reason", "");
        }
        spdlog::debug("dgd={}: status written ({}):{}", id, transition ? "transition" : "progress", conds);
      }
      const auto before = prev == nullptr ? std::pair<std::string, int64_t>{"", 0} : ready_of(*prev);
      const auto after = ready_of(status);
      if (after.first == "True" && (before.first != "True" || before.second != generation)) {
        spdlog::info("dgd={}: generation {} rolled out, Ready", id, generation);
        events_.record(dgd, "Normal", kReasonRolloutComplete,
                       "Generation " + std::to_string(generation) + " rolled out: every component is ready");
      }
    }
  }

  if (!api_errors.empty()) {
    std::string joined;
    for (const auto& e : api_errors) joined += (joined.empty() ? "" : "; ") + e;
    report_problem(id, joined);
    return retry(id);
  }
  if (!sync_problems.empty()) {
    // Missing kinds: the informer for the kind comes up when its CRD does and brings us back.
    std::string joined;
    for (const auto& e : sync_problems) joined += (joined.empty() ? "" : "; ") + e;
    report_problem(id, joined);
  } else {
    clear_problem(id);
  }
  // A PVC the user makes is not watched: look for it again shortly. A status write held
  // back as progress is written when its interval is over.
  ReconcileResult result =
      waiting_for_claim ? ReconcileResult::after(kClaimPollInterval) : ReconcileResult::done();
  if (progress_wait.count() > 0 &&
      (result.requeue_after.count() == 0 || progress_wait < result.requeue_after)) {
    result.requeue_after = progress_wait;
  }
  return result;
}

void DgdReconciler::note_job_use(const std::string& key, const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = job_of_.find(key);
  if (it != job_of_.end()) {
    if (it->second == job_key) return;
    auto users = job_users_.find(it->second);
    if (users != job_users_.end()) {
      users->second.erase(key);
      if (users->second.empty()) job_users_.erase(users);
    }
    job_of_.erase(it);
  }
  if (job_key.empty()) return;
  job_of_[key] = job_key;
  job_users_[job_key].insert(key);
}

std::vector<std::string> DgdReconciler::dgds_using_job(const std::string& ns, const std::string& job_name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = job_users_.find(ns + "/" + job_name);
  if (it == job_users_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void DgdReconciler::note_status_write(const std::string& key, bool transition) {
  const auto base = options_.status_progress_interval;
  const auto cap = std::max(base, std::chrono::milliseconds(kMaxProgressIntervalMs));
  std::lock_guard<std::mutex> lock(mu_);
  StatusWrite& w = last_status_write_[key];
  w.at = std::chrono::steady_clock::now();
  w.progress_interval = transition || w.progress_interval.count() == 0 ? base : std::min(w.progress_interval * 2, cap);
  w.slot = {};  // used, or (a transition) not needed
}

std::chrono::milliseconds DgdReconciler::progress_delay(const std::string& key) {
  if (options_.status_progress_interval.count() <= 0) return std::chrono::milliseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_status_write_.find(key);
  if (it == last_status_write_.end()) return std::chrono::milliseconds(0);
  StatusWrite& w = it->second;
  auto due = w.at + w.progress_interval;
  const auto now = std::chrono::steady_clock::now();
  if (due <= now && options_.status_progress_qps > 0) {
    // This DGD's interval is over: the write takes a fleet-wide slot, kept until it is used.
    if (w.slot == std::chrono::steady_clock::time_point{}) {
      const auto step = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(1.0 / std::max(options_.status_progress_qps, 0.001)));
      w.slot = std::max(now, next_progress_slot_);
      next_progress_slot_ = w.slot + step;
    }
    due = w.slot;
  }
  if (due <= now) return std::chrono::milliseconds(0);
  // Round up: a requeue a hair early would find the interval not yet over.
  return std::chrono::ceil<std::chrono::milliseconds>(due - now);
}

}  // namespace dgd::reconcile
