#include "kubesim/resource_registry.h"
#include "kubesim/table_printer.h"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

using nlohmann::json;

TEST(JsonPath, FieldsIndexesWildcardsAndFilters) {
  json obj = {{"spec", {{"size", 3}, {"names", {"a", "b"}}}},
              {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}, {{"type", "Synced"}, {"status", "False"}}}}}}};
  EXPECT_EQ(eval_jsonpath(obj, ".spec.size"), "3");
  EXPECT_EQ(eval_jsonpath(obj, ".spec.names[1]"), "b");
  EXPECT_EQ(eval_jsonpath(obj, ".spec.names[*]"), "a,b");
  EXPECT_EQ(eval_jsonpath(obj, ".status.conditions[?(@.type==\"Ready\")].status"), "True");
  EXPECT_EQ(eval_jsonpath(obj, "{.status.conditions[?(@.type=='Synced')].status}"), "False");
  EXPECT_EQ(eval_jsonpath(obj, ".status.missing"), "");
}

TEST(Table, PodColumnsWithWideExtras) {
  ResourceRegistry reg;
  json pod = {{"metadata", {{"name", "p"}, {"creationTimestamp", "2020-01-01T00:00:00Z"}}},
              {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "a"}}, {{"name", "b"}}}}}},
              {"status", {{"phase", "Running"}, {"podIP", "10.0.0.5"},
                          {"containerStatuses", {{{"ready", true}, {"restartCount", 2}}, {{"ready", false}, {"restartCount", 1}}}}}}};
  json t = make_table(*reg.find("", "v1", "pods"), {pod}, true, "Metadata");
  ASSERT_EQ(t["kind"], "Table");
  std::vector<std::string> names;
  for (const auto& c : t["columnDefinitions"]) names.push_back(c["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                             "Nominated Node", "Readiness Gates"}));
  EXPECT_EQ(t["columnDefinitions"][5]["priority"], 1);  // -o wide only
  const json& cells = t["rows"][0]["cells"];
  EXPECT_EQ(cells[1], "1/2");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "3");
  EXPECT_EQ(cells[5], "10.0.0.5");
  EXPECT_EQ(cells[6], "n1");
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST(Table, HumanAgeMatchesKubectl) {
  EXPECT_EQ(human_age("not a time"), "<unknown>");
  EXPECT_NE(human_age("2020-01-01T00:00:00Z").find('y'), std::string::npos);
}

}  // namespace
}  // namespace kubesim
