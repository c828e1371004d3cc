// Runs the DGD corpus: every tests/golden/invalid/*.yaml must fail with an error at each
// path its `# expect:` lines name (and never crash); every tests/golden/valid/*.yaml and
// every recipe DGD under recipes/ must produce no error and no warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"

namespace dgd::api {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> yaml_files(const fs::path& dir, bool recursive = false, const std::string& only = "") {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  auto add = [&](const fs::directory_entry& e) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") return;
    if (!only.empty() && e.path().filename().string().rfind(only, 0) != 0) return;  // a name prefix
    out.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) add(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// parse + validate, as `dgdctl validate` does on a file.
std::vector<FieldError> check(const std::string& text) {
  std::vector<FieldError> all = parse_and_validate(text);
  // The best-effort model must still serialize (messages and values are valid UTF-8).
  EXPECT_NO_THROW((void)to_json(parse(text).dgd).dump());
  for (const auto& e : all) EXPECT_NO_THROW((void)nlohmann::json(e.str()).dump());
  return all;
}

std::vector<std::string> expected_paths(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && (line.empty() || line[0] == '#')) {
    const std::string key = "# expect: ";
    if (line.rfind(key, 0) == 0) {
      std::string p = line.substr(key.size());
      out.push_back(p == "<document>" ? "" : p);
    }
  }
  return out;
}

const fs::path kSource = DGD_SOURCE_DIR;

TEST(Corpus, HasAtLeast45InvalidDgds) {
  EXPECT_GE(yaml_files(kSource / "tests/golden/invalid").size(), 45u);
}

TEST(Corpus, EveryInvalidDgdFailsAtItsExpectedPaths) {
  for (const auto& file : yaml_files(kSource / "tests/golden/invalid")) {
    SCOPED_TRACE(file.filename().string());
    std::string text = read_file(file);
    auto expected = expected_paths(text);
    ASSERT_FALSE(expected.empty()) << "no '# expect:' line";
    auto errors = check(text);
    ASSERT_TRUE(has_errors(errors)) << "accepted an invalid DGD";
    for (const auto& e : errors) {
      EXPECT_FALSE(e.message.empty());
      EXPECT_EQ(e.severity, Severity::kError) << e.str();
    }
    for (const auto& want : expected) {
      bool found = std::any_of(errors.begin(), errors.end(), [&](const FieldError& e) { return e.path == want; });
      std::string got;
      for (const auto& e : errors) got += "\n  " + e.str().substr(0, 300);
      EXPECT_TRUE(found) << "no error at \"" << want << "\"; got:" << got;
    }
  }
}

TEST(Corpus, EveryValidDgdHasNoErrorAndNoWarning) {
  auto files = yaml_files(kSource / "tests/golden/valid");
  ASSERT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    std::string text = read_file(file);
    auto problems = check(text);
    for (const auto& e : problems) ADD_FAILURE() << e.str();
    // Round trip: what we print parses back to the same model.
    ParseResult r = parse(text);
    ParseResult again = from_json(to_json(r.dgd));
    EXPECT_TRUE(again.ok());
    EXPECT_EQ(again.dgd, r.dgd);
  }
}

// The catalog's recipe DGDs are complete graphs: `dgdctl validate` must accept them.
TEST(Corpus, EveryRecipeDgdIsValid) {
  for (const auto& file : yaml_files(kSource / "recipes", /*recursive=*/true, "deploy")) {
    SCOPED_TRACE(file.string());
    ParseResult r = parse(read_file(file));
    for (const auto& e : r.errors) ADD_FAILURE() << e.str();
    for (const auto& e : validate(r.dgd, {ValidationMode::kComplete})) ADD_FAILURE() << e.str();
  }
}

}  // namespace
}  // namespace dgd::api
