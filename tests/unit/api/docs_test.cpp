// docs/api.md names every field of the model (a field added to dgd.h without its
// documentation fails here).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgd/api/parse.h"

namespace dgd::api {
namespace {

bool documented(const std::string& doc, const std::string& field) {
  // `field`, `parent.field`, `field[]` ... : the name right after a backtick or a dot and
  // right before a backtick, '[' or '.'.
  for (size_t pos = doc.find(field); pos != std::string::npos; pos = doc.find(field, pos + 1)) {
    char before = pos == 0 ? ' ' : doc[pos - 1];
    char after = pos + field.size() < doc.size() ? doc[pos + field.size()] : ' ';
    if ((before == '`' || before == '.') && (after == '`' || after == '[' || after == '.')) return true;
  }
  return false;
}

TEST(Docs, ApiMdNamesEveryModelField) {
  std::ifstream in(std::filesystem::path(DGD_SOURCE_DIR) / "docs/api.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (std::string path : model_field_paths()) {
    if (path.rfind("metadata.", 0) == 0) continue;  // ObjectMeta is Kubernetes'
    for (const char* suffix : {"[]", "{}"}) {
      if (path.size() > 2 && path.compare(path.size() - 2, 2, suffix) == 0) path.resize(path.size() - 2);
    }
    std::string field = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
    if (field.size() > 2 && field.compare(field.size() - 2, 2, "[]") == 0) field.resize(field.size() - 2);
    EXPECT_TRUE(documented(doc, field)) << path << " is not documented in docs/api.md";
  }
}

}  // namespace
}  // namespace dgd::api
