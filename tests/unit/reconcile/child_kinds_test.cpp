#include "dgd/reconcile/child_kinds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {
namespace {

TEST(ChildKinds, FindsByGroupAndKind) {
  ASSERT_NE(find_child_kind("apps/v1", "Deployment"), nullptr);
  EXPECT_EQ(find_child_kind("apps/v1", "Deployment")->resource.resource, "deployments");
  EXPECT_EQ(find_child_kind("v1", "Service")->resource.group, "");
  EXPECT_TRUE(find_child_kind("resource.nvidia.com/v1beta1", "ComputeDomain")->optional);
  EXPECT_EQ(find_child_kind("v1", "Deployment"), nullptr);  // wrong group
  EXPECT_EQ(find_child_kind("v1", "Secret"), nullptr);      // never a child
}

// Every object the renderer makes for any catalog recipe has a kind the operator
// watches (else it could never tell the object is in place, and would write it forever).
TEST(ChildKinds, CoverEveryKindTheRendererMakes) {
  std::set<std::string> seen;
  for (const auto& r : recipes::Catalog::builtin().all()) {
    auto expanded = recipes::expand(recipes::Catalog::builtin(), r.dgd());
    ASSERT_TRUE(expanded.ok()) << r.name;
    auto rendered = render::render(expanded.graph);
    ASSERT_TRUE(rendered.ok()) << r.name;
    for (const auto& o : rendered.objects) {
      const ChildKind* k = find_child_kind(o.value("apiVersion", ""), o.value("kind", ""));
      ASSERT_NE(k, nullptr) << r.name << ": " << o.value("kind", "");
      seen.insert(k->resource.kind);
      EXPECT_EQ(o["metadata"]["labels"].value(render::kLabelManagedBy, ""), render::kManagedByValue)
          << r.name << ": " << o.value("kind", "") << " would be invisible to the label-scoped informers";
    }
  }
  EXPECT_TRUE(seen.count("Deployment") && seen.count("Service") && seen.count("ComputeDomain")) << seen.size();
}

}  // namespace
}  // namespace dgd::reconcile
