#include "kubesim/cluster/kubelet.h"

#include <algorithm>
#include <set>

#include "kubesim/object_rules.h"

namespace kubesim::cluster {
namespace {

using std::chrono::milliseconds;

std::string hex_id(const std::string& seed) {
  char buf[80];
  uint32_t a = fnv32a(seed), b = fnv32a(seed, a), c = fnv32a(seed, b), d = fnv32a(seed, c);
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x%08x%08x%08x%08x", a, b, c, d, a ^ c, b ^ d, a ^ d, b ^ c);
  return buf;
}

std::string annotation(const Json& obj, const char* key) {
  return str_at(at_path(obj, {"metadata", "annotations"}), {key});
}

// Builds conditions in the kubelet's order, keeping lastTransitionTime of unchanged ones.
Json conditions_for(const Json& current, const std::vector<std::tuple<std::string, bool, std::string, std::string>>& want,
                    TimePoint now) {
  Json conds = Json::array();
  const Json& cur = at_path(current, {"status", "conditions"});
  for (const auto& [type, ok, reason, message] : want) {
    Json c = {{"type", type}, {"status", ok ? "True" : "False"}, {"lastProbeTime", nullptr}};
    const Json* old = find_condition(cur, type);
    if (old && old->value("status", "") == c["status"] && old->contains("lastTransitionTime"))
      c["lastTransitionTime"] = (*old)["lastTransitionTime"];
    else
      c["lastTransitionTime"] = format_time(now);
    if (!reason.empty()) c["reason"] = reason;
    if (!message.empty()) c["message"] = message;
    conds.push_back(std::move(c));
  }
  // Conditions others own (e.g. readiness gates) are kept.
  if (cur.is_array())
    for (const auto& c : cur) {
      std::string t = c.value("type", "");
      bool ours = std::any_of(want.begin(), want.end(), [&](const auto& w) { return std::get<0>(w) == t; });
      if (!ours) conds.push_back(c);
    }
  return conds;
}

std::string names_list(const Json& containers) {
  std::string out;
  if (containers.is_array())
    for (const auto& c : containers) out += (out.empty() ? "" : " ") + c.value("name", "");
  return "[" + out + "]";
}

}  // namespace

std::string Kubelets::allocate_ip(const std::string& node, size_t node_index) {
  uint32_t n = ++next_ip_[node];
  uint32_t host = 2 + (n - 1) % 250;
  return "10." + std::to_string(64 + (node_index >> 8) % 64) + "." + std::to_string(node_index & 255) + "." +
         std::to_string(host);
}

Writes Kubelets::sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) {
  Writes out;
  const TimePoint now = env.now;
  auto wake_at = [&](TimePoint t) {
    if (t > now && t < *next_wakeup) *next_wakeup = t;
  };
  std::map<std::string, size_t> node_index;
  std::map<std::string, const Json*> nodes;
  {
    std::vector<std::string> names;
    for (const auto& n : snap.nodes) {
      names.push_back(name_of(n));
      nodes[name_of(n)] = &n;
    }
    std::sort(names.begin(), names.end());
    for (size_t i = 0; i < names.size(); ++i) node_index[names[i]] = i;
  }
  std::map<std::string, const Json*> jobs, namespaces;
  for (const auto& j : snap.jobs) jobs[uid_of(j)] = &j;
  for (const auto& n : snap.namespaces) namespaces[name_of(n)] = &n;

  std::set<std::string> seen;
  for (const auto& pod : snap.pods) {
    const std::string node = str_at(pod, {"spec", "nodeName"});
    if (node.empty() || !nodes.count(node)) continue;
    const std::string uid = uid_of(pod);
    seen.insert(uid);
    const std::string phase = str_at(pod, {"status", "phase"});
    auto [it, fresh] = tracks_.try_emplace(uid);
    Track& tr = it->second;
    if (fresh) {
      tr.bound_at = now;
      // Already running (e.g. state restored from --data): treat it as up already.
      if (phase == "Running") tr.bound_at = now - opts_.start_delay - opts_.ready_delay;
      tr.pod_ip = str_at(pod, {"status", "podIP"});
    }

    if (is_terminating(pod)) {
      if (!tr.terminating_seen) {
        tr.terminating_seen = true;
        tr.terminating_at = now;
      }
      TimePoint gone = tr.terminating_at + opts_.termination_delay;
      if (now >= gone) {
        Write w = Write::remove("v1", "pods", pod, "terminated");
        w.force = true;
        out.push_back(std::move(w));
        continue;
      }
      wake_at(gone);
      if (condition_true(pod, "Ready")) {
        Json p = pod;
        for (auto& c : p["status"]["conditions"])
          if (c.value("type", "") == "Ready" || c.value("type", "") == "ContainersReady") {
            c["status"] = "False";
            c["lastTransitionTime"] = format_time(now);
            c["reason"] = "ContainersNotReady";
            c["message"] = "containers with unready status: " + names_list(at_path(pod, {"spec", "containers"}));
          }
        if (p["status"].contains("containerStatuses"))
          for (auto& cs : p["status"]["containerStatuses"]) cs["ready"] = false;
        out.push_back(Write::update_status("v1", "pods", std::move(p), "terminating"));
      }
      continue;
    }
    if (phase == "Succeeded" || phase == "Failed") continue;

    const Json* owner = controller_ref(pod);
    const Json* job = nullptr;
    if (owner && owner->value("kind", "") == "Job") {
      auto j = jobs.find(owner->value("uid", ""));
      if (j != jobs.end()) job = j->second;
    }
    const bool is_job_pod = owner && owner->value("kind", "") == "Job";

    const TimePoint started_at = tr.bound_at + opts_.start_delay;
    const TimePoint ready_at = started_at + opts_.ready_delay;
    milliseconds run_for = opts_.job_duration;
    for (const Json* src : {&pod, job}) {
      if (!src) continue;
      if (auto d = parse_duration(annotation(*src, kDurationAnnotation))) {
        run_for = *d;
        break;
      }
    }
    const TimePoint finish_at = started_at + run_for;
    std::string fail_reason;
    {
      auto ns = namespaces.find(namespace_of(pod));
      for (const Json* src : {&pod, job, ns == namespaces.end() ? nullptr : ns->second}) {
        if (!src) continue;
        const Json& ann = at_path(*src, {"metadata", "annotations"});
        if (ann.is_object() && ann.contains(kFailAnnotation) && ann[kFailAnnotation].is_string()) {
          fail_reason = ann[kFailAnnotation].get<std::string>();
          if (fail_reason.empty()) fail_reason = "Error";
          break;
        }
      }
    }

    const bool running = now >= started_at;
    const bool finished = is_job_pod && running && now >= finish_at;
    const bool unready_forced = annotation(pod, kReadyAnnotation) == "false";
    const bool ready = running && !finished && now >= ready_at && !unready_forced;
    if (!running) wake_at(started_at);
    else if (is_job_pod && !finished) wake_at(finish_at);
    if (running && !finished && !unready_forced) wake_at(ready_at);

    if (tr.pod_ip.empty() && running) tr.pod_ip = allocate_ip(node, node_index[node]);
    const Json& n = *nodes[node];
    std::string host_ip;
    const Json& addrs = at_path(n, {"status", "addresses"});
    if (addrs.is_array())
      for (const auto& a : addrs)
        if (a.value("type", "") == "InternalIP") host_ip = a.value("address", "");

    Json status = pod.contains("status") && pod["status"].is_object() ? pod["status"] : Json::object();
    const Json& containers = at_path(pod, {"spec", "containers"});
    const Json& inits = at_path(pod, {"spec", "initContainers"});
    const bool has_inits = inits.is_array() && !inits.empty();
    const std::string start_ts = format_time(started_at);
    const std::string finish_ts = format_time(finished ? finish_at : now);
    const bool failed = finished && !fail_reason.empty();

    auto container_status = [&](const Json& c, bool init) {
      std::string cname = c.value("name", "");
      Json cs = {{"name", cname},
                 {"image", c.value("image", "")},
                 {"imageID", ""},
                 {"restartCount", 0},
                 {"lastState", Json::object()}};
      std::string cid = "containerd://" + hex_id(uid + "/" + cname);
      if (!running) {
        cs["ready"] = false;
        cs["started"] = false;
        cs["state"] = {{"waiting", {{"reason", init ? "PodInitializing" : "ContainerCreating"}}}};
        return cs;
      }
      cs["containerID"] = cid;
      cs["imageID"] = c.value("image", "") + "@sha256:" + hex_id(c.value("image", "")).substr(0, 64);
      if (init && c.value("restartPolicy", "") != "Always") {
        cs["ready"] = false;
        cs["started"] = false;
        cs["state"] = {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}, {"startedAt", start_ts},
                                       {"finishedAt", start_ts}, {"containerID", cid}}}};
        return cs;
      }
      if (finished && !init) {
        cs["ready"] = false;
        cs["started"] = false;
        Json term = {{"exitCode", failed ? 1 : 0}, {"reason", failed ? "Error" : "Completed"},
                     {"startedAt", start_ts}, {"finishedAt", finish_ts}, {"containerID", cid}};
        if (failed) term["message"] = fail_reason;
        cs["state"] = {{"terminated", term}};
        return cs;
      }
      cs["ready"] = init ? true : ready;
      cs["started"] = true;
      cs["state"] = {{"running", {{"startedAt", start_ts}}}};
      return cs;
    };

    Json statuses = Json::array();
    if (containers.is_array())
      for (const auto& c : containers) statuses.push_back(container_status(c, false));
    status["containerStatuses"] = statuses;
    if (has_inits) {
      Json init_statuses = Json::array();
      for (const auto& c : inits) init_statuses.push_back(container_status(c, true));
      status["initContainerStatuses"] = init_statuses;
    }
    status["phase"] = finished ? (failed ? "Failed" : "Succeeded") : running ? "Running" : "Pending";
    status["qosClass"] = rules::pod_qos_class(pod);
    status["startTime"] = format_time(tr.bound_at);
    if (!host_ip.empty()) {
      status["hostIP"] = host_ip;
      status["hostIPs"] = Json::array({{{"ip", host_ip}}});
    }
    if (running) {
      status["podIP"] = tr.pod_ip;
      status["podIPs"] = Json::array({{{"ip", tr.pod_ip}}});
    }
    const std::string unready_msg = "containers with unready status: " + names_list(containers);
    std::string ready_reason, ready_msg;
    if (finished) {
      ready_reason = failed ? "PodFailed" : "PodCompleted";
    } else if (!ready) {
      ready_reason = "ContainersNotReady";
      ready_msg = unready_msg;
    }
    std::vector<std::tuple<std::string, bool, std::string, std::string>> want = {
        {"PodReadyToStartContainers", running && !finished, "", ""},
        {"Initialized", running || !has_inits, running || !has_inits ? "" : "ContainersNotInitialized",
         running || !has_inits ? "" : "containers with incomplete status: " + names_list(inits)},
        {"Ready", ready, ready_reason, ready_msg},
        {"ContainersReady", ready, ready_reason, ready_msg},
        {"PodScheduled", true, "", ""},
    };
    Json cur_for_conds = pod;
    status["conditions"] = conditions_for(cur_for_conds, want, now);
    if (status.contains("message") && !failed) status.erase("message");
    if (failed) status["message"] = fail_reason;

    if (pod.contains("status") && pod["status"] == status) continue;
    Json p = pod;
    p["status"] = std::move(status);
    std::string why = "phase " + p["status"]["phase"].get<std::string>() + (ready ? ", ready" : ", not ready");
    out.push_back(Write::update_status("v1", "pods", std::move(p), why));
  }
  for (auto& w : out) w.manager = "kubelet";
  for (auto it = tracks_.begin(); it != tracks_.end();) {
    if (!seen.count(it->first)) it = tracks_.erase(it);
    else ++it;
  }
  return out;
}

}  // namespace kubesim::cluster
