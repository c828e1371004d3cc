// v1alpha1 → v1beta1 DGD conversion (convert.h).
#include "dgd/api/convert.h"

#include <algorithm>
#include <set>
#include <string>

#include "api/syntax.h"
#include "dgd/api/dgd.h"

namespace dgd::api {
namespace {

using nlohmann::json;
using syntax::shown;

constexpr const char* kMain = "main";
constexpr const char* kDefaultGpuResource = "nvidia.com/gpu";

const json* member(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

bool is_true(const json* v) { return v && v->is_boolean() && v->get<bool>(); }

std::string text(const json* v) {
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return std::to_string(v->get<int64_t>());
  if (v->is_number()) return v->dump();
  return "";
}

class Converter {
 public:
  explicit Converter(ConversionResult& r) : r_(r) {}

  void run(const json& doc) {
    json out = json::object();
    out["apiVersion"] = kApiVersion;
    out["kind"] = kKind;
    if (const json* m = member(doc, "metadata")) out["metadata"] = *m;
    const json* spec = member(doc, "spec");
    if (spec && !spec->is_object()) {
      error("spec", "must be an object");
      spec = nullptr;
    }
    out["spec"] = spec ? convert_spec(*spec) : json::object();
    r_.dgd = std::move(out);
  }

 private:
  void error(const std::string& path, const std::string& message) { r_.errors.push_back({path, message}); }

  json convert_spec(const json& spec) {
    json out = json::object();
    for (auto it = spec.begin(); it != spec.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      if (v.is_null()) continue;
      if (k == "annotations" || k == "labels" || k == "priorityClassName" || k == "backendFramework" ||
          k == "providerOverride" || k == "restart" || k == "topologyConstraint" || k == "experimental") {
        out[k] = v;  // the same field in both versions
      } else if (k == "envs") {
        out["env"] = v;
      } else if (k == "pvcs") {
        convert_pvcs(v);
      } else if (k != "services") {
        error("spec." + shown(k), "unknown v1alpha1 field");
      }
    }
    if (const json* services = member(spec, "services")) {
      if (!services->is_object()) {
        error("spec.services", "must be a map of service name to service");
      } else {
        // Upstream emits the map's keys in sorted order (nlohmann's object order).
        json components = json::array();
        for (auto it = services->begin(); it != services->end(); ++it) {
          if (it.value().is_null()) continue;
          components.push_back(convert_service(it.key(), it.value(), "spec.services." + shown(it.key())));
        }
        out["components"] = std::move(components);
      }
    }
    return out;
  }

  // spec.pvcs: a PVC with create: true becomes a PersistentVolumeClaim document (upstream's
  // operator creates it from an annotation the v1beta1 object keeps); the others exist.
  void convert_pvcs(const json& pvcs) {
    if (!pvcs.is_array()) return error("spec.pvcs", "must be a list");
    for (size_t i = 0; i < pvcs.size(); ++i) {
      const json& p = pvcs[i];
      const std::string path = "spec.pvcs[" + std::to_string(i) + "]";
      if (!p.is_object()) {
        error(path, "must be an object");
        continue;
      }
      const std::string name = text(member(p, "name"));
      if (name.empty()) error(path + ".name", "required");
      if (!is_true(member(p, "create"))) continue;
      json claim = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", {{"name", name}}}};
      json& cs = claim["spec"];
      cs["accessModes"] = json::array({text(member(p, "volumeAccessMode")).empty()
                                           ? std::string("ReadWriteOnce")
                                           : text(member(p, "volumeAccessMode"))});
      if (const json* sc = member(p, "storageClass")) cs["storageClassName"] = *sc;
      const std::string size = text(member(p, "size"));
      if (size.empty()) error(path + ".size", "required with create: true");
      cs["resources"]["requests"]["storage"] = size;
      r_.claims.push_back(std::move(claim));
    }
  }

  json convert_service(const std::string& name, const json& svc, const std::string& path) {
    json c = json::object();
    c["name"] = name;
    if (!svc.is_object()) {
      error(path, "must be an object");
      return c;
    }
    const std::string component_type = text(member(svc, "componentType"));
    const std::string sub_type = text(member(svc, "subComponentType"));
    if (component_type == "worker" && (sub_type == "prefill" || sub_type == "decode")) {
      c["type"] = sub_type;  // v1beta1 promotes the worker sub-types to component types
    } else {
      if (!component_type.empty()) c["type"] = component_type;
      if (!sub_type.empty()) {
        error(path + ".subComponentType", "\"" + shown(sub_type) + "\" with componentType \"" + shown(component_type) +
                                              "\" has no v1beta1 form: v1beta1 types are frontend, worker, prefill, "
                                              "decode, planner, epp");
      }
    }
    static const std::set<std::string> kSame = {"replicas", "minAvailable", "globalDynamoNamespace",
                                                "runtimeVersionOverride", "multinode", "roles", "modelRef",
                                                "topologyConstraint", "eppConfig", "providerOverride", "lpx"};
    static const std::set<std::string> kPodFields = {"resources", "envs", "envFromSecret", "volumeMounts",
                                                     "livenessProbe", "readinessProbe", "extraPodSpec",
                                                     "extraPodMetadata"};
    json experimental = json::object();
    for (auto it = svc.begin(); it != svc.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      const std::string p = path + "." + shown(k);
      if (v.is_null() || k == "componentType" || k == "subComponentType" || k == "serviceName" ||
          kPodFields.count(k)) {
        continue;
      }
      if (kSame.count(k)) {
        c[k] = v;
      } else if (k == "sharedMemory") {
        if (is_true(member(v, "disabled"))) {
          c["sharedMemorySize"] = "0";
        } else if (!text(member(v, "size")).empty()) {
          c["sharedMemorySize"] = text(member(v, "size"));
        }
      } else if (k == "scalingAdapter") {
        if (is_true(member(v, "enabled"))) c["scalingAdapter"] = json::object();
      } else if (k == "gpuMemoryService" || k == "failover" || k == "checkpoint") {
        // Enabled blocks move under experimental without their enabled flag (checkpoint
        // keeps it: it is part of v1beta1's checkpoint config); disabled ones are absent.
        if (!v.is_object() || !is_true(member(v, "enabled"))) continue;
        json moved = v;
        if (k != "checkpoint") moved.erase("enabled");
        // v1beta1 capitalises the GPU Memory Service modes (gmsModeToV1beta1).
        if (k != "checkpoint" && moved.contains("mode") && moved["mode"].is_string()) {
          std::string mode = moved["mode"].get<std::string>();
          if (mode == "intraPod" || mode == "interPod") moved["mode"] = "I" + mode.substr(1);
        }
        experimental[k] = std::move(moved);
      } else if (k == "dynamoNamespace") {
        error(p, "deprecated and without a v1beta1 field (the Dynamo namespace is <namespace>-<dgd>): remove it, "
                 "or set globalDynamoNamespace: true for the namespace dynamo");
      } else if (k == "autoscaling") {
        error(p, "deprecated and ignored upstream; v1beta1 has no field: remove it (scale with replicas)");
      } else if (k == "ingress") {
        error(p, "per-service ingress has no v1beta1 field: remove it and create an Ingress for the "
                 "frontend Service yourself");
      } else if (k == "annotations" || k == "labels") {
        error(p, "per-service " + k + " have no v1beta1 field: put them under extraPodMetadata (pod "
                 "metadata) or spec." + k + " (every child)");
      } else if (k == "frontendSidecar") {
        error(p, "a frontend sidecar is not supported by dgd-operator: add a component of type frontend instead");
      } else {
        error(p, "unknown v1alpha1 field");
      }
    }
    if (!experimental.empty()) c["experimental"] = std::move(experimental);

    // volumeMounts: the first useAsCompilationCache mount becomes compilationCache.
    std::set<size_t> cache_mounts;
    if (const json* vms = member(svc, "volumeMounts"); vms && vms->is_array()) {
      for (size_t i = 0; i < vms->size(); ++i) {
        const json& vm = (*vms)[i];
        if (!is_true(member(vm, "useAsCompilationCache"))) continue;
        if (c.contains("compilationCache")) {
          error(path + ".volumeMounts[" + std::to_string(i) + "].useAsCompilationCache",
                "only one compilation cache per service: v1beta1 has one compilationCache");
          continue;
        }
        cache_mounts.insert(i);
        json cache = {{"pvcName", text(member(vm, "name"))}};
        if (!text(member(vm, "mountPoint")).empty()) cache["mountPath"] = text(member(vm, "mountPoint"));
        c["compilationCache"] = std::move(cache);
      }
    }
    if (json pt = pod_template(svc, path, cache_mounts); !pt.is_null()) c["podTemplate"] = std::move(pt);
    return c;
  }

  // v1alpha1's resources item {cpu, memory, gpu, gpuType, custom} → a ResourceList.
  json resource_list(const json& item, const std::string& path) {
    json out = json::object();
    if (!item.is_object()) {
      error(path, "must be an object");
      return out;
    }
    if (const json* v = member(item, "cpu")) out["cpu"] = text(v);
    if (const json* v = member(item, "memory")) out["memory"] = text(v);
    if (const json* v = member(item, "gpu")) {
      std::string key = text(member(item, "gpuType"));
      out[key.empty() ? kDefaultGpuResource : key] = text(v);
    }
    if (const json* custom = member(item, "custom"); custom && custom->is_object()) {
      for (auto it = custom->begin(); it != custom->end(); ++it) out[it.key()] = text(&it.value());
    }
    for (auto it = out.begin(); it != out.end();) {
      it = it.value().get<std::string>().empty() ? out.erase(it) : std::next(it);
    }
    return out;
  }

  // Upstream's mergeEnvs: `over` replaces an entry of the same name in place, else appends.
  static json merge_envs(json base, const json& over) {
    if (!base.is_array()) base = json::array();
    if (!over.is_array()) return base;
    for (const auto& e : over) {
      auto same = std::find_if(base.begin(), base.end(), [&](const json& b) {
        return b.is_object() && e.is_object() && b.value("name", json()) == e.value("name", json());
      });
      if (same != base.end()) *same = e;
      else base.push_back(e);
    }
    return base;
  }

  // A field of extraPodSpec.mainContainer overrides the dedicated one (mergo WithOverride:
  // objects merge key by key, any other set value replaces).
  static void override_merge(json& base, const json& over) {
    for (auto it = over.begin(); it != over.end(); ++it) {
      const json& v = it.value();
      if (v.is_null()) continue;
      json& b = base[it.key()];
      if (v.is_object() && b.is_object()) override_merge(b, v);
      else if (!(v.is_array() && v.empty()) && !(v.is_object() && v.empty())) b = v;
    }
  }

  json pod_template(const json& svc, const std::string& path, const std::set<size_t>& cache_mounts) {
    const json* resources = member(svc, "resources");
    const json* envs = member(svc, "envs");
    const json* env_from_secret = member(svc, "envFromSecret");
    const json* vms = member(svc, "volumeMounts");
    const json* liveness = member(svc, "livenessProbe");
    const json* readiness = member(svc, "readinessProbe");
    const json* eps = member(svc, "extraPodSpec");
    const json* epm = member(svc, "extraPodMetadata");
    bool plain_mounts = false;
    if (vms && vms->is_array()) {
      for (size_t i = 0; i < vms->size(); ++i) plain_mounts = plain_mounts || !cache_mounts.count(i);
    }
    if (!resources && !envs && !env_from_secret && !plain_mounts && !liveness && !readiness && !eps && !epm) {
      return nullptr;
    }
    json pt = json::object();
    if (epm && epm->is_object()) {
      for (const char* k : {"annotations", "labels"}) {
        if (const json* v = member(*epm, k); v && !v->empty()) pt["metadata"][k] = *v;
      }
    }
    json pod_spec = json::object();
    const json* main_override = nullptr;
    if (eps) {
      if (!eps->is_object()) {
        error(path + ".extraPodSpec", "must be an object");
      } else {
        for (auto it = eps->begin(); it != eps->end(); ++it) {
          if (it.key() == "mainContainer") main_override = it.value().is_object() ? &it.value() : nullptr;
          else if (!it.value().is_null()) pod_spec[it.key()] = it.value();
        }
      }
    }

    // Container main from the dedicated fields.
    json main = {{"name", kMain}};
    if (resources && resources->is_object()) {
      json req = json::object();
      for (const char* kind : {"requests", "limits"}) {
        if (const json* item = member(*resources, kind)) {
          json list = resource_list(*item, path + ".resources." + kind);
          if (!list.empty()) req[kind] = std::move(list);
        }
      }
      if (const json* claims = member(*resources, "claims")) req["claims"] = *claims;
      if (!req.empty()) main["resources"] = std::move(req);
    }
    if (envs) main["env"] = *envs;
    if (!text(env_from_secret).empty()) {
      main["envFrom"] = json::array({{{"secretRef", {{"name", text(env_from_secret)}}}}});
    }
    if (liveness) main["livenessProbe"] = *liveness;
    if (readiness) main["readinessProbe"] = *readiness;
    json dedicated_mounts = json::array();
    std::vector<std::string> claim_names;
    if (vms && vms->is_array()) {
      for (size_t i = 0; i < vms->size(); ++i) {
        if (cache_mounts.count(i)) continue;  // rendered from compilationCache
        const json& vm = (*vms)[i];
        const std::string name = text(member(vm, "name"));
        dedicated_mounts.push_back({{"name", name}, {"mountPath", text(member(vm, "mountPoint"))}});
        claim_names.push_back(name);
      }
    }
    if (!dedicated_mounts.empty()) main["volumeMounts"] = dedicated_mounts;

    if (main_override) {
      json over = *main_override;
      over.erase("name");  // it is always main
      json base_env = main.contains("env") ? main["env"] : json::array();
      override_merge(main, over);
      json env = merge_envs(base_env, over.value("env", json::array()));
      if (!env.empty()) main["env"] = std::move(env);
      // The v1alpha1 renderer put mainContainer's mounts first, then the dedicated ones.
      json mounts = over.value("volumeMounts", json::array());
      if (!mounts.is_array()) mounts = json::array();
      for (auto& m : dedicated_mounts) mounts.push_back(m);
      if (!mounts.empty()) main["volumeMounts"] = std::move(mounts);
    }

    json containers = json::array({std::move(main)});
    if (const json* cs = member(pod_spec, "containers"); cs && cs->is_array()) {
      for (const auto& ctr : *cs) {
        if (!(ctr.is_object() && ctr.value("name", json()) == kMain)) containers.push_back(ctr);
      }
    }
    pod_spec["containers"] = std::move(containers);
    // Upstream's renderer adds a PVC volume for a mount that names no volume; the v1beta1
    // file states it.
    for (const auto& claim : claim_names) {
      if (claim.empty()) continue;
      json& volumes = pod_spec["volumes"];
      if (!volumes.is_array()) volumes = json::array();
      bool present = std::any_of(volumes.begin(), volumes.end(),
                                 [&](const json& v) { return v.is_object() && v.value("name", json()) == claim; });
      if (!present) volumes.push_back({{"name", claim}, {"persistentVolumeClaim", {{"claimName", claim}}}});
    }
    pt["spec"] = std::move(pod_spec);
    return pt;
  }

  ConversionResult& r_;
};

}  // namespace

bool is_v1alpha1_dgd(const nlohmann::json& doc) {
  return doc.is_object() && doc.value("apiVersion", json()) == kV1alpha1ApiVersion &&
         doc.value("kind", json()) == kKind;
}

ConversionResult convert_v1alpha1(const nlohmann::json& doc) {
  ConversionResult r;
  Converter(r).run(doc);
  return r;
}

}  // namespace dgd::api
