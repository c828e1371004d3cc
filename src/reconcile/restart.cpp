#include "dgd/reconcile/restart.h"

#include <algorithm>
#include <map>

#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/status.h"
#include "dgd/render/render.h"
#include "reconcile/json_path.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

bool terminal(const std::string& phase) { return phase == "Completed" || phase == "Failed" || phase == "Superseded"; }

bool is_deployment(const json& obj) { return obj.is_object() && obj.value("kind", "") == "Deployment"; }

std::string component_of(const json& deployment) {
  return str(deployment, {"metadata", "labels", render::kLabelComponent});
}

std::string restart_at(const json& deployment) {
  return str(deployment, {"spec", "template", "metadata", "annotations", kRestartAnnotation});
}

RestartDecision all_components(std::optional<RestartStatus> status, const std::string& id,
                               const std::vector<std::string>& components) {
  RestartDecision d{std::move(status), id, {}};
  if (!id.empty()) d.stamp.insert(components.begin(), components.end());
  return d;
}

}  // namespace

json RestartStatus::to_json() const {
  json out = json::object();
  if (!observed_id.empty()) out["observedID"] = observed_id;
  if (!phase.empty()) out["phase"] = phase;
  if (!in_progress.empty()) out["inProgress"] = in_progress;
  return out;
}

std::optional<RestartRequest> restart_request(const json& dgd) {
  const std::string id = str(dgd, {"spec", "restart", "id"});
  if (id.empty()) return std::nullopt;
  RestartRequest r;
  r.id = id;
  r.parallel = str(dgd, {"spec", "restart", "strategy", "type"}) == "Parallel";
  r.order = strings(at(dgd, {"spec", "restart", "strategy", "order"}));
  return r;
}

std::optional<RestartStatus> restart_status(const json& dgd) {
  const json& s = at(dgd, {"status", "restart"});
  if (!s.is_object()) return std::nullopt;
  RestartStatus r;
  r.observed_id = str(s, {"observedID"});
  r.phase = str(s, {"phase"});
  r.in_progress = strings(at(s, {"inProgress"}));
  return r;
}

bool rolling_update_in_progress(const json& dgd) {
  const std::string phase = str(dgd, {"status", "rollingUpdate", "phase"});
  return phase == "Pending" || phase == "InProgress";
}

RestartDecision decide_restart(const RestartInput& in) {
  std::vector<std::string> sorted = in.components;
  std::sort(sorted.begin(), sorted.end());
  const auto& prev = in.previous;
  if (!in.request) {
    // No request: a finished restart stays reported, and its id stays on every template.
    std::optional<RestartStatus> keep;
    if (prev && terminal(prev->phase)) keep = prev;
    return all_components(std::move(keep), prev ? prev->observed_id : "", sorted);
  }
  const RestartRequest& req = *in.request;
  const bool seen = prev && prev->observed_id == req.id;
  if (seen && terminal(prev->phase)) {
    return all_components(prev, prev->phase == "Completed" ? req.id : "", sorted);
  }
  if (in.rollout_in_progress) return {RestartStatus{req.id, "Superseded", {}}, req.id, {}};
  const RestartStatus completed{req.id, "Completed", {}};
  if (req.parallel) {
    std::vector<std::string> pending;
    for (const auto& c : sorted) {
      if (!seen || in.done.count(c) == 0) pending.push_back(c);
    }
    if (pending.empty()) return all_components(completed, req.id, sorted);
    return all_components(RestartStatus{req.id, "Restarting", pending}, req.id, sorted);
  }
  // Sequential: the given order (only names the graph has), or alphabetical.
  std::vector<std::string> order;
  for (const auto& c : req.order) {
    if (std::binary_search(sorted.begin(), sorted.end(), c) && std::find(order.begin(), order.end(), c) == order.end()) {
      order.push_back(c);
    }
  }
  if (req.order.empty()) order = sorted;
  if (order.empty()) return all_components(completed, req.id, sorted);
  size_t current = 0;
  if (seen && !prev->in_progress.empty()) {
    auto it = std::find(order.begin(), order.end(), prev->in_progress.front());
    if (it != order.end()) current = static_cast<size_t>(it - order.begin());
  }
  // A component already rolled out moves the restart on to the next, in the same pass.
  while (seen && current < order.size() && in.done.count(order[current]) > 0) ++current;
  if (current == order.size()) return all_components(completed, req.id, sorted);
  RestartDecision d{RestartStatus{req.id, "Restarting", {order[current]}}, req.id, {}};
  d.stamp.insert(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(current) + 1);
  return d;
}

json plan_restart(const json& dgd, std::vector<json>& desired, const std::vector<json>& live) {
  std::map<std::string, const json*> live_by_key;
  for (const auto& o : live) {
    if (is_deployment(o)) live_by_key[object_key(o)] = &o;
  }
  std::set<std::string> components;
  for (const auto& d : desired) {
    if (is_deployment(d) && !component_of(d).empty()) components.insert(component_of(d));
  }
  RestartInput in;
  in.request = restart_request(dgd);
  in.previous = restart_status(dgd);
  in.components.assign(components.begin(), components.end());
  in.rollout_in_progress = rolling_update_in_progress(dgd);
  if (in.request) {
    // Done: every desired Deployment of the component carries the id live and has rolled it out.
    std::map<std::string, bool> done;
    for (const auto& d : desired) {
      if (!is_deployment(d)) continue;
      auto l = live_by_key.find(object_key(d));
      const bool rolled = l != live_by_key.end() && restart_at(*l->second) == in.request->id &&
                          rollout_state(*l->second, d.value("/spec/replicas"_json_pointer, 1)).ready;
      auto [it, first] = done.emplace(component_of(d), rolled);
      if (!first) it->second = it->second && rolled;
    }
    for (const auto& [c, rolled] : done) {
      if (rolled) in.done.insert(c);
    }
  }
  const RestartDecision decision = decide_restart(in);
  for (auto& d : desired) {
    if (!is_deployment(d)) continue;
    std::string value;
    if (decision.stamp.count(component_of(d)) > 0) {
      value = decision.id;
    } else if (auto l = live_by_key.find(object_key(d)); l != live_by_key.end()) {
      value = restart_at(*l->second);  // kept: removing it would roll the pods again
    }
    if (!value.empty()) d["spec"]["template"]["metadata"]["annotations"][kRestartAnnotation] = value;
  }
  return decision.status ? decision.status->to_json() : json();
}

}  // namespace dgd::reconcile
