// What pods request and nodes offer, in milli-units per resource (placement_fit.h): the
// scheduler's own sums (init containers, sidecars, overhead) over the cached objects.
#include <algorithm>

#include "dgd/object/quantity.h"
#include "dgd/reconcile/placement_fit.h"
#include "reconcile/json_path.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

void add_list(ResourceAmounts& into, const json& list) {
  if (!list.is_object()) return;
  for (auto it = list.begin(); it != list.end(); ++it) {
    auto q = it.value().is_string() ? object::Quantity::parse(it.value().get<std::string>())
             : it.value().is_number() ? object::Quantity::parse(it.value().dump())
                                      : std::nullopt;
    if (q) into[it.key()] += q->milli_value();
  }
}

ResourceAmounts container_requests(const json& c) {
  ResourceAmounts r;
  const json& req = at(c, {"resources", "requests"});
  const json& lim = at(c, {"resources", "limits"});
  add_list(r, req);
  if (lim.is_object()) {
    for (auto it = lim.begin(); it != lim.end(); ++it) {
      if (req.is_object() && req.contains(it.key())) continue;
      add_list(r, json{{it.key(), it.value()}});
    }
  }
  return r;
}

}  // namespace

ResourceAmounts pod_requests(const json& pod) {
  ResourceAmounts total;
  const json& containers = at(pod, {"spec", "containers"});
  if (containers.is_array()) {
    for (const auto& c : containers) {
      for (const auto& [k, v] : container_requests(c)) total[k] += v;
    }
  }
  // Init containers run one at a time before the app containers; sidecars
  // (restartPolicy: Always) keep running next to everything started after them.
  const json& inits = at(pod, {"spec", "initContainers"});
  if (inits.is_array()) {
    ResourceAmounts sidecars, init_max;
    for (const auto& c : inits) {
      const ResourceAmounts r = container_requests(c);
      if (c.value("restartPolicy", "") == "Always") {
        for (const auto& [k, v] : r) sidecars[k] += v;
        for (const auto& [k, v] : sidecars) init_max[k] = std::max(init_max[k], v);
        continue;
      }
      for (const auto& [k, v] : r) init_max[k] = std::max(init_max[k], v + sidecars[k]);
    }
    for (const auto& [k, v] : sidecars) total[k] += v;
    for (const auto& [k, v] : init_max) total[k] = std::max(total[k], v);
  }
  add_list(total, at(pod, {"spec", "overhead"}));
  return total;
}

ResourceAmounts node_allocatable(const json& node) {
  ResourceAmounts r;
  const json& a = at(node, {"status", "allocatable"});
  add_list(r, a.is_object() ? a : at(node, {"status", "capacity"}));
  return r;
}

std::string format_amount(const std::string& resource, int64_t milli) {
  constexpr int64_t kGi = int64_t{1} << 30;
  if (resource == "memory" || resource == "ephemeral-storage") {
    const int64_t bytes = milli / 1000;
    if (bytes % kGi == 0 || bytes >= 10 * kGi) return std::to_string(bytes / kGi) + "Gi";
    return std::to_string(bytes / (1 << 20)) + "Mi";
  }
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

}  // namespace dgd::reconcile
