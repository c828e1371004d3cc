#include "kubesim/cluster/cluster.h"

#include "kubesim/api_error.h"
#include "kubesim/cluster/controllers.h"
#include "kubesim/cluster/profile.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>

namespace kubesim::cluster {
namespace {

using Steady = std::chrono::steady_clock;

std::pair<std::string, std::string> split_api_version(const std::string& av) {
  auto slash = av.find('/');
  if (slash == std::string::npos) return {"", av};
  return {av.substr(0, slash), av.substr(slash + 1)};
}

const char* op_name(Write::Op op) {
  switch (op) {
    case Write::Op::kCreate: return "create";
    case Write::Op::kUpdate: return "update";
    case Write::Op::kUpdateStatus: return "update status";
    case Write::Op::kBind: return "bind";
    case Write::Op::kDelete: return "delete";
  }
  return "?";
}

class ClusterController : public Controller {
 public:
  ClusterController(const ClusterOptions& opts, StorageClasses storage)
      : controllers_(opts.kubelet, std::move(storage)), rng_(std::random_device{}()) {}

  std::string name() const override { return "cluster"; }

  void run(Store& store, const std::atomic<bool>& stop) override {
    TimePoint wake = TimePoint::min();  // first pass at once
    uint64_t last_pass_rv = 0, last_inputs_rv = 0;
    while (!stop) {
      uint64_t seen = store.current_rv();
      // Writes only to what no controller reads (Leases, Events, custom resources): no pass.
      if (seen != last_pass_rv && Clock::now() < wake && inputs_rv(store) == last_inputs_rv) last_pass_rv = seen;
      // Idle: nothing changed and no timer due. Sleep in short slices so `stop` is seen.
      if (seen == last_pass_rv && Clock::now() < wake) {
        auto slice = Steady::now() + std::chrono::milliseconds(250);
        if (wake != TimePoint::max()) {
          auto at = Steady::now() + std::chrono::duration_cast<Steady::duration>(wake - Clock::now()) +
                    std::chrono::milliseconds(1);
          if (at < slice) slice = at;
        }
        store.wait_for_change(seen, slice);
        continue;
      }
      last_pass_rv = seen;
      last_inputs_rv = inputs_rv(store);  // before the lists: a later write is seen next time
      wake = TimePoint::max();
      size_t planned = 0;
      try {
        const Snapshot& snap = read(store);
        Env env{Clock::now(), [this](size_t n) { return suffix(n); }};
        Writes writes = controllers_.sync(snap, env, &wake);
        planned = writes.size();
        for (const auto& w : writes) apply(store, w);
      } catch (const std::exception& e) {
        spdlog::warn("kube-sim cluster: pass failed: {}", e.what());
        wake = Clock::now() + std::chrono::milliseconds(500);
      }
      // Our own writes move the resourceVersion, so a pass that wrote is followed
      // by another one at once. Writes that all failed are retried a little later.
      if (planned > 0) {
        TimePoint retry = Clock::now() + std::chrono::milliseconds(200);
        if (retry < wake) wake = retry;
      }
    }
  }

 private:
  std::string suffix(size_t n) {
    std::uniform_int_distribution<size_t> d(0, std::char_traits<char>::length(kNameAlphabet) - 1);
    std::string s;
    for (size_t i = 0; i < n; ++i) s += kNameAlphabet[d(rng_)];
    return s;
  }

  // The last write to anything the controllers read (and to CRDs, which decide what is served).
  static uint64_t inputs_rv(Store& store) {
    static const char* const kInputs[][3] = {
        {"", "v1", "nodes"},          {"", "v1", "pods"},
        {"", "v1", "namespaces"},     {"", "v1", "persistentvolumeclaims"},
        {"apps", "v1", "deployments"}, {"apps", "v1", "replicasets"},
        {"batch", "v1", "jobs"},      {"resource.nvidia.com", "v1beta1", "computedomains"},
        {"resource.k8s.io", "v1beta1", "resourceclaimtemplates"},
        {"apiextensions.k8s.io", "v1", "customresourcedefinitions"}};
    uint64_t last = 0;
    for (const auto& in : kInputs)
      if (ResourceTypePtr t = store.registry().find(in[0], in[1], in[2])) last = std::max(last, store.resource_rv(*t));
    return last;
  }

  // The objects of one resource, listed again only when a write touched it since the
  // previous pass (nodes, namespaces, PVCs... rarely change while pods churn).
  void list(Store& store, const std::string& group, const std::string& version, const std::string& plural,
            std::vector<Json>& into, bool* served = nullptr) {
    ResourceTypePtr t = store.registry().find(group, version, plural);
    if (served) *served = t != nullptr;
    const std::string key = group + "/" + version + "/" + plural;
    if (!t) {
      listed_at_.erase(key);
      into.clear();
      return;
    }
    uint64_t changed = store.resource_rv(*t);
    auto it = listed_at_.find(key);
    if (it != listed_at_.end() && it->second >= changed) return;
    // The list is taken after reading `changed`: it holds at least that state.
    ListResult r = store.list(*t, ListOptions{});
    into = std::move(r.items);
    listed_at_[key] = r.rv;
  }

  const Snapshot& read(Store& store) {
    Snapshot& s = snap_;
    list(store, "", "v1", "nodes", s.nodes);
    list(store, "", "v1", "pods", s.pods);
    list(store, "", "v1", "namespaces", s.namespaces);
    list(store, "", "v1", "persistentvolumeclaims", s.pvcs);
    list(store, "apps", "v1", "deployments", s.deployments);
    list(store, "apps", "v1", "replicasets", s.replicasets);
    list(store, "batch", "v1", "jobs", s.jobs);
    list(store, "resource.nvidia.com", "v1beta1", "computedomains", s.compute_domains);
    list(store, "resource.k8s.io", "v1beta1", "resourceclaimtemplates", s.claim_templates, &s.claim_templates_served);
    return s;
  }

  void apply(Store& store, const Write& w) {
    auto [group, version] = split_api_version(w.api_version);
    ResourceTypePtr t = store.registry().find(group, version, w.resource);
    if (!t) t = store.registry().find_any_version(group, w.resource);
    if (!t) return;
    WriteOptions o;
    o.field_manager = w.manager;
    try {
      switch (w.op) {
        case Write::Op::kCreate:
          store.create(*t, w.ns, w.object, o);
          break;
        case Write::Op::kUpdate:
          store.update(*t, w.ns, w.name, w.object, o);
          break;
        case Write::Op::kUpdateStatus:
          if (t->has_status) o.subresource = "status";
          store.update(*t, w.ns, w.name, w.object, o);
          break;
        case Write::Op::kBind:
          bind(store, *t, w, o);
          break;
        case Write::Op::kDelete: {
          DeleteOptions d;
          d.propagation = w.propagation;
          d.precondition_uid = uid_of(w.object);
          store.remove(*t, w.ns, w.name, d);
          break;
        }
      }
      spdlog::debug("kube-sim cluster: {} {} {}/{}: {}", op_name(w.op), w.resource, w.ns, w.name, w.why);
    } catch (const ApiError& e) {
      // Lost races are normal: the next pass sees the new state and decides again.
      if (e.code() == 409 || e.code() == 404)
        spdlog::debug("kube-sim cluster: {} {} {}/{} skipped: {}", op_name(w.op), w.resource, w.ns, w.name, e.what());
      else
        spdlog::warn("kube-sim cluster: {} {} {}/{} failed ({}): {}", op_name(w.op), w.resource, w.ns, w.name,
                     e.code(), e.what());
    }
  }

  // pods/binding: spec.nodeName, then the PodScheduled condition.
  static void bind(Store& store, const ResourceType& t, const Write& w, WriteOptions o) {
    const std::string uid = uid_of(w.object);
    o.binding = true;
    store.mutate(
        t, w.ns, w.name,
        [&](const Json* cur) {
          if (!cur || uid_of(*cur) != uid || !str_at(*cur, {"spec", "nodeName"}).empty() || is_terminating(*cur))
            throw ApiError::conflict("", "pods", w.name, "the pod is already bound or gone");
          Json next = *cur;
          next["spec"]["nodeName"] = w.node;
          return next;
        },
        o);
    o.binding = false;
    o.subresource = "status";
    store.mutate(
        t, w.ns, w.name,
        [&](const Json* cur) {
          if (!cur) throw ApiError::not_found("", "pods", w.name);
          Json next = *cur;
          Json& conds = next["status"]["conditions"];
          set_condition(conds, "PodScheduled", "True", "", "", Clock::now());
          for (auto& c : conds)
            if (c.value("type", "") == "PodScheduled") c["lastProbeTime"] = nullptr;
          if (!next["status"].contains("phase")) next["status"]["phase"] = "Pending";
          return next;
        },
        o);
  }

  ClusterControllers controllers_;
  std::mt19937_64 rng_;
  Snapshot snap_;                                   // the last pass's objects, refreshed per resource
  std::map<std::string, uint64_t> listed_at_;      // "group/version/plural" -> rv of its list in snap_
};

void install_nodes(Store& store, const Profile& p) {
  ResourceTypePtr t = store.registry().find("", "v1", "nodes");
  if (!t) throw std::runtime_error("kube-sim has no nodes resource");
  WriteOptions o;
  o.field_manager = "kubelet";
  size_t created = 0;
  for (const auto& node : p.nodes) {
    if (store.try_get(*t, "", name_of(node))) continue;
    Json created_obj = store.create(*t, "", node, o);
    Json with_status = created_obj;
    with_status["status"] = node["status"];
    WriteOptions so = o;
    so.subresource = "status";
    store.update(*t, "", name_of(node), with_status, so);
    ++created;
  }
  spdlog::info("kube-sim cluster: profile {}: {} nodes ({} created)", p.name, p.nodes.size(), created);
}

}  // namespace

std::unique_ptr<Controller> make_cluster(Store& store, const ClusterOptions& opts) {
  if (opts.profile.empty()) return nullptr;
  Profile p = load_profile(resolve_profile_path(opts.profile), Clock::now());
  install_nodes(store, p);
  return std::make_unique<ClusterController>(opts, p.storage);
}

}  // namespace kubesim::cluster
