#include "kubesim/cluster/profile.h"

#include "kubesim/cluster/node_controller.h"
#include "kubesim/cluster/quantity.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace kubesim::cluster {
namespace {

[[noreturn]] void fail(const std::string& origin, const std::string& field, const std::string& what) {
  throw std::runtime_error("profile " + origin + ": " + field + ": " + what);
}

Json string_map(const YAML::Node& n, const std::string& origin, const std::string& field) {
  Json out = Json::object();
  if (!n) return out;
  if (!n.IsMap()) fail(origin, field, "must be a map");
  for (const auto& kv : n) {
    if (!kv.second.IsScalar()) fail(origin, field + "." + kv.first.as<std::string>(), "must be a scalar");
    out[kv.first.as<std::string>()] = kv.second.as<std::string>();
  }
  return out;
}

Json parse_taint(const YAML::Node& t, const std::string& origin, const std::string& field) {
  static const std::set<std::string> kEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
  Json taint;
  if (t.IsScalar()) {
    // "key=value:Effect" or "key:Effect", as kubectl taint writes it.
    std::string s = t.as<std::string>();
    auto colon = s.rfind(':');
    if (colon == std::string::npos) fail(origin, field, "\"" + s + "\" lacks \":<effect>\"");
    std::string kv = s.substr(0, colon);
    auto eq = kv.find('=');
    taint = {{"key", kv.substr(0, eq)}, {"effect", s.substr(colon + 1)}};
    if (eq != std::string::npos) taint["value"] = kv.substr(eq + 1);
  } else if (t.IsMap()) {
    taint = string_map(t, origin, field);
  } else {
    fail(origin, field, "must be \"key=value:Effect\" or {key, value, effect}");
  }
  if (taint.value("key", "").empty()) fail(origin, field, "key is required");
  if (!kEffects.count(taint.value("effect", ""))) fail(origin, field + ".effect", "must be NoSchedule, PreferNoSchedule or NoExecute");
  return taint;
}

Json make_node(const YAML::Node& spec, const std::string& name, const std::string& pool, const std::string& origin,
               const std::string& field, size_t index, TimePoint now) {
  std::string arch = spec["arch"] ? spec["arch"].as<std::string>() : "amd64";
  Json labels = {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}, {"kubernetes.io/arch", arch},
                 {"beta.kubernetes.io/os", "linux"}, {"beta.kubernetes.io/arch", arch}};
  if (!pool.empty()) labels["sim.dgd.dev/pool"] = pool;
  const Json extra = string_map(spec["labels"], origin, field + ".labels");
  for (auto it = extra.begin(); it != extra.end(); ++it) labels[it.key()] = it.value();
  Json taints = Json::array();
  if (spec["taints"]) {
    if (!spec["taints"].IsSequence()) fail(origin, field + ".taints", "must be a list");
    for (size_t i = 0; i < spec["taints"].size(); ++i)
      taints.push_back(parse_taint(spec["taints"][i], origin, field + ".taints[" + std::to_string(i) + "]"));
  }
  Json alloc = string_map(spec["allocatable"], origin, field + ".allocatable");
  if (alloc.empty()) fail(origin, field + ".allocatable", "is required");
  for (auto it = alloc.begin(); it != alloc.end(); ++it) {
    try {
      parse_milli(it.value().get<std::string>());
    } catch (const std::invalid_argument& e) {
      fail(origin, field + ".allocatable." + it.key(), e.what());
    }
  }
  if (!alloc.contains("pods")) alloc["pods"] = "110";
  Json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", name}, {"labels", labels}}},
               {"spec", Json::object()},
               {"status", {{"allocatable", alloc}, {"capacity", alloc}}}};
  Json annotations = string_map(spec["annotations"], origin, field + ".annotations");
  if (!annotations.empty()) node["metadata"]["annotations"] = annotations;
  if (!taints.empty()) node["spec"]["taints"] = taints;
  complete_node_status(node, index, now);
  return node;
}

}  // namespace

Profile parse_profile(const std::string& text, const std::string& origin, TimePoint now) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("profile " + origin + ": " + e.what());
  }
  if (!root.IsMap()) fail(origin, "(root)", "must be a map");
  Profile p;
  p.name = root["name"] ? root["name"].as<std::string>() : std::filesystem::path(origin).stem().string();
  if (const auto sc = root["storageClasses"]) {
    if (sc["names"])
      for (const auto& n : sc["names"]) p.storage.names.push_back(n.as<std::string>());
    if (sc["default"]) p.storage.default_class = sc["default"].as<std::string>();
  }
  std::set<std::string> names;
  auto add = [&](Json node, const std::string& field) {
    if (!names.insert(name_of(node)).second) fail(origin, field, "duplicate node name \"" + name_of(node) + "\"");
    p.nodes.push_back(std::move(node));
  };
  if (const auto pools = root["nodePools"]) {
    if (!pools.IsSequence()) fail(origin, "nodePools", "must be a list");
    for (size_t i = 0; i < pools.size(); ++i) {
      const auto& pool = pools[i];
      std::string field = "nodePools[" + std::to_string(i) + "]";
      if (!pool["name"]) fail(origin, field + ".name", "is required");
      std::string pname = pool["name"].as<std::string>();
      int count = pool["count"] ? pool["count"].as<int>() : 1;
      if (count < 0 || count > 100000) fail(origin, field + ".count", "must be between 0 and 100000");
      std::string prefix = pool["namePrefix"] ? pool["namePrefix"].as<std::string>() : pname + "-";
      for (int k = 0; k < count; ++k)
        add(make_node(pool, prefix + std::to_string(k), pname, origin, field, p.nodes.size(), now), field);
    }
  }
  if (const auto nodes = root["nodes"]) {
    if (!nodes.IsSequence()) fail(origin, "nodes", "must be a list");
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::string field = "nodes[" + std::to_string(i) + "]";
      if (!nodes[i]["name"]) fail(origin, field + ".name", "is required");
      std::string pool = nodes[i]["pool"] ? nodes[i]["pool"].as<std::string>() : "";
      add(make_node(nodes[i], nodes[i]["name"].as<std::string>(), pool, origin, field, p.nodes.size(), now), field);
    }
  }
  if (p.nodes.empty()) fail(origin, "nodePools", "the profile defines no node");
  return p;
}

Profile load_profile(const std::string& path, TimePoint now) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("profile " + path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_profile(ss.str(), path, now);
}

std::string resolve_profile_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (fs::exists(name_or_path)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos) return name_or_path;
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("KUBESIM_PROFILES")) dirs.emplace_back(env);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    // <source>/<build>/tests/kubesim/kube-sim
    fs::path src = fs::path(exe).parent_path().parent_path().parent_path().parent_path();
    dirs.push_back(src / "tests" / "kubesim" / "profiles");
  }
  for (const auto& d : dirs)
    for (const std::string& f : {name_or_path, name_or_path + ".yaml"})
      if (fs::exists(d / f)) return (d / f).string();
  return name_or_path;
}

}  // namespace kubesim::cluster
