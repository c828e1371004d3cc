// A temporary directory removed (recursively) when the object dies. For tests.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace dgd::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dgd-test-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    if (p) path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to path()/name (creating parent folders); returns the full path.
  std::string write(const std::string& name, const std::string& content, bool executable = false) const {
    std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::string tmp = p.string() + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary);
      out << content;
    }
    if (executable) chmod(tmp.c_str(), 0755);
    std::filesystem::rename(tmp, p);
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace dgd::testing
