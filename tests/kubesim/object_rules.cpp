#include "kubesim/object_rules.h"

#include "kubesim/api_error.h"
#include "kubesim/crd/custom_resource_validation.h"
#include "kubesim/defaults/served_kind_defaults.h"
#include "kubesim/openapi/field_validation.h"
#include "kubesim/patch_adapter.h"
#include "kubesim/validation/formats.h"
#include "kubesim/validation/kinds.h"
#include "kubesim/validation/validate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>
#include <set>

namespace kubesim::rules {

using nlohmann::json;

namespace {

std::mt19937_64& rng() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

bool is_obj(const json& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_object(); }
bool is_arr(const json& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_array(); }

void set_default(json& obj, const char* key, const json& value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = value;
}

void canonical_resource_list(json& list) {
  if (!list.is_object()) return;
  for (auto& [k, v] : list.items()) {
    (void)k;
    if (v.is_string()) v = patch::canonical_quantity(v.get<std::string>());
    else if (v.is_number()) v = patch::canonical_quantity(v.dump());
  }
}

void canonical_requirements(json& res) {
  if (!res.is_object()) return;
  if (res.contains("limits")) canonical_resource_list(res["limits"]);
  if (res.contains("requests")) canonical_resource_list(res["requests"]);
}

void default_probe(json& p) {
  if (!p.is_object()) return;
  set_default(p, "timeoutSeconds", 1);
  set_default(p, "periodSeconds", 10);
  set_default(p, "successThreshold", 1);
  set_default(p, "failureThreshold", 3);
  if (is_obj(p, "httpGet")) set_default(p["httpGet"], "scheme", "HTTP");
}

void default_container(json& c, bool is_pod) {
  if (!c.is_object()) return;
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  if (!c.contains("imagePullPolicy") && c.contains("image") && c["image"].is_string()) {
    std::string image = c["image"];
    std::string last = image.substr(image.rfind('/') == std::string::npos ? 0 : image.rfind('/') + 1);
    bool digest = image.find('@') != std::string::npos;
    bool tagged = last.find(':') != std::string::npos;
    std::string tag = tagged ? last.substr(last.find(':') + 1) : "";
    c["imagePullPolicy"] = (!digest && (!tagged || tag == "latest")) ? "Always" : "IfNotPresent";
  }
  set_default(c, "resources", json::object());
  canonical_requirements(c["resources"]);
  if (is_pod && c["resources"].contains("limits") && c["resources"]["limits"].is_object()) {
    // A pod whose container sets limits but not requests gets requests = limits.
    json& r = c["resources"];
    if (!r.contains("requests") || !r["requests"].is_object()) r["requests"] = json::object();
    for (const auto& [k, v] : r["limits"].items())
      if (!r["requests"].contains(k)) r["requests"][k] = v;
  }
  if (is_arr(c, "ports"))
    for (auto& p : c["ports"])
      if (p.is_object()) set_default(p, "protocol", "TCP");
  if (is_arr(c, "env"))
    for (auto& e : c["env"])
      if (is_obj(e, "valueFrom") && is_obj(e["valueFrom"], "fieldRef"))
        set_default(e["valueFrom"]["fieldRef"], "apiVersion", "v1");
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    if (c.contains(probe)) default_probe(c[probe]);
}

void default_pod_spec(json& spec, bool is_pod) {
  if (!spec.is_object()) return;
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", json::object());
  set_default(spec, "schedulerName", "default-scheduler");
  for (const char* list : {"containers", "initContainers"})
    if (is_arr(spec, list))
      for (auto& c : spec[list]) default_container(c, is_pod);
  if (is_arr(spec, "volumes"))
    for (auto& v : spec["volumes"]) {
      if (!v.is_object()) continue;
      for (const char* src : {"configMap", "secret", "downwardAPI", "projected"})
        if (is_obj(v, src)) set_default(v[src], "defaultMode", 420);
      if (is_obj(v, "hostPath")) set_default(v["hostPath"], "type", "");
    }
  if (is_obj(spec, "overhead")) canonical_resource_list(spec["overhead"]);
  if (is_pod) {
    set_default(spec, "enableServiceLinks", true);
    set_default(spec, "priority", 0);
    set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
    if (!spec.contains("serviceAccountName") && spec.contains("serviceAccount"))
      spec["serviceAccountName"] = spec["serviceAccount"];
    set_default(spec, "serviceAccountName", "default");
    set_default(spec, "serviceAccount", spec["serviceAccountName"]);
    // DefaultTolerationSeconds admission.
    set_default(spec, "tolerations", json::array());
    for (const char* taint : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      bool has = false;
      for (const auto& t : spec["tolerations"])
        if (t.is_object() && t.value("key", "") == taint) has = true;
      if (!has)
        spec["tolerations"].push_back(
            {{"key", taint}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
    }
  }
}

void default_template(json& spec) {
  if (!is_obj(spec, "template")) return;
  json& tpl = spec["template"];
  if (!tpl.contains("metadata") || !tpl["metadata"].is_object()) tpl["metadata"] = json::object();
  set_default(tpl["metadata"], "creationTimestamp", nullptr);
  if (is_obj(tpl, "spec")) default_pod_spec(tpl["spec"], false);
}

std::string allocate_cluster_ip() {
  std::uniform_int_distribution<int> d(1, 254), d2(0, 255);
  return "10.96." + std::to_string(d2(rng())) + "." + std::to_string(d(rng()));
}

}  // namespace

std::string now_rfc3339() { return rfc3339_after(0); }

std::string rfc3339_after(int64_t seconds) {
  std::time_t t = std::time(nullptr) + seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string now_rfc3339_micro() {
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(us));
  return out;
}

std::string new_uid() {
  std::uniform_int_distribution<uint64_t> d;
  uint64_t a = d(rng()), b = d(rng());
  a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x4000ULL;
  b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", (unsigned long long)(a >> 32),
                (unsigned long long)((a >> 16) & 0xFFFF), (unsigned long long)(a & 0xFFFF),
                (unsigned long long)(b >> 48), (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string random_suffix(size_t n) {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> d(0, sizeof(alphabet) - 2);
  std::string s;
  for (size_t i = 0; i < n; ++i) s += alphabet[d(rng())];
  return s;
}

void apply_defaults(const ResourceType& t, json& obj, bool create) {
  if (t.custom) crd::apply_schema_defaults(t, obj);
  if (!obj.contains("spec") && (t.kind == "Deployment" || t.kind == "Service" || t.kind == "Pod")) return;
  const std::string& k = t.kind;
  if (t.group.empty()) {
    if (k == "Pod" && is_obj(obj, "spec")) default_pod_spec(obj["spec"], true);
    if (k == "Service" && is_obj(obj, "spec")) {
      json& s = obj["spec"];
      set_default(s, "type", "ClusterIP");
      set_default(s, "sessionAffinity", "None");
      const std::string type = s["type"].is_string() ? s["type"].get<std::string>() : "ClusterIP";
      if (type != "ExternalName") {
        if (create && (!s.contains("clusterIP") || s["clusterIP"] == "")) s["clusterIP"] = allocate_cluster_ip();
        if (s.contains("clusterIP")) set_default(s, "clusterIPs", json::array({s["clusterIP"]}));
        set_default(s, "ipFamilies", json::array({"IPv4"}));
        set_default(s, "ipFamilyPolicy", "SingleStack");
        set_default(s, "internalTrafficPolicy", "Cluster");
      }
      if (type == "NodePort" || type == "LoadBalancer") set_default(s, "externalTrafficPolicy", "Cluster");
      if (is_arr(s, "ports")) {
        std::uniform_int_distribution<int> np(30000, 32767);
        for (auto& p : s["ports"]) {
          if (!p.is_object()) continue;
          set_default(p, "protocol", "TCP");
          if (p.contains("port")) set_default(p, "targetPort", p["port"]);
          if ((type == "NodePort" || type == "LoadBalancer") && create) set_default(p, "nodePort", np(rng()));
        }
      }
    }
    if (k == "PersistentVolumeClaim" && is_obj(obj, "spec")) {
      set_default(obj["spec"], "volumeMode", "Filesystem");
      if (is_obj(obj["spec"], "resources")) canonical_requirements(obj["spec"]["resources"]);
    }
    if (k == "Namespace") {
      if (!obj.contains("spec") || !obj["spec"].is_object()) obj["spec"] = json::object();
      if (create) set_default(obj["spec"], "finalizers", json::array({"kubernetes"}));
      auto& md = obj["metadata"];
      if (!md.contains("labels") || !md["labels"].is_object()) md["labels"] = json::object();
      md["labels"]["kubernetes.io/metadata.name"] = md.value("name", "");
    }
    if (k == "Secret") {
      set_default(obj, "type", "Opaque");
      if (is_obj(obj, "stringData")) {
        if (!is_obj(obj, "data")) obj["data"] = json::object();
        static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (const auto& [key, v] : obj["stringData"].items()) {
          std::string in = v.is_string() ? v.get<std::string>() : v.dump(), out;
          size_t i = 0;
          for (; i + 2 < in.size(); i += 3) {
            uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
            out += {b64[n >> 18], b64[(n >> 12) & 63], b64[(n >> 6) & 63], b64[n & 63]};
          }
          if (in.size() - i == 1) {
            uint32_t n = uint8_t(in[i]) << 16;
            out += {b64[n >> 18], b64[(n >> 12) & 63], '=', '='};
          } else if (in.size() - i == 2) {
            uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
            out += {b64[n >> 18], b64[(n >> 12) & 63], b64[(n >> 6) & 63], '='};
          }
          obj["data"][key] = out;
        }
        obj.erase("stringData");
      }
    }
    if (k == "Node" && is_obj(obj, "status")) {
      for (const char* f : {"capacity", "allocatable"})
        if (obj["status"].contains(f)) canonical_resource_list(obj["status"][f]);
    }
  } else if (t.group == "apps" && is_obj(obj, "spec")) {
    json& s = obj["spec"];
    if (k == "Deployment" || k == "ReplicaSet") {
      set_default(s, "replicas", 1);
      set_default(s, "revisionHistoryLimit", 10);
    }
    if (k == "Deployment") {
      set_default(s, "progressDeadlineSeconds", 600);
      set_default(s, "strategy", json::object());
      set_default(s["strategy"], "type", "RollingUpdate");
      if (s["strategy"]["type"] == "RollingUpdate") {
        set_default(s["strategy"], "rollingUpdate", json::object());
        set_default(s["strategy"]["rollingUpdate"], "maxUnavailable", "25%");
        set_default(s["strategy"]["rollingUpdate"], "maxSurge", "25%");
      }
    }
    if (k == "ReplicaSet") s.erase("revisionHistoryLimit");
    default_template(s);
  } else if (t.group == "batch" && k == "Job" && is_obj(obj, "spec")) {
    json& s = obj["spec"];
    if (!s.contains("completions") && !s.contains("parallelism")) {
      s["completions"] = 1;
      s["parallelism"] = 1;
    }
    set_default(s, "parallelism", 1);
    set_default(s, "backoffLimit", 6);
    set_default(s, "completionMode", "NonIndexed");
    set_default(s, "suspend", false);
    set_default(s, "podReplacementPolicy", "TerminatingOrFailed");
    set_default(s, "manualSelector", nullptr);
    if (s["manualSelector"].is_null()) s.erase("manualSelector");
    if (create && !s.contains("selector")) {
      const std::string uid = obj["metadata"].value("uid", "");
      const std::string name = obj["metadata"].value("name", "");
      s["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
      if (is_obj(s, "template")) {
        json& tm = s["template"];
        if (!is_obj(tm, "metadata")) tm["metadata"] = json::object();
        if (!is_obj(tm["metadata"], "labels")) tm["metadata"]["labels"] = json::object();
        json& l = tm["metadata"]["labels"];
        l["batch.kubernetes.io/controller-uid"] = uid;
        l["batch.kubernetes.io/job-name"] = name;
        l["controller-uid"] = uid;
        l["job-name"] = name;
      }
    }
    default_template(s);
  } else if (t.group == "batch" && k == "CronJob" && is_obj(obj, "spec") && is_obj(obj["spec"], "jobTemplate") &&
             is_obj(obj["spec"]["jobTemplate"], "spec")) {
    default_template(obj["spec"]["jobTemplate"]["spec"]);
  } else if (t.group == "apiextensions.k8s.io" && is_obj(obj, "spec")) {
    set_default(obj["spec"], "conversion", json{{"strategy", "None"}});
  }
  defaults::apply_served_kind_defaults(t, obj);
}

// qos.GetPodQOS, which the apiserver stores on create: Guaranteed when every container
// has cpu and memory limits equal to its requests, BestEffort when none has any, else
// Burstable. Quantities compare by value (the object is not canonical yet here).
std::string pod_qos_class(const json& pod) {
  auto same = [](const json& a, const json& b) {
    try {
      auto text = [](const json& q) { return q.is_string() ? q.get<std::string>() : q.dump(); };
      return patch::canonical_quantity(text(a)) == patch::canonical_quantity(text(b));
    } catch (...) {
      return a == b;  // malformed: validation answers 422 later
    }
  };
  bool any = false, guaranteed = true;
  const json& spec = pod.contains("spec") && pod["spec"].is_object() ? pod["spec"] : json::object();
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (const auto& c : spec[list]) {
      const json res = c.is_object() ? c.value("resources", json::object()) : json::object();
      const json req = res.is_object() ? res.value("requests", json::object()) : json::object();
      const json lim = res.is_object() ? res.value("limits", json::object()) : json::object();
      for (const char* r : {"cpu", "memory"}) {
        const bool has_req = req.is_object() && req.contains(r), has_lim = lim.is_object() && lim.contains(r);
        any = any || has_req || has_lim;
        if (!has_lim || (has_req && !same(req[r], lim[r]))) guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void reset_status_on_create(const ResourceType& t, json& obj) {
  if (t.has_status && t.kind != "Node") obj.erase("status");
  if (t.group.empty() && t.kind == "Pod")
    obj["status"] = {{"phase", "Pending"}, {"qosClass", pod_qos_class(obj)}};
  if (t.group.empty() && t.kind == "Namespace") obj["status"] = {{"phase", "Active"}};
  if (t.group.empty() && t.kind == "PersistentVolumeClaim") obj["status"] = {{"phase", "Pending"}};
  if (t.group.empty() && t.kind == "Service") obj["status"] = {{"loadBalancer", json::object()}};
  if (t.group == "apps" && t.kind == "Deployment") obj["status"] = json::object();
  defaults::initial_status(t, obj, now_rfc3339());
  if (t.group == "apiextensions.k8s.io") {
    const json names = obj.contains("spec") ? obj["spec"].value("names", json::object()) : json::object();
    json accepted = names;
    if (!accepted.contains("singular") && accepted.contains("kind")) {
      std::string s = accepted["kind"];
      for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      accepted["singular"] = s;
    }
    if (!accepted.contains("listKind") && accepted.contains("kind"))
      accepted["listKind"] = accepted["kind"].get<std::string>() + "List";
    std::string now = now_rfc3339();
    json stored = json::array();
    if (obj.contains("spec") && obj["spec"].contains("versions"))
      for (const auto& v : obj["spec"]["versions"])
        if (v.value("storage", false)) stored.push_back(v.value("name", ""));
    obj["status"] = {{"acceptedNames", accepted},
                     {"conditions",
                      {{{"type", "NamesAccepted"}, {"status", "True"}, {"lastTransitionTime", now},
                        {"reason", "NoConflicts"}, {"message", "no conflicts found"}},
                       {{"type", "Established"}, {"status", "True"}, {"lastTransitionTime", now},
                        {"reason", "InitialNamesAccepted"}, {"message", "the initial names have been accepted"}}}},
                     {"storedVersions", stored}};
  }
}

bool spec_changed(const ResourceType& t, const json& before, const json& after) {
  json a = before, b = after;
  for (json* j : {&a, &b}) {
    if (!j->is_object()) continue;
    j->erase("metadata");
    if (t.has_status) j->erase("status");
  }
  return a != b;
}

namespace {

// ConfigMap data and Secret data/binaryData values are strings.
void check_data_values(const ResourceType& t, const json& obj) {
  if (!t.group.empty() || (t.kind != "ConfigMap" && t.kind != "Secret")) return;
  json causes = json::array();
  for (const char* f : {"data", "binaryData"})
    if (is_obj(obj, f))
      for (const auto& [k, v] : obj[f].items())
        if (!v.is_string())
          causes.push_back({{"reason", "FieldValueTypeInvalid"}, {"field", std::string(f) + "[" + k + "]"},
                            {"message", "Invalid value: " + v.dump() + ": must be a string"}});
  if (!causes.empty())
    throw ApiError::invalid(t.group, t.kind, obj["metadata"].value("name", ""), causes);
}

}  // namespace

std::string name_problem(const ResourceType& t, const std::string& name) {
  std::string out;
  for (const auto& m : validation::name_messages(validation::name_rule(t), name, false)) out += (out.empty() ? "" : ", ") + m;
  return out;
}

void validate(const ResourceType& t, const json& obj) {
  check_data_values(t, obj);
  validation::validate_create(t, obj);
}

void validate_update(const ResourceType& t, const json& old_obj, const json& new_obj) {
  check_data_values(t, new_obj);
  validation::validate_update(t, old_obj, new_obj);
}

namespace {

const std::set<std::string> kMetaFields = {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                                           "generation", "creationTimestamp", "deletionTimestamp",
                                           "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
                                           "finalizers", "managedFields"};

}  // namespace

void check_unknown_fields(const ResourceType& t, json& obj, bool strict) {
  std::vector<std::string> unknown;
  if (t.custom && t.schema.is_object()) {
    unknown = crd::prune_unknown_fields(t, obj, strict);
  } else if (!t.custom) {
    // Every level, from Kubernetes' OpenAPI document (openapi/field_validation.h).
    auto found = openapi::drop_unknown_fields(t, obj);
    if (strict && !found.empty()) {
      std::string msg = "strict decoding error: ";
      for (size_t i = 0; i < found.size(); ++i) msg += (i ? ", " : "") + found[i];
      throw ApiError::bad_request(msg);
    }
  }
  if (obj.contains("metadata") && obj["metadata"].is_object())
    for (const auto& [k, v] : obj["metadata"].items()) {
      (void)v;
      if (!kMetaFields.count(k)) unknown.push_back("metadata." + k);
    }
  if (strict && !unknown.empty()) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i) msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
    throw ApiError::bad_request(msg);
  }
  if (!strict && obj.contains("metadata") && obj["metadata"].is_object()) {
    std::vector<std::string> drop;
    for (const auto& [k, v] : obj["metadata"].items()) {
      (void)v;
      if (!kMetaFields.count(k)) drop.push_back(k);
    }
    for (const auto& k : drop) obj["metadata"].erase(k);
  }
}

}  // namespace kubesim::rules
