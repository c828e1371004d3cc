#include "dgd/reconcile/status.h"

#include <algorithm>
#include <map>

#include "dgd/reconcile/worker_generations.h"

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

int64_t int_at(const json& obj, const char* a, const char* b) {
  auto it = obj.find(a);
  if (it == obj.end() || !it->is_object()) return 0;
  auto jt = it->find(b);
  if (jt == it->end() || !jt->is_number_integer()) return 0;
  return jt->get<int64_t>();
}

bool progress_deadline_exceeded(const json& deployment) {
  auto st = deployment.find("status");
  if (st == deployment.end() || !st->is_object()) return false;
  auto conds = st->find("conditions");
  if (conds == st->end() || !conds->is_array()) return false;
  for (const auto& c : *conds) {
    if (c.value("type", "") == "Progressing" && c.value("reason", "") == "ProgressDeadlineExceeded") {
      return true;
    }
  }
  return false;
}

// The previous condition of `type`, or nullptr.
const json* previous_condition(const json* previous_status, const std::string& type) {
  if (previous_status == nullptr || !previous_status->is_object()) return nullptr;
  auto conds = previous_status->find("conditions");
  if (conds == previous_status->end() || !conds->is_array()) return nullptr;
  for (const auto& c : *conds) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

json condition_json(const Condition& c, const StatusInput& in) {
  std::string since = in.now;
  if (const json* prev = previous_condition(in.previous_status, c.type)) {
    // The transition time moves only when the status flips; reason or message
    // changes alone are not transitions (metav1.Condition semantics).
    if (prev->value("status", "") == c.status && prev->contains("lastTransitionTime")) {
      since = prev->value("lastTransitionTime", in.now);
    }
  }
  return json{{"type", c.type},
              {"status", c.status},
              {"reason", c.reason},
              {"message", c.message},
              {"observedGeneration", in.generation},
              {"lastTransitionTime", since}};
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// Kubernetes caps condition messages at 32768 bytes; keep them readable well
// below that, cutting on a character boundary.
std::string cap_message(std::string msg) {
  constexpr size_t kMax = 4096;
  if (msg.size() <= kMax) return msg;
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(msg[cut]) & 0xC0) == 0x80) --cut;
  msg.resize(cut);
  return msg + " ...";
}

}  // namespace

RolloutState rollout_state(const json& deployment, int32_t desired) {
  RolloutState s;
  s.replicas = static_cast<int32_t>(int_at(deployment, "status", "replicas"));
  s.updated = static_cast<int32_t>(int_at(deployment, "status", "updatedReplicas"));
  s.ready_replicas = static_cast<int32_t>(int_at(deployment, "status", "readyReplicas"));
  s.available = static_cast<int32_t>(int_at(deployment, "status", "availableReplicas"));
  const int64_t generation = int_at(deployment, "metadata", "generation");
  const int64_t observed = int_at(deployment, "status", "observedGeneration");

  if (observed < generation) {
    s.reason = "waiting for the Deployment controller to observe the new template";
  } else if (progress_deadline_exceeded(deployment)) {
    s.reason = "rollout exceeded its progress deadline";
  } else if (s.updated < desired) {
    s.reason = std::to_string(s.updated) + " of " + std::to_string(desired) + " replicas updated";
  } else if (s.replicas > s.updated) {
    s.reason = std::to_string(s.replicas - s.updated) + " old replicas pending termination";
  } else if (s.available < s.updated) {
    s.reason = std::to_string(s.available) + " of " + std::to_string(s.updated) +
               " updated replicas available";
  } else if (s.ready_replicas < desired) {
    s.reason = std::to_string(s.ready_replicas) + " of " + std::to_string(desired) + " replicas ready";
  } else {
    s.ready = true;
  }
  return s;
}

json compute_status(const StatusInput& in) {
  json components = json::object();
  std::vector<std::string> not_ready;
  bool any_exists = false;
  bool rolling = false;

  for (const auto& c : in.components) {
    json entry = {{"componentKind", "Deployment"}, {"replicas", 0}, {"updatedReplicas", 0},
                  {"readyReplicas", 0}, {"availableReplicas", 0}};
    if (c.deployment == nullptr) {
      not_ready.push_back(c.name + ": Deployment not created yet");
      components[c.name] = entry;
      continue;
    }
    any_exists = true;
    const RolloutState r = rollout_state(*c.deployment, c.desired_replicas);
    // Old worker generations count in the totals; updatedReplicas is the desired one's.
    std::vector<std::string> names = {c.deployment->value("/metadata/name"_json_pointer, "")};
    int64_t old_replicas = 0, old_ready = 0, old_available = 0;
    static const std::vector<const json*> kNone;
    auto olds = in.previous_generations.find(c.name);
    const auto& previous = olds == in.previous_generations.end() ? kNone : olds->second;
    for (const json* p : previous) {
      names.push_back(p->value("/metadata/name"_json_pointer, ""));
      old_replicas += int_at(*p, "status", "replicas");
      old_ready += int_at(*p, "status", "readyReplicas");
      old_available += int_at(*p, "status", "availableReplicas");
    }
    std::sort(names.begin(), names.end());
    entry["componentNames"] = names;
    entry["replicas"] = r.replicas + old_replicas;
    entry["updatedReplicas"] = r.updated;
    entry["readyReplicas"] = r.ready_replicas + old_ready;
    entry["availableReplicas"] = r.available + old_available;
    components[c.name] = entry;
    if (!previous.empty()) {
      not_ready.push_back(c.name + ": " + (r.ready ? "" : r.reason + ", ") + std::to_string(old_replicas) +
                          " replicas of the previous worker generation left");
      rolling = true;
    } else if (!c.template_current) {
      not_ready.push_back(c.name + ": update of the Deployment pending");
      rolling = true;
    } else if (!r.ready) {
      not_ready.push_back(c.name + ": " + r.reason);
      rolling = rolling || r.updated < c.desired_replicas || r.replicas > r.updated;
    }
  }

  const std::string rolling_phase = in.rolling_update.is_object() ? in.rolling_update.value("phase", "") : "";
  const bool worker_rollout = rolling_phase == "Pending" || rolling_phase == "InProgress";
  if (worker_rollout && not_ready.empty()) not_ready.push_back("old worker generations are being removed");

  std::vector<Condition> conds;
  const bool spec_valid = in.spec_errors.empty();
  if (!spec_valid) {
    conds.push_back({"Ready", "False", "InvalidSpec",
                     in.components.empty() ? "the spec is invalid (see SpecValid); nothing was created"
                                           : "the spec is invalid (see SpecValid); nothing was changed and the "
                                             "previous generation keeps serving"});
    conds.push_back({"SpecValid", "False", "InvalidSpec", cap_message(join(in.spec_errors, "; "))});
  } else {
    if (!in.sync_problems.empty()) {
      std::vector<std::string> all = in.sync_problems;
      all.insert(all.end(), not_ready.begin(), not_ready.end());
      conds.push_back({"Ready", "False", "ChildrenNotSynced", cap_message(join(all, "; "))});
    } else if (!in.held_back_reason.empty()) {
      std::vector<std::string> all = {in.held_back_message};
      all.insert(all.end(), not_ready.begin(), not_ready.end());
      conds.push_back({"Ready", "False", in.held_back_reason, cap_message(join(all, "; "))});
    } else if (not_ready.empty()) {
      conds.push_back({"Ready", "True", "AllComponentsReady", "every component has rolled out and is ready"});
    } else if (worker_rollout) {
      conds.push_back({"Ready", "False", kReasonRollingUpdate,
                       cap_message("Rolling update in progress: " + join(not_ready, "; "))});
    } else {
      conds.push_back({"Ready", "False", rolling ? "RolloutInProgress" : "ComponentsNotReady",
                       cap_message(join(not_ready, "; "))});
    }
    conds.push_back({"SpecValid", "True", "Valid", "the spec passed validation"});
  }
  for (const auto& extra : in.extra_conditions) conds.push_back(extra);

  json conditions = json::array();
  for (const auto& c : conds) conditions.push_back(condition_json(c, in));

  std::string state;
  if (!spec_valid) {
    state = "failed";
  } else if (not_ready.empty() && in.sync_problems.empty() && in.held_back_reason.empty()) {
    state = "successful";
  } else if (!any_exists) {
    state = "initializing";
  } else {
    state = "pending";
  }

  json status = {{"observedGeneration", in.generation},
                 {"state", state},
                 {"conditions", conditions},
                 {"components", components}};
  std::string backend = in.backend_framework;
  if (backend.empty() && in.previous_status != nullptr && in.previous_status->is_object()) {
    auto it = in.previous_status->find("backendFramework");
    if (it != in.previous_status->end() && it->is_string()) backend = it->get<std::string>();
  }
  if (!backend.empty()) status["backendFramework"] = backend;
  if (in.restart) {
    if (!in.restart->is_null()) status["restart"] = *in.restart;
  } else if (in.previous_status != nullptr && in.previous_status->is_object()) {
    if (auto it = in.previous_status->find("restart"); it != in.previous_status->end()) status["restart"] = *it;
  }
  if (in.rolling_update.is_object()) status["rollingUpdate"] = in.rolling_update;
  return status;
}

bool status_changed(const json& live, const json& computed) { return live != computed; }

namespace {

// type -> status of every condition of a status object.
std::map<std::string, std::string> condition_states(const json& status) {
  std::map<std::string, std::string> out;
  auto conds = status.find("conditions");
  if (conds == status.end() || !conds->is_array()) return out;
  for (const auto& c : *conds) {
    if (c.is_object()) out[c.value("type", "")] = c.value("status", "");
  }
  return out;
}

int64_t observed_generation(const json& status) {
  auto g = status.find("observedGeneration");
  return g != status.end() && g->is_number_integer() ? g->get<int64_t>() : -1;
}

}  // namespace

bool status_transition(const json* live, const json& computed) {
  if (live == nullptr || !live->is_object()) return true;
  if (observed_generation(*live) != observed_generation(computed)) return true;
  if (live->value("restart", json()) != computed.value("restart", json())) return true;
  const auto before = condition_states(*live);
  const auto after = condition_states(computed);
  auto status_of = [](const std::map<std::string, std::string>& m, const char* type) {
    auto it = m.find(type);
    return it == m.end() ? std::string() : it->second;
  };
  // Ready and SpecValid are what `kubectl wait`, Argo CD health and alerts read.
  for (const char* type : {"Ready", "SpecValid"}) {
    if (status_of(before, type) != status_of(after, type)) return true;
  }
  // A condition turning False is a problem to show at once; one turning True or
  // appearing as Unknown is progress.
  for (const auto& [type, status] : after) {
    if (status != "False") continue;
    auto it = before.find(type);
    if (it == before.end() || it->second != "False") return true;
  }
  return false;
}

}  // namespace dgd::reconcile
