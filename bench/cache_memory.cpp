// The operator's cache at N = 1000 DGDs, modelled without a cluster: bytes per cached
// object of every kind (as the operator caches them: pods and nodes projected,
// reconcile/cache_fields.h; with and without the values shared across objects,
// runtime/shared_text.h), which parts of a worker Deployment hold its bytes, and the peak RSS of listing and caching the
// whole N = 1000 mix (the scale bench's four recipes: 1,000 DGDs, their 9,000 rendered
// children, their pods, and the 1,687 nodes of the bench profile) the way the informers
// do it, in pages (of 500, and 100), one kind after the other:
//   dom          baseline: each page parsed into a DOM, each item compacted (CachedObject::make)
//   text         each page read from its text (decode_list_page), no projection
//   text+fields  the same with the pod and node projections
//   text+fields+shared  the same with values shared across objects (what the operator does)
// Objects are rendered by the real pipeline and given what the API server adds
// (uid, resourceVersion, managedFields, defaults, status) in kube-sim's shapes. Each mode
// runs in a forked child, so its peak RSS (VmHWM) is its own.
//   bench_cache_memory --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/cache_fields.h"
#include "dgd/render/render.h"
#include "dgd/runtime/list_page.h"
#include "dgd/runtime/shared_text.h"
#include "dgd/runtime/store.h"

namespace {

using nlohmann::json;

constexpr int kDgds = 1000;
constexpr int kNodes = 1687;  // bench/scale.py's profile at N = 1000: 938 H200, 625 B200, 124 CPU
const char* kMix[] = {"deepseek-v4.1-flash/vllm/agg-h200-agentic", "deepseek-v4.1-flash/vllm/disagg-h200-agentic",
                      "deepseek-v4.1-flash/vllm/agg-b200-agentic", "deepseek-v4.1-flash/vllm/disagg-b200-agentic"};
const char* kTime = "2026-11-30T12:00:00Z";

std::string uid(const std::string& seed, int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-4b2d-4c1e-9f7a-%012d", static_cast<unsigned>(std::hash<std::string>()(seed)), i);
  return buf;
}

// managedFields as the server writes them: the object's field set, one entry per manager.
json fields_of(const json& v) {
  json f = json::object();
  if (!v.is_object()) return f;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "metadata" || it.key() == "status") continue;
    f["f:" + it.key()] = fields_of(it.value());
  }
  return f;
}

void serverize(json& o, const std::string& manager, int i, const std::string& subresource_status = "") {
  auto& m = o["metadata"];
  m["uid"] = uid(m.value("name", "") + m.value("namespace", ""), i);
  m["resourceVersion"] = std::to_string(100000 + i);
  m["creationTimestamp"] = kTime;
  m["generation"] = 1;
  json mf = json::array({{{"apiVersion", o.value("apiVersion", "v1")}, {"fieldsType", "FieldsV1"},
                          {"fieldsV1", fields_of(o)}, {"manager", manager}, {"operation", "Apply"}, {"time", kTime}}});
  if (!subresource_status.empty()) {
    mf.push_back({{"apiVersion", o.value("apiVersion", "v1")}, {"fieldsType", "FieldsV1"},
                  {"fieldsV1", {{"f:status", fields_of(o["status"])}}}, {"manager", subresource_status},
                  {"operation", "Update"}, {"subresource", "status"}, {"time", kTime}});
  }
  m["managedFields"] = mf;
}

json condition(const std::string& type, const std::string& reason = "") {
  json c = {{"type", type}, {"status", "True"}, {"lastTransitionTime", kTime}, {"lastProbeTime", nullptr}};
  if (!reason.empty()) c["reason"] = reason, c["message"] = reason;
  return c;
}

// A pod of `d` as the ReplicaSet controller, scheduler and kubelet leave it (kube-sim's shape).
json pod_of(const json& d, int i, int replica) {
  const auto& tmpl = d["spec"]["template"];
  const std::string rs = d["metadata"]["name"].get<std::string>() + "-794b79b55";
  json p = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  p["metadata"] = tmpl.value("metadata", json::object());
  p["metadata"]["name"] = rs + "-" + std::to_string(10000 + replica);
  p["metadata"]["generateName"] = rs + "-";
  p["metadata"]["namespace"] = d["metadata"]["namespace"];
  p["metadata"]["labels"]["pod-template-hash"] = "794b79b55";
  p["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", rs},
                                                   {"uid", uid(rs, i)}, {"controller", true},
                                                   {"blockOwnerDeletion", true}}});
  json spec = tmpl["spec"];
  for (auto& c : spec["containers"]) {
    c["terminationMessagePath"] = "/dev/termination-log";
    c["terminationMessagePolicy"] = "File";
    c["imagePullPolicy"] = "IfNotPresent";
  }
  spec["dnsPolicy"] = "ClusterFirst";
  spec["enableServiceLinks"] = true;
  spec["nodeName"] = "h200-" + std::to_string(i % 938);
  spec["preemptionPolicy"] = "PreemptLowerPriority";
  spec["priority"] = 0;
  spec["restartPolicy"] = "Always";
  spec["schedulerName"] = "default-scheduler";
  spec["securityContext"] = json::object();
  spec["terminationGracePeriodSeconds"] = 30;
  spec["tolerations"].push_back({{"effect", "NoExecute"}, {"key", "node.kubernetes.io/not-ready"},
                                 {"operator", "Exists"}, {"tolerationSeconds", 300}});
  spec["tolerations"].push_back({{"effect", "NoExecute"}, {"key", "node.kubernetes.io/unreachable"},
                                 {"operator", "Exists"}, {"tolerationSeconds", 300}});
  p["spec"] = spec;
  json statuses = json::array();
  for (const auto& c : spec["containers"]) {
    statuses.push_back({{"containerID", "containerd://" + std::string(64, 'a')}, {"image", c.value("image", "")},
                        {"imageID", c.value("image", "") + "@sha256:" + std::string(64, 'b')}, {"lastState", json::object()},
                        {"name", c["name"]}, {"ready", true}, {"restartCount", 0}, {"started", true},
                        {"state", {{"running", {{"startedAt", kTime}}}}}});
  }
  p["status"] = {{"phase", "Running"},
                 {"conditions", json::array({condition("PodReadyToStartContainers"), condition("Initialized"),
                                             condition("Ready"), condition("ContainersReady"), condition("PodScheduled")})},
                 {"containerStatuses", statuses}, {"hostIP", "10.0.0.11"}, {"hostIPs", json::array({{{"ip", "10.0.0.11"}}})},
                 {"podIP", "10.65.44.2"}, {"podIPs", json::array({{{"ip", "10.65.44.2"}}})}, {"qosClass", "BestEffort"},
                 {"startTime", kTime}};
  serverize(p, "kube-controller-manager", i, "kubelet");
  return p;
}

// A node as kube-sim's bench profile makes it.
json node(int i) {
  const bool h200 = i < 938, b200 = !h200 && i < 938 + 625;
  const std::string name = h200 ? "h200-" + std::to_string(i) : b200 ? "b200-" + std::to_string(i - 938)
                                                                     : "cpu-" + std::to_string(i - 1563);
  json labels = {{"beta.kubernetes.io/arch", "amd64"}, {"beta.kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", "amd64"}, {"kubernetes.io/hostname", name},
                 {"kubernetes.io/os", "linux"}, {"sim.dgd.dev/pool", name.substr(0, name.find('-'))}};
  json alloc = {{"cpu", "64"}, {"ephemeral-storage", "2Ti"}, {"memory", "512Gi"}, {"pods", "110"}};
  json n = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}, {"labels", labels}}},
            {"spec", json::object()}};
  if (h200 || b200) {
    labels["nvidia.com/gpu.count"] = "8";
    labels["nvidia.com/gpu.present"] = "true";
    labels["nvidia.com/gpu.product"] = h200 ? "NVIDIA-H200" : "NVIDIA-B200";
    n["metadata"]["labels"] = labels;
    n["spec"]["taints"] = json::array({{{"effect", "NoSchedule"}, {"key", "nvidia.com/gpu"}}});
    alloc = {{"cpu", "224"}, {"ephemeral-storage", "28Ti"}, {"memory", "3900Gi"}, {"nvidia.com/gpu", "8"},
             {"pods", "110"}, {"rdma/ib", "8"}};
  }
  json conds = json::array();
  for (const char* t : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    conds.push_back({{"type", t}, {"status", std::string(t) == "Ready" ? "True" : "False"},
                     {"lastHeartbeatTime", kTime}, {"lastTransitionTime", kTime},
                     {"reason", std::string("Kubelet") + t}, {"message", std::string("kubelet reports ") + t}});
  }
  n["status"] = {{"addresses", json::array({{{"address", "10.0.0.211"}, {"type", "InternalIP"}},
                                            {{"address", name}, {"type", "Hostname"}}})},
                 {"allocatable", alloc}, {"capacity", alloc}, {"conditions", conds},
                 {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
                 {"nodeInfo", {{"architecture", "amd64"}, {"bootID", "401481024"},
                               {"containerRuntimeVersion", "containerd://1.7.24"},
                               {"kernelVersion", "6.8.0-1021-nvidia"}, {"kubeProxyVersion", "v1.32.0"},
                               {"kubeletVersion", "v1.32.0"}, {"machineID", "401481024"},
                               {"operatingSystem", "linux"}, {"osImage", "Ubuntu 22.04.5 LTS"},
                               {"systemUUID", "401481024"}}}};
  serverize(n, "kubelet", i);
  return n;
}

// Every object of the N = 1000 mix as the server's JSON text, by resource.
struct Mix {
  std::map<std::string, std::vector<std::string>> by_resource;
  size_t objects() const {
    size_t n = 0;
    for (const auto& [r, v] : by_resource) n += v.size();
    return n;
  }
};

const Mix& mix() {
  static const Mix m = [] {
    Mix out;
    std::vector<std::vector<json>> rendered;
    std::vector<json> users;
    for (const char* recipe : kMix) {
      const std::string text = std::string("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
                                           "metadata: {name: benchgraph, namespace: bench}\nspec:\n  recipe: ") + recipe + "\n";
      auto parsed = dgd::api::parse(text);
      auto graph = dgd::recipes::expand(dgd::recipes::Catalog::builtin(), parsed.dgd).graph;
      rendered.push_back(dgd::render::render(graph).objects);
      users.push_back(json::parse(R"({"apiVersion":"nvidia.com/v1beta1","kind":"DynamoGraphDeployment",
        "metadata":{"name":"benchgraph","namespace":"bench"},"spec":{"recipe":")" + std::string(recipe) + "\"}}"));
    }
    for (int i = 0; i < kDgds; ++i) {
      const size_t r = static_cast<size_t>(i) % rendered.size();
      const std::string ns = "bench-" + std::to_string(i / 10), name = "dgd-" + std::to_string(i);
      auto rename = [&](std::string s) {
        for (size_t at = 0; (at = s.find("benchgraph", at)) != std::string::npos; at += name.size()) s.replace(at, 10, name);
        return s;
      };
      json dgd = users[r];
      dgd["metadata"]["name"] = name;
      dgd["metadata"]["namespace"] = ns;
      dgd["status"] = {{"observedGeneration", 1},
                       {"conditions", json::array({condition("Ready", "AllComponentsReady"),
                                                   condition("Placement", "AllPodsBound"),
                                                   condition("ModelCache", "Downloaded")})},
                       {"components", {{"Frontend", {{"replicas", 1}, {"readyReplicas", 1}}},
                                       {"DecodeWorker", {{"replicas", 2}, {"readyReplicas", 2}}}}}};
      serverize(dgd, "kubectl", i, "dgd-operator");
      out.by_resource["dynamographdeployments"].push_back(dgd.dump());
      for (const json& rendered_obj : rendered[r]) {
        json o = json::parse(rename(rendered_obj.dump()));
        o["metadata"]["namespace"] = ns;
        const std::string kind = o.value("kind", "");
        if (kind == "Deployment") {
          const int replicas = o["spec"].value("replicas", 1);
          o["status"] = {{"observedGeneration", 1}, {"replicas", replicas}, {"readyReplicas", replicas},
                         {"availableReplicas", replicas}, {"updatedReplicas", replicas},
                         {"conditions", json::array({condition("Available", "MinimumReplicasAvailable"),
                                                     condition("Progressing", "NewReplicaSetAvailable")})}};
          for (int k = 0; k < replicas; ++k) out.by_resource["pods"].push_back(pod_of(o, i, k).dump());
        } else if (kind == "Service") {
          o["spec"]["clusterIP"] = "10.96.0." + std::to_string(i % 250);
          o["spec"]["clusterIPs"] = json::array({o["spec"]["clusterIP"]});
          o["status"] = {{"loadBalancer", json::object()}};
        } else if (kind == "Job") {
          o["status"] = {{"succeeded", 1}, {"completionTime", kTime}, {"startTime", kTime},
                         {"conditions", json::array({condition("Complete")})}};
        }
        serverize(o, "dgd-operator", i, kind == "Deployment" ? "kube-controller-manager" : "");
        std::string plural = kind;
        for (auto& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.by_resource[plural + (plural.back() == 's' ? "es" : "s")].push_back(o.dump());
      }
    }
    for (int i = 0; i < kNodes; ++i) out.by_resource["nodes"].push_back(node(i).dump());
    return out;
  }();
  return m;
}

dgd::runtime::FieldProjection projection_for(const std::string& resource, bool fields) {
  if (!fields) return {};
  if (resource == "pods") return dgd::reconcile::pod_cache_fields();
  if (resource == "nodes") return dgd::reconcile::node_cache_fields();
  return {};
}

// The informers that share values in the operator (src/reconcile/operator.cpp).
bool shared_in_operator(const std::string& resource) {
  return resource == "deployments" || resource == "jobs" || resource == "pods" || resource == "dynamographdeployments";
}

size_t heap_in_use() { return mallinfo2().uordblks; }

// Heap bytes per object the Store holds for `texts` (filled from text, as a watch does).
double store_bytes(const std::vector<std::string>& texts, const dgd::runtime::FieldProjection& projection,
                   dgd::runtime::SharedTextPool* shared, double* compact, double* own) {
  malloc_trim(0);
  const size_t before = heap_in_use();
  auto store = std::make_unique<dgd::runtime::Store>();
  for (const auto& t : texts) store->upsert(dgd::runtime::CachedObject::from_text(t, projection, shared));
  const size_t with = heap_in_use();
  const auto bytes = store->text_bytes();
  *compact = static_cast<double>(bytes.whole) / static_cast<double>(texts.size());
  *own = static_cast<double>(bytes.own) / static_cast<double>(texts.size());
  return static_cast<double>(with - before) / static_cast<double>(texts.size());
}

// The resources of the mix, the worker Deployments (GPU) apart from the Frontends'.
const char* kKinds[] = {"deployments/worker", "deployments/frontend", "pods", "nodes", "services", "jobs",
                        "dynamographdeployments", "serviceaccounts", "roles", "rolebindings"};

std::vector<std::string> texts_of(const std::string& kind) {
  const auto slash = kind.find('/');
  const auto& all = mix().by_resource.at(kind.substr(0, slash));
  if (slash == std::string::npos) return all;
  const bool worker = kind.substr(slash + 1) == "worker";
  std::vector<std::string> out;
  for (const auto& t : all) {
    if ((t.find("nvidia.com/gpu") != std::string::npos) == worker) out.push_back(t);
  }
  return out;
}

// Bytes per cached object of every kind of the N = 1000 mix, as the operator caches it
// (pods and nodes projected). Arg 0: the kind (kKinds); arg 1: values shared across
// objects (shared_text.h) or not.
void BM_CacheBytesPerObject(benchmark::State& state) {
  const std::string kind = kKinds[state.range(0)];
  const std::vector<std::string> texts = texts_of(kind);
  const auto projection = projection_for(kind.substr(0, kind.find('/')), true);
  dgd::runtime::SharedTextPool pool;
  double per_object = 0, compact = 0, own = 0, server = 0;
  for (const auto& t : texts) server += static_cast<double>(t.size());
  for (auto _ : state) per_object = store_bytes(texts, projection, state.range(1) ? &pool : nullptr, &compact, &own);
  state.SetLabel(kind + (state.range(1) ? " shared" : " whole"));
  state.counters["objects"] = static_cast<double>(texts.size());
  state.counters["server_json_B"] = server / static_cast<double>(texts.size());
  state.counters["compact_json_B"] = compact;
  state.counters["own_json_B"] = own;
  state.counters["heap_B_per_object"] = per_object;
  state.counters["heap_MiB_all"] = per_object * static_cast<double>(texts.size()) / 1048576.0;
}
BENCHMARK(BM_CacheBytesPerObject)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Which fields hold a worker Deployment's bytes: compact bytes per object of each part,
// and how many distinct values of it the 1,500 worker Deployments carry (few distinct
// values = shareable across graphs).
const char* kWorkerParts[] = {"/metadata",
                              "/spec/template/metadata",
                              "/spec/template/spec/containers/0/command",
                              "/spec/template/spec/containers/0/args",
                              "/spec/template/spec/containers/0/env",
                              "/spec/template/spec/containers/0/livenessProbe",
                              "/spec/template/spec/containers/0/readinessProbe",
                              "/spec/template/spec/containers/0/startupProbe",
                              "/spec/template/spec/containers/0/resources",
                              "/spec/template/spec/containers/0/volumeMounts",
                              "/spec/template/spec/volumes",
                              "/spec/template/spec/affinity",
                              "/spec/template/spec/tolerations",
                              "/spec/template",
                              "/status",
                              ""};
void BM_WorkerDeploymentParts(benchmark::State& state) {
  const std::string part = kWorkerParts[state.range(0)];
  double bytes = 0;
  std::set<std::string> distinct;
  const auto texts = texts_of("deployments/worker");
  for (auto _ : state) {
    for (const auto& t : texts) {
      json o = json::parse(t);
      dgd::runtime::strip_for_cache(o);
      const json::json_pointer ptr(part);
      if (!o.contains(ptr)) continue;
      const std::string v = o.at(ptr).dump();
      bytes += static_cast<double>(v.size());
      distinct.insert(v);
    }
  }
  state.SetLabel(part.empty() ? "(whole object)" : part);
  state.counters["bytes_per_object"] = bytes / static_cast<double>(texts.size());
  state.counters["distinct_values"] = static_cast<double>(distinct.size());
}
BENCHMARK(BM_WorkerDeploymentParts)->DenseRange(0, 15)->Unit(benchmark::kMillisecond)->Iterations(1);

long status_kib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string want = std::string(field) + ":";
  while (std::getline(f, line)) {
    if (line.compare(0, want.size(), want) == 0) return std::stol(line.substr(want.size()));
  }
  return 0;
}

struct ListRun {
  double peak_mib = 0, cache_mib = 0, objects = 0;
};

// In a forked child: list every resource of the mix in pages, as the informers do, and
// keep every Store. The page text is copied first (it is what the transport hands over).
ListRun list_everything(int mode, size_t page_size) {
  ListRun r;
  int fds[2];
  if (pipe(fds) != 0) return r;
  malloc_trim(0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    { std::ofstream("/proc/self/clear_refs") << "5"; }  // VmHWM := VmRSS
    const long base = status_kib("VmRSS");
    std::vector<std::unique_ptr<dgd::runtime::Store>> stores;
    size_t objects = 0;
    for (const auto& [resource, texts] : mix().by_resource) {
      const auto projection = projection_for(resource, mode >= 2);
      std::vector<dgd::runtime::ObjectPtr> items;
      for (size_t start = 0; start < texts.size(); start += page_size) {
        std::string body = R"({"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"7"},"items":[)";
        for (size_t i = start; i < std::min(texts.size(), start + page_size); ++i) {
          if (i > start) body += ',';
          body += texts[i];
        }
        body += "]}";
        if (mode == 0) {
          json page = json::parse(body);
          body.clear();
          body.shrink_to_fit();
          for (auto& item : page["items"]) items.push_back(dgd::runtime::CachedObject::make(std::move(item)));
        } else {
          dgd::runtime::ListPage page;
          page.items = std::move(items);
          dgd::runtime::decode_list_page(body, projection, mode == 3 && shared_in_operator(resource)
                                                               ? &dgd::runtime::SharedTextPool::global() : nullptr,
                                         page);
          items = std::move(page.items);
        }
      }
      objects += items.size();
      stores.push_back(std::make_unique<dgd::runtime::Store>());
      (void)stores.back()->replace(std::move(items));
      malloc_trim(0);  // the informer returns a list's transient to the OS
    }
    double out[3] = {static_cast<double>(status_kib("VmHWM") - base) / 1024.0,
                     static_cast<double>(status_kib("VmRSS") - base) / 1024.0, static_cast<double>(objects)};
    if (write(fds[1], out, sizeof out) != static_cast<ssize_t>(sizeof out)) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  double in[3] = {0, 0, 0};
  if (read(fds[0], in, sizeof in) == static_cast<ssize_t>(sizeof in)) r = {in[0], in[1], in[2]};
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return r;
}

// Peak and resident RSS growth of listing and caching the whole N = 1000 mix.
// Args: 0 dom, 1 text, 2 text + pod/node projections, 3 the same + shared
// values (the operator now); page size.
void BM_ListAndCacheN1000(benchmark::State& state) {
  const size_t total = mix().objects();
  ListRun r;
  for (auto _ : state) r = list_everything(static_cast<int>(state.range(0)), static_cast<size_t>(state.range(1)));
  static const char* kModes[] = {"dom", "text", "text+fields", "text+fields+shared"};
  state.SetLabel(std::string(kModes[state.range(0)]) + ", pages of " + std::to_string(state.range(1)) + ", " +
                 std::to_string(total) + " objects");
  state.counters["peak_rss_mib"] = r.peak_mib;
  state.counters["cache_rss_mib"] = r.cache_mib;
  state.counters["rss_bytes_per_object"] = r.objects > 0 ? r.cache_mib * 1048576.0 / r.objects : 0;
}
BENCHMARK(BM_ListAndCacheN1000)
    ->Args({0, 500})
    ->Args({1, 500})
    ->Args({2, 500})
    ->Args({2, 100})
    ->Args({3, 100})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
