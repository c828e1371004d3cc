// YAML ⇄ JSON as kubectl reads manifests, and the deterministic emitter.
#include <gtest/gtest.h>

#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

using nlohmann::json;

TEST(Yaml, PlainScalarsResolveLikeKubectl) {
  json j = yaml_to_json(R"(
a: 1
b: -7
c: 0.92
d: true
e: yes
f: "yes"
g: y
h: ~
i: 1e3
j: 00000000:18:00.0
k: dba1be0a40aa45a94ad051997016db3960a90277
l: '4'
m: 18446744073709551615
n: .inf
)");
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["b"], -7);
  EXPECT_DOUBLE_EQ(j["c"].get<double>(), 0.92);
  EXPECT_EQ(j["d"], true);
  EXPECT_EQ(j["e"], true);   // YAML 1.1, as go-yaml v2 / kubectl
  EXPECT_EQ(j["f"], "yes");  // quoted: a string
  EXPECT_EQ(j["g"], true);
  EXPECT_TRUE(j["h"].is_null());
  EXPECT_DOUBLE_EQ(j["i"].get<double>(), 1000.0);
  EXPECT_EQ(j["j"], "00000000:18:00.0");
  EXPECT_EQ(j["k"], "dba1be0a40aa45a94ad051997016db3960a90277");
  EXPECT_EQ(j["l"], "4");
  EXPECT_TRUE(j["m"].is_number_unsigned());
  EXPECT_EQ(j["n"], ".inf");
}

TEST(Yaml, DuplicateKeysAndBadInputAreErrors) {
  EXPECT_THROW(yaml_to_json("a: 1\na: 2\n"), YamlError);
  EXPECT_THROW(yaml_to_json("a: [1, 2\n"), YamlError);
  EXPECT_THROW(yaml_to_json("a: 1\n---\nb: 2\n"), YamlError);
  EXPECT_THROW(yaml_to_json(std::string("a: \"\xff\xfe\"\n")), YamlError);  // invalid UTF-8
  EXPECT_TRUE(yaml_to_json("").is_null());
  EXPECT_EQ(yaml_to_json_documents("a: 1\n---\n---\nb: 2\n").size(), 2u);
}

TEST(Yaml, AliasBombIsRefused) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_THROW(yaml_to_json(text), YamlError);
  // A modest alias is fine.
  EXPECT_EQ(yaml_to_json("a: &x {b: 1}\nc: *x\n")["c"]["b"], 1);
}

TEST(Yaml, DeepNestingIsRefusedWithItsLine) {
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += std::string(static_cast<size_t>(i) * 2, ' ') + "k:\n";
  deep += std::string(600, ' ') + "k: 1\n";
  try {
    (void)yaml_to_json(deep);
    FAIL() << "a document nested 301 deep must be refused";
  } catch (const YamlError& e) {
    EXPECT_NE(std::string(e.what()).find("nested too deeply"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
  }
}

TEST(Yaml, EmitterRoundTripsTrickyStrings) {
  json j = {{"plain", "deepseek-ai/DeepSeek-V4.1-Flash"},
            {"looksBool", "y"},
            {"looksNumber", "0.70"},
            {"looksNull", "null"},
            {"empty", ""},
            {"colon", "a: b"},
            {"hash", "a #b"},
            {"indicator", "-m"},
            {"json", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"},
            {"script", "set -e\npython3 -m dynamo.vllm \\\n  --x 1\n"},
            {"scriptNoNewline", "line1\nline2"},
            {"trailingSpaces", "a \nb"},
            {"unicode", "héllo 🚀"},
            {"control", std::string("a\tb\x01")},
            {"list", json::array({1, "two", json::object(), json::array(), json::array({3})})},
            {"nested", {{"emptyObj", json::object()}, {"n", nullptr}, {"f", 0.92}, {"b", false}}}};
  std::string yaml = json_to_yaml(j);
  EXPECT_EQ(yaml_to_json(yaml), j) << yaml;
  EXPECT_EQ(json_to_yaml(j), yaml);  // deterministic
  EXPECT_NE(yaml.find("plain: deepseek-ai/DeepSeek-V4.1-Flash\n"), std::string::npos);
  EXPECT_NE(yaml.find("looksBool: \"y\"\n"), std::string::npos);
  EXPECT_NE(yaml.find("script: |\n"), std::string::npos);
}

// The emitter's quoting decision (a character-class scan, eight bytes at a time, and a
// shortcut for words starting with a letter): a value is quoted exactly when its plain
// form would read back as something else, wherever in the string the deciding byte is.
TEST(Yaml, EmitterQuotesOnlyWhatPlainWouldChange) {
  const std::vector<std::pair<std::string, bool>> cases = {
      // words: null / bool words of YAML 1.1 are quoted, longer words never
      {"y", true}, {"Yes", true}, {"NO", true}, {"off", true}, {"On", true}, {"TRUE", true},
      {"False", true}, {"null", true}, {"Null", true}, {"nullable", false}, {"Offset", false},
      {"yesterday", false}, {"onion", false}, {"tree", false}, {"name", false}, {"x", false},
      // numbers
      {"8192", true}, {"-1", true}, {"0.92", true}, {"1e3", true}, {".inf", true}, {"v1", false},
      // a deciding byte before, inside and after the first eight bytes
      {"a: b", true}, {"abcdefgh: x", true}, {"abcdefghijklmnop: x", true}, {"abcdefgh:", true},
      {"abcdefghij #k", true}, {"abcdefghij#k", false}, {"abcdefghijklmnopq:r", false},
      {"tcp://*:5557", false}, {"http://host.example:8080/abcdefgh", false},
      {std::string("abcdefghijklmno\x01"), true},
      {"h\xc3\xa9llo w\xc3\xb6rld and more", false},
      // leading / trailing spaces and indicators
      {" abcdefghij", true}, {"abcdefghij ", true}, {"-m", true}, {"*x", true}, {"@ab", true},
      // multi-line: a literal block, unless a line ends in a space (quoted, escaped)
      {"abcdefghijkl\nmnopqrstuvwx\n", false}, {"abcdefghij \nklm", true}, {"abc\nabcdefghijkl \nx", true},
      {"say \"hi\" \\ abcdefgh\x01", true},
  };
  for (const auto& [value, quoted] : cases) {
    const std::string yaml = json_to_yaml(json{{"k", value}});
    EXPECT_EQ(yaml.rfind("k: \"", 0) == 0, quoted) << yaml;
    EXPECT_EQ(yaml_to_json(yaml)["k"], value) << yaml;
  }
}

TEST(Yaml, EmitterTopLevelShapes) {
  EXPECT_EQ(json_to_yaml(json::object()), "{}\n");
  EXPECT_EQ(json_to_yaml(json::array({"a", "b"})), "- a\n- b\n");
  EXPECT_EQ(json_to_yaml(json{{"a", {{"b", 1}}}}), "a:\n  b: 1\n");
  EXPECT_EQ(json_to_yaml(json{{"a", json::array({json{{"b", 1}, {"c", 2}}})}}), "a:\n- b: 1\n  c: 2\n");
}

}  // namespace
}  // namespace dgd::api
