#include "dgd/reconcile/status_writer.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::pair<std::string, int64_t> ready_of(const json* status) {
  if (status == nullptr) return {"", 0};
  for (const auto& c : status->value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return {c.value("status", ""), c.value("observedGeneration", int64_t{0})};
  }
  return {"", 0};
}

}  // namespace

StatusWrite write_status(Cluster& cluster, StatusPacer* pacer, EventRecorder& events, const std::string& id,
                         const json& dgd, int64_t generation, const StatusInput& in) {
  StatusWrite out;
  const json* prev = in.previous_status;
  const json status = compute_status(in);
  if (prev != nullptr && !status_changed(*prev, status)) return out;
  const bool transition = status_transition(prev, status);
  if (!transition && pacer != nullptr) out.progress_wait = pacer->progress_delay(id);
  if (out.progress_wait.count() > 0) {
    spdlog::debug("dgd={}: status progress written in {} ms", id, out.progress_wait.count());
    return out;
  }
  // The API server takes only status from a status write (and the resourceVersion as the
  // precondition): the spec is not sent back.
  json updated = json::object();
  for (const char* k : {"apiVersion", "kind", "metadata"}) {
    auto it = dgd.find(k);
    if (it != dgd.end()) updated[k] = *it;
  }
  updated["status"] = status;
  auto r = cluster.update_status(updated);
  if (!r) {
    if (r.error().is(kube::ErrorKind::kNotLeader) || r.error().is(kube::ErrorKind::kNotFound)) {
      out.gone = true;
      return out;
    }
    // Refused (RBAC: the install lacks dynamographdeployments/status): the status cannot
    // say so, an Event can (kubectl describe dgd). Not for transient errors: their text varies.
    if (r.error().is(kube::ErrorKind::kForbidden)) {
      events.record(dgd, "Warning", kReasonStatusWriteFailed, "status write failed: " + r.error().to_string());
    }
    out.error = r.error();
    return out;
  }
  if (pacer != nullptr) pacer->note_write(id, transition);
  if (spdlog::should_log(spdlog::level::debug)) {
    std::string conds;
    for (const auto& c : status.value("conditions", json::array())) {
      conds += " " + c.value("type", "") + "=" + c.value("status", "") + "/" + c.value("reason", "");
    }
    spdlog::debug("dgd={}: status written ({}):{}", id, transition ? "transition" : "progress", conds);
  }
  const auto before = ready_of(prev);
  if (ready_of(&status).first == "True" && (before.first != "True" || before.second != generation)) {
    spdlog::info("dgd={}: generation {} rolled out, Ready", id, generation);
    events.record(dgd, "Normal", kReasonRolloutComplete,
                  "Generation " + std::to_string(generation) + " rolled out: every component is ready");
  }
  return out;
}

}  // namespace dgd::reconcile
