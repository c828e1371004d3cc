#include "dgd/reconcile/model_cache.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/child_plan.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

int64_t count_at(const json& job, const char* field) {
  auto st = job.find("status");
  if (st == job.end() || !st->is_object()) return 0;
  auto f = st->find(field);
  return f != st->end() && f->is_number_integer() ? f->get<int64_t>() : 0;
}

// The Job condition `type` when its status is True, or nullptr.
const json* true_condition(const json& job, const char* type) {
  auto st = job.find("status");
  if (st == job.end() || !st->is_object()) return nullptr;
  auto conds = st->find("conditions");
  if (conds == st->end() || !conds->is_array()) return nullptr;
  for (const auto& c : *conds) {
    if (c.is_object() && c.value("type", "") == type && c.value("status", "") == "True") return &c;
  }
  return nullptr;
}

std::string name_of(const json& obj) {
  auto m = obj.find("metadata");
  return m != obj.end() && m->is_object() ? m->value("name", "") : "";
}

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "pod P: <reason> (exit code N): <message>" of the Job's pod that ended last with a
// failure, or "" when no pod says why. Latest by finishedAt, then by name: stable.
std::string last_failure(const std::vector<const json*>& pods) {
  std::tuple<std::string, std::string, std::string> best;  // finishedAt, pod, text
  bool found = false;
  for (const json* p : pods) {
    if (p == nullptr) continue;
    const json statuses = p->value("/status/containerStatuses"_json_pointer, json::array());
    for (const auto& cs : statuses) {
      const json t = cs.value("/state/terminated"_json_pointer, json());
      if (!t.is_object() || t.value("exitCode", 0) == 0) continue;
      std::string text = "pod " + name_of(*p) + ": " + t.value("reason", "Error") + " (exit code " +
                         std::to_string(t.value("exitCode", 0)) + ")";
      const std::string msg = t.value("message", "");
      if (!msg.empty()) text += ": " + msg;
      auto key = std::make_tuple(t.value("finishedAt", ""), name_of(*p), text);
      if (!found || key > best) best = key;
      found = true;
    }
  }
  return found ? std::get<2>(best) : "";
}

// A termination message is the tail of a log: keep the condition readable.
std::string trim_message(std::string s) {
  constexpr size_t kMax = 1024;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() <= kMax) return s;
  size_t cut = s.size() - kMax;
  while (cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) ++cut;
  return "..." + s.substr(cut);
}

}  // namespace

std::string ModelCacheSpec::what() const { return revision.empty() ? model : model + "@" + revision; }

std::optional<ModelCacheSpec> model_cache_spec(const api::Dgd& graph) {
  const auto& m = graph.spec.model;
  if (!m || !m->cache || !m->cache->claim_name || m->cache->claim_name->empty()) return std::nullopt;
  ModelCacheSpec s;
  s.claim = *m->cache->claim_name;
  s.model = m->id.value_or("");
  s.revision = m->revision.value_or("");
  // The same rule as the renderer's: a download Job needs the block, enabled, and a model id.
  if (m->download && m->download->enabled.value_or(true) && m->id) {
    s.job_name = render::download_job_name(s.claim, s.model, s.revision);
  }
  return s;
}

ModelCacheVerdict assess_model_cache(const ModelCacheSpec& spec, const ModelCacheObservation& seen) {
  ModelCacheVerdict v;
  v.condition.type = kConditionModelCacheReady;
  if (spec.job_name.empty()) {
    v.phase = ModelCachePhase::kNoDownload;
    v.condition.status = "True";
    v.condition.reason = kReasonNoDownload;
    v.condition.message = "PVC " + spec.claim +
                          " is mounted as it is: spec.model.download is not set, so the operator neither fills "
                          "nor checks it";
    return v;
  }
  v.hold_workers = true;
  v.condition.status = "False";
  const std::string into = spec.what() + " into PVC " + spec.claim;
  if (seen.job == nullptr) {
    if (seen.claim_missing) {
      v.phase = ModelCachePhase::kClaimMissing;
      v.condition.reason = kReasonClaimNotFound;
      v.condition.message = "PVC " + spec.claim +
                            " not found: create it (ReadWriteMany, large enough for the model) or set "
                            "spec.model.cache.create; the download Job starts once it exists";
    } else {
      v.phase = ModelCachePhase::kDownloading;
      v.condition.reason = kReasonDownloading;
      v.condition.message = "downloading " + into + ": creating Job " + spec.job_name;
    }
    return v;
  }
  const json& job = *seen.job;
  if (true_condition(job, "Complete") != nullptr) {
    v.phase = ModelCachePhase::kInCache;
    v.hold_workers = false;
    v.condition.status = "True";
    v.condition.reason = kReasonModelInCache;
    v.condition.message = spec.what() + " is in PVC " + spec.claim + " (Job " + spec.job_name + " completed)";
    return v;
  }
  const int64_t failed = count_at(job, "failed");
  const int64_t backoff_limit = job.value("/spec/backoffLimit"_json_pointer, int64_t{6});
  if (const json* f = true_condition(job, "Failed")) {
    v.phase = ModelCachePhase::kFailed;
    v.condition.reason = kReasonDownloadFailed;
    std::string msg = "download of " + into + " failed: Job " + spec.job_name + " " + f->value("reason", "Failed");
    const std::string why = f->value("message", "");
    if (!why.empty()) msg += ": " + why;
    msg += " (" + plural(failed, "failed pod", "failed pods") + ")";
    const std::string pod = last_failure(seen.job_pods);
    if (!pod.empty()) msg += "; last " + trim_message(pod);
    msg += ". Fix the cause, then delete the Job to retry (the download resumes where it stopped)";
    v.condition.message = msg;
    return v;
  }
  v.phase = ModelCachePhase::kDownloading;
  v.condition.reason = kReasonDownloading;
  const int64_t active = count_at(job, "active");
  const int64_t ready = count_at(job, "ready");
  std::string state;
  if (true_condition(job, "Suspended") != nullptr) {
    state = "the Job is suspended";
  } else if (ready > 0) {
    state = "download pod running";
  } else if (active > 0) {
    state = "download pod starting";
  } else {
    state = "waiting for the Job's pod";
  }
  std::string msg = "downloading " + into + ": Job " + spec.job_name + ", " + state + " (attempt " +
                    std::to_string(failed + 1) + " of " + std::to_string(backoff_limit + 1) + ")";
  if (failed > 0) {
    const std::string pod = last_failure(seen.job_pods);
    msg += pod.empty() ? "; an earlier attempt failed" : "; the last attempt failed: " + trim_message(pod);
  }
  v.condition.message = msg;
  return v;
}

const json* find_download_record(const ModelCacheSpec& spec, const std::vector<json>& jobs) {
  if (spec.job_name.empty()) return nullptr;
  const json* running = nullptr;
  for (const auto& job : jobs) {
    if (name_of(job) == spec.job_name) continue;  // the operator's own, found by name
    const json none = json::object();
    const json labels = job.value("/metadata/labels"_json_pointer, none);
    const json notes = job.value("/metadata/annotations"_json_pointer, none);
    if (!labels.is_object() || !notes.is_object() || labels.value(render::kLabelModelCache, "") != spec.claim) continue;
    if (notes.value(kAnnotationModelRevision, "") != spec.revision) continue;
    const std::string ids = notes.value(kAnnotationModelId, "");
    bool names_model = false;
    for (size_t start = 0; start <= ids.size();) {
      size_t comma = ids.find(',', start);
      if (comma == std::string::npos) comma = ids.size();
      std::string id = ids.substr(start, comma - start);
      id.erase(0, id.find_first_not_of(' '));
      id.erase(id.find_last_not_of(' ') + 1);
      names_model = names_model || (!id.empty() && id == spec.model);
      start = comma + 1;
    }
    if (!names_model || true_condition(job, "Failed") != nullptr) continue;
    if (true_condition(job, "Complete") != nullptr) return &job;
    if (running == nullptr) running = &job;
  }
  return running;
}

void own_by_claim(json& job, const json& pvc) {
  const json& meta = pvc.at("metadata");
  job["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                                     {"kind", "PersistentVolumeClaim"},
                                                     {"name", meta.value("name", "")},
                                                     {"uid", meta.value("uid", "")},
                                                     {"controller", true},
                                                     {"blockOwnerDeletion", false}}});
}

bool download_state_changed(const json* before, const json* after) {
  if ((before == nullptr) != (after == nullptr)) return true;
  if (before == nullptr) return false;
  for (const char* f : {"active", "ready", "failed", "succeeded"}) {
    if (count_at(*before, f) != count_at(*after, f)) return true;
  }
  const json none = json::array();
  return before->value("/status/conditions"_json_pointer, none) != after->value("/status/conditions"_json_pointer, none);
}

void hold_back_workers(std::vector<json>& desired, const std::set<std::string>& workers,
                       const std::map<std::string, int64_t>& live_replicas) {
  for (auto& d : desired) {
    if (d.value("kind", "") != "Deployment" || workers.count(name_of(d)) == 0) continue;
    auto live = live_replicas.find(object_key(d));
    const int64_t want = d.value("/spec/replicas"_json_pointer, int64_t{1});
    d["spec"]["replicas"] = live == live_replicas.end() ? 0 : std::min(live->second, want);
  }
}

}  // namespace dgd::reconcile
