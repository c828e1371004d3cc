#include "dgd/api/rollout.h"

#include "dgd/api/defaults.h"

#include <cstdint>

#include <nlohmann/json.hpp>

namespace dgd::api {
namespace {

using nlohmann::json;

// An IntOrString bound as written: pods, or percent of the replicas.
struct Bound {
  int64_t value = 0;
  bool percent = false;
  json to_json() const { return percent ? json(std::to_string(value) + "%") : json(value); }
};

std::optional<Bound> parse_bound(const std::string& s) {
  std::string digits = s;
  Bound b;
  if (!digits.empty() && digits.back() == '%') {
    b.percent = true;
    digits.pop_back();
  }
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
  }
  b.value = std::stoll(digits);
  return b;
}

// Pods the bound allows for `replicas`: a surge rounds up, an unavailable count down
// (the Deployment controller's rounding).
int64_t pods(const Bound& b, int64_t replicas, bool round_up) {
  if (!b.percent) return b.value;
  return round_up ? (b.value * replicas + 99) / 100 : b.value * replicas / 100;
}

// The annotation `key` and the path it was read from: the component's pod template
// first, then the DGD's spec.annotations.
struct Found {
  std::string value, path;
};
std::optional<Found> annotation(const Dgd& dgd, size_t index, const char* key) {
  const Component& c = dgd.spec.components[index];
  if (c.pod_template.is_object()) {
    auto meta = c.pod_template.find("metadata");
    if (meta != c.pod_template.end() && meta->is_object()) {
      auto ann = meta->find("annotations");
      if (ann != meta->end() && ann->is_object()) {
        auto v = ann->find(key);
        if (v != ann->end() && v->is_string()) {
          return Found{v->get<std::string>(), "spec.components[" + std::to_string(index) +
                                                  "].podTemplate.metadata.annotations[" + key + "]"};
        }
      }
    }
  }
  auto it = dgd.spec.annotations.find(key);
  if (it != dgd.spec.annotations.end()) return Found{it->second, std::string("spec.annotations[") + key + "]"};
  return std::nullopt;
}

}  // namespace

std::optional<json> deployment_strategy(const Dgd& dgd, size_t index, std::vector<FieldError>* errors) {
  if (index >= dgd.spec.components.size()) return std::nullopt;
  auto report = [&](const std::string& path, std::string message) {
    if (errors != nullptr) errors->push_back({path, std::move(message)});
  };
  const auto type = annotation(dgd, index, kAnnotationDeploymentStrategy);
  const auto surge = annotation(dgd, index, kAnnotationMaxSurge);
  const auto unavailable = annotation(dgd, index, kAnnotationMaxUnavailable);
  bool ok = true;
  if (type && type->value != "RollingUpdate" && type->value != "Recreate") {
    report(type->path, "\"" + type->value + "\" is not a strategy: RollingUpdate or Recreate");
    ok = false;
  }
  std::optional<Bound> s, u;
  if (surge) {
    s = parse_bound(surge->value);
    if (!s) {
      report(surge->path, "\"" + surge->value + "\" is not a number of pods or a percentage (\"1\", \"25%\")");
      ok = false;
    }
  }
  if (unavailable) {
    u = parse_bound(unavailable->value);
    if (!u || (u->percent && u->value > 100)) {
      report(unavailable->path,
             "\"" + unavailable->value + "\" is not a number of pods or a percentage up to 100% (\"0\", \"25%\")");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;

  const Bound quarter{25, true};  // Kubernetes' default for either bound
  Bound max_surge = s.value_or(quarter), max_unavailable = u.value_or(quarter);
  if (type && type->value == "Recreate") {
    // Every old pod stopped before new ones run, as type Recreate does. Applied as type
    // Recreate, the Deployment would keep the rollingUpdate block the API server defaulted
    // (server-side apply removes only fields the applier owns), and the API server refuses
    // rollingUpdate with Recreate: every later apply of the Deployment would fail.
    max_surge = Bound{0, false};
    max_unavailable = Bound{100, true};
  }
  const int64_t replicas = dgd.spec.components[index].replicas.value_or(kDefaultReplicas);
  if (pods(max_surge, replicas, true) == 0 && pods(max_unavailable, replicas, false) == 0) {
    // Neither would let the rollout move. "maxSurge: 0" alone means "no extra pod" (the
    // GPUs are full): take one pod down instead. Both written as zero: upstream's rule.
    if (!u) {
      max_unavailable = Bound{1, false};
    } else {
      max_surge = Bound{1, false};
    }
  }
  return json{{"type", "RollingUpdate"},
              {"rollingUpdate", {{"maxSurge", max_surge.to_json()}, {"maxUnavailable", max_unavailable.to_json()}}}};
}

}  // namespace dgd::api
