#include "dgd/reconcile/operator.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <shared_mutex>
#include <thread>

#include <nlohmann/json.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "dgd/kube/metrics.h"
#include "dgd/runtime/condition_gauge.h"
#include "dgd/kube/rest_client.h"
#include "dgd/recipes/catalog.h"
#include "dgd/reconcile/cache_fields.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/render/render.h"
#include "dgd/reconcile/placement_status.h"
#include "dgd/runtime/manager.h"
#include "dgd/reconcile/json_trim.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

// Cluster over informer stores and the (leadership-gated) REST client. Stores of
// kinds that appear late are added under the lock.
class LiveCluster final : public Cluster {
 public:
  explicit LiveCluster(std::shared_ptr<kube::RestClient> client) : client_(std::move(client)) {}

  void set_dgd_store(const runtime::Store* s) { dgds_ = s; }
  void set_store(const ChildKind& kind, const runtime::Store* s) {
    std::unique_lock lock(mu_);
    stores_[kind.resource.to_string()] = s;
  }

  std::optional<json> get_dgd(const std::string& ns, const std::string& name) override {
    auto o = dgds_->get(ns, name);
    if (!o) return std::nullopt;
    return o->object();
  }
  std::optional<json> get_dgd_head(const std::string& ns, const std::string& name) override {
    auto o = dgds_->get(ns, name);
    if (!o) return std::nullopt;
    if (auto head = parse_without(o->json_text(), "spec")) return head;
    return Cluster::get_dgd_head(ns, name);  // not expected: the cache holds valid JSON
  }
  kube::Result<std::optional<json>> read_dgd(const std::string& ns, const std::string& name) override {
    auto r = client_->get(dgd_resource(), ns, name);
    if (r) return std::optional<json>(std::move(r).value());
    if (r.error().is(kube::ErrorKind::kNotFound)) return std::optional<json>();
    return r.error();
  }
  kube::Result<std::optional<json>> read(const kube::ResourceRef& resource, const std::string& ns,
                                         const std::string& name) override {
    auto r = client_->get(resource, ns, name);
    if (r) return std::optional<json>(std::move(r).value());
    if (r.error().is(kube::ErrorKind::kNotFound)) return std::optional<json>();
    return r.error();
  }
  kube::Result<std::vector<json>> list(const kube::ResourceRef& resource, const std::string& ns,
                                       const std::string& label_selector) override {
    kube::ListOptions lo;
    lo.label_selector = label_selector;
    auto r = client_->list(resource, ns, lo);
    if (!r) return r.error();
    std::vector<json> out;
    for (auto& item : (*r)["items"]) out.push_back(std::move(item));
    return out;
  }
  bool serves(const ChildKind& kind) override { return store(kind) != nullptr; }
  std::vector<json> owned(const ChildKind& kind, const std::string& ns, const std::string& owner_uid) override {
    std::vector<json> out;
    if (const runtime::Store* s = store(kind)) {
      for (const auto& o : s->by_owner(owner_uid)) {
        if (o->ns() == ns) out.push_back(o->object());
      }
    }
    return out;
  }
  std::optional<json> cached(const ChildKind& kind, const std::string& ns, const std::string& name) override {
    if (const runtime::Store* s = store(kind)) {
      if (auto o = s->get(ns, name)) return o->object();
    }
    return std::nullopt;
  }
  std::optional<json> cached_status(const ChildKind& kind, const std::string& ns, const std::string& name) override {
    const runtime::Store* s = store(kind);
    if (s == nullptr) return std::nullopt;
    auto o = s->get(ns, name);
    if (!o) return std::nullopt;
    // The pod template is most of the text: cut, never parsed (a status pass reads three
    // Deployments and a Job; building their templates was most of its cost).
    if (auto trimmed = parse_without(o->json_text(), "spec", "template")) return trimmed;
    return Cluster::cached_status(kind, ns, name);  // not expected: the cache holds valid JSON
  }
  kube::Result<json> apply(const ChildKind& kind, const json& object) override {
    const json& m = object.at("metadata");
    return client_->apply(kind.resource, m.value("namespace", ""), m.value("name", ""), object, kFieldManager,
                          /*force=*/true);
  }
  kube::Status remove(const ChildKind& kind, const json& object) override {
    const json& m = object.at("metadata");
    kube::DeleteOptions o;
    o.propagation_policy = "Background";
    o.precondition_uid = m.value("uid", "");
    auto r = client_->remove(kind.resource, m.value("namespace", ""), m.value("name", ""), o);
    if (!r && !r.error().is(kube::ErrorKind::kNotFound)) return r.error();
    return {};
  }
  kube::Result<json> update_status(const json& dgd) override {
    return client_->update_status(dgd_resource(), dgd.value(json::json_pointer("/metadata/namespace"), ""), dgd);
  }
  kube::Status create_event(const json& event) override {
    auto r = client_->create(kube::resources::events(), event.value(json::json_pointer("/metadata/namespace"), ""), event);
    if (!r && !r.error().is(kube::ErrorKind::kAlreadyExists)) return r.error();
    return {};
  }
  // Placement: the operator's pods (label-scoped informer) and every node.
  void set_placement_stores(const runtime::Store* pods, const runtime::Store* nodes) {
    pods_ = pods;
    nodes_ = nodes;
  }
  std::vector<json> dgd_pods(const std::string& ns, const std::string& name) override {
    std::vector<json> out;
    if (pods_ == nullptr) return out;
    // Pods of the DGD's Deployments are named <dgd>-<component>-... (generateName keeps
    // at most 58 characters of that): parse only those.
    const std::string prefix = (name + "-").substr(0, 58);
    for (const auto& o : pods_->list(ns)) {
      if (o->name().compare(0, prefix.size(), prefix) != 0) continue;
      json p = o->object();
      if (dgd_of_pod(p) == name) out.push_back(std::move(p));
    }
    return out;
  }
  std::vector<json> cached_pods() override { return all(pods_); }
  std::vector<json> cached_nodes() override { return all(nodes_); }

 private:
  const runtime::Store* store(const ChildKind& kind) {
    std::shared_lock lock(mu_);
    auto it = stores_.find(kind.resource.to_string());
    return it == stores_.end() ? nullptr : it->second;
  }
  static std::vector<json> all(const runtime::Store* s) {
    std::vector<json> out;
    if (s != nullptr) {
      for (const auto& o : s->list()) out.push_back(o->object());
    }
    return out;
  }
  std::shared_ptr<kube::RestClient> client_;
  const runtime::Store* dgds_ = nullptr;
  const runtime::Store* pods_ = nullptr;
  const runtime::Store* nodes_ = nullptr;
  std::shared_mutex mu_;
  std::map<std::string, const runtime::Store*> stores_;
};

enum class Probe { kServed, kNotServed, kUnknown };

// Whether the server serves `kind`: one list with limit 1. NotFound means no such
// resource (its CRD is missing); other errors leave the question open.
Probe probe(kube::RestClient& client, const ChildKind& kind, const std::string& ns, std::string* why) {
  kube::ListOptions lo;
  lo.limit = 1;
  auto r = client.list(kind.resource, ns, lo);
  if (r) return Probe::kServed;
  *why = r.error().to_string();
  return r.error().is(kube::ErrorKind::kNotFound) ? Probe::kNotServed : Probe::kUnknown;
}

// Worker Deployments and their pods are 7-8 KB of JSON each: a list page of 500 is ~4 MB
// of text, held twice while the transport hands it over, on top of the cache. Pages of
// 100 keep that transient small at the cost of more list requests at start-up.
constexpr int kBigObjectPageSize = 100;

runtime::InformerOptions child_informer(const ChildKind& kind, const std::string& ns) {
  runtime::InformerOptions io;
  io.resource = kind.resource;
  io.ns = ns;
  io.label_selector = child_label_selector();
  io.page_size = kBigObjectPageSize;
  // The pod templates of one recipe's graphs repeat (runtime/shared_text.h).
  io.share_values = kind.resource.kind == "Deployment" || kind.resource.kind == "Job";
  return io;
}

// Placement (placement_status.h): the operator's pods bring their DGD back when where
// they stand changes; nodes bring back the DGDs whose Placement is not True.
void add_placement_informers(runtime::Manager& manager, runtime::Controller& controller, runtime::Informer& dgds,
                             LiveCluster& cluster, const std::string& watch_namespace,
                             std::chrono::milliseconds window) {
  runtime::InformerOptions pio;
  pio.resource = kube::resources::pods();
  pio.ns = watch_namespace;
  pio.label_selector = child_label_selector();
  pio.projection = pod_cache_fields();  // placement's fields only (cache_fields.h)
  pio.page_size = kBigObjectPageSize;
  pio.share_values = true;
  runtime::Informer& pods = manager.add_informer(pio);
  auto wake_owner_of = [&controller, window](const std::string& ns, const json& pod) {
    const std::string dgd = dgd_of_pod(pod);
    if (!dgd.empty()) controller.queue().add_after(ns + "/" + dgd, window);
  };
  auto wake_owner = [wake_owner_of](const runtime::ObjectPtr& pod) { wake_owner_of(pod->ns(), pod->object()); };
  runtime::EventHandler ph;
  ph.on_add = wake_owner;
  ph.on_delete = wake_owner;
  ph.on_update = [wake_owner_of](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    const json b = after->object();  // parsed once: compared, then its owner read
    if (pod_placement_changed(before->object(), b)) wake_owner_of(after->ns(), b);
  };
  pods.add_handler(ph);

  runtime::InformerOptions nio;
  nio.resource = kube::ResourceRef{"", "v1", "nodes", "Node", false};
  nio.projection = node_cache_fields();
  runtime::Informer& nodes = manager.add_informer(nio);
  auto wake_pending = [&controller, &dgds, window] {
    for (const auto& d : dgds.store().list()) {
      if (placement_pending_text(d->json_text())) controller.queue().add_after(d->key(), window);
    }
  };
  runtime::EventHandler nh;
  nh.on_add = [wake_pending](const runtime::ObjectPtr&) { wake_pending(); };
  nh.on_delete = [wake_pending](const runtime::ObjectPtr&) { wake_pending(); };
  nh.on_update = [wake_pending](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    if (node_placement_changed(before->object(), after->object())) wake_pending();
  };
  nodes.add_handler(nh);
  cluster.set_placement_stores(&pods.store(), &nodes.store());
}

// A download Job is owned by its cache PVC, not by a DGD, and several DGDs may wait on
// it (model_cache.h): wake the ones whose latest reconcile used it. (Waking every DGD of
// the namespace cost N reconciles per Job state change: at N = 50 with 10 DGDs per
// namespace, most of the reconciles of a converging fleet.)
runtime::EventHandler wake_dgds_on_download_change(runtime::Controller& controller, DgdReconciler& reconciler,
                                                   std::chrono::milliseconds window) {
  auto wake = [&controller, &reconciler, window](const runtime::ObjectPtr& job) {
    const json obj = job->object();
    if (obj.value("/metadata/labels"_json_pointer, json::object()).count(render::kLabelModelCache) == 0) return;
    for (const auto& key : reconciler.dgds_using_job(job->ns(), job->name())) {
      controller.queue().add_after(key, window);
    }
  };
  runtime::EventHandler h;
  h.on_add = wake;
  h.on_delete = wake;
  h.on_update = [wake](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    const json a = before->object(), b = after->object();
    if (download_state_changed(&a, &b)) wake(after);
  };
  return h;
}

// A child added, deleted or changed outside its status sends its DGD through the full
// pass (DgdReconciler::note_spec_change); a status-only change (a Deployment's replica
// counts) leaves it to the status pass. Added before the handler that enqueues, so the
// note is there when the reconcile runs.
runtime::EventHandler note_child_spec_changes(DgdReconciler& reconciler, const ChildKind& kind) {
  // Keys as object_key (child_plan.h) forms them: "group/Kind/ns/name".
  const std::string prefix = kind.resource.group + "/" + kind.resource.kind + "/";
  auto owners = [](const runtime::ObjectPtr& o) {
    std::vector<std::string> dgds;  // "ns/name" of its controlling DGD (at most one)
    for (const auto& r : o->owner_refs()) {
      if (!r.controller || r.kind != api::kKind || r.api_version.rfind(std::string(api::kGroup) + "/", 0) != 0) continue;
      dgds.push_back(o->ns().empty() ? r.name : o->ns() + "/" + r.name);
    }
    return dgds;
  };
  // An add or a change: the echo of the reconciler's own apply, or a change to look at.
  auto changed = [&reconciler, prefix, owners](const runtime::ObjectPtr& o) {
    for (const auto& dgd : owners(o)) {
      reconciler.note_child_change(dgd, prefix + o->ns() + "/" + o->name(), o->resource_version());
    }
  };
  runtime::EventHandler h;
  h.on_add = changed;
  h.on_delete = [&reconciler, owners](const runtime::ObjectPtr& o) {
    for (const auto& dgd : owners(o)) reconciler.note_spec_change(dgd);
  };
  h.on_update = [&reconciler, owners, changed](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    // Same test as for the DGD itself: anything but status, resourceVersion, managedFields.
    if (!changed_outside_status(before->json_text(), after->json_text())) return;
    const std::vector<std::string> now = owners(after);
    for (const auto& dgd : owners(before)) {  // an owner it no longer has
      if (std::find(now.begin(), now.end(), dgd) == now.end()) reconciler.note_spec_change(dgd);
    }
    changed(after);
  };
  return h;
}

}  // namespace

// glibc gives each thread that allocates its own arena (up to 8 per core); the
// operator's ~60 threads (informers, workers, the HTTP pool) spread the cache over a
// dozen arenas whose free space is never reused across them. Two arenas: at N = 100 the
// RSS after a restart went from 31.2 to 23.2 MiB (docs/benchmarks.md). The environment's
// MALLOC_ARENA_MAX, if set, wins.
static void limit_malloc_arenas() {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 2);
#endif
}

int run_operator(const OperatorOptions& options, const kube::CancelToken& stop) {
  limit_malloc_arenas();
  auto config = kube::load_config(options.kubeconfig);
  if (!config) {
    spdlog::error("no usable API server configuration: {}", config.error().to_string());
    return 2;
  }
  spdlog::info("dgd-operator {} using {} ({}), watching {}", kOperatorVersion, config->server, config->source,
               options.watch_namespace.empty() ? "all namespaces" : "namespace " + options.watch_namespace);

  auto metrics = std::make_shared<kube::MetricsRegistry>();
  kube::ClientOptions co;
  co.user_agent = std::string("dgd-operator/") + kOperatorVersion;
  co.qps = options.qps;
  co.burst = options.burst;
  co.metrics = metrics;
  auto client = std::make_shared<kube::RestClient>(*config, co);

  runtime::ManagerOptions mo;
  mo.metrics_address = options.metrics_address;
  mo.health_address = options.health_address;
  mo.metrics = metrics;
  mo.cache_sync_timeout = options.cache_sync_timeout;
  mo.leader_election = options.leader_elect;
  std::string identity = runtime::default_identity();
  if (options.leader_elect) {
    auto& le = mo.leader_election_options;
    le.lease_namespace =
        options.leader_election_namespace.empty() ? config->default_namespace : options.leader_election_namespace;
    le.lease_name = options.leader_election_id;
    le.identity = identity;
    le.lease_duration = options.lease_duration;
    le.renew_deadline = options.renew_deadline;
    le.retry_period = options.retry_period;
    if (auto s = runtime::LeaderElector::validate(le); !s) {
      spdlog::error("leader election: {}", s.error().message);
      return 2;
    }
    spdlog::info("leader election on Lease {}/{} as {}", le.lease_namespace, le.lease_name, identity);
  }
  runtime::Manager manager(client, mo);

  LiveCluster cluster(client);
  std::unique_ptr<ServingChecks> serving = make_serving_checks(options.serving, client);
  DgdReconcilerOptions ro;
  ro.instance = identity;
  ro.serving = serving.get();
  ro.status_progress_interval = options.status_progress_interval;
  ro.status_progress_qps = options.status_progress_qps;
  auto reconciler = std::make_shared<DgdReconciler>(cluster, recipes::Catalog::builtin(), ro);
  runtime::ControllerOptions cto;
  cto.name = "dynamographdeployment";
  cto.workers = std::max(1, options.concurrency);
  runtime::Controller& controller = manager.add_controller(cto, reconciler);
  std::optional<ServingChecks::Stopper> serving_workers;  // stopped before the controller goes
  if (serving) serving_workers.emplace(serving->start([&controller](const std::string& k) { controller.queue().add(k); }));

  runtime::InformerOptions dio;
  dio.resource = dgd_resource();
  dio.ns = options.watch_namespace;
  dio.share_values = true;
  runtime::Informer& dgds = manager.add_informer(dio);
  {
    // The DGD's own events, except the echoes of the operator's status writes.
    runtime::EventHandler h = controller.enqueue_self();
    runtime::WorkQueue* q = &controller.queue();
    h.on_update = [q](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
      if (changed_outside_status(before->json_text(), after->json_text())) q->add(after->key());
    };
    dgds.add_handler(h);
  }
  dgds.add_handler(runtime::condition_gauge(metrics, {"dgd_graphs", "DynamoGraphDeployments by the status of their Ready and Serving conditions.", {"Ready", "Serving"}}));
  cluster.set_dgd_store(&dgds.store());
  // Child, pod, node and download events wake their DGD after a short window, so a
  // burst of them (a Deployment's status moving replica by replica) costs one reconcile.
  const std::chrono::milliseconds window = options.child_event_window;
  add_placement_informers(manager, controller, dgds, cluster, options.watch_namespace, window);

  // Child kinds: an informer for each one the server serves; the others are probed again later.
  std::vector<const ChildKind*> missing;
  for (const auto& kind : child_kinds()) {
    Probe p = Probe::kServed;
    std::string why;
    if (kind.optional) {
      p = probe(*client, kind, options.watch_namespace, &why);
      if (p == Probe::kUnknown && stop.sleep_for(std::chrono::seconds(1))) {
        p = probe(*client, kind, options.watch_namespace, &why);
      }
    }
    if (p == Probe::kServed) {
      runtime::Informer& inf = manager.add_informer(child_informer(kind, options.watch_namespace));
      inf.add_handler(note_child_spec_changes(*reconciler, kind));
      inf.add_handler(controller.enqueue_owner(api::kGroup, api::kKind, window));
      if (kind.resource.kind == "Job") inf.add_handler(wake_dgds_on_download_change(controller, *reconciler, window));
      cluster.set_store(kind, &inf.store());
    } else {
      spdlog::warn("{} is not served by the API server ({}); DGDs that need a {} report it in their status; "
                   "probing again every {} s",
                   kind.resource.to_string(), why, kind.resource.kind, options.kind_probe_interval.count() / 1000);
      missing.push_back(&kind);
    }
  }

  // Late kinds: started outside the manager once their CRD appears.
  std::vector<std::unique_ptr<runtime::Informer>> late;
  kube::CancelSource probe_stop;
  std::thread prober([&] {
    const kube::CancelToken t = probe_stop.token();
    while (!missing.empty() && t.sleep_for(options.kind_probe_interval)) {
      for (auto it = missing.begin(); it != missing.end();) {
        std::string why;
        if (probe(*client, **it, options.watch_namespace, &why) != Probe::kServed) {
          ++it;
          continue;
        }
        auto inf = std::make_unique<runtime::Informer>(client, child_informer(**it, options.watch_namespace));
        inf->add_handler(note_child_spec_changes(*reconciler, **it));
        inf->add_handler(controller.enqueue_owner(api::kGroup, api::kKind, window));
        inf->start();
        while (!inf->wait_for_sync(std::chrono::milliseconds(200)) && !t.cancelled()) {
        }
        if (t.cancelled()) return;
        cluster.set_store(**it, &inf->store());
        spdlog::info("{} is now served; watching it", (*it)->resource.to_string());
        for (const auto& d : dgds.store().list()) controller.queue().add(d->key());
        late.push_back(std::move(inf));
        it = missing.erase(it);
      }
    }
  });

  const int rc = manager.run(stop);
  probe_stop.cancel();
  prober.join();
  for (auto& inf : late) inf->stop();
  spdlog::info("dgd-operator stopped (exit {})", rc);
  return rc;
}

}  // namespace dgd::reconcile
