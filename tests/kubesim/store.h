// kube-sim: the object store: every object of every resource, one global
// resourceVersion counter, an event history ring for watch resume, watchers,
// deletion with finalizers and the garbage collector's sweep.
//
// Contract (the in-process API that the HTTP layer and in-process controllers use):
//  - All operations are linearizable: one mutex guards the store, and every write
//    gets the next resourceVersion and appends one event to the history.
//  - Writes apply the API server's object rules (object_rules.h): server-set
//    metadata, defaults, validation (422), generation, status-subresource masking,
//    optimistic concurrency (409), managedFields for Update operations.
//  - Errors are thrown as ApiError (api_error.h).
//  - watch() registers a Watcher atomically with the state it starts from: no event
//    is lost or duplicated between a list at RV X and a watch from X.
//  - A resourceVersion older than the history window gets 410 Expired.
//  - Listeners (add_listener) run under the store lock: they must only enqueue.
#pragma once

#include "kubesim/resource_registry.h"
#include "kubesim/selectors.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kubesim {

struct WatchEvent {
  std::string type;         // ADDED, MODIFIED, DELETED
  std::string resource;     // storage key "group/plural"
  uint64_t rv = 0;
  nlohmann::json object;      // state after the change (DELETED: final state)
  nlohmann::json old_object;  // state before (MODIFIED, DELETED); null for ADDED
};
using WatchEventPtr = std::shared_ptr<const WatchEvent>;

struct WriteOptions {
  bool dry_run = false;
  std::string field_manager;   // recorded in managedFields (operation Update) unless `apply`
  std::string subresource;     // "" or "status"
  bool apply = false;          // managedFields already computed by server-side apply
  bool strict_fields = false;  // fieldValidation=Strict
  bool binding = false;        // pods/binding: the scheduler sets spec.nodeName
};

struct ListOptions {
  std::string ns;  // "" = all namespaces
  LabelSelector labels;
  FieldSelector fields;
  int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;        // "", "0" or a number
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  // Fill ListResult::texts (each item serialized as the wire shows it, with
  // apiVersion set to the listed version) instead of ListResult::items. The text of
  // an unchanged object is kept between lists, so a client polling a large list
  // costs a join, not a copy and a dump of every object.
  bool as_text = false;
};

struct ListResult {
  std::vector<nlohmann::json> items;
  std::vector<std::shared_ptr<const std::string>> texts;  // ListOptions::as_text
  uint64_t rv = 0;
  std::string continue_token;
  int64_t remaining = -1;  // remainingItemCount when paginated, else -1
};

struct DeleteOptions {
  std::string propagation;  // "", Background, Foreground, Orphan
  std::optional<bool> orphan_dependents;
  std::string precondition_uid;
  std::string precondition_rv;
  bool dry_run = false;
  std::optional<int64_t> grace_period_seconds;  // gracePeriodSeconds (pods; 0 = now)
};

struct DeleteResult {
  nlohmann::json object;  // final state, or the object now pending deletion
  bool deleted = false;   // removed from storage (false: finalizers pending)
};

struct WatchOptions {
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  std::string resource_version;  // "" or "0": initial ADDED events first; else resume after it
  size_t cut_after = 0;          // end the watch after this many delivered events (0 = never)
};

// One open watch. Thread-safe: the store pushes, one consumer calls next().
class Watcher {
 public:
  enum class Status { Event, Timeout, Closed };
  struct Delivered {
    std::string type;  // ADDED, MODIFIED, DELETED
    nlohmann::json object;
    uint64_t rv = 0;
  };

  Watcher(ResourceTypePtr type, WatchOptions opts, uint64_t start_rv);
  // Waits until an event passes the filters, the deadline passes or the watch is closed.
  Status next(std::chrono::steady_clock::time_point deadline, Delivered* out);
  void close();
  bool closed() const;
  // The RV a bookmark may carry: everything up to it has been delivered.
  uint64_t progress_rv() const;
  size_t delivered() const { return delivered_; }
  // Synthetic ADDED events (initial state) not yet returned by next().
  size_t initial_pending() const;

 private:
  friend class Store;
  void push(WatchEventPtr ev);            // under the store lock
  void push_initial(nlohmann::json obj);  // synthetic ADDED
  bool passes(const nlohmann::json& obj) const;

  ResourceTypePtr type_;
  WatchOptions opts_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WatchEventPtr> queue_;
  bool closed_ = false;
  uint64_t progress_rv_;
  size_t delivered_ = 0;
  size_t initial_left_ = 0;
};

struct StoreOptions {
  size_t history_window = 10000;
  // Deleting a pod bound to a node (spec.nodeName, not finished) only sets
  // deletionTimestamp = now + grace and deletionGracePeriodSeconds, as the real
  // server does; a kubelet then removes it with gracePeriodSeconds=0. Off by
  // default (no kubelets, pods go at once); the simulated cluster turns it on.
  bool graceful_pod_deletion = false;
};

class Store {
 public:
  explicit Store(ResourceRegistry& registry, StoreOptions opts = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  ResourceRegistry& registry() { return registry_; }
  void set_graceful_pod_deletion(bool on);

  nlohmann::json create(const ResourceType& t, const std::string& ns, nlohmann::json obj, const WriteOptions& o = {});
  nlohmann::json get(const ResourceType& t, const std::string& ns, const std::string& name) const;
  std::optional<nlohmann::json> try_get(const ResourceType& t, const std::string& ns, const std::string& name) const;
  ListResult list(const ResourceType& t, const ListOptions& o) const;
  // PUT: metadata.resourceVersion in `obj`, if set, is a precondition.
  nlohmann::json update(const ResourceType& t, const std::string& ns, const std::string& name, nlohmann::json obj,
                        const WriteOptions& o = {});
  // Read-modify-write under the store lock. `fn` receives the current object (nullptr
  // when missing; only then if `allow_create`) and returns the desired full object.
  // A resourceVersion in the result that differs from the current one is a conflict.
  nlohmann::json mutate(const ResourceType& t, const std::string& ns, const std::string& name,
                        const std::function<nlohmann::json(const nlohmann::json* current)>& fn,
                        const WriteOptions& o = {}, bool allow_create = false);
  DeleteResult remove(const ResourceType& t, const std::string& ns, const std::string& name,
                      const DeleteOptions& o = {});
  // Throws ApiError 410 when opts.resource_version is older than the history window.
  std::shared_ptr<Watcher> watch(ResourceTypePtr t, const WatchOptions& o);

  uint64_t current_rv() const;
  // The resourceVersion of the last write to objects of `t` (any version of it); 0 when
  // none since the start. A reader holding a list taken at or after it holds the current
  // state of that resource.
  uint64_t resource_rv(const ResourceType& t) const;
  // The RV a bookmark on `w` may carry: the store's RV if `w` has consumed every
  // event so far, else the last RV it has delivered.
  uint64_t bookmark_rv(const Watcher& w) const;
  uint64_t oldest_resumable_rv() const;  // watches/lists from an older RV get 410
  // Drops the whole event history: resuming from any earlier RV gets 410.
  void compact_history();
  // Ends every open watch (clients see the stream end and re-watch).
  size_t close_watches();
  size_t open_watches() const;

  // One pass of the garbage collector and namespace controller: collects dependents
  // whose owners are gone, advances foreground/orphan deletions, empties terminating
  // namespaces. Returns the number of writes it made; call until it returns 0.
  // A pass scans every object, so it is skipped (returns 0 at once) unless a write
  // since the last pass could have given it work (gc_relevant below).
  size_t collect_garbage();
  // Blocks until the store changes after `seen_rv`, the deadline passes or shutdown().
  uint64_t wait_for_change(uint64_t seen_rv, std::chrono::steady_clock::time_point deadline) const;

  void add_listener(std::function<void(const WatchEvent&)> fn);
  void shutdown();  // wakes waiters and closes watches

  // Persistence: the whole state as JSON, and back (restore re-registers CRDs).
  nlohmann::json snapshot() const;
  void restore(const nlohmann::json& snap);

 private:
  using Bucket = std::map<std::string, nlohmann::json>;  // "ns/name" -> object
  static std::string key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

  nlohmann::json do_create(const ResourceType& t, const std::string& ns, nlohmann::json obj, const WriteOptions& o);
  nlohmann::json do_update(const ResourceType& t, const nlohmann::json& current, nlohmann::json obj,
                           const WriteOptions& o, bool precondition_required);
  DeleteResult do_remove(const ResourceType& t, const nlohmann::json& current, const DeleteOptions& o);
  // Removes from storage and emits DELETED (plus CRD / namespace side effects).
  nlohmann::json erase_now(const ResourceType& t, const nlohmann::json& current, bool dry_run);
  void emit(const std::string& type, const ResourceType& t, const nlohmann::json& obj, const nlohmann::json& old);
  // Whether a write can give collect_garbage() work: a namespace or CRD write; any
  // write in a terminating namespace; the deletion of an object others reference as
  // owner; an orphan or foreground deletion pending; a live object whose owner is gone
  // or in another namespace; an object whose owner (before or after) is being deleted.
  // Everything else (creates and status updates of live objects, pods removed after
  // their owner) changes nothing the collector acts on.
  bool gc_relevant(const std::string& type, const ResourceType& t, const nlohmann::json& obj,
                   const nlohmann::json& old) const;
  // referenced_ bookkeeping: +1 / -1 for each ownerReference of `obj`.
  void track_owner_refs(const nlohmann::json& obj, int delta);
  Bucket& bucket(const ResourceType& t) { return data_[t.storage_key()]; }
  const nlohmann::json* find(const ResourceType& t, const std::string& ns, const std::string& name) const;
  void check_namespace(const ResourceType& t, const std::string& ns) const;
  // Objects of `t` as they were at `rv` (reconstructed from the history).
  Bucket state_at(const ResourceType& t, uint64_t rv) const;
  void expired(uint64_t rv) const;
  // The wire text of `obj` (stored under `k` in `t`'s bucket) with apiVersion set to
  // t's version; cached per object while its resourceVersion stays the same.
  std::shared_ptr<const std::string> text_of(const ResourceType& t, const std::string& k, const nlohmann::json& obj,
                                             bool cacheable) const;
  void notify_change();

  ResourceRegistry& registry_;
  StoreOptions opts_;
  mutable std::mutex mu_;
  mutable std::condition_variable change_cv_;
  std::map<std::string, Bucket> data_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> by_uid_;  // uid -> (storage key, ns/name)
  uint64_t rv_ = 1;
  uint64_t floor_rv_ = 1;  // events with rv <= floor_rv_ are no longer in history_
  std::deque<WatchEventPtr> history_;
  std::vector<std::weak_ptr<Watcher>> watchers_;
  std::vector<std::function<void(const WatchEvent&)>> listeners_;
  bool stopping_ = false;
  bool gc_dirty_ = true;
  std::unordered_map<std::string, size_t> referenced_;  // owner uid -> ownerReferences to it
  std::unordered_map<std::string, uint64_t> resource_rv_;  // storage key -> rv of its last write
  uint64_t restored_rv_ = 0;                              // restore() counts as a write to everything
  struct CachedText {
    std::string rv;
    std::shared_ptr<const std::string> text;
  };
  mutable std::unordered_map<std::string, CachedText> text_cache_;  // storage key + '\n' + "ns/name"  // a write since the last collect_garbage() pass may need it
};

}  // namespace kubesim
