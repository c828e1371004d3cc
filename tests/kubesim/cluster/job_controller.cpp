#include "kubesim/cluster/job_controller.h"

#include "kubesim/cluster/replicaset_controller.h"

#include <algorithm>
#include <map>

namespace kubesim::cluster {
namespace {

bool finished(const Json& job, TimePoint* at) {
  for (const char* type : {"Complete", "Failed"}) {
    const Json* c = find_condition(at_path(job, {"status", "conditions"}), type);
    if (c && c->value("status", "") == "True") {
      if (at) {
        auto t = parse_time(c->value("lastTransitionTime", ""));
        *at = t ? *t : TimePoint{};
      }
      return true;
    }
  }
  return false;
}

void put(Json& status, const char* key, int64_t v) {
  if (v == 0) status.erase(key);
  else status[key] = v;
}

}  // namespace

Writes JobController::sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const {
  Writes out;
  std::map<std::string, std::vector<const Json*>> pods_by_owner;
  for (const auto& p : snap.pods)
    if (const Json* r = controller_ref(p); r && r->value("kind", "") == "Job")
      pods_by_owner[r->value("uid", "")].push_back(&p);

  for (const auto& job : snap.jobs) {
    if (is_terminating(job)) continue;
    const auto& pods = pods_by_owner[uid_of(job)];
    const std::string name = name_of(job);

    TimePoint finished_at;
    if (finished(job, &finished_at)) {
      const Json& ttl = at_path(job, {"spec", "ttlSecondsAfterFinished"});
      if (ttl.is_number_integer()) {
        TimePoint due = finished_at + std::chrono::seconds(ttl.get<int64_t>());
        if (env.now >= due) out.push_back(Write::remove("batch/v1", "jobs", job, "ttl after finished", "Foreground"));
        else if (due < *next_wakeup) *next_wakeup = due;
      }
      continue;
    }

    const Json& completions_v = at_path(job, {"spec", "completions"});
    const Json& parallelism_v = at_path(job, {"spec", "parallelism"});
    const bool work_queue = !completions_v.is_number_integer() && parallelism_v.is_number_integer();
    const int64_t completions = completions_v.is_number_integer() ? completions_v.get<int64_t>() : 1;
    const int64_t parallelism = parallelism_v.is_number_integer() ? parallelism_v.get<int64_t>() : 1;
    const int64_t backoff_limit = int_at(job, {"spec", "backoffLimit"}, 6);
    const bool suspended = at_path(job, {"spec", "suspend"}) == true;

    std::vector<const Json*> active;
    int64_t succeeded = 0, failed = 0, ready = 0;
    for (const Json* p : pods) {
      std::string phase = str_at(*p, {"status", "phase"});
      if (phase == "Succeeded") ++succeeded;
      else if (phase == "Failed") ++failed;
      else if (!is_terminating(*p)) {
        active.push_back(p);
        if (condition_true(*p, "Ready")) ++ready;
      }
    }
    // Counts never go down: a counted pod may be deleted afterwards.
    succeeded = std::max(succeeded, int_at(job, {"status", "succeeded"}, 0));
    failed = std::max(failed, int_at(job, {"status", "failed"}, 0));

    const Json old_status = job.contains("status") && job["status"].is_object() ? job["status"] : Json::object();
    Json status = old_status;
    Json& conds = status["conditions"];
    if (!conds.is_array()) conds = Json::array();
    if (!status.contains("startTime") && !suspended) status["startTime"] = format_time(env.now);

    std::string fail_reason, fail_message;
    if (failed > backoff_limit) {
      fail_reason = "BackoffLimitExceeded";
      fail_message = "Job has reached the specified backoff limit";
    }
    const Json& ads = at_path(job, {"spec", "activeDeadlineSeconds"});
    if (fail_reason.empty() && ads.is_number_integer() && status.contains("startTime")) {
      auto start = parse_time(status["startTime"].get<std::string>());
      if (start) {
        TimePoint due = *start + std::chrono::seconds(ads.get<int64_t>());
        if (env.now >= due) {
          fail_reason = "DeadlineExceeded";
          fail_message = "Job was active longer than specified deadline";
        } else if (due < *next_wakeup) {
          *next_wakeup = due;
        }
      }
    }
    const bool done = work_queue ? (succeeded > 0 && active.empty()) : succeeded >= completions;

    if (!fail_reason.empty()) {
      for (const Json* p : active) out.push_back(Write::remove("v1", "pods", *p, "job " + name + " failed"));
      set_condition(conds, "FailureTarget", "True", fail_reason, fail_message, env.now);
      set_condition(conds, "Failed", "True", fail_reason, fail_message, env.now);
      active.clear();
      ready = 0;
    } else if (done) {
      for (const Json* p : active) out.push_back(Write::remove("v1", "pods", *p, "job " + name + " complete"));
      active.clear();
      ready = 0;
      set_condition(conds, "SuccessCriteriaMet", "True", "CompletionsReached",
                    "Reached expected number of succeeded pods", env.now);
      set_condition(conds, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods",
                    env.now);
      status["completionTime"] = format_time(env.now);
    } else if (suspended) {
      for (const Json* p : active) out.push_back(Write::remove("v1", "pods", *p, "job " + name + " suspended"));
      active.clear();
      ready = 0;
      set_condition(conds, "Suspended", "True", "JobSuspended", "Job suspended", env.now);
    } else {
      if (find_condition(conds, "Suspended"))
        set_condition(conds, "Suspended", "False", "JobResumed", "Job resumed", env.now);
      int64_t want = work_queue ? (succeeded > 0 ? 0 : parallelism) : std::min(parallelism, completions - succeeded);
      const Json& tmpl = at_path(job, {"spec", "template"});
      for (int64_t i = static_cast<int64_t>(active.size()); i < want; ++i) {
        Json pod = pod_from_template(job, tmpl, name, env.random_suffix(5));
        auto& labels = pod["metadata"]["labels"];
        labels["batch.kubernetes.io/controller-uid"] = uid_of(job);
        labels["batch.kubernetes.io/job-name"] = name;
        labels["controller-uid"] = uid_of(job);
        labels["job-name"] = name;
        out.push_back(Write::create("v1", "pods", std::move(pod), "job " + name + " needs a pod"));
      }
    }
    put(status, "active", static_cast<int64_t>(active.size()));
    put(status, "succeeded", succeeded);
    put(status, "failed", failed);
    status["ready"] = ready;
    if (conds.empty()) status.erase("conditions");
    if (status == old_status) continue;
    Json j = job;
    j["status"] = std::move(status);
    out.push_back(Write::update_status("batch/v1", "jobs", std::move(j), "status"));
  }
  return out;
}

}  // namespace kubesim::cluster
