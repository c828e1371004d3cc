// The scrape label of every pod (upstream's nvidia.com/metrics-enabled) and its switch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::render {
namespace {

using nlohmann::json;

std::vector<json> deployments(const std::string& metadata_extra, const std::string& frontend_template = "") {
  const std::string text = "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g, namespace: ns1" +
                           metadata_extra + "}\nspec:\n  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic\n" +
                           (frontend_template.empty() ? "" : "  components:\n  - name: Frontend\n    podTemplate: " +
                                                                 frontend_template + "\n");
  auto p = api::parse(text);
  EXPECT_TRUE(p.ok()) << (p.errors.empty() ? "" : p.errors.front().str());
  auto e = recipes::expand(recipes::Catalog::builtin(), p.dgd);
  EXPECT_TRUE(e.ok());
  std::vector<json> out;
  for (auto& o : render(e.graph).objects) {
    if (o["kind"] == "Deployment") out.push_back(std::move(o));
  }
  EXPECT_EQ(out.size(), 3u);
  return out;
}

std::string metrics_label(const json& d) {
  return d["spec"]["template"]["metadata"]["labels"].value(kLabelMetricsEnabled, "<none>");
}

TEST(MetricsLabel, EveryPodIsScrapedByDefault) {
  for (const auto& d : deployments("")) {
    EXPECT_EQ(metrics_label(d), "true") << d["metadata"]["name"];
    // On the pods only: the Deployment's selector and labels stay as they were.
    EXPECT_FALSE(d["spec"]["selector"]["matchLabels"].contains(kLabelMetricsEnabled));
    EXPECT_FALSE(d["metadata"]["labels"].contains(kLabelMetricsEnabled));
  }
}

TEST(MetricsLabel, TheDgdAnnotationFalseTurnsItOff) {
  for (const auto& d : deployments(", annotations: {nvidia.com/enable-metrics: \"false\"}")) {
    EXPECT_EQ(metrics_label(d), "false") << d["metadata"]["name"];
  }
  // Any other value leaves it on, as upstream.
  for (const auto& d : deployments(", annotations: {nvidia.com/enable-metrics: \"no\"}")) {
    EXPECT_EQ(metrics_label(d), "true") << d["metadata"]["name"];
  }
}

TEST(MetricsLabel, AComponentsPodTemplateAnnotationTurnsOnlyItOff) {
  for (const auto& d : deployments("", "{metadata: {annotations: {nvidia.com/enable-metrics: \"false\"}}}")) {
    EXPECT_EQ(metrics_label(d), d["metadata"]["name"] == "g-frontend" ? "false" : "true") << d["metadata"]["name"];
  }
}

}  // namespace
}  // namespace dgd::render
