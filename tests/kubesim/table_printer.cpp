#include "kubesim/table_printer.h"

#include <cctype>
#include <ctime>
#include <functional>

namespace kubesim {

using nlohmann::json;

namespace {

time_t parse_time(const std::string& s) {
  std::tm tm{};
  if (s.size() < 19 || !strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  return timegm(&tm);
}

json col(const std::string& name, const std::string& type, int priority = 0, const std::string& format = "",
         const std::string& description = "") {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", description}, {"priority", priority}};
}

std::string str(const json& obj, const json::json_pointer& p, const std::string& dflt = "") {
  if (!obj.contains(p)) return dflt;
  const json& v = obj[p];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return dflt;
  return v.dump();
}

int64_t num(const json& obj, const json::json_pointer& p) {
  if (!obj.contains(p) || !obj[p].is_number()) return 0;
  return obj[p].get<int64_t>();
}

std::string containers(const json& spec, bool images) {
  std::string out;
  if (!spec.contains("containers") || !spec["containers"].is_array()) return "";
  for (const auto& c : spec["containers"]) {
    if (!out.empty()) out += ",";
    out += c.value(images ? "image" : "name", "");
  }
  return out;
}

std::string selector_string(const json& sel) {
  if (!sel.is_object()) return "<none>";
  std::string out;
  if (sel.contains("matchLabels") && sel["matchLabels"].is_object())
    for (const auto& [k, v] : sel["matchLabels"].items()) {
      if (!out.empty()) out += ",";
      out += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
  if (sel.contains("matchExpressions") && sel["matchExpressions"].is_array())
    for (const auto& e : sel["matchExpressions"]) {
      if (!out.empty()) out += ",";
      std::string op = e.value("operator", "");
      if (op == "Exists") out += e.value("key", "");
      else if (op == "DoesNotExist") out += "!" + e.value("key", "");
      else {
        out += e.value("key", "") + (op == "In" ? " in (" : " notin (");
        std::string vs;
        for (const auto& v : e.value("values", json::array())) vs += (vs.empty() ? "" : ",") + v.get<std::string>();
        out += vs + ")";
      }
    }
  return out.empty() ? "<none>" : out;
}

std::string map_selector(const json& sel) {
  if (!sel.is_object() || sel.empty()) return "<none>";
  std::string out;
  for (const auto& [k, v] : sel.items()) out += (out.empty() ? "" : ",") + k + "=" + v.get<std::string>();
  return out;
}

// formatHPAMetrics: "cpu: 40%/80%", "<unknown>/500m" per metric, "<none>" without any.
std::string hpa_targets(const json& hpa) {
  using P = json::json_pointer;
  if (!hpa.contains(P("/spec/metrics")) || !hpa[P("/spec/metrics")].is_array() || hpa[P("/spec/metrics")].empty())
    return "<none>";
  const json& metrics = hpa[P("/spec/metrics")];
  const json current = hpa.contains(P("/status/currentMetrics")) && hpa[P("/status/currentMetrics")].is_array()
                           ? hpa[P("/status/currentMetrics")]
                           : json::array();
  std::vector<std::string> list;
  for (size_t i = 0; i < metrics.size() && list.size() < 4; ++i) {
    const json& m = metrics[i];
    if (!m.is_object()) continue;
    const std::string type = m.value("type", "");
    std::string source = type.empty() ? "" : std::string(1, static_cast<char>(std::tolower(type[0]))) + type.substr(1);
    if (type == "ContainerResource") source = "containerResource";
    const json src = m.value(source, json::object());
    const json target = src.is_object() ? src.value("target", json::object()) : json::object();
    const json cur = i < current.size() && current[i].is_object() && current[i].contains(source)
                         ? current[i][source].value("current", json::object())
                         : json::object();
    auto value = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    if ((type == "Resource" || type == "ContainerResource") && !target.contains("averageValue")) {
      const std::string now = cur.contains("averageUtilization") ? value(cur["averageUtilization"]) + "%" : "<unknown>";
      const std::string want = target.contains("averageUtilization") ? value(target["averageUtilization"]) + "%" : "<auto>";
      list.push_back(src.value("name", "") + ": " + now + "/" + want);
      continue;
    }
    const char* field = target.contains("averageValue") ? "averageValue" : "value";
    const std::string now = cur.contains(field) ? value(cur[field]) : "<unknown>";
    const std::string want = target.contains(field) ? value(target[field]) : "<unknown>";
    const bool avg = target.contains("averageValue") && (type == "Object" || type == "External");
    list.push_back(now + "/" + want + (avg ? " (avg)" : ""));
  }
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : ", ") + s;
  if (metrics.size() > 4) out += " + " + std::to_string(metrics.size() - 4) + " more...";
  return out;
}

struct Printer {
  json columns;
  std::function<json(const json&)> cells;
};

Printer printer_for(const ResourceType& t) {
  using P = json::json_pointer;
  const std::string& k = t.kind;
  auto age = [](const json& o) { return human_age(str(o, P("/metadata/creationTimestamp"))); };
  auto name = [](const json& o) { return str(o, P("/metadata/name")); };
  const json name_col = col("Name", "string", 0, "name", "Name must be unique within a namespace.");
  const json age_col = col("Age", "string", 0, "", "CreationTimestamp is a timestamp representing the server time when this object was created.");
  if (t.group.empty() && k == "Pod") {
    return {json::array({name_col, col("Ready", "string"), col("Status", "string"), col("Restarts", "string"), age_col,
                         col("IP", "string", 1), col("Node", "string", 1), col("Nominated Node", "string", 1),
                         col("Readiness Gates", "string", 1)}),
            [=](const json& o) {
              int total = o.contains(P("/spec/containers")) ? static_cast<int>(o[P("/spec/containers")].size()) : 0;
              int ready = 0, restarts = 0;
              if (o.contains(P("/status/containerStatuses")))
                for (const auto& cs : o[P("/status/containerStatuses")]) {
                  if (cs.value("ready", false)) ++ready;
                  restarts += cs.value("restartCount", 0);
                }
              std::string status = str(o, P("/status/reason"), str(o, P("/status/phase"), "Pending"));
              if (o.contains(P("/metadata/deletionTimestamp"))) status = "Terminating";
              return json::array({name(o), std::to_string(ready) + "/" + std::to_string(total), status,
                                  std::to_string(restarts), age(o), str(o, P("/status/podIP"), "<none>"),
                                  str(o, P("/spec/nodeName"), "<none>"), str(o, P("/status/nominatedNodeName"), "<none>"),
                                  "<none>"});
            }};
  }
  if (t.group == "apps" && k == "Deployment") {
    return {json::array({name_col, col("Ready", "string"), col("Up-to-date", "string"), col("Available", "string"),
                         age_col, col("Containers", "string", 1), col("Images", "string", 1),
                         col("Selector", "string", 1)}),
            [=](const json& o) {
              json spec = o.value("spec", json::object());
              json tspec = spec.contains("template") ? spec["template"].value("spec", json::object()) : json::object();
              return json::array({name(o),
                                  std::to_string(num(o, P("/status/readyReplicas"))) + "/" +
                                      std::to_string(num(o, P("/spec/replicas"))),
                                  num(o, P("/status/updatedReplicas")), num(o, P("/status/availableReplicas")), age(o),
                                  containers(tspec, false), containers(tspec, true),
                                  selector_string(spec.value("selector", json()))});
            }};
  }
  if (t.group == "apps" && k == "ReplicaSet") {
    return {json::array({name_col, col("Desired", "integer"), col("Current", "integer"), col("Ready", "integer"), age_col,
                         col("Containers", "string", 1), col("Images", "string", 1), col("Selector", "string", 1)}),
            [=](const json& o) {
              json spec = o.value("spec", json::object());
              json tspec = spec.contains("template") ? spec["template"].value("spec", json::object()) : json::object();
              return json::array({name(o), num(o, P("/spec/replicas")), num(o, P("/status/replicas")),
                                  num(o, P("/status/readyReplicas")), age(o), containers(tspec, false),
                                  containers(tspec, true), selector_string(spec.value("selector", json()))});
            }};
  }
  // kubectl's printers for the workload and networking kinds (k8s.io/kubernetes
  // pkg/printers/internalversion/printers.go, release-1.32).
  if (t.group == "apps" && k == "StatefulSet") {
    return {json::array({name_col, col("Ready", "string"), age_col, col("Containers", "string", 1), col("Images", "string", 1)}),
            [=](const json& o) {
              json tspec = o.contains(P("/spec/template/spec")) ? o[P("/spec/template/spec")] : json::object();
              return json::array({name(o),
                                  std::to_string(num(o, P("/status/readyReplicas"))) + "/" +
                                      std::to_string(num(o, P("/spec/replicas"))),
                                  age(o), containers(tspec, false), containers(tspec, true)});
            }};
  }
  if (t.group == "apps" && k == "DaemonSet") {
    return {json::array({name_col, col("Desired", "integer"), col("Current", "integer"), col("Ready", "integer"),
                         col("Up-to-date", "integer"), col("Available", "integer"), col("Node Selector", "string"),
                         age_col, col("Containers", "string", 1), col("Images", "string", 1), col("Selector", "string", 1)}),
            [=](const json& o) {
              json tspec = o.contains(P("/spec/template/spec")) ? o[P("/spec/template/spec")] : json::object();
              return json::array({name(o), num(o, P("/status/desiredNumberScheduled")),
                                  num(o, P("/status/currentNumberScheduled")), num(o, P("/status/numberReady")),
                                  num(o, P("/status/updatedNumberScheduled")), num(o, P("/status/numberAvailable")),
                                  map_selector(tspec.value("nodeSelector", json())), age(o), containers(tspec, false),
                                  containers(tspec, true),
                                  selector_string(o.contains(P("/spec/selector")) ? o[P("/spec/selector")] : json())});
            }};
  }
  if (t.group == "autoscaling" && k == "HorizontalPodAutoscaler") {
    return {json::array({name_col, col("Reference", "string"), col("Targets", "string"), col("MinPods", "string"),
                         col("MaxPods", "integer"), col("Replicas", "integer"), age_col}),
            [=](const json& o) {
              return json::array({name(o), str(o, P("/spec/scaleTargetRef/kind")) + "/" + str(o, P("/spec/scaleTargetRef/name")),
                                  hpa_targets(o), o.contains(P("/spec/minReplicas")) ? str(o, P("/spec/minReplicas")) : "<unset>",
                                  num(o, P("/spec/maxReplicas")), num(o, P("/status/currentReplicas")), age(o)});
            }};
  }
  if (t.group == "networking.k8s.io" && k == "Ingress") {
    return {json::array({name_col, col("Class", "string"), col("Hosts", "string"), col("Address", "string"),
                         col("Ports", "string"), age_col}),
            [=](const json& o) {
              std::vector<std::string> hosts;
              size_t rules = 0;
              if (o.contains(P("/spec/rules")) && o[P("/spec/rules")].is_array())
                for (const auto& r : o[P("/spec/rules")]) {
                  ++rules;
                  const std::string h = r.is_object() ? r.value("host", "") : "";
                  if (!h.empty() && hosts.size() < 4) hosts.push_back(h);
                }
              std::string host_text;
              for (const auto& h : hosts) host_text += (host_text.empty() ? "" : ",") + h;
              if (host_text.empty()) host_text = "*";
              else if (rules > 4) host_text += " + " + std::to_string(rules - 4) + " more...";
              std::string address;
              if (o.contains(P("/status/loadBalancer/ingress")) && o[P("/status/loadBalancer/ingress")].is_array())
                for (const auto& i : o[P("/status/loadBalancer/ingress")])
                  if (i.is_object()) address += (address.empty() ? "" : ",") + i.value("ip", i.value("hostname", ""));
              const bool tls = o.contains(P("/spec/tls")) && o[P("/spec/tls")].is_array() && !o[P("/spec/tls")].empty();
              return json::array({name(o), str(o, P("/spec/ingressClassName"), "<none>"), host_text, address,
                                  tls ? "80, 443" : "80", age(o)});
            }};
  }
  if (t.group.empty() && k == "Service") {
    return {json::array({name_col, col("Type", "string"), col("Cluster-IP", "string"), col("External-IP", "string"),
                         col("Port(s)", "string"), age_col, col("Selector", "string", 1)}),
            [=](const json& o) {
              std::string ports;
              if (o.contains(P("/spec/ports")))
                for (const auto& p : o[P("/spec/ports")]) {
                  if (!ports.empty()) ports += ",";
                  ports += std::to_string(p.value("port", 0));
                  if (p.contains("nodePort")) ports += ":" + std::to_string(p.value("nodePort", 0));
                  ports += "/" + p.value("protocol", "TCP");
                }
              std::string ext = "<none>";
              if (o.contains(P("/status/loadBalancer/ingress"))) {
                ext.clear();
                for (const auto& i : o[P("/status/loadBalancer/ingress")])
                  ext += (ext.empty() ? "" : ",") + i.value("ip", i.value("hostname", ""));
              } else if (str(o, P("/spec/type")) == "LoadBalancer") {
                ext = "<pending>";
              }
              return json::array({name(o), str(o, P("/spec/type"), "ClusterIP"), str(o, P("/spec/clusterIP"), "<none>"),
                                  ext, ports.empty() ? "<none>" : ports, age(o),
                                  map_selector(o.contains(P("/spec/selector")) ? o[P("/spec/selector")] : json())});
            }};
  }
  if (t.group.empty() && k == "Node") {
    return {json::array({name_col, col("Status", "string"), col("Roles", "string"), age_col, col("Version", "string"),
                         col("Internal-IP", "string", 1), col("External-IP", "string", 1), col("OS-Image", "string", 1),
                         col("Kernel-Version", "string", 1), col("Container-Runtime", "string", 1)}),
            [=](const json& o) {
              std::string status = "Unknown";
              if (o.contains(P("/status/conditions")))
                for (const auto& c : o[P("/status/conditions")])
                  if (c.value("type", "") == "Ready") status = c.value("status", "") == "True" ? "Ready" : "NotReady";
              if (o.contains(P("/spec/unschedulable")) && o[P("/spec/unschedulable")] == true) status += ",SchedulingDisabled";
              std::string roles;
              if (o.contains(P("/metadata/labels")))
                for (const auto& [lk, lv] : o[P("/metadata/labels")].items()) {
                  (void)lv;
                  const std::string prefix = "node-role.kubernetes.io/";
                  if (lk.rfind(prefix, 0) == 0) roles += (roles.empty() ? "" : ",") + lk.substr(prefix.size());
                }
              std::string internal = "<none>", external = "<none>";
              if (o.contains(P("/status/addresses")))
                for (const auto& a : o[P("/status/addresses")]) {
                  if (a.value("type", "") == "InternalIP") internal = a.value("address", "");
                  if (a.value("type", "") == "ExternalIP") external = a.value("address", "");
                }
              return json::array({name(o), status, roles.empty() ? "<none>" : roles, age(o),
                                  str(o, P("/status/nodeInfo/kubeletVersion")), internal, external,
                                  str(o, P("/status/nodeInfo/osImage"), "<unknown>"),
                                  str(o, P("/status/nodeInfo/kernelVersion"), "<unknown>"),
                                  str(o, P("/status/nodeInfo/containerRuntimeVersion"), "<unknown>")});
            }};
  }
  if (t.group == "batch" && k == "Job") {
    return {json::array({name_col, col("Status", "string"), col("Completions", "string"), col("Duration", "string"),
                         age_col, col("Containers", "string", 1), col("Images", "string", 1),
                         col("Selector", "string", 1)}),
            [=](const json& o) {
              std::string status = "Running";
              if (o.contains(P("/status/conditions")))
                for (const auto& c : o[P("/status/conditions")])
                  if (c.value("status", "") == "True") {
                    std::string ct = c.value("type", "");
                    if (ct == "Complete" || ct == "Failed" || ct == "Suspended" || ct == "FailureTarget") status = ct;
                  }
              std::string duration;
              if (o.contains(P("/status/startTime"))) {
                std::string end = str(o, P("/status/completionTime"));
                time_t s = parse_time(str(o, P("/status/startTime")));
                time_t e = end.empty() ? std::time(nullptr) : parse_time(end);
                duration = std::to_string(static_cast<long long>(e - s)) + "s";
              }
              json spec = o.value("spec", json::object());
              json tspec = spec.contains("template") ? spec["template"].value("spec", json::object()) : json::object();
              return json::array({name(o), status,
                                  std::to_string(num(o, P("/status/succeeded"))) + "/" +
                                      std::to_string(spec.value("completions", 1)),
                                  duration, age(o), containers(tspec, false), containers(tspec, true),
                                  selector_string(spec.value("selector", json()))});
            }};
  }
  if (t.group.empty() && k == "Namespace")
    return {json::array({name_col, col("Status", "string"), age_col}),
            [=](const json& o) { return json::array({name(o), str(o, P("/status/phase"), "Active"), age(o)}); }};
  if (t.group.empty() && k == "ConfigMap")
    return {json::array({name_col, col("Data", "integer"), age_col}), [=](const json& o) {
              size_t n = (o.contains("data") ? o["data"].size() : 0) + (o.contains("binaryData") ? o["binaryData"].size() : 0);
              return json::array({name(o), n, age(o)});
            }};
  if (t.group.empty() && k == "Secret")
    return {json::array({name_col, col("Type", "string"), col("Data", "string"), age_col}), [=](const json& o) {
              return json::array({name(o), o.value("type", "Opaque"),
                                  std::to_string(o.contains("data") ? o["data"].size() : 0), age(o)});
            }};
  if (t.group.empty() && k == "PersistentVolumeClaim")
    return {json::array({name_col, col("Status", "string"), col("Volume", "string"), col("Capacity", "string"),
                         col("Access Modes", "string"), col("StorageClass", "string"), age_col}),
            [=](const json& o) {
              std::string modes;
              if (o.contains(P("/spec/accessModes")))
                for (const auto& m : o[P("/spec/accessModes")]) {
                  std::string s = m.get<std::string>();
                  s = s == "ReadWriteOnce" ? "RWO" : s == "ReadOnlyMany" ? "ROX" : s == "ReadWriteMany" ? "RWX" : s == "ReadWriteOncePod" ? "RWOP" : s;
                  modes += (modes.empty() ? "" : ",") + s;
                }
              return json::array({name(o), str(o, P("/status/phase"), "Pending"), str(o, P("/spec/volumeName")),
                                  str(o, P("/status/capacity/storage")), modes,
                                  str(o, P("/spec/storageClassName"), "<unset>"), age(o)});
            }};
  if (t.group.empty() && k == "Event")
    return {json::array({col("Last Seen", "string"), col("Type", "string"), col("Reason", "string"),
                         col("Object", "string"), col("Message", "string")}),
            [=](const json& o) {
              std::string last = str(o, P("/lastTimestamp"), str(o, P("/eventTime"), str(o, P("/metadata/creationTimestamp"))));
              std::string kind = str(o, P("/involvedObject/kind"));
              for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
              return json::array({human_age(last), str(o, P("/type")), str(o, P("/reason")),
                                  kind + "/" + str(o, P("/involvedObject/name")), str(o, P("/message"))});
            }};
  if (t.group == "apiextensions.k8s.io")
    return {json::array({name_col, col("Created At", "date", 0, "", "")}),
            [=](const json& o) { return json::array({name(o), str(o, P("/metadata/creationTimestamp"))}); }};
  if (t.custom && t.printer_columns.is_array() && !t.printer_columns.empty()) {
    // The CRD's columns replace the default Age column (apiextensions
    // serveDefaultColumnsIfEmpty): a CRD that wants an age column names one itself.
    json cols = json::array({name_col});
    std::vector<std::pair<std::string, std::string>> paths;
    for (const auto& pc : t.printer_columns) {
      std::string cname = pc.value("name", "");
      std::string type = pc.value("type", "string");
      cols.push_back(col(cname, type == "date" ? "string" : type, pc.value("priority", 0), pc.value("format", ""),
                         pc.value("description", "")));
      paths.push_back({pc.value("jsonPath", ""), type});
    }
    return {cols, [=](const json& o) {
              json cells = json::array({name(o)});
              for (const auto& [path, type] : paths) {
                std::string v = eval_jsonpath(o, path);
                if (type == "date" && !v.empty()) v = human_age(v);
                if ((type == "integer" || type == "number") && !v.empty()) {
                  try {
                    cells.push_back(json::parse(v));
                    continue;
                  } catch (...) {
                  }
                }
                if (type == "boolean" && (v == "true" || v == "false")) {
                  cells.push_back(v == "true");
                  continue;
                }
                cells.push_back(v.empty() ? json(nullptr) : json(v));
              }
              return cells;
            }};
  }
  return {json::array({name_col, age_col}), [=](const json& o) { return json::array({name(o), age(o)}); }};
}

void jp_eval(const json& cur, const std::string& path, size_t pos, std::vector<const json*>& out) {
  if (pos >= path.size()) {
    out.push_back(&cur);
    return;
  }
  if (path[pos] == '.') {
    size_t end = path.find_first_of(".[", pos + 1);
    std::string key = path.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
    if (key.empty()) return jp_eval(cur, path, end == std::string::npos ? path.size() : end, out);
    if (cur.is_object() && cur.contains(key)) jp_eval(cur[key], path, end == std::string::npos ? path.size() : end, out);
    return;
  }
  if (path[pos] == '[') {
    size_t close = path.find(']', pos);
    if (close == std::string::npos) return;
    std::string inner = path.substr(pos + 1, close - pos - 1);
    if (!cur.is_array()) return;
    if (inner == "*") {
      for (const auto& e : cur) jp_eval(e, path, close + 1, out);
    } else if (inner.rfind("?(@.", 0) == 0) {
      // [?(@.key=="value")]
      size_t eq = inner.find("==");
      if (eq == std::string::npos) return;
      std::string key = inner.substr(4, eq - 4);
      std::string val = inner.substr(eq + 2);
      if (!val.empty() && val.back() == ')') val.pop_back();
      if (val.size() >= 2 && (val[0] == '"' || val[0] == '\'')) val = val.substr(1, val.size() - 2);
      for (const auto& e : cur)
        if (e.is_object() && e.contains(key) &&
            (e[key].is_string() ? e[key].get<std::string>() == val : e[key].dump() == val))
          jp_eval(e, path, close + 1, out);
    } else {
      try {
        long idx = std::stol(inner);
        if (idx < 0) idx += static_cast<long>(cur.size());
        if (idx >= 0 && static_cast<size_t>(idx) < cur.size()) jp_eval(cur[idx], path, close + 1, out);
      } catch (...) {
      }
    }
  }
}

}  // namespace

std::string eval_jsonpath(const json& obj, const std::string& raw) {
  std::string path = raw;
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  if (!path.empty() && path[0] == '$') path = path.substr(1);
  if (!path.empty() && path[0] != '.' && path[0] != '[') path = "." + path;
  std::vector<const json*> out;
  jp_eval(obj, path, 0, out);
  std::string s;
  for (const json* v : out) {
    if (!s.empty()) s += ",";
    s += v->is_string() ? v->get<std::string>() : v->dump();
  }
  return s;
}

std::string human_age(const std::string& rfc3339) {
  time_t t = parse_time(rfc3339);
  if (!t) return "<unknown>";
  long long secs = static_cast<long long>(std::time(nullptr) - t);
  if (secs < -1) return "<invalid>";
  if (secs < 0) secs = 0;
  long long mins = secs / 60, hours = secs / 3600, days = hours / 24, years = days / 365;
  if (secs < 120) return std::to_string(secs) + "s";
  if (mins < 10) return secs % 60 ? std::to_string(mins) + "m" + std::to_string(secs % 60) + "s" : std::to_string(mins) + "m";
  if (mins < 180) return std::to_string(mins) + "m";
  if (hours < 8) return mins % 60 ? std::to_string(hours) + "h" + std::to_string(mins % 60) + "m" : std::to_string(hours) + "h";
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 192) return hours % 24 ? std::to_string(days) + "d" + std::to_string(hours % 24) + "h" : std::to_string(days) + "d";
  if (days < 730) return std::to_string(days) + "d";
  if (years < 8) return std::to_string(years) + "y" + std::to_string(days % 365) + "d";
  return std::to_string(years) + "y";
}

json make_table(const ResourceType& t, const std::vector<json>& objects, bool with_columns,
                const std::string& include_object) {
  Printer p = printer_for(t);
  json rows = json::array();
  for (const auto& o : objects) {
    json row = {{"cells", p.cells(o)}};
    if (include_object == "Object") {
      row["object"] = o;
    } else if (include_object != "None") {
      json md = o.value("metadata", json::object());
      md.erase("managedFields");
      row["object"] = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", md}};
    }
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", json::object()},
          {"columnDefinitions", with_columns ? p.columns : json::array()},
          {"rows", rows}};
}

}  // namespace kubesim
