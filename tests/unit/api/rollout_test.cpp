// api/rollout.h: upstream's rollout annotations become the Deployment's strategy.
#include "dgd/api/rollout.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"

namespace dgd::api {
namespace {

using nlohmann::json;

// A two-component DGD: Frontend, then a decode worker with `replicas` and pod-template
// annotations `worker`; `spec` annotations on the DGD.
Dgd dgd_with(const json& worker, const json& spec = json::object(), int replicas = 1) {
  json d = {{"apiVersion", "nvidia.com/v1beta1"},
            {"kind", "DynamoGraphDeployment"},
            {"metadata", {{"name", "g"}}},
            {"spec",
             {{"backendFramework", "vllm"},
              {"components",
               {{{"name", "Frontend"},
                 {"type", "frontend"},
                 {"podTemplate", {{"spec", {{"containers", {{{"name", "main"}, {"image", "i"}}}}}}}}},
                {{"name", "Decode"},
                 {"type", "decode"},
                 {"replicas", replicas},
                 {"podTemplate",
                  {{"metadata", {{"annotations", worker}}},
                   {"spec", {{"containers", {{{"name", "main"}, {"image", "i"}}}}}}}}}}}}}};
  if (!spec.empty()) d["spec"]["annotations"] = spec;
  auto p = from_json(d);
  EXPECT_TRUE(p.ok()) << (p.errors.empty() ? "" : p.errors.front().str());
  return p.dgd;
}

// Without annotations the default is written out, so that the operator owns the block
// and removing an annotation later brings the default back.
TEST(Rollout, NoAnnotationIsKubernetesDefaultWrittenOut) {
  auto s = deployment_strategy(dgd_with(json::object()), 1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}})"));
}

TEST(Rollout, FullCliqueWorkerRollsWithoutSurge) {
  std::vector<FieldError> errors;
  auto s = deployment_strategy(
      dgd_with({{kAnnotationMaxSurge, "0"}, {kAnnotationMaxUnavailable, "1"}}), 1, &errors);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}})"));
  EXPECT_TRUE(errors.empty());
  // The other component is not annotated: the default.
  EXPECT_EQ((*deployment_strategy(dgd_with({{kAnnotationMaxSurge, "0"}}), 0, nullptr))["rollingUpdate"]["maxSurge"],
            "25%");
  // maxSurge 0 alone on one replica (25% unavailable is no pod): one pod down, never a surge pod.
  s = deployment_strategy(dgd_with({{kAnnotationMaxSurge, "0"}}), 1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}})"));
}

TEST(Rollout, PercentagesKeptAndTheMissingBoundIsTheDefault) {
  auto s = deployment_strategy(dgd_with({{kAnnotationMaxUnavailable, "50%"}}), 1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"50%"}})"));
}

TEST(Rollout, BoundsThatAllowNoPodGetOneSurgePod) {
  // 0 and 25% of 2 replicas (rounded down: 0): the rollout could never move.
  auto s = deployment_strategy(dgd_with({{kAnnotationMaxSurge, "0"}, {kAnnotationMaxUnavailable, "25%"}}), 1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["rollingUpdate"]["maxSurge"], 1);
  // 25% of 4 replicas is one pod: kept.
  s = deployment_strategy(dgd_with({{kAnnotationMaxSurge, "0"}, {kAnnotationMaxUnavailable, "25%"}}, {}, 4), 1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["rollingUpdate"]["maxSurge"], 0);
}

TEST(Rollout, RecreateAndTheDgdWideAnnotationsThePodTemplateOverrides) {
  // Recreate as "every old pod down first": type Recreate would clash with the
  // rollingUpdate block the API server defaulted (server-side apply keeps it).
  auto s = deployment_strategy(dgd_with(json::object(), {{kAnnotationDeploymentStrategy, "Recreate"}}), 0, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":"100%"}})"));
  s = deployment_strategy(dgd_with({{kAnnotationDeploymentStrategy, "RollingUpdate"}},
                                 {{kAnnotationDeploymentStrategy, "Recreate"}}),
                         1, nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["type"], "RollingUpdate");
}

TEST(Rollout, BadValuesAreErrorsNamingTheAnnotation) {
  const Dgd d = dgd_with({{kAnnotationMaxSurge, "one"}, {kAnnotationMaxUnavailable, "150%"}},
                        {{kAnnotationDeploymentStrategy, "BlueGreen"}});
  std::vector<FieldError> errors;
  EXPECT_FALSE(deployment_strategy(d, 1, &errors));
  std::vector<std::string> paths;
  for (const auto& e : errors) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "spec.annotations[nvidia.com/deployment-strategy]",
                       "spec.components[1].podTemplate.metadata.annotations[nvidia.com/deployment-rolling-update-max-surge]",
                       "spec.components[1].podTemplate.metadata.annotations[nvidia.com/"
                       "deployment-rolling-update-max-unavailable]"}));
  // validate() reports each once, the DGD-wide one too (it applies to both components).
  std::vector<std::string> validated;
  for (const auto& e : validate(d)) {
    if (e.path.find("annotations[") != std::string::npos) validated.push_back(e.path);
  }
  std::sort(validated.begin(), validated.end());
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(validated, paths);
}

}  // namespace
}  // namespace dgd::api
