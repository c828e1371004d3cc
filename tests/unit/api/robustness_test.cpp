// Hostile-input robustness: deterministic random mutations of the valid corpus never
// crash parse / validate / serialize, and the YAML emitter reads back what it wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

using nlohmann::json;

struct Lcg {  // deterministic: the same mutants on every run
  uint64_t state;
  uint64_t next() { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; }
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>((next() >> 33) % n); }
};

json hostile_value(Lcg& rng) {
  switch (rng.below(14)) {
    case 0: return nullptr;
    case 1: return -1;
    case 2: return std::numeric_limits<int64_t>::max();
    case 3: return std::numeric_limits<uint64_t>::max();
    case 4: return 1e308;
    case 5: return "";
    case 6: return std::string(10000, 'x');
    case 7: return "Décodé 🚀 \"quoted\" : # - yes";
    case 8: return json::array();
    case 9: return json::object();
    case 10: {
      json deep = json::array();
      for (int i = 0; i < 60; ++i) deep = json::array({deep});
      return deep;
    }
    case 11: return true;
    case 12: return json{{"unexpected", {{"nested", 1}}}};
    default: return "0.70";
  }
}

// Replaces one randomly chosen node (or adds a random key) somewhere in `doc`.
void mutate(json& doc, Lcg& rng) {
  json* node = &doc;
  for (int depth = 0; depth < 12; ++depth) {
    if ((node->is_object() || node->is_array()) && !node->empty() && rng.below(4) != 0) {
      size_t i = rng.below(node->size());
      auto it = node->begin();
      std::advance(it, static_cast<long>(i));
      node = &*it;
      continue;
    }
    break;
  }
  if (node->is_object() && rng.below(3) == 0) {
    (*node)["k" + std::to_string(rng.below(5))] = hostile_value(rng);
  } else {
    *node = hostile_value(rng);
  }
}

TEST(Robustness, MutatedDgdsNeverCrash) {
  namespace fs = std::filesystem;
  std::vector<json> seeds;
  for (const auto& e : fs::directory_iterator(fs::path(DGD_SOURCE_DIR) / "tests/golden/valid")) {
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    seeds.push_back(yaml_to_json(ss.str()));
  }
  ASSERT_FALSE(seeds.empty());
  Lcg rng{20261130};
  size_t rejected = 0, total = 0;
  for (const auto& seed : seeds) {
    for (int n = 0; n < 60; ++n) {
      json doc = seed;
      int edits = 1 + static_cast<int>(rng.below(3));
      for (int k = 0; k < edits; ++k) mutate(doc, rng);
      ++total;

      ParseResult r = from_json(doc);
      auto problems = validate(r.dgd);
      for (const auto& p : problems) ASSERT_NO_THROW((void)json(p.str()).dump());
      json back = to_json(r.dgd);
      ASSERT_NO_THROW((void)back.dump());
      if (r.ok()) {
        // What parsed cleanly survives a round trip unchanged.
        EXPECT_EQ(from_json(back).dgd, r.dgd) << back.dump().substr(0, 300) << "\n" << to_json(from_json(back).dgd).dump().substr(0, 300);
      }
      if (!r.ok() || has_errors(problems)) ++rejected;

      // The emitter writes YAML that reads back as the same value.
      std::string yaml = json_to_yaml(doc);
      json again;
      ASSERT_NO_THROW(again = yaml_to_json(yaml)) << yaml.substr(0, 2000);
      EXPECT_EQ(again, doc) << yaml.substr(0, 2000);
      ASSERT_NO_THROW((void)parse_and_validate(yaml));
    }
  }
  // Most mutants are invalid: the checks are not vacuous.
  EXPECT_GT(rejected, total / 2);
}

}  // namespace
}  // namespace dgd::api
