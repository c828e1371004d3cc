// The CRDs in crds/: structurally valid (what the API server demands of a v1 CRD), and
// in step with the C++ model: every model field exists in the DGD schema, every valid
// DGD of the corpus and the catalog passes the schema, and the schema-level mistakes of
// the invalid corpus are rejected at admission.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = DGD_SOURCE_DIR;

json load_yaml(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return yaml_to_json(ss.str());
}

const json& dgd_schema() {
  static const json crd = load_yaml(kSource / "crds/nvidia.com_dynamographdeployments.yaml");
  return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

// ---- structural schema rules -------------------------------------------------------------

void check_structural(const json& node, const std::string& path, std::vector<std::string>& problems) {
  if (!node.is_object()) {
    problems.push_back(path + ": schema node is not an object");
    return;
  }
  bool preserve = node.value("x-kubernetes-preserve-unknown-fields", false);
  bool int_or_string = node.value("x-kubernetes-int-or-string", false);
  if (!node.contains("type") && !preserve && !int_or_string) problems.push_back(path + ": no type");
  std::string type = node.value("type", "");
  if (node.contains("properties") && node.contains("additionalProperties")) {
    problems.push_back(path + ": properties and additionalProperties together");
  }
  if (type == "array" && !node.contains("items")) problems.push_back(path + ": array without items");
  if (node.contains("properties")) {
    for (auto it = node["properties"].begin(); it != node["properties"].end(); ++it) {
      check_structural(it.value(), path + "." + it.key(), problems);
    }
  }
  if (node.contains("items")) check_structural(node["items"], path + "[]", problems);
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) {
    check_structural(node["additionalProperties"], path + "{}", problems);
  }
  if (node.contains("required")) {
    for (const auto& r : node["required"]) {
      if (!node.contains("properties") || !node["properties"].contains(r.get<std::string>())) {
        problems.push_back(path + ": required field " + r.get<std::string>() + " is not a property");
      }
    }
  }
  if (node.contains("enum")) {
    for (const auto& e : node["enum"]) {
      if (type == "string" && !e.is_string()) problems.push_back(path + ": enum value of the wrong type");
    }
  }
  if (node.contains("pattern")) {
    try {
      std::regex re(node["pattern"].get<std::string>());
    } catch (const std::regex_error&) {
      problems.push_back(path + ": pattern does not compile");
    }
  }
  if (node.value("x-kubernetes-list-type", "") == "map") {
    if (!node.contains("x-kubernetes-list-map-keys")) problems.push_back(path + ": list-type map without keys");
    for (const auto& k : node.value("x-kubernetes-list-map-keys", json::array())) {
      const auto& req = node["items"].value("required", json::array());
      if (std::find(req.begin(), req.end(), k) == req.end()) {
        problems.push_back(path + ": list-map key " + k.get<std::string>() + " is not required in items");
      }
    }
  }
  for (const auto& v : node.value("x-kubernetes-validations", json::array())) {
    if (v.value("rule", "").empty() || v.value("message", "").empty()) {
      problems.push_back(path + ": CEL validation without rule or message");
    }
  }
}

void check_crd(const json& crd, std::vector<std::string>& problems) {
  if (crd.value("apiVersion", "") != "apiextensions.k8s.io/v1") problems.push_back("apiVersion");
  if (crd.value("kind", "") != "CustomResourceDefinition") problems.push_back("kind");
  const auto& spec = crd["spec"];
  std::string expect_name = spec["names"].value("plural", "") + "." + spec.value("group", "");
  if (crd["metadata"].value("name", "") != expect_name) problems.push_back("metadata.name must be " + expect_name);
  int storage = 0;
  for (const auto& v : spec["versions"]) {
    if (v.value("storage", false)) ++storage;
    check_structural(v["schema"]["openAPIV3Schema"], v.value("name", "?"), problems);
  }
  if (storage != 1) problems.push_back("exactly one storage version");
}

TEST(Crd, BothCrdsAreStructural) {
  for (const char* file : {"crds/nvidia.com_dynamographdeployments.yaml", "crds/nvidia.com_dynamoworkermetadatas.yaml"}) {
    SCOPED_TRACE(file);
    std::vector<std::string> problems;
    check_crd(load_yaml(kSource / file), problems);
    for (const auto& p : problems) ADD_FAILURE() << p;
  }
}

TEST(Crd, DgdNamesVersionAndColumns) {
  json crd = load_yaml(kSource / "crds/nvidia.com_dynamographdeployments.yaml");
  const auto& spec = crd["spec"];
  EXPECT_EQ(spec["group"], "nvidia.com");
  EXPECT_EQ(spec["names"]["kind"], "DynamoGraphDeployment");
  EXPECT_EQ(spec["names"]["shortNames"], json::array({"dgd"}));
  EXPECT_EQ(spec["names"]["categories"], json::array({"all", "dynamo"}));
  EXPECT_EQ(spec["scope"], "Namespaced");
  ASSERT_EQ(spec["versions"].size(), 2u);  // v1beta1, and v1alpha1 served only to be refused
  const auto& v = spec["versions"][0];
  EXPECT_EQ(v["name"], "v1beta1");
  EXPECT_TRUE(v["served"].get<bool>());
  EXPECT_TRUE(v["storage"].get<bool>());
  EXPECT_EQ(v["subresources"]["status"], json::object());
  std::vector<std::pair<std::string, std::string>> cols;
  for (const auto& c : v["additionalPrinterColumns"]) cols.emplace_back(c["name"], c["jsonPath"]);
  std::vector<std::pair<std::string, std::string>> want = {
      {"Ready", ".status.conditions[?(@.type==\"Ready\")].status"},
      {"Reason", ".status.conditions[?(@.type==\"Ready\")].reason"},
      {"Serving", ".status.conditions[?(@.type==\"Serving\")].status"},
      {"Backend", ".status.backendFramework"},
      {"Recipe", ".spec.recipe"},
      {"Status", ".status.conditions[?(@.type==\"Ready\")].message"},
      {"Age", ".metadata.creationTimestamp"}};
  EXPECT_EQ(cols, want);
  std::vector<std::string> wide;  // shown only with -o wide
  for (const auto& c : v["additionalPrinterColumns"]) {
    if (c.value("priority", 0) > 0) wide.push_back(c["name"]);
  }
  EXPECT_EQ(wide, (std::vector<std::string>{"Recipe", "Status"}));
  const auto& comps = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["components"];
  EXPECT_EQ(comps["x-kubernetes-list-type"], "map");
  EXPECT_EQ(comps["x-kubernetes-list-map-keys"], json::array({"name"}));
  EXPECT_EQ(comps["items"]["properties"]["podTemplate"]["x-kubernetes-preserve-unknown-fields"], true);
  std::string rules;
  for (const auto& r : comps["x-kubernetes-validations"]) rules += r["rule"].get<std::string>();
  for (const auto& r : comps["items"]["x-kubernetes-validations"]) rules += r["rule"].get<std::string>();
  EXPECT_NE(rules.find("lowerAscii()"), std::string::npos) << "case-insensitive uniqueness";
  EXPECT_NE(rules.find("oldSelf.type"), std::string::npos) << "immutable type";
}

TEST(Crd, WorkerMetadataCrdMatchesUpstreamShape) {
  json crd = load_yaml(kSource / "crds/nvidia.com_dynamoworkermetadatas.yaml");
  EXPECT_EQ(crd["metadata"]["name"], "dynamoworkermetadatas.nvidia.com");
  EXPECT_EQ(crd["spec"]["names"]["kind"], "DynamoWorkerMetadata");
  const auto& v = crd["spec"]["versions"][0];
  EXPECT_EQ(v["name"], "v1alpha1");
  const auto& data = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["data"];
  EXPECT_EQ(data["x-kubernetes-preserve-unknown-fields"], true);
}

// ---- the model against the schema --------------------------------------------------------

// Resolves "spec.components[].engine.kvTransfer.backends[]" (and "x{}" for maps / raw JSON).
const json* resolve(const json& root, const std::string& path) {
  const json* node = &root;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) {
    bool list = false, map = false;
    if (part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0) list = true, part.resize(part.size() - 2);
    if (part.size() > 2 && part.compare(part.size() - 2, 2, "{}") == 0) map = true, part.resize(part.size() - 2);
    if (!node->contains("properties") || !(*node)["properties"].contains(part)) return nullptr;
    node = &(*node)["properties"][part];
    if (list) {
      if (!node->contains("items")) return nullptr;
      node = &(*node)["items"];
    }
    if (map && !node->contains("additionalProperties") && !node->value("x-kubernetes-preserve-unknown-fields", false) &&
        node->value("type", "") != "array") {
      return nullptr;
    }
  }
  return node;
}

TEST(Crd, EveryModelFieldIsInTheSchema) {
  for (const auto& path : model_field_paths()) {
    if (path == "apiVersion" || path == "kind" || path.rfind("metadata", 0) == 0 || path.rfind("status", 0) == 0) {
      continue;  // metadata is the API server's; status is the operator's (preserved)
    }
    EXPECT_NE(resolve(dgd_schema(), path), nullptr) << path << " is in dgd.h but not in the CRD (crds/generate.py)";
  }
}

// A small structural validator: what the API server's schema check (and pruning) would say.
void admit(const json& schema, const json& value, const std::string& path, std::vector<std::string>& errs) {
  if (schema.value("x-kubernetes-int-or-string", false)) {
    if (!value.is_string() && !value.is_number_integer()) errs.push_back(path + ": must be an integer or a string");
    if (value.is_string() && schema.contains("pattern") &&
        !std::regex_search(value.get<std::string>(), std::regex(schema["pattern"].get<std::string>()))) {
      errs.push_back(path + ": does not match pattern");
    }
    return;
  }
  std::string type = schema.value("type", "");
  bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
  if (path == "metadata") return;  // ObjectMeta is the API server's own
  if (type == "object") {
    if (!value.is_object()) return errs.push_back(path + ": must be an object");
    for (const auto& r : schema.value("required", json::array())) {
      if (!value.contains(r.get<std::string>())) errs.push_back(path + "." + r.get<std::string>() + ": required");
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string p = path.empty() ? it.key() : path + "." + it.key();
      if (schema.contains("properties") && schema["properties"].contains(it.key())) {
        admit(schema["properties"][it.key()], it.value(), p, errs);
      } else if (schema.contains("additionalProperties")) {
        admit(schema["additionalProperties"], it.value(), p, errs);
      } else if (!preserve) {
        errs.push_back(p + ": unknown field (pruned)");
      }
    }
    return;
  }
  if (type == "array") {
    if (!value.is_array()) return errs.push_back(path + ": must be a list");
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<size_t>()) errs.push_back(path + ": too many items");
    for (size_t i = 0; i < value.size(); ++i) admit(schema["items"], value[i], path + "[" + std::to_string(i) + "]", errs);
    return;
  }
  if (type == "string") {
    if (!value.is_string()) return errs.push_back(path + ": must be a string");
    const auto& s = value.get_ref<const std::string&>();
    if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), value) == schema["enum"].end()) {
      errs.push_back(path + ": not in enum");
    }
    if (schema.contains("maxLength") && s.size() > schema["maxLength"].get<size_t>()) errs.push_back(path + ": too long");
    if (schema.contains("minLength") && s.size() < schema["minLength"].get<size_t>()) errs.push_back(path + ": too short");
    if (schema.contains("pattern") && s.size() < 4096 &&
        !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
      errs.push_back(path + ": does not match pattern");
    }
    return;
  }
  if (type == "integer" || type == "number") {
    if (type == "integer" ? !value.is_number_integer() : !value.is_number()) return errs.push_back(path + ": must be a " + type);
    double v = value.get<double>();
    if (schema.contains("minimum")) {
      double lo = schema["minimum"].get<double>();
      if (v < lo || (schema.value("exclusiveMinimum", false) && v == lo)) errs.push_back(path + ": below minimum");
    }
    if (schema.contains("maximum")) {
      double hi = schema["maximum"].get<double>();
      if (v > hi || (schema.value("exclusiveMaximum", false) && v == hi)) errs.push_back(path + ": above maximum");
    }
    return;
  }
  if (type == "boolean" && !value.is_boolean()) errs.push_back(path + ": must be a boolean");
}

std::vector<fs::path> files(const fs::path& dir, bool recursive, const std::string& name = "") {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  auto add = [&](const fs::path& p) {
    if (p.extension() == ".yaml" && (name.empty() || p.filename().string().rfind(name, 0) == 0)) out.push_back(p);
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) add(e.path());
  } else {
    for (const auto& e : fs::directory_iterator(dir)) add(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Crd, SchemaAdmitsEveryValidDgdAndRecipe) {
  auto all = files(kSource / "tests/golden/valid", false);
  auto recipes = files(kSource / "recipes", true, "deploy");
  all.insert(all.end(), recipes.begin(), recipes.end());
  ASSERT_FALSE(all.empty());
  for (const auto& f : all) {
    SCOPED_TRACE(f.string());
    std::vector<std::string> errs;
    admit(dgd_schema(), load_yaml(f), "", errs);
    for (const auto& e : errs) ADD_FAILURE() << e;
  }
}

// Mistakes the schema itself must refuse at admission (before the operator sees them).
TEST(Crd, SchemaRejectsSchemaLevelMistakes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"unknown-engine-field", "spec.components[1].engine.tensorParalelSize"},
      {"replicas-negative", "spec.components[1].replicas"},
      {"replicas-over-bound", "spec.components[2].replicas"},
      {"backend-framework-unknown", "spec.backendFramework"},
      {"component-type-unknown", "spec.components[0].type"},
      {"gpu-product-unknown", "spec.placement.gpu"},
      {"nic-selection-unknown", "spec.placement.rdma.nicSelection"},
      {"router-mode-unknown", "spec.components[0].router.mode"},
      {"num-speculative-tokens-range", "spec.components[1].engine.speculative.numSpeculativeTokens"},
      {"gpu-memory-utilization-range", "spec.components[1].engine.gpuMemoryUtilization"},
      {"kv-cache-dtype-typo", "spec.components[1].engine.kvCacheDtype"},
      {"moe-backend-typo", "spec.components[1].engine.moeBackend"},
      {"conditional-ratio-range", "spec.components[0].router.conditionalDisaggregation.effIslRatioThreshold"},
      {"shm-not-a-quantity", "spec.components[1].sharedMemorySize"},
      {"model-id-shell-injection", "spec.model.id"},
      {"revision-shell-injection", "spec.model.revision"},
      {"download-package-not-pinned", "spec.model.download.packages[0]"},
      {"component-name-unicode", "spec.components[2].name"},
      {"too-many-components", "spec.components"},
      {"expert-parallel-string", "spec.components[1].engine.expertParallel"},
      {"env-value-number", "spec.env[0].value"},
  };
  for (const auto& entry : cases) {
    const std::string& file = entry.first;
    const std::string& path = entry.second;
    SCOPED_TRACE(file);
    std::vector<std::string> errs;
    admit(dgd_schema(), load_yaml(kSource / "tests/golden/invalid" / (file + ".yaml")), "", errs);
    bool found = std::any_of(errs.begin(), errs.end(), [&](const std::string& e) { return e.rfind(path + ":", 0) == 0; });
    std::string got;
    for (const auto& e : errs) got += "\n  " + e;
    EXPECT_TRUE(found) << "schema does not reject " << path << got;
  }
}

}  // namespace
}  // namespace dgd::api

namespace dgd::api {
namespace {

// Upstream's v1alpha1 is served with one rule that refuses every object and names the
// command that converts it; nothing is stored in it.
TEST(Crd, V1alpha1IsServedOnlyToBeRefusedWithTheConvertCommand) {
  json crd = load_yaml(kSource / "crds/nvidia.com_dynamographdeployments.yaml");
  const auto& v = crd["spec"]["versions"][1];
  EXPECT_EQ(v["name"], "v1alpha1");
  EXPECT_TRUE(v["served"].get<bool>());
  EXPECT_FALSE(v["storage"].get<bool>());
  const auto& rules = v["schema"]["openAPIV3Schema"]["x-kubernetes-validations"];
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["rule"], "self.apiVersion != 'nvidia.com/v1alpha1'");
  EXPECT_NE(rules[0]["message"].get<std::string>().find("kubectl dgd convert -f FILE"), std::string::npos);
}

}  // namespace
}  // namespace dgd::api
