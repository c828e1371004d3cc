// DgdMemo: what the last settled full pass of one DGD found, so that a later pass whose
// DGD and children the cache shows unchanged computes the status without parsing,
// expanding and rendering the DGD again (the status pass). A memo, not a memory: the
// decision to use it compares recorded (resourceVersion, generation) pairs with the
// cache, never replays watch events, and a pass without it (MemoStore::forget at any
// moment) gives the same children and the same status.
// DgdMemo is an immutable value once stored; MemoStore is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/reconcile/child_kinds.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/smoke.h"

namespace dgd::reconcile {

// A child as the pass left it, kept small: a memo per DGD holds one per child, so at a
// thousand DGDs every field costs megabytes. Its name is the last part of its key in
// DgdMemo::children; its uid is part of its metadata fingerprint.
struct ChildRecord {
  const ChildKind* kind = nullptr;
  bool owned = true;            // controlled by the DGD (else: a kept cache PVC)
  std::string resource_version;
  int64_t generation = 0;       // 0: the kind has none (every change moves the version)
  size_t metadata = 0;          // metadata_fingerprint
  // The pass wrote it: the version the cache held before ("" for a create). While the
  // cache still shows that version its watch event has not come yet.
  std::optional<std::string> before_write;
};

struct DgdMemo {
  std::string uid;          // the DGD's
  std::string fingerprint;  // dgd_fingerprint of the DGD the pass read
  struct Component {
    std::string name, type;
    int32_t desired_replicas = 0;
    std::string deployment;  // its Deployment's name
    bool template_current = false;
  };
  std::vector<Component> components;
  std::vector<std::pair<std::string, int32_t>> placement;  // placement_components
  std::optional<ModelCacheSpec> cache;
  bool held_workers = false;  // the pass held the workers back
  // Every pass plans in full (dgd_plan.h Plan::plan_in_full): a restart in progress, whose
  // next step depends on the Deployments' status; a PodMonitor waiting for its kind.
  bool plan_in_full = false;
  SmokePlan smoke;
  std::map<std::string, ChildRecord> children;  // object_key -> record
  std::string adapters;  // adapters_fingerprint of the scaling adapters naming the DGD (scaling_adapters.h)
};

// What the spec pipeline reads of a DGD besides its spec: uid (owner references),
// generation (every spec edit moves it), labels and annotations.
std::string dgd_fingerprint(const nlohmann::json& dgd);
// What a child's generation does not cover: uid, labels, annotations (without the
// Deployment controller's revision counter), ownerReferences, deletionTimestamp.
size_t metadata_fingerprint(const nlohmann::json& obj);
// The record of `obj` as the cache (or a write's response) shows it.
ChildRecord record_child(const ChildKind& kind, const nlohmann::json& obj, bool owned);

enum class MemoCheck {
  kCurrent,      // the DGD and every child are as the memo recorded them
  kStale,        // something changed: plan in full
  kEchoPending,  // the cache has not caught up with the pass's own writes yet
};
// Compares `memo` with the cache for the DGD `dgd_head` (ns/uid from it). Children whose
// version moved are read (cached_status) and kept in `views` by object_key, for the
// status that follows.
MemoCheck check_memo(const DgdMemo& memo, const nlohmann::json& dgd_head, ClusterCache& cache,
                     std::map<std::string, nlohmann::json>& views);

class MemoStore {
 public:
  std::shared_ptr<const DgdMemo> get(const std::string& key) const;
  void put(const std::string& key, std::shared_ptr<const DgdMemo> memo);
  void forget(const std::string& key);
  // Counts one more pass of `key` that found an echo pending; false once `limit` passes
  // in a row did (the event may never come: a child created and deleted while the watch
  // was down), so the caller plans in full instead of waiting again.
  bool wait_for_echo(const std::string& key, int limit = 3);

 private:
  mutable std::mutex mu_;
  struct Entry {
    std::shared_ptr<const DgdMemo> memo;
    int echo_waits = 0;
  };
  std::map<std::string, Entry> memos_;
};

}  // namespace dgd::reconcile
