// Model cache: the download Job that fills a DGD's model-cache PVC, whether the
// workers may start, and the ModelCacheReady condition (docs/model-cache.md). Pure.
//
// The Job (render: "<claim>-download-<hash of model@revision>") is one per cache,
// model and revision, shared by every DGD that asks for them. It is owned by the
// PVC, not by a DGD: it lives as long as the cache does, and a Job that has
// completed is the record that the revision is in the cache. A DGD created later
// (even after the one that started the download was deleted) finds the completed
// Job and starts at once; deleting the PVC deletes the record with the data, so a
// new PVC of the same name is filled again.
//
// Until the Job has completed, the workers are held back: a worker Deployment that
// does not exist yet is created with replicas 0 (the API server checks its
// template now, not after a 45-minute download), and one that exists keeps the
// replicas it has (a DGD moving to a new revision keeps serving the old one
// meanwhile). The frontend starts at once. Ready stays False, with a reason naming
// the cache.
//
// Status messages change only when the Job's state does (pod started, attempt
// failed, completed): no byte counters, so a waiting DGD causes no status writes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/reconcile/status.h"

namespace dgd::reconcile {

inline constexpr const char* kConditionModelCacheReady = "ModelCacheReady";
// Reasons of ModelCacheReady (and of Ready while the workers are held back).
inline constexpr const char* kReasonModelInCache = "ModelInCache";
inline constexpr const char* kReasonNoDownload = "NoDownload";
inline constexpr const char* kReasonClaimNotFound = "ClaimNotFound";
inline constexpr const char* kReasonDownloading = "Downloading";
inline constexpr const char* kReasonDownloadFailed = "DownloadFailed";
inline constexpr const char* kReasonWaitingForModelCache = "WaitingForModelCache";
// Event reason when a DGD creates the download Job (not ChildCreated: the Job is the
// cache's, not the DGD's child).
inline constexpr const char* kReasonDownloadStarted = "DownloadStarted";

// What an expanded graph asks of its cache.
struct ModelCacheSpec {
  std::string claim;     // PVC name
  std::string model;     // Hugging Face id ("" without a download)
  std::string revision;  // pinned revision ("" = the default branch)
  std::string job_name;  // the download Job; "" when the DGD downloads nothing
  std::string what() const;  // "model@revision" (or "model")
};

// nullopt when the graph mounts no cache (no spec.model.cache.claimName).
std::optional<ModelCacheSpec> model_cache_spec(const api::Dgd& graph);

enum class ModelCachePhase {
  kNoDownload,    // a cache without a download Job: mounted as is, nothing to wait for
  kInCache,       // the Job completed
  kClaimMissing,  // the PVC does not exist, so the Job is not created
  kDownloading,   // the Job exists and has not finished
  kFailed,        // the Job failed
};

// What the reconcile saw. Pointers may be null.
struct ModelCacheObservation {
  const nlohmann::json* job = nullptr;  // the live (or just created) download Job
  bool claim_missing = false;           // a GET of the PVC said NotFound
  std::vector<const nlohmann::json*> job_pods;  // pods of a failed Job (termination messages)
};

struct ModelCacheVerdict {
  ModelCachePhase phase = ModelCachePhase::kNoDownload;
  bool hold_workers = false;  // true until the Job has completed
  Condition condition;        // ModelCacheReady
};

ModelCacheVerdict assess_model_cache(const ModelCacheSpec& spec, const ModelCacheObservation& seen);

// Annotations by which a download Job made outside the operator (the recipe pages'
// `model-download`, labelled nvidia.com/model-cache=<claim>) says what it put in the cache:
// the model ids (comma-separated, for a Job that fills several) and the revision (absent or
// empty: the default branch).
inline constexpr const char* kAnnotationModelId = "nvidia.com/model-id";
inline constexpr const char* kAnnotationModelRevision = "nvidia.com/model-revision";

// Among `jobs` (the namespace's Jobs labelled nvidia.com/model-cache=<spec.claim>), the one
// that records spec's model at spec's revision in that cache though the operator did not
// create it: its annotations name the model and the revision, and it has not failed. A
// completed one is preferred. The operator then waits on it instead of downloading again
// (docs/model-cache.md). nullptr when none does, or when the DGD downloads nothing.
const nlohmann::json* find_download_record(const ModelCacheSpec& spec, const std::vector<nlohmann::json>& jobs);

// Makes the PVC the Job's only owner (controller), so the Job and the record it
// carries go with the cache rather than with the DGD that started it.
void own_by_claim(nlohmann::json& job, const nlohmann::json& pvc);

// True when a watch event of a download Job changes what assess_model_cache reports
// (counts of active / ready / failed / succeeded pods, conditions, existence):
// the operator then wakes every DGD of the namespace, since any of them may wait
// on the Job. Either side may be null (added / deleted).
bool download_state_changed(const nlohmann::json* before, const nlohmann::json* after);

// Holds back the worker Deployments named in `workers` (metadata.name) among
// `desired`: each keeps the replicas its live Deployment has (`live_replicas`, by
// child_plan.h object_key), and one that does not exist yet gets 0. Nothing is scaled
// up before the download completes and nothing that serves is scaled down; the
// template is still kept in step (drift is restored).
void hold_back_workers(std::vector<nlohmann::json>& desired, const std::set<std::string>& workers,
                       const std::map<std::string, int64_t>& live_replicas);

}  // namespace dgd::reconcile
