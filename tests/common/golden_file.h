// Golden files: compares `got` byte for byte with the checked-in file at `path`, naming the
// first differing line on a mismatch (not two whole files). With DGD_UPDATE_GOLDEN=1 the
// file is rewritten instead and the test skipped: review the diff before committing it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dgd::test_support {

inline void expect_matches_golden(const std::string& got, const std::filesystem::path& path) {
  const char* update = std::getenv("DGD_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << got;
    GTEST_SKIP() << "rewrote " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; run with DGD_UPDATE_GOLDEN=1 and review it";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream want;
  want << in.rdbuf();
  if (got == want.str()) return;
  std::istringstream a(want.str()), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea || eb || la != lb) {
      ADD_FAILURE() << path << ": first difference at line " << line << "\n  golden: " << (ea ? "<end>" : la)
                    << "\n  now:    " << (eb ? "<end>" : lb)
                    << "\nIf the change is intended, regenerate with DGD_UPDATE_GOLDEN=1 and review the diff.";
      return;
    }
  }
}

}  // namespace dgd::test_support
