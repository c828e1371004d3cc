#include "dgd/render/worker_generation.h"

#include <cstdint>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "dgd/render/render.h"
#include "render/internal.h"

namespace dgd::render {
namespace {

using nlohmann::json;
using namespace detail;

// Part of the rollout contract: a different value rolls every worker of every graph.
constexpr const char* kHashVersion = "dgd-worker-generation-v1";

const std::string& label_of(const json& obj, const char* key) {
  static const std::string kNone;
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return kNone;
  auto l = m->find("labels");
  if (l == m->end() || !l->is_object()) return kNone;
  auto v = l->find(key);
  return v != l->end() && v->is_string() ? v->get_ref<const std::string&>() : kNone;
}

bool is_worker_deployment(const json& obj) { return obj.value("kind", "") == "Deployment" && is_worker_object(obj); }

// The pod template as the hash sees it.
json hashed_template(json pod) {
  if (auto m = pod.find("metadata"); m != pod.end() && m->is_object()) {
    if (auto l = m->find("labels"); l != m->end() && l->is_object()) l->erase(kLabelSelector);
    if (auto a = m->find("annotations"); a != m->end() && a->is_object()) {
      for (const char* key : kRolloutOnlyAnnotations) a->erase(key);
      if (a->empty()) m->erase(a);  // as if none had been written
    }
  }
  return pod;
}

// 8 lowercase hex digits: FNV-1a (64 bits) folded to 32.
std::string hex8(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  char out[9];
  std::snprintf(out, sizeof out, "%08x", static_cast<uint32_t>(h ^ (h >> 32)));
  return out;
}

}  // namespace

bool is_worker_object(const json& obj) {
  const std::string& type = label_of(obj, kLabelComponentType);
  return type == "worker" || type == "prefill" || type == "decode";
}

std::string worker_generation_hash(const std::vector<json>& objects) {
  std::map<std::string, json> workers;  // by component name: a stable order
  for (const auto& o : objects) {
    if (!is_worker_deployment(o)) continue;
    json entry(json::value_t::object);
    put(entry, "type", label_of(o, kLabelComponentType));
    put(entry, "template", hashed_template(o.value("/spec/template"_json_pointer, json::object())));
    workers[label_of(o, kLabelComponent)] = std::move(entry);
  }
  if (workers.empty()) return "";
  json input(json::value_t::object);
  put(input, "version", kHashVersion);
  put(input, "workers", json(workers));
  return hex8(input.dump());
}

void stamp_worker_generation(std::vector<json>& objects) {
  const std::string hash = worker_generation_hash(objects);
  if (hash.empty()) return;
  for (auto& o : objects) {
    if (!is_worker_deployment(o)) continue;
    const std::string name = o["metadata"].value("name", "") + "-" + hash;
    o["metadata"]["name"] = name;
    o["metadata"]["labels"][kLabelWorkerHash] = hash;
    json& spec = o["spec"];
    spec["selector"]["matchLabels"][kLabelSelector] = name;
    json& pod = spec["template"];
    pod["metadata"]["labels"][kLabelSelector] = name;
    pod["metadata"]["labels"][kLabelWorkerHash] = hash;
    json& main = main_container(pod);
    main["env"] = merge_env(main.contains("env") ? std::move(main["env"]) : json::array(),
                           json::array({env_var(kEnvWorkerSuffix, hash)}));
    sort_by(main["env"], "name");
  }
}

}  // namespace dgd::render
