#include "dgd/reconcile/dgd_executor.h"

#include <spdlog/spdlog.h>

#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/scaling_adapters.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::string describe(const json& obj) {
  return obj.value("kind", "") + " " + obj.value("/metadata/name"_json_pointer, std::string());
}

// False when the DGD on the server is gone or being deleted (a quorum read: the cache of
// DGDs may lag the garbage collector deleting children, which is another watch).
kube::Result<bool> dgd_alive(Cluster& cluster, const runtime::ObjectKey& key, const std::string& uid) {
  auto now = cluster.read_dgd(key.ns, key.name);
  if (!now) return now.error();
  if (!*now || !(*now)->is_object()) return false;
  const json meta = (*now)->value("metadata", json::object());
  return meta.is_object() && meta.value("uid", "") == uid && !meta.contains("deletionTimestamp");
}

void apply_children(const Plan& plan, const DgdMemo* previous, ExecutorContext& ctx, const std::string& id,
                    Execution& ex) {
  std::vector<std::string> created, updated;  // for one event each
  for (const auto& w : plan.apply) {
    auto r = ctx.cluster.apply(*w.kind, w.object);
    if (!r) {
      const kube::Error& e = r.error();
      if (e.is(kube::ErrorKind::kNotLeader)) {
        ex.stop = true;
        return;
      }
      const std::string why = "apply " + describe(w.object) + " failed: " + e.to_string();
      ex.api_errors.push_back(why);
      ex.sync_problems.push_back(describe(w.object) + ": " +
                                 (e.message.empty() ? std::string(kube::to_string(e.kind)) : e.message));
      ctx.events.record(plan.dgd, "Warning", kReasonApplyFailed, why);
      continue;
    }
    const std::string k = object_key(w.object);
    ex.applied[k] = std::move(r).value();
    if (w.exists) {
      spdlog::info("dgd={}: updated {} (differed at {})", id, describe(w.object), w.change);
      updated.push_back(describe(w.object) + " (differed at " + w.change + ")");
    } else if (previous != nullptr && previous->children.count(k) > 0) {
      const std::string what = "Re-created " + describe(w.object) + " (it was deleted outside the operator)";
      spdlog::info("dgd={}: {}", id, what);
      ctx.events.record(plan.dgd, "Normal", kReasonChildCreated, what);
    } else {
      spdlog::info("dgd={}: created {}", id, describe(w.object));
      created.push_back(describe(w.object));
    }
  }
  if (!created.empty()) ctx.events.record(plan.dgd, "Normal", kReasonChildCreated, summarize_children("Created", created));
  if (!updated.empty()) ctx.events.record(plan.dgd, "Normal", kReasonChildUpdated, summarize_children("Updated", updated));
}

// Old worker generations going down (worker_generations.h): one Event per pass.
void scale_old_generations(const Plan& plan, ExecutorContext& ctx, const std::string& id, Execution& ex) {
  std::vector<std::string> scaled;
  for (const auto& w : plan.scale) {
    auto r = ctx.cluster.scale(*find_child_kind("apps/v1", "Deployment"), w.deployment, w.replicas);
    if (!r) {
      if (r.error().is(kube::ErrorKind::kNotLeader)) {
        ex.stop = true;
        return;
      }
      ex.api_errors.push_back("scale " + describe(w.deployment) + " failed: " + r.error().to_string());
      continue;
    }
    const std::string what = describe(w.deployment) + " to " + std::to_string(w.replicas);
    spdlog::info("dgd={}: scaled {} (old worker generation)", id, what);
    scaled.push_back(what);
    ex.applied[object_key(w.deployment)] = std::move(r).value();
  }
  if (!scaled.empty()) {
    ctx.events.record(plan.dgd, "Normal", kReasonChildUpdated,
                      summarize_children("Scaled", scaled) + " (old worker generation)");
  }
}

void remove_children(const Plan& plan, ExecutorContext& ctx, const std::string& id, Execution& ex) {
  std::vector<std::string> deleted;
  for (const auto& w : plan.remove) {
    if (auto s = ctx.cluster.remove(*w.kind, w.object); !s) {
      if (s.error().is(kube::ErrorKind::kNotLeader)) {
        ex.stop = true;
        return;
      }
      ex.api_errors.push_back("delete " + describe(w.object) + " failed: " + s.error().to_string());
      continue;
    }
    spdlog::info("dgd={}: deleted {} (no longer in the spec)", id, describe(w.object));
    deleted.push_back(describe(w.object));
  }
  if (!deleted.empty()) {
    ctx.events.record(plan.dgd, "Normal", kReasonChildDeleted,
                      summarize_children("Deleted", deleted) + " (no longer in the spec)");
  }
}

// The download Job the cache lacks: created once for the DGDs sharing it, owned by the
// cache PVC; none while the PVC does not exist.
void create_download_job(const Plan& plan, ExecutorContext& ctx, const runtime::ObjectKey& key, Execution& ex) {
  const ModelCacheSpec& cache = *plan.memo->cache;
  const std::string download = key.ns + "/" + cache.job_name;
  const SharedDownloads::Claim claim = ctx.downloads.claim(download);
  if (!claim.mine) {
    if (claim.created) {
      ex.job = *claim.created;
    } else {
      ex.download_in_flight = true;
    }
    return;
  }
  const json* created = nullptr;
  auto pvc = ctx.cluster.read(kube::resources::persistent_volume_claims(), key.ns, cache.claim);
  if (!pvc) {
    if (pvc.error().is(kube::ErrorKind::kNotLeader)) ex.stop = true;
    ex.api_errors.push_back("reading PVC " + cache.claim + " before creating Job " + cache.job_name +
                            " failed: " + pvc.error().to_string());
  } else if (!*pvc) {
    ex.claim_missing = true;
  } else {
    json job = *plan.download_job;
    own_by_claim(job, **pvc);
    auto r = ctx.cluster.apply(*find_child_kind("batch/v1", "Job"), job);
    if (!r) {
      if (r.error().is(kube::ErrorKind::kNotLeader)) ex.stop = true;
      const std::string why = "apply " + describe(job) + " failed: " + r.error().to_string();
      ex.api_errors.push_back(why);
      ctx.events.record(plan.dgd, "Warning", kReasonApplyFailed, why);
    } else {
      ex.job = std::move(r).value();
      ex.job_created = true;
      created = &*ex.job;
      const std::string what =
          "Created " + describe(job) + " (download of " + cache.what() + " into PVC " + cache.claim + ")";
      spdlog::info("dgd={}: {}", key.str(), what);
      ctx.events.record(plan.dgd, "Normal", kReasonDownloadStarted, what);
    }
  }
  ctx.downloads.finish(download, created);
}

}  // namespace

bool Execution::settled(const Plan& plan) const {
  return !stop && api_errors.empty() && sync_problems.empty() && plan.sync_problems.empty() && plan.remove.empty() &&
         plan.scale.empty() && !(plan.rollout && plan.rollout->in_progress) && !job_created &&
         !adapters_created && !claim_missing && !download_in_flight;
}

Execution execute(const Plan& plan, const DgdMemo* previous, ExecutorContext& ctx, const runtime::ObjectKey& key) {
  Execution ex;
  if (plan.kind != PlanKind::kSync) return ex;
  const std::string id = key.str();
  ex.job = plan.job;
  if (plan.creates()) {
    auto alive = dgd_alive(ctx.cluster, key, plan.uid);
    if (!alive) {
      ex.stop = true;
      if (!alive.error().is(kube::ErrorKind::kNotLeader)) {
        ex.api_errors.push_back("reading the DGD before creating children failed: " + alive.error().to_string());
      }
      return ex;
    }
    if (!*alive) {
      spdlog::debug("dgd={}: being deleted (server state); creating nothing", id);
      ex.stop = true;
      return ex;
    }
  }
  apply_children(plan, previous, ctx, id, ex);
  if (!ex.stop) scale_old_generations(plan, ctx, id, ex);
  if (!ex.stop) remove_children(plan, ctx, id, ex);
  // After the children: an adapter's status reports the count its Deployment was written with.
  if (!ex.stop && ex.api_errors.empty() && !plan.adapters.empty()) {
    AdapterWrites aw = execute_adapter_writes(plan.adapters, plan.dgd, ctx.cluster, ctx.events, id, now_rfc3339());
    ex.stop = aw.stop;
    ex.adapters_created = aw.created;
    ex.api_errors.insert(ex.api_errors.end(), aw.errors.begin(), aw.errors.end());
  }
  if (!ex.stop && plan.download_job) create_download_job(plan, ctx, key, ex);
  if (!ex.stop && ex.job && ex.job->value("/status/failed"_json_pointer, 0) > 0) {
    // Why the download failed is in its pods' termination messages.
    const std::string& job_name = plan.memo->cache->job_name;
    auto pods = ctx.cluster.list(kube::resources::pods(), key.ns, "job-name=" + job_name);
    if (pods) {
      ex.job_pods = std::move(pods).value();
    } else {
      spdlog::debug("dgd={}: listing the pods of Job {}: {}", id, job_name, pods.error().to_string());
    }
  }
  return ex;
}

}  // namespace dgd::reconcile
