// Pods and pod templates, as pkg/apis/core/validation/validation.go checks them
// (ValidatePodTemplateSpec, ValidatePodSpec, ValidateVolumes, validateContainers,
// validateInitContainers, validateContainerCommon, validateContainerPorts, ValidateEnv,
// ValidateEnvFrom, ValidateVolumeMounts, ValidateResourceRequirements, validateProbe).
#include "kubesim/cluster/quantity.h"
#include "kubesim/validation/kinds.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kubesim::validation {

namespace {

const char* const kVolumeSources[] = {
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"};

// validEnvDownwardAPIFieldPathExpressions, sorted as sets.List prints them.
const std::vector<std::string> kEnvFieldPaths = {"metadata.name", "metadata.namespace", "metadata.uid",
                                                 "spec.nodeName", "spec.serviceAccountName", "status.hostIP",
                                                 "status.hostIPs", "status.podIP", "status.podIPs"};
// The labels podshelper.ConvertDownwardAPIFieldLabel accepts.
const std::set<std::string> kConvertibleFieldLabels = {
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
    "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase",
    "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"};

const json* int_child(const json& obj, const char* key) {
  const json* v = child(obj, key);
  return v && v->is_number_integer() ? v : nullptr;
}

// Names of the volumes that validated: mounts may name only these.
std::set<std::string> validate_volumes(const json& spec, const std::string& path, ErrorList& errs) {
  std::set<std::string> names;
  const json& volumes = array_of(spec, "volumes");
  for (size_t i = 0; i < volumes.size(); ++i) {
    const json& v = volumes[i];
    const std::string p = index_path(path + ".volumes", i);
    ErrorList el;
    int sources = 0;
    for (const char* src : kVolumeSources) {
      const json* s = child(v, src);
      if (!s) continue;
      if (sources++ > 0) {
        el.forbidden(p + "." + src, "may not specify more than 1 volume type");
        continue;
      }
      const std::string source = src;
      if (source == "configMap" && str_of(*s, "name").empty()) el.required(p + ".configMap.name");
      if (source == "secret" && str_of(*s, "secretName").empty()) el.required(p + ".secret.secretName");
      if (source == "persistentVolumeClaim" && str_of(*s, "claimName").empty())
        el.required(p + ".persistentVolumeClaim.claimName");
      if (source == "hostPath" && str_of(*s, "path").empty()) el.required(p + ".hostPath.path");
    }
    if (sources == 0) el.required(p, "must specify a volume type");
    const std::string name = str_of(v, "name");
    if (name.empty()) el.required(p + ".name");
    else el.invalid_each(p + ".name", go_quote(name), is_dns1123_label(name));
    if (names.count(name)) el.duplicate(p + ".name", go_quote(name));
    if (el.empty()) names.insert(name);
    errs.append(el);
  }
  return names;
}

void validate_ports(const json& c, const std::string& path, ErrorList& errs) {
  std::set<std::string> names;
  const json& ports = array_of(c, "ports");
  for (size_t i = 0; i < ports.size(); ++i) {
    const json& port = ports[i];
    const std::string p = index_path(path, i);
    const std::string name = str_of(port, "name");
    if (!name.empty()) {
      auto msgs = is_valid_port_name(name);
      if (!msgs.empty()) errs.invalid_each(p + ".name", go_quote(name), msgs);
      else if (!names.insert(name).second) errs.duplicate(p + ".name", go_quote(name));
    }
    const json* cp = int_child(port, "containerPort");
    if (!cp || cp->get<int64_t>() == 0) errs.required(p + ".containerPort");
    else errs.invalid_each(p + ".containerPort", go_int(*cp), is_valid_port_num(cp->get<int64_t>()));
    if (const json* hp = int_child(port, "hostPort"); hp && hp->get<int64_t>() != 0)
      errs.invalid_each(p + ".hostPort", go_int(*hp), is_valid_port_num(hp->get<int64_t>()));
    const std::string protocol = str_of(port, "protocol");
    if (protocol.empty()) errs.required(p + ".protocol");
    else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
      errs.not_supported(p + ".protocol", go_quote(protocol), {"SCTP", "TCP", "UDP"});
  }
}

void validate_key_selector(const json& s, const std::string& path, ErrorList& errs) {
  const std::string name = str_of(s, "name");
  errs.invalid_each(path + ".name", go_quote(name), is_dns1123_subdomain(name));
  const std::string key = str_of(s, "key");
  if (key.empty()) errs.required(path + ".key");
  else errs.invalid_each(path + ".key", go_quote(key), is_config_map_key(key));
}

void validate_field_ref(const json& fs, const std::string& path, ErrorList& errs) {
  if (str_of(fs, "apiVersion").empty()) return errs.required(path + ".apiVersion");
  const std::string fp = str_of(fs, "fieldPath");
  if (fp.empty()) return errs.required(path + ".fieldPath");
  const size_t bracket = fp.find('[');
  const std::string base = fp.substr(0, bracket);
  if (!kConvertibleFieldLabels.count(base) ||
      (bracket != std::string::npos && base != "metadata.annotations" && base != "metadata.labels"))
    return errs.invalid(path + ".fieldPath", go_quote(fp), "error converting fieldPath: field label not supported: " + fp);
  if (bracket != std::string::npos) return;  // metadata.labels['k'] / metadata.annotations['k']
  if (base == "metadata.annotations" || base == "metadata.labels" ||
      std::find(kEnvFieldPaths.begin(), kEnvFieldPaths.end(), base) == kEnvFieldPaths.end())
    errs.not_supported(path + ".fieldPath", go_quote(base), kEnvFieldPaths);
}

void validate_env(const json& c, const std::string& path, ErrorList& errs) {
  const json& env = array_of(c, "env");
  for (size_t i = 0; i < env.size(); ++i) {
    const json& ev = env[i];
    const std::string p = index_path(path, i);
    const std::string name = str_of(ev, "name");
    // RelaxedEnvironmentVariableValidation is beta and on in 1.32.
    if (name.empty()) errs.required(p + ".name");
    else errs.invalid_each(p + ".name", go_quote(name), is_relaxed_env_var_name(name));
    const json* from = child(ev, "valueFrom");
    if (!from) continue;
    int sources = 0;
    if (const json* f = child(*from, "fieldRef")) {
      ++sources;
      validate_field_ref(*f, p + ".valueFrom.fieldRef", errs);
    }
    if (child(*from, "resourceFieldRef")) ++sources;
    if (const json* s = child(*from, "configMapKeyRef")) {
      ++sources;
      validate_key_selector(*s, p + ".valueFrom.configMapKeyRef", errs);
    }
    if (const json* s = child(*from, "secretKeyRef")) {
      ++sources;
      validate_key_selector(*s, p + ".valueFrom.secretKeyRef", errs);
    }
    if (sources == 0)
      errs.invalid(p + ".valueFrom", "\"\"",
                   "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
    else if (!str_of(ev, "value").empty())
      errs.invalid(p + ".valueFrom", "\"\"", "may not be specified when `value` is not empty");
    else if (sources > 1)
      errs.invalid(p + ".valueFrom", "\"\"", "may not have more than one field specified at a time");
  }
}

void validate_env_from(const json& c, const std::string& path, ErrorList& errs) {
  const json& list = array_of(c, "envFrom");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& ev = list[i];
    const std::string p = index_path(path, i);
    const std::string prefix = str_of(ev, "prefix");
    if (!prefix.empty()) errs.invalid_each(p + ".prefix", go_quote(prefix), is_relaxed_env_var_name(prefix));
    int sources = 0;
    for (const char* ref : {"configMapRef", "secretRef"}) {
      const json* r = child(ev, ref);
      if (!r) continue;
      ++sources;
      const std::string name = str_of(*r, "name");
      if (name.empty()) errs.required(p + "." + ref + ".name");
      else errs.invalid_each(p + "." + ref + ".name", go_quote(name), name_messages(NameRule::dns1123_subdomain, name, true));
    }
    if (sources == 0) errs.invalid(path, "\"\"", "must specify one of: `configMapRef` or `secretRef`");
    else if (sources > 1) errs.invalid(path, "\"\"", "may not have more than one field specified at a time");
  }
}

void validate_volume_mounts(const json& c, const std::set<std::string>& volumes, const std::string& path,
                            ErrorList& errs) {
  std::set<std::string> mount_points;
  const json& mounts = array_of(c, "volumeMounts");
  for (size_t i = 0; i < mounts.size(); ++i) {
    const json& m = mounts[i];
    const std::string p = index_path(path, i);
    const std::string name = str_of(m, "name");
    if (name.empty()) errs.required(p + ".name");
    if (!volumes.count(name)) errs.not_found(p + ".name", go_quote(name));
    const std::string mount_path = str_of(m, "mountPath");
    if (mount_path.empty()) errs.required(p + ".mountPath");
    if (mount_points.count(mount_path)) errs.invalid(p + ".mountPath", go_quote(mount_path), "must be unique");
    mount_points.insert(mount_path);
  }
}

bool native_resource(const std::string& name) {
  return name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
}
bool overcommit_allowed(const std::string& name) { return native_resource(name) && name.rfind("hugepages-", 0) != 0; }

void validate_resource_name(const std::string& name, const std::string& path, ErrorList& errs) {
  errs.invalid_each(path, go_quote(name), is_qualified_name(name));
  if (name.find('/') == std::string::npos) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && name.rfind("hugepages-", 0) != 0)
      errs.invalid(path, go_quote(name), "must be a standard resource for containers");
  }
}

int64_t milli(const json& q) {
  try {
    return cluster::parse_milli(q.is_string() ? q.get<std::string>() : q.dump());
  } catch (const std::exception&) {
    return 0;  // malformed quantities were refused while decoding
  }
}

std::string quantity_text(const json& q) { return q.is_string() ? q.get<std::string>() : q.dump(); }

void validate_resources(const json& c, const std::string& path, ErrorList& errs) {
  const json& res = object_of(c, "resources");
  const json& limits = object_of(res, "limits");
  const json& requests = object_of(res, "requests");
  for (const auto& [name, q] : limits.items()) {
    const std::string p = key_path(path + ".limits", name);
    validate_resource_name(name, p, errs);
    if (milli(q) < 0) errs.invalid(p, go_quote(quantity_text(q)), "must be greater than or equal to 0");
  }
  for (const auto& [name, q] : requests.items()) {
    const std::string p = key_path(path + ".requests", name);
    validate_resource_name(name, p, errs);
    if (milli(q) < 0) errs.invalid(p, go_quote(quantity_text(q)), "must be greater than or equal to 0");
    auto limit = limits.find(name);
    if (limit != limits.end()) {
      if (milli(q) != milli(*limit) && !overcommit_allowed(name))
        errs.invalid(path + ".requests", go_quote(quantity_text(q)),
                     "must be equal to " + name + " limit of " + quantity_text(*limit));
      else if (milli(q) > milli(*limit))
        errs.invalid(path + ".requests", go_quote(quantity_text(q)),
                     "must be less than or equal to " + name + " limit of " + quantity_text(*limit));
    } else if (!overcommit_allowed(name)) {
      errs.required(path + ".limits", "Limit must be set for non overcommitable resources");
    }
  }
}

void validate_container_common(const json& c, const std::set<std::string>& volumes, const std::string& p,
                               ErrorList& errs) {
  const std::string name = str_of(c, "name");
  if (name.empty()) errs.required(p + ".name");
  else errs.invalid_each(p + ".name", go_quote(name), is_dns1123_label(name));
  if (str_of(c, "image").empty()) errs.required(p + ".image");
  const std::string tmp = str_of(c, "terminationMessagePolicy");
  if (tmp.empty()) errs.required(p + ".terminationMessagePolicy");
  else if (tmp != "File" && tmp != "FallbackToLogsOnError")
    errs.not_supported(p + ".terminationMessagePolicy", go_quote(tmp), {"File", "FallbackToLogsOnError"});
  validate_ports(c, p + ".ports", errs);
  validate_env(c, p + ".env", errs);
  validate_env_from(c, p + ".envFrom", errs);
  validate_volume_mounts(c, volumes, p + ".volumeMounts", errs);
  const std::string pull = str_of(c, "imagePullPolicy");
  if (pull.empty()) errs.required(p + ".imagePullPolicy");
  else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never")
    errs.not_supported(p + ".imagePullPolicy", go_quote(pull), {"Always", "IfNotPresent", "Never"});
  validate_resources(c, p + ".resources", errs);
}

void validate_probe(const json& c, const char* probe, bool liveness_like, const std::string& p, ErrorList& errs) {
  const json* pr = child(c, probe);
  if (!pr) return;
  const std::string path = p + "." + probe;
  int handlers = 0;
  for (const char* h : {"exec", "httpGet", "tcpSocket", "grpc"}) {
    if (!child(*pr, h)) continue;
    if (handlers++ > 0) errs.forbidden(path + "." + h, "may not specify more than 1 handler type");
  }
  if (handlers == 0) errs.required(path, "must specify a handler type");
  for (const char* f : {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"})
    validate_nonnegative(*pr, f, path + "." + f, errs);
  const json* st = int_child(*pr, "successThreshold");
  if (liveness_like && st && st->get<int64_t>() != 1) errs.invalid(path + ".successThreshold", go_int(*st), "must be 1");
}

// ValidateTolerations.
void validate_tolerations(const json& tolerations, const std::string& path, ErrorList& errs) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const json& t = tolerations[i];
    const std::string p = index_path(path, i);
    const std::string key = str_of(t, "key");
    const std::string op = str_of(t, "operator");
    const std::string effect = str_of(t, "effect");
    const std::string value = str_of(t, "value");
    if (!key.empty()) errs.invalid_each(p + ".key", go_quote(key), is_qualified_name(key));
    if (key.empty() && op != "Exists")
      errs.invalid(p + ".operator", go_quote(op),
                   "operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
    if (child(t, "tolerationSeconds") && effect != "NoExecute")
      errs.invalid(p + ".effect", go_quote(effect), "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (op == "Equal" || op.empty()) {
      auto msgs = is_label_value(value);
      if (!msgs.empty()) {
        std::string joined;
        for (const auto& m : msgs) joined += (joined.empty() ? "" : ";") + m;
        errs.invalid(p + ".operator", go_quote(value), joined);
      }
    } else if (op == "Exists") {
      if (!value.empty()) errs.invalid(p + ".operator", go_quote(value), "value must be empty when `operator` is 'Exists'");
    } else {
      errs.not_supported(p + ".operator", go_quote(op), {"Equal", "Exists"});
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      errs.not_supported(p + ".effect", go_quote(effect), {"NoSchedule", "PreferNoSchedule", "NoExecute"});
  }
}

void validate_containers(const json& spec, const std::set<std::string>& volumes, const std::string& path,
                         ErrorList& errs) {
  const json& containers = array_of(spec, "containers");
  if (containers.empty()) return errs.required(path);
  std::set<std::string> names;
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string p = index_path(path, i);
    validate_container_common(c, volumes, p, errs);
    const std::string name = str_of(c, "name");
    if (!names.insert(name).second) errs.duplicate(p + ".name", go_quote(name));
    validate_probe(c, "livenessProbe", true, p, errs);
    validate_probe(c, "readinessProbe", false, p, errs);
    validate_probe(c, "startupProbe", true, p, errs);
    if (child(c, "restartPolicy")) errs.forbidden(p + ".restartPolicy", "may not be set for non-init containers");
  }
}

void validate_init_containers(const json& spec, const std::set<std::string>& volumes, const std::string& path,
                              ErrorList& errs) {
  std::set<std::string> names;
  for (const auto& c : array_of(spec, "containers")) names.insert(str_of(c, "name"));
  const json& containers = array_of(spec, "initContainers");
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string p = index_path(path, i);
    validate_container_common(c, volumes, p, errs);
    bool restart_always = false;
    if (child(c, "restartPolicy")) {
      const std::string rp = str_of(c, "restartPolicy");
      if (rp != "Always") errs.not_supported(p + ".restartPolicy", go_quote(rp), {"Always"});
      restart_always = rp == "Always";
    }
    const std::string name = str_of(c, "name");
    if (names.count(name)) errs.duplicate(p + ".name", go_quote(name));
    else if (!name.empty()) names.insert(name);
    if (restart_always) {
      validate_probe(c, "livenessProbe", true, p, errs);
      validate_probe(c, "readinessProbe", false, p, errs);
      validate_probe(c, "startupProbe", true, p, errs);
    } else {
      for (const char* f : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"})
        if (child(c, f)) errs.forbidden(p + "." + f, "may not be set for init containers without restartPolicy=Always");
    }
  }
}

}  // namespace

void validate_pod_spec(const json& spec, const std::string& path, ErrorList& errs) {
  if (!spec.is_object()) return errs.required(path + ".containers");
  const std::set<std::string> volumes = validate_volumes(spec, path, errs);
  validate_containers(spec, volumes, path + ".containers", errs);
  validate_init_containers(spec, volumes, path + ".initContainers", errs);
  const std::string rp = str_of(spec, "restartPolicy");
  if (rp.empty()) errs.required(path + ".restartPolicy");
  else if (rp != "Always" && rp != "OnFailure" && rp != "Never")
    errs.not_supported(path + ".restartPolicy", go_quote(rp), {"Always", "OnFailure", "Never"});
  const std::string dns = str_of(spec, "dnsPolicy");
  if (dns.empty()) errs.required(path + ".dnsPolicy");
  else if (dns != "ClusterFirstWithHostNet" && dns != "ClusterFirst" && dns != "Default" && dns != "None")
    errs.not_supported(path + ".dnsPolicy", go_quote(dns), {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  if (const json* ns = child(spec, "nodeSelector")) validate_labels(*ns, path + ".nodeSelector", errs);
  const std::string sa = str_of(spec, "serviceAccountName");
  if (!sa.empty()) errs.invalid_each(path + ".serviceAccountName", go_quote(sa), is_dns1123_subdomain(sa));
  const std::string node = str_of(spec, "nodeName");
  if (!node.empty()) errs.invalid_each(path + ".nodeName", go_quote(node), is_dns1123_subdomain(node));
  if (const json* ads = int_child(spec, "activeDeadlineSeconds")) {
    const int64_t v = ads->get<int64_t>();
    if (v < 1 || v > 2147483647)
      errs.invalid(path + ".activeDeadlineSeconds", go_int(v), "must be between 1 and 2147483647, inclusive");
  }
  for (const char* f : {"hostname", "subdomain"}) {
    const std::string v = str_of(spec, f);
    if (!v.empty()) errs.invalid_each(path + "." + f, go_quote(v), is_dns1123_label(v));
  }
  validate_tolerations(array_of(spec, "tolerations"), path + ".tolerations", errs);
  const std::string pc = str_of(spec, "priorityClassName");
  if (!pc.empty()) errs.invalid_each(path + ".priorityClassName", go_quote(pc), is_dns1123_subdomain(pc));
}

void validate_pod_only(const json& spec, ErrorList& errs) {
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = array_of(spec, list);
    for (size_t i = 0; i < containers.size(); ++i) {
      const std::string image = str_of(containers[i], "image");
      const size_t first = image.find_first_not_of(" \t\n\v\f\r");
      const size_t last = image.find_last_not_of(" \t\n\v\f\r");
      if (!image.empty() && (first != 0 || last != image.size() - 1))
        errs.invalid(index_path(std::string("spec.") + list, i) + ".image", go_quote(image),
                     "must not have leading or trailing whitespace");
    }
  }
}

void validate_pod_template(const json& tpl, const std::string& path, ErrorList& errs) {
  const json& meta = object_of(tpl, "metadata");
  // ValidatePodTemplateSpec validates the template's ObjectMeta at `<path>.labels`.
  if (const json* l = child(meta, "labels")) validate_labels(*l, path + ".labels", errs);
  if (const json* a = child(meta, "annotations")) validate_annotations(*a, path + ".annotations", errs);
  validate_pod_spec(object_of(tpl, "spec"), path + ".spec", errs);
  if (!array_of(object_of(tpl, "spec"), "ephemeralContainers").empty())
    errs.forbidden(path + ".spec.ephemeralContainers", "ephemeral containers not allowed in pod template");
}

}  // namespace kubesim::validation
