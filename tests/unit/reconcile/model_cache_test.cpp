// The model cache's decisions: which Job a DGD waits for, what ModelCacheReady says in
// each state of that Job, and how the workers are held back.
#include "dgd/reconcile/model_cache.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

api::Dgd graph_with(const json& model) {
  json d = {{"apiVersion", "nvidia.com/v1beta1"},
            {"kind", "DynamoGraphDeployment"},
            {"metadata", {{"name", "g"}, {"namespace", "ns"}}},
            {"spec", {{"model", model},
                      {"components", json::array({{{"name", "Frontend"}, {"type", "frontend"}}})}}}};
  return api::from_json(d).dgd;
}

const json kModel = json::parse(R"({"id": "deepseek-ai/DeepSeek-V4.1-Flash", "revision": "dba1be0",
    "cache": {"claimName": "shared-model-cache"},
    "download": {"tokenSecretRef": {"name": "hf-token-secret", "key": "HF_TOKEN"}}})");

ModelCacheSpec spec() { return *model_cache_spec(graph_with(kModel)); }

json job(const std::string& status) {
  return json{{"apiVersion", "batch/v1"}, {"kind", "Job"},
              {"metadata", {{"name", spec().job_name}, {"namespace", "ns"}, {"resourceVersion", "7"}}},
              {"spec", {{"backoffLimit", 3}}},
              {"status", json::parse(status)}};
}

json failed_pod(const std::string& name, const std::string& finished, const std::string& message) {
  return json{{"metadata", {{"name", name}}},
              {"status", {{"phase", "Failed"},
                          {"containerStatuses", json::array({{{"name", "download"},
                                                              {"state", {{"terminated", {{"exitCode", 1},
                                                                                         {"reason", "Error"},
                                                                                         {"finishedAt", finished},
                                                                                         {"message", message}}}}}}})}}}};
}

ModelCacheVerdict assess(const json* j, std::vector<const json*> pods = {}, bool claim_missing = false) {
  ModelCacheObservation seen;
  seen.job = j;
  seen.job_pods = std::move(pods);
  seen.claim_missing = claim_missing;
  return assess_model_cache(spec(), seen);
}

TEST(ModelCacheSpec, NamesTheJobTheRendererMakes) {
  const api::Dgd g = graph_with(kModel);
  const ModelCacheSpec s = *model_cache_spec(g);
  EXPECT_EQ(s.claim, "shared-model-cache");
  EXPECT_EQ(s.what(), "deepseek-ai/DeepSeek-V4.1-Flash@dba1be0");
  int jobs = 0;
  for (const auto& o : render::render(g).objects) {
    if (o["kind"] != "Job") continue;
    ++jobs;
    EXPECT_EQ(o["metadata"]["name"], s.job_name);
  }
  EXPECT_EQ(jobs, 1);
}

TEST(ModelCacheSpec, OneJobPerCacheModelAndRevision) {
  json other_rev = kModel;
  other_rev["revision"] = "abc1234";
  json other_cache = kModel;
  other_cache["cache"]["claimName"] = "other-cache";
  json other_token = kModel;  // the token does not change what lands in the cache
  other_token["download"]["tokenSecretRef"]["name"] = "another-secret";
  EXPECT_NE(model_cache_spec(graph_with(other_rev))->job_name, spec().job_name);
  EXPECT_NE(model_cache_spec(graph_with(other_cache))->job_name, spec().job_name);
  EXPECT_EQ(model_cache_spec(graph_with(other_token))->job_name, spec().job_name);
}

TEST(ModelCacheSpec, NoCacheOrNoDownload) {
  EXPECT_FALSE(model_cache_spec(graph_with(json{{"id", "m"}})).has_value());
  json no_download = kModel;
  no_download.erase("download");
  EXPECT_EQ(model_cache_spec(graph_with(no_download))->job_name, "");
  json disabled = kModel;
  disabled["download"]["enabled"] = false;
  EXPECT_EQ(model_cache_spec(graph_with(disabled))->job_name, "");
}

// A Job made outside the operator (the recipe pages' model-download) stands for the DGD's
// download when its label names the cache and its annotations the model and revision.
json record(const std::string& name, const std::string& claim, const std::string& ids, const char* revision,
            const std::string& condition) {
  json notes = {{kAnnotationModelId, ids}};
  if (revision != nullptr) notes[kAnnotationModelRevision] = revision;
  json j = {{"metadata", {{"name", name}, {"labels", {{render::kLabelModelCache, claim}}}, {"annotations", notes}}},
            {"status", json::object()}};
  if (!condition.empty()) j["status"]["conditions"] = json::array({{{"type", condition}, {"status", "True"}}});
  return j;
}

TEST(FindDownloadRecord, TakesTheJobThatNamesTheCacheModelAndRevision) {
  const std::vector<json> jobs = {
      record("other-cache", "another-pvc", "deepseek-ai/DeepSeek-V4.1-Flash", "dba1be0", "Complete"),
      record("old-revision", "shared-model-cache", "deepseek-ai/DeepSeek-V4.1-Flash", "0000000", "Complete"),
      record("other-model", "shared-model-cache", "deepseek-ai/DeepSeek-V4-Flash", "dba1be0", "Complete"),
      record("model-download", "shared-model-cache", "deepseek-ai/DeepSeek-V4.1-Flash", "dba1be0", "Complete"),
  };
  const json* r = find_download_record(spec(), jobs);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ((*r)["metadata"]["name"], "model-download");
}

TEST(FindDownloadRecord, PrefersACompletedOneIgnoresAFailedOneAndTheOperatorsOwn) {
  const std::string id = "deepseek-ai/DeepSeek-V4.1-Flash";
  std::vector<json> jobs = {record("failed", "shared-model-cache", id, "dba1be0", "Failed"),
                            record("running", "shared-model-cache", id, "dba1be0", ""),
                            record("done", "shared-model-cache", id, "dba1be0", "Complete")};
  EXPECT_EQ((*find_download_record(spec(), jobs))["metadata"]["name"], "done");
  jobs.pop_back();
  EXPECT_EQ((*find_download_record(spec(), jobs))["metadata"]["name"], "running");
  jobs.pop_back();
  EXPECT_EQ(find_download_record(spec(), jobs), nullptr);
  jobs = {record(spec().job_name, "shared-model-cache", id, "dba1be0", "Complete")};
  EXPECT_EQ(find_download_record(spec(), jobs), nullptr);  // found by name, not as a record
}

TEST(FindDownloadRecord, SeveralModelsAndTheDefaultBranch) {
  // The V4 page's Job fills both checkpoints and pins no revision.
  json model = kModel;
  model["id"] = "deepseek-ai/DeepSeek-V4-Flash";
  model.erase("revision");
  const ModelCacheSpec unpinned = *model_cache_spec(graph_with(model));
  std::vector<json> jobs = {record("model-download", "shared-model-cache",
                                   "nvidia/DeepSeek-V4-Flash-NVFP4, deepseek-ai/DeepSeek-V4-Flash", nullptr, "Complete")};
  EXPECT_NE(find_download_record(unpinned, jobs), nullptr);
  jobs[0]["metadata"]["annotations"][kAnnotationModelRevision] = "";
  EXPECT_NE(find_download_record(unpinned, jobs), nullptr);
  EXPECT_EQ(find_download_record(spec(), jobs), nullptr);  // a pinned revision is not the default branch
  jobs[0]["metadata"]["annotations"][kAnnotationModelId] = "nvidia/DeepSeek-V4-Flash-NVFP4";
  EXPECT_EQ(find_download_record(unpinned, jobs), nullptr);
}

TEST(AssessModelCache, CacheWithoutDownloadHoldsNothing) {
  json no_download = kModel;
  no_download.erase("download");
  const ModelCacheVerdict v = assess_model_cache(*model_cache_spec(graph_with(no_download)), {});
  EXPECT_FALSE(v.hold_workers);
  EXPECT_EQ(v.condition.type, kConditionModelCacheReady);
  EXPECT_EQ(v.condition.status, "True");
  EXPECT_EQ(v.condition.reason, kReasonNoDownload);
}

TEST(AssessModelCache, MissingPvcIsNamed) {
  const ModelCacheVerdict v = assess(nullptr, {}, /*claim_missing=*/true);
  EXPECT_TRUE(v.hold_workers);
  EXPECT_EQ(v.phase, ModelCachePhase::kClaimMissing);
  EXPECT_EQ(v.condition.status, "False");
  EXPECT_EQ(v.condition.reason, kReasonClaimNotFound);
  EXPECT_NE(v.condition.message.find("PVC shared-model-cache not found"), std::string::npos) << v.condition.message;
}

TEST(AssessModelCache, CompletedJobMeansTheRevisionIsInTheCache) {
  const json j = job(R"({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]})");
  const ModelCacheVerdict v = assess(&j);
  EXPECT_FALSE(v.hold_workers);
  EXPECT_EQ(v.phase, ModelCachePhase::kInCache);
  EXPECT_EQ(v.condition.status, "True");
  EXPECT_EQ(v.condition.reason, kReasonModelInCache);
  EXPECT_NE(v.condition.message.find("deepseek-ai/DeepSeek-V4.1-Flash@dba1be0"), std::string::npos);
}

TEST(AssessModelCache, ProgressFollowsThePodState) {
  const json created = job("{}");
  const json starting = job(R"({"active": 1, "ready": 0, "startTime": "2026-11-30T06:00:00Z"})");
  const json running = job(R"({"active": 1, "ready": 1, "startTime": "2026-11-30T06:00:00Z"})");
  for (const json* j : {&created, &starting, &running}) {
    const ModelCacheVerdict v = assess(j);
    EXPECT_TRUE(v.hold_workers);
    EXPECT_EQ(v.condition.status, "False");
    EXPECT_EQ(v.condition.reason, kReasonDownloading);
    EXPECT_NE(v.condition.message.find("attempt 1 of 4"), std::string::npos) << v.condition.message;
    // No clock in the message: it changes only when the Job's state does.
    EXPECT_EQ(v.condition.message.find("2026"), std::string::npos) << v.condition.message;
  }
  EXPECT_NE(assess(&starting).condition.message.find("pod starting"), std::string::npos);
  EXPECT_NE(assess(&running).condition.message.find("pod running"), std::string::npos);
  EXPECT_NE(assess(&starting).condition.message, assess(&running).condition.message);
}

TEST(AssessModelCache, RetryAfterAFailedAttemptSaysWhy) {
  const json j = job(R"({"active": 1, "ready": 1, "failed": 1})");
  const json p = failed_pod("dl-a", "2026-11-30T06:00:00Z", "Connection reset by peer");
  const ModelCacheVerdict v = assess(&j, {&p});
  EXPECT_EQ(v.condition.reason, kReasonDownloading);
  EXPECT_NE(v.condition.message.find("attempt 2 of 4"), std::string::npos) << v.condition.message;
  EXPECT_NE(v.condition.message.find("Connection reset by peer"), std::string::npos) << v.condition.message;
}

TEST(AssessModelCache, FailedJobGivesItsReasonAndTheLastPodsMessage) {
  const json j = job(R"({"failed": 4, "conditions": [{"type": "FailureTarget", "status": "True"},
      {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
       "message": "Job has reached the specified backoff limit"}]})");
  const json older = failed_pod("dl-a", "2026-11-30T06:00:00Z", "older problem");
  const json newer = failed_pod("dl-b", "2026-11-30T06:05:00Z", "401 Client Error: Unauthorized for url");
  const ModelCacheVerdict v = assess(&j, {&newer, &older});
  EXPECT_TRUE(v.hold_workers);
  EXPECT_EQ(v.phase, ModelCachePhase::kFailed);
  EXPECT_EQ(v.condition.status, "False");
  EXPECT_EQ(v.condition.reason, kReasonDownloadFailed);
  const std::string& m = v.condition.message;
  EXPECT_NE(m.find("BackoffLimitExceeded: Job has reached the specified backoff limit"), std::string::npos) << m;
  EXPECT_NE(m.find("pod dl-b: Error (exit code 1): 401 Client Error"), std::string::npos) << m;
  EXPECT_EQ(m.find("older problem"), std::string::npos) << m;
  EXPECT_NE(m.find("delete the Job to retry"), std::string::npos) << m;
  // The pods' order does not change the message.
  EXPECT_EQ(assess(&j, {&older, &newer}).condition.message, m);
  // Without pods (not readable) the Job's own reason remains.
  EXPECT_NE(assess(&j).condition.message.find("BackoffLimitExceeded"), std::string::npos);
}

TEST(AssessModelCache, LongTerminationMessageKeepsItsEnd) {
  const json j = job(R"({"failed": 4, "conditions": [{"type": "Failed", "status": "True",
      "reason": "BackoffLimitExceeded"}]})");
  const json p = failed_pod("dl-a", "t", std::string(5000, 'x') + " the real error");
  const ModelCacheVerdict v = assess(&j, {&p});
  EXPECT_LT(v.condition.message.size(), 2000u);
  EXPECT_NE(v.condition.message.find("the real error"), std::string::npos);
}

TEST(OwnByClaim, ThePvcBecomesTheOnlyOwner) {
  json j = job("{}");
  j["metadata"]["ownerReferences"] = json::array({{{"uid", "dgd-uid"}, {"controller", true}}});
  own_by_claim(j, json{{"metadata", {{"name", "shared-model-cache"}, {"uid", "pvc-uid"}}}});
  ASSERT_EQ(j["metadata"]["ownerReferences"].size(), 1u);
  const json& ref = j["metadata"]["ownerReferences"][0];
  EXPECT_EQ(ref["kind"], "PersistentVolumeClaim");
  EXPECT_EQ(ref["apiVersion"], "v1");
  EXPECT_EQ(ref["name"], "shared-model-cache");
  EXPECT_EQ(ref["uid"], "pvc-uid");
  EXPECT_EQ(ref["controller"], true);
}

TEST(DownloadStateChanged, OnlyPodCountsAndConditionsCount) {
  const json a = job(R"({"active": 1, "ready": 0, "startTime": "t"})");
  json same = a;
  same["metadata"]["resourceVersion"] = "8";
  const json b = job(R"({"active": 1, "ready": 1, "startTime": "t"})");
  const json done = job(R"({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]})");
  EXPECT_FALSE(download_state_changed(&a, &same));
  EXPECT_TRUE(download_state_changed(&a, &b));
  EXPECT_TRUE(download_state_changed(&b, &done));
  EXPECT_TRUE(download_state_changed(nullptr, &a));
  EXPECT_TRUE(download_state_changed(&a, nullptr));
}

TEST(HoldBackWorkers, NewWorkersStartAtZeroAndLiveOnesKeepTheirReplicas) {
  std::vector<json> desired = {
      json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
          "metadata": {"name": "g-frontend", "namespace": "ns"}, "spec": {"replicas": 1}})"),
      json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
          "metadata": {"name": "g-prefillworker", "namespace": "ns"}, "spec": {"replicas": 2}})"),
      json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
          "metadata": {"name": "g-decodeworker", "namespace": "ns"}, "spec": {"replicas": 3}})"),
      json::parse(R"({"apiVersion": "v1", "kind": "Service",
          "metadata": {"name": "g-decodeworker", "namespace": "ns"}, "spec": {}})"),
  };
  hold_back_workers(desired, {"g-prefillworker", "g-decodeworker"},
                    {{"apps/Deployment/ns/g-decodeworker", 2}, {"apps/Deployment/ns/g-frontend", 1}});
  EXPECT_EQ(desired[0]["spec"]["replicas"], 1);  // the frontend starts
  EXPECT_EQ(desired[1]["spec"]["replicas"], 0);  // created, held at zero
  EXPECT_EQ(desired[2]["spec"]["replicas"], 2);  // serving: neither scaled up nor down
  EXPECT_FALSE(desired[3]["spec"].contains("replicas"));
  // A user scaling a held worker down is obeyed.
  desired[2]["spec"]["replicas"] = 1;
  hold_back_workers(desired, {"g-decodeworker"}, {{"apps/Deployment/ns/g-decodeworker", 2}});
  EXPECT_EQ(desired[2]["spec"]["replicas"], 1);
}

}  // namespace
}  // namespace dgd::reconcile
