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
#include "dgd/reconcile/cached_view.h"
#include "dgd/reconcile/cluster.h"
#include "reconcile/live_cluster.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/scaling_adapters.h"
#include "dgd/render/render.h"
#include "dgd/reconcile/placement_status.h"
#include "reconcile/wake_handlers.h"
#include "dgd/runtime/manager.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

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
  // Scaling adapters are read whoever made them (scaling_adapters.h): not label-scoped. Jobs:
  // the download records of the model caches (model_cache.h), the operator's own and those
  // made outside it, which carry the cache's label but not the operator's.
  io.label_selector = kind.resource.kind == kAdapterKind ? ""
                      : kind.resource.kind == "Job"  ? std::string(render::kLabelModelCache)
                                                      : child_label_selector();
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
      auto conditions = read_projected(d->json_text(), dgd_conditions_fields());
      if (conditions && placement_pending(*conditions)) controller.queue().add_after(d->key(), window);
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

}  // namespace

// glibc gives each thread that allocates its own arena (up to 8 per core); the
// operator's threads (informers, workers, the HTTP pool) would spread the cache over a
// dozen arenas whose free space is never reused across them. One arena keeps the peak
// about 4 MiB lower than two at 1000 DGDs for the same CPU (docs/benchmarks.md, "Memory
// before and after"); each thread's tcache still serves most allocations without the
// arena's lock. The environment's MALLOC_ARENA_MAX, if set, wins.
static void limit_malloc_arenas() {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 1);
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
  ro.pod_monitors = options.pod_monitors;
  ro.render.planner_cluster_role = options.planner_cluster_role;
  ro.render.prometheus_endpoint = options.prometheus_endpoint;
  auto reconciler = std::make_shared<DgdReconciler>(cluster, recipes::Catalog::builtin(), ro);
  runtime::ControllerOptions cto;
  cto.name = "dynamographdeployment";
  cto.key_label = "dgd";
  // API errors back off from 100 ms to 5 minutes per DGD.
  cto.queue.rate_limiter.base_delay = std::chrono::milliseconds(100);
  cto.queue.rate_limiter.max_delay = std::chrono::minutes(5);
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
    if (kind.resource.kind == "PodMonitor" && !options.pod_monitors) continue;
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
      inf.add_handler(controller.enqueue_owner(api::kGroup, api::kKind, window));
      if (kind.resource.kind == "Job") inf.add_handler(wake_dgds_on_download_change(controller, *reconciler, window));
      if (kind.resource.kind == kAdapterKind) inf.add_handler(wake_dgd_of_adapter(controller, window));
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
        inf->add_handler(controller.enqueue_owner(api::kGroup, api::kKind, window));
        if ((*it)->resource.kind == kAdapterKind) inf->add_handler(wake_dgd_of_adapter(controller, window));
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
