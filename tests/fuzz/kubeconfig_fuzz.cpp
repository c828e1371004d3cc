// Fuzz target: kubeconfig loading (kube/config.h) as `--kubeconfig` and as a two-file
// KUBECONFIG merge. load_kubeconfig() reads files, so each input is written to a private
// temporary directory first: on /dev/shm when there is one (tmpfs: an input costs no disk
// write-back or ext4 truncate, which took half the CPU time of an execution on /tmp).
//
// Input layout: optional first line "#context: NAME" (the --context override), then one
// kubeconfig, optionally followed by "\n#next-file\n" and a second one (merged after it).
// Checks beyond "no crash": the loader returns errors as values and never throws (a
// kubeconfig is user input; an exception would end the operator at start-up).
//
// The loader follows file references (certificate-authority, client-key, ...). So that the
// fuzzer cannot make it read /dev/zero or a FIFO, inputs with a scalar that is an absolute
// path or climbs out with ".." are skipped: relative paths stay inside the temporary
// directory, which holds only small files.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "dgd/kube/config.h"

namespace {

namespace fs = std::filesystem;

const std::string& work_dir() {
  static const std::string dir = [] {
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0
                              ? fs::path("/dev/shm")
                              : fs::temp_directory_path();
    std::string tmpl = (base / "dgd-fuzz-kubeconfig-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    // Targets for relative file references.
    std::ofstream(tmpl + "/ca.crt") << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    std::ofstream(tmpl + "/token") << "fuzz-token\n";
    fs::create_directories(tmpl + "/sub");
    // Removed at exit. The path is copied to a plain buffer: `dir` itself is destroyed
    // before this handler runs (it is registered after it).
    static char created[4096];
    std::snprintf(created, sizeof created, "%s", tmpl.c_str());
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(created, ignored);
    });
    return tmpl;
  }();
  return dir;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// False when a scalar could send the loader outside the work directory.
bool safe(const YAML::Node& n, int depth = 0) {
  if (depth > 64) return false;
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      return s.empty() || (s[0] != '/' && s.find("..") == std::string::npos && s[0] != '~');
    }
    case YAML::NodeType::Sequence:
      for (const auto& item : n) {
        if (!safe(item, depth + 1)) return false;
      }
      return true;
    case YAML::NodeType::Map:
      for (const auto& kv : n) {
        if (!safe(kv.first, depth + 1) || !safe(kv.second, depth + 1)) return false;
      }
      return true;
    default:
      return true;
  }
}

// Whether the loader may be given `text`: the document it reads (YAML::Load, the first one)
// is safe. (Not YAML::LoadAll: it loops forever on some text, see api/yaml.cpp.)
bool safe_text(const std::string& text) {
  try {
    return safe(YAML::Load(text));
  } catch (const std::exception&) {
    return true;  // the loader fails the same way
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string input(reinterpret_cast<const char*>(data), size);
  dgd::kube::KubeconfigOptions opts;
  const std::string ctx_prefix = "#context: ";
  if (input.rfind(ctx_prefix, 0) == 0) {
    size_t nl = input.find('\n');
    opts.context = input.substr(ctx_prefix.size(), nl == std::string::npos ? std::string::npos : nl - ctx_prefix.size());
    input.erase(0, nl == std::string::npos ? input.size() : nl + 1);
  }
  std::string first = input, second;
  const std::string sep = "\n#next-file\n";
  const bool merged = input.find(sep) != std::string::npos;
  if (merged) {
    first = input.substr(0, input.find(sep));
    second = input.substr(input.find(sep) + sep.size());
  }
  if (!safe_text(first) || (merged && !safe_text(second))) return 0;

  const std::string& dir = work_dir();
  write(dir + "/config", first);
  if (merged) {
    write(dir + "/sub/config", second);
    opts.kubeconfig_env = dir + "/config::" + dir + "/sub/config:" + dir + "/missing";
  } else {
    opts.path = dir + "/config";
  }
  opts.home = "/nonexistent";
  try {
    auto config = dgd::kube::load_kubeconfig(opts);
    if (config.ok() && config->server.empty()) {
      std::fprintf(stderr, "a kubeconfig without server loaded\n");
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "load_kubeconfig threw: %s\n", e.what());
    std::abort();
  }
  return 0;
}
