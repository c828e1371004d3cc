// Golden files: every catalog recipe rendered as `dgdctl render` prints it, compared byte
// for byte with tests/golden/render/<recipe>.yaml. A change to the renderer or a recipe
// shows up here as a diff to review; regenerate with
//   DGD_UPDATE_GOLDEN=1 ./unit_golden
// and read the diff against shared/reference/recipes.md before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"
#include "common/golden_file.h"

namespace dgd {
namespace {

namespace fs = std::filesystem;

fs::path golden_path(const std::string& recipe) {
  return fs::path(DGD_SOURCE_DIR) / "tests" / "golden" / "render" / (recipe + ".yaml");
}

// The recipe folder's DGD (what `kubectl kustomize recipes/<name>` prints), rendered.
std::string render_recipe(const recipes::Recipe& r) {
  auto parsed = api::parse(r.source);
  EXPECT_TRUE(parsed.ok());
  auto expanded = recipes::expand(recipes::Catalog::builtin(), parsed.dgd);
  EXPECT_TRUE(expanded.ok());
  auto rendered = render::render(expanded.graph);
  EXPECT_TRUE(rendered.ok());
  std::string out;
  for (const auto& o : rendered.objects) out += "---\n" + api::json_to_yaml(o);
  return out;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, RenderMatchesTheCheckedInFile) {
  const recipes::Recipe* r = recipes::Catalog::builtin().find(GetParam());
  ASSERT_NE(r, nullptr);
  const std::string got = render_recipe(*r);
  dgd::test_support::expect_matches_golden(got, golden_path(r->name));
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> names;
  for (const auto& r : recipes::Catalog::builtin().all()) names.push_back(r.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Catalog, Golden, ::testing::ValuesIn(recipe_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n;
                           for (char c : info.param) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

TEST(GoldenFiles, EveryGoldenFileBelongsToARecipe) {
  const fs::path dir = fs::path(DGD_SOURCE_DIR) / "tests" / "golden" / "render";
  if (!fs::exists(dir)) GTEST_SKIP();
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    ASSERT_GT(rel.size(), 5u);
    rel = rel.substr(0, rel.size() - 5);  // ".yaml"
    EXPECT_NE(recipes::Catalog::builtin().find(rel), nullptr) << "stale golden file " << e.path();
  }
}

}  // namespace
}  // namespace dgd
