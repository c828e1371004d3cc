// Informer: keeps a Store equal to the server's state of one kind (optionally one
// namespace and a label selector) and tells handlers what changed.
//
// Loop (client-go reflector, kube-api.md §5.4), on a dedicated thread:
//  1. list in pages (consistent snapshot), each page read from its text into the cache
//     form without a DOM (list_page.h); swap into the store; deliver the difference
//     from the previous content as add / update / delete events (so a deletion that
//     happened while disconnected arrives as a delete);
//  2. watch from the list's resourceVersion with bookmarks and a random timeoutSeconds
//     (5-10 min); apply each event to the store, then call the handlers;
//  3. on stream end re-watch from the last resourceVersion seen; on 410 Gone or an
//     Expired ERROR event go to 1; on any other error back off (with jitter) and retry.
// Ready (has_synced) once the first list is in the store.
// Handlers run on the informer thread, in event order: keep them quick (enqueue a key).
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dgd/kube/backoff.h"
#include "dgd/kube/cancel.h"
#include "dgd/kube/resource.h"
#include "dgd/runtime/store.h"

namespace dgd::kube {
class RestClient;
class MetricsRegistry;
class Gauge;
}  // namespace dgd::kube

namespace dgd::runtime {

struct EventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old_obj, const ObjectPtr& new_obj)> on_update;
  std::function<void(const ObjectPtr&)> on_delete;  // the last state known
};

struct InformerOptions {
  kube::ResourceRef resource;
  std::string ns;              // "" = all namespaces
  std::string label_selector;  // server-side scoping keeps the cache small
  std::string field_selector;
  int page_size = 500;
  // Fields kept of each object beyond apiVersion/kind/metadata (store.h); empty = all.
  // Every reader of the store must need no other field.
  FieldProjection projection;
  // Objects share the large JSON values they have in common (shared_text.h): for kinds
  // whose objects repeat big parts (the pod templates of Deployments and Jobs rendered
  // from one recipe). Costs about a third more CPU per event decoded.
  bool share_values = false;
  // The watch timeout is drawn uniformly from [min, max] per connection, as client-go
  // does, so many informers do not reconnect at once.
  std::chrono::seconds min_watch_timeout{300};
  std::chrono::seconds max_watch_timeout{600};
  kube::BackoffOptions backoff;  // reconnect back-off after errors
  std::shared_ptr<kube::MetricsRegistry> metrics;
};

class Informer {
 public:
  Informer(std::shared_ptr<kube::RestClient> client, InformerOptions options);
  ~Informer();  // stop()
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // REQUIRES: before start().
  void add_handler(EventHandler handler);
  // Starts the loop thread. Calling start() twice is a no-op.
  void start();
  // Cancels the watch and joins the thread. Idempotent.
  void stop();

  bool has_synced() const { return store_.synced(); }
  bool wait_for_sync(std::chrono::milliseconds timeout) const { return store_.wait_synced(timeout); }
  const Store& store() const { return store_; }
  const InformerOptions& options() const { return options_; }
  // Number of lists after the first one (410 Gone / Expired recoveries).
  long relists() const { return relists_.load(); }

 private:
  void run();
  // Lists all pages; returns false when it should retry (error logged) or stop.
  bool list_and_replace(std::string& resource_version);
  // Watches until the stream ends or fails; returns true when a relist is needed.
  bool watch_once(std::string& resource_version, bool& failed);
  void dispatch_add(const ObjectPtr& o);
  void dispatch_update(const ObjectPtr& old_obj, const ObjectPtr& new_obj);
  void dispatch_delete(const ObjectPtr& o);
  void update_gauge();
  SharedTextPool* shared_pool() const;

  std::shared_ptr<kube::RestClient> client_;
  const InformerOptions options_;
  Store store_;
  std::vector<EventHandler> handlers_;
  kube::CancelSource cancel_;
  std::thread thread_;
  std::atomic<long> relists_{0};
  struct Gauges {
    kube::Gauge *objects = nullptr, *whole = nullptr, *own = nullptr;
  } gauges_;
  long lists_ = 0;
  long events_in_watch_ = 0;
};

}  // namespace dgd::runtime
