#include "dgd/reconcile/worker_rollout.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

using nlohmann::json;

namespace {

// An IntOrString bound in pods: a percentage of `desired`, rounded up or down.
int32_t bound_pods(const json& strategy, const char* field, int32_t desired, bool round_up) {
  int64_t percent = 25;
  if (strategy.is_object()) {
    auto ru = strategy.find("rollingUpdate");
    if (ru != strategy.end() && ru->is_object()) {
      auto v = ru->find(field);
      if (v != ru->end() && v->is_number_integer()) return static_cast<int32_t>(std::max<int64_t>(0, v->get<int64_t>()));
      if (v != ru->end() && v->is_string()) {
        const std::string& s = v->get_ref<const std::string&>();
        if (s.size() >= 2 && s.size() <= 4 && s.back() == '%' &&
            std::all_of(s.begin(), s.end() - 1, [](char c) { return c >= '0' && c <= '9'; })) {
          percent = std::stoll(s.substr(0, s.size() - 1));
        }
      }
    }
  }
  const int64_t scaled = percent * desired;
  return static_cast<int32_t>(round_up ? (scaled + 99) / 100 : scaled / 100);
}

int32_t clamp0(int64_t v) { return static_cast<int32_t>(std::max<int64_t>(0, v)); }

}  // namespace

RolloutBounds rollout_bounds(const json& strategy, int32_t desired) {
  RolloutBounds b;
  b.max_surge = bound_pods(strategy, "maxSurge", desired, true);
  b.max_unavailable = bound_pods(strategy, "maxUnavailable", desired, false);
  if (b.max_surge == 0 && b.max_unavailable == 0) b.max_surge = 1;
  return b;
}

RolloutTargets rollout_targets(const RolloutInput& in) {
  RolloutTargets out;
  out.in_progress = !in.old.empty();
  out.new_complete = std::all_of(in.workers.begin(), in.workers.end(),
                                 [](const DesiredWorker& w) { return w.desired == 0 || w.available > 0; });

  // A generation serves when each of its components has an available pod.
  std::map<std::string, bool> serving;
  for (const auto& o : in.old) {
    if (o.terminating) continue;
    auto [it, first] = serving.emplace(o.generation, true);
    (void)first;
    it->second = it->second && o.available > 0;
  }
  // Keep pods first where they serve, then in newer generations.
  auto keep_before = [&](const OldWorker* a, const OldWorker* b) {
    const bool sa = serving[a->generation], sb = serving[b->generation];
    if (sa != sb) return sa;
    if (a->created != b->created) return a->created > b->created;
    return a->key < b->key;
  };

  std::set<std::string> desired_components;
  for (const auto& w : in.workers) desired_components.insert(w.component);
  for (const auto& o : in.old) {
    if (o.terminating) {
      out.old_replicas[o.key] = 0;
    } else if (desired_components.count(o.component) == 0) {
      // A component the desired graph no longer has: it serves until the new one can.
      out.old_replicas[o.key] = in.hold || !out.new_complete ? o.replicas : 0;
    }
  }

  for (const auto& w : in.workers) {
    std::vector<const OldWorker*> old;
    int64_t old_all = 0, old_spec = 0, old_available = 0;
    bool old_left = false;
    for (const auto& o : in.old) {
      if (o.component != w.component) continue;
      old_left = true;
      old_all += o.replicas;
      if (o.terminating) continue;
      old.push_back(&o);
      old_spec += o.replicas;
      old_available += o.available;
    }
    const int64_t desired = w.desired, surge = w.bounds.max_surge, unavailable = w.bounds.max_unavailable;
    out.new_replicas[w.component] =
        static_cast<int32_t>(std::min(desired, w.replicas + std::max<int64_t>(0, desired + surge - old_all - w.replicas)));
    if (w.available >= w.desired && !old_left) out.updated_components.push_back(w.component);
    if (old.empty()) continue;

    int64_t target = old_spec;
    if (!in.hold) {
      const int64_t new_available = out.new_complete ? w.available : 0;
      const int64_t min_available = std::max<int64_t>(0, desired - unavailable);
      const int64_t new_unavailable = std::max<int64_t>(0, w.replicas - new_available);
      const int64_t max_scaled_down = std::max<int64_t>(0, old_spec + w.replicas - min_available - new_unavailable);
      const int64_t old_unhealthy = std::max<int64_t>(0, old_spec - old_available);
      const int64_t surplus = std::max<int64_t>(0, old_available + new_available - min_available);
      target = std::max<int64_t>(0, old_spec - std::min(max_scaled_down, old_unhealthy + surplus));
    }
    // Spread: available pods stay where they are, then the excess goes from the least
    // worth keeping, or the shortfall comes back to the most worth keeping.
    std::sort(old.begin(), old.end(), keep_before);
    std::vector<int64_t> share;
    int64_t total = 0;
    for (const OldWorker* o : old) {
      share.push_back(std::min(o->replicas, o->available));
      total += share.back();
    }
    for (size_t i = old.size(); i-- > 0 && total > target;) {
      const int64_t cut = std::min(share[i], total - target);
      share[i] -= cut;
      total -= cut;
    }
    for (size_t i = 0; i < old.size() && total < target; ++i) {
      const int64_t add = std::min<int64_t>(old[i]->replicas - share[i], target - total);
      share[i] += add;
      total += add;
    }
    for (size_t i = 0; i < old.size(); ++i) out.old_replicas[old[i]->key] = clamp0(share[i]);
  }
  std::sort(out.updated_components.begin(), out.updated_components.end());
  return out;
}

}  // namespace dgd::reconcile
