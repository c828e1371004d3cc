#include "dgd/reconcile/restart.h"

#include <gtest/gtest.h>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

RestartRequest sequential(const std::string& id, std::vector<std::string> order = {}) {
  return {id, false, std::move(order)};
}
RestartRequest parallel(const std::string& id) { return {id, true, {}}; }
RestartStatus restarting(const std::string& id, std::vector<std::string> in_progress) {
  return {id, "Restarting", std::move(in_progress)};
}

struct Case {
  const char* name;
  std::optional<RestartRequest> request;
  std::optional<RestartStatus> previous;
  std::set<std::string> done;
  bool rollout = false;
  std::optional<RestartStatus> want_status;
  std::set<std::string> want_stamp;
  std::string want_id;
};

const std::vector<std::string> kComponents = {"Frontend", "DecodeWorker", "PrefillWorker"};

TEST(DecideRestart, Table) {
  const std::vector<Case> cases = {
      {"no request, nothing observed: nothing", std::nullopt, std::nullopt, {}, false, std::nullopt, {}, ""},
      {"no request, a finished restart stays reported and stamped", std::nullopt,
       RestartStatus{"r1", "Completed", {}}, {}, false, RestartStatus{"r1", "Completed", {}},
       {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"no request, an unfinished restart is dropped from status", std::nullopt, restarting("r1", {"Frontend"}), {},
       false, std::nullopt, {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"sequential new id: the first name alphabetically", sequential("r1"), std::nullopt, {}, false,
       restarting("r1", {"DecodeWorker"}), {"DecodeWorker"}, "r1"},
      {"sequential new id after an older one", sequential("r2"), RestartStatus{"r1", "Completed", {}},
       {"DecodeWorker", "Frontend", "PrefillWorker"}, false, restarting("r2", {"DecodeWorker"}), {"DecodeWorker"},
       "r2"},
      {"sequential: the current one not done yet", sequential("r1"), restarting("r1", {"DecodeWorker"}), {}, false,
       restarting("r1", {"DecodeWorker"}), {"DecodeWorker"}, "r1"},
      {"sequential: done moves on, stamping the next too", sequential("r1"), restarting("r1", {"DecodeWorker"}),
       {"DecodeWorker"}, false, restarting("r1", {"Frontend"}), {"DecodeWorker", "Frontend"}, "r1"},
      {"sequential: the last done completes", sequential("r1"), restarting("r1", {"PrefillWorker"}),
       {"DecodeWorker", "Frontend", "PrefillWorker"}, false, RestartStatus{"r1", "Completed", {}},
       {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"sequential in the given order", sequential("r1", {"Frontend", "PrefillWorker", "DecodeWorker"}),
       std::nullopt, {}, false, restarting("r1", {"Frontend"}), {"Frontend"}, "r1"},
      {"given order: second step", sequential("r1", {"Frontend", "PrefillWorker", "DecodeWorker"}),
       restarting("r1", {"Frontend"}), {"Frontend"}, false, restarting("r1", {"PrefillWorker"}),
       {"Frontend", "PrefillWorker"}, "r1"},
      {"current component gone from the order: start again", sequential("r1", {"Frontend", "PrefillWorker"}),
       restarting("r1", {"Removed"}), {}, false, restarting("r1", {"Frontend"}), {"Frontend"}, "r1"},
      {"parallel new id: every component", parallel("r1"), std::nullopt, {}, false,
       restarting("r1", {"DecodeWorker", "Frontend", "PrefillWorker"}), {"DecodeWorker", "Frontend", "PrefillWorker"},
       "r1"},
      {"parallel: those not done", parallel("r1"), restarting("r1", {"DecodeWorker", "Frontend", "PrefillWorker"}),
       {"Frontend"}, false, restarting("r1", {"DecodeWorker", "PrefillWorker"}),
       {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"parallel: all done completes", parallel("r1"), restarting("r1", {"PrefillWorker"}),
       {"DecodeWorker", "Frontend", "PrefillWorker"}, false, RestartStatus{"r1", "Completed", {}},
       {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"completed id seen again: unchanged", sequential("r1"), RestartStatus{"r1", "Completed", {}}, {}, false,
       RestartStatus{"r1", "Completed", {}}, {"DecodeWorker", "Frontend", "PrefillWorker"}, "r1"},
      {"a rollout supersedes a new restart", sequential("r1"), std::nullopt, {}, true,
       RestartStatus{"r1", "Superseded", {}}, {}, "r1"},
      {"a rollout supersedes a running restart", parallel("r1"), restarting("r1", {"Frontend"}), {}, true,
       RestartStatus{"r1", "Superseded", {}}, {}, "r1"},
      {"superseded stays superseded, stamping nothing", sequential("r1"), RestartStatus{"r1", "Superseded", {}}, {},
       false, RestartStatus{"r1", "Superseded", {}}, {}, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RestartInput in{c.request, c.previous, kComponents, c.done, c.rollout};
    const RestartDecision d = decide_restart(in);
    EXPECT_EQ(d.status, c.want_status);
    EXPECT_EQ(d.stamp, c.want_stamp);
    if (!c.want_stamp.empty()) {
      EXPECT_EQ(d.id, c.want_id);
    }
  }
}

json deployment(const std::string& name, const std::string& component, const std::string& restart_at,
                bool rolled_out) {
  json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", name}, {"namespace", "ns"}, {"generation", 2},
                          {"labels", {{"nvidia.com/dynamo-component", component}}}}},
            {"spec", {{"replicas", 1}, {"template", {{"metadata", {{"labels", {{"a", "b"}}}}}}}}}};
  if (!restart_at.empty()) d["spec"]["template"]["metadata"]["annotations"][kRestartAnnotation] = restart_at;
  d["status"] = {{"observedGeneration", rolled_out ? 2 : 1}, {"replicas", 1}, {"updatedReplicas", 1},
                 {"readyReplicas", 1}, {"availableReplicas", 1}};
  return d;
}

std::string stamped(const json& d) {
  return d.value("/spec/template/metadata/annotations"_json_pointer, json::object()).value(kRestartAnnotation, "");
}

TEST(PlanRestart, StampsTheCurrentComponentAndKeepsWhatTheLiveTemplatesCarry) {
  json dgd = {{"spec", {{"restart", {{"id", "r2"}}}}},
              {"status", {{"restart", {{"observedID", "r2"}, {"phase", "Restarting"}, {"inProgress", {"a"}}}}}}};
  std::vector<json> desired = {deployment("g-a", "a", "", true), deployment("g-b", "b", "", true)};
  // a has rolled out r2; b still carries the id of an earlier restart.
  std::vector<json> live = {deployment("g-a", "a", "r2", true), deployment("g-b", "b", "r1", true)};
  json status = plan_restart(dgd, desired, live);
  EXPECT_EQ(status, (json{{"observedID", "r2"}, {"phase", "Restarting"}, {"inProgress", {"b"}}}));
  EXPECT_EQ(stamped(desired[0]), "r2");
  EXPECT_EQ(stamped(desired[1]), "r2");
}

TEST(PlanRestart, AComponentIsNotDoneUntilItsDeploymentObservedTheTemplate) {
  json dgd = {{"spec", {{"restart", {{"id", "r2"}}}}},
              {"status", {{"restart", {{"observedID", "r2"}, {"phase", "Restarting"}, {"inProgress", {"a"}}}}}}};
  std::vector<json> desired = {deployment("g-a", "a", "", true), deployment("g-b", "b", "", true)};
  std::vector<json> live = {deployment("g-a", "a", "r2", false), deployment("g-b", "b", "r1", true)};
  json status = plan_restart(dgd, desired, live);
  EXPECT_EQ(status, (json{{"observedID", "r2"}, {"phase", "Restarting"}, {"inProgress", {"a"}}}));
  EXPECT_EQ(stamped(desired[0]), "r2");
  EXPECT_EQ(stamped(desired[1]), "r1");  // kept: the template does not flip back
}

TEST(PlanRestart, NoRestartLeavesTemplatesAsRendered) {
  std::vector<json> desired = {deployment("g-a", "a", "", true)};
  std::vector<json> live = {deployment("g-a", "a", "", true)};
  EXPECT_TRUE(plan_restart(json{{"spec", json::object()}}, desired, live).is_null());
  EXPECT_EQ(stamped(desired[0]), "");
}

TEST(RollingUpdateInProgress, ReadsUpstreamsStatus) {
  EXPECT_FALSE(rolling_update_in_progress(json::object()));
  EXPECT_TRUE(rolling_update_in_progress(json{{"status", {{"rollingUpdate", {{"phase", "InProgress"}}}}}}));
  EXPECT_TRUE(rolling_update_in_progress(json{{"status", {{"rollingUpdate", {{"phase", "Pending"}}}}}}));
  EXPECT_FALSE(rolling_update_in_progress(json{{"status", {{"rollingUpdate", {{"phase", "Completed"}}}}}}));
}

}  // namespace
}  // namespace dgd::reconcile
