#include "dgd/reconcile/dgd_memo.h"

#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/child_plan.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

const json& member(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

size_t hash_of(const json& v) { return v.is_null() ? 0 : std::hash<std::string>{}(v.dump()); }

// The name in an object_key (child_plan.h): "group/Kind/ns/name".
std::string name_in_key(const std::string& key) { return key.substr(key.rfind('/') + 1); }

}  // namespace

std::string dgd_fingerprint(const json& dgd) {
  const json& m = member(dgd, "metadata");
  const json& uid = member(m, "uid");
  const json& generation = member(m, "generation");
  return (uid.is_string() ? uid.get<std::string>() : "") + "\n" +
         (generation.is_number_integer() ? std::to_string(generation.get<int64_t>()) : "0") + "\n" +
         std::to_string(hash_of(member(m, "labels"))) + "\n" + std::to_string(hash_of(member(m, "annotations")));
}

size_t metadata_fingerprint(const json& obj) {
  const json& m = member(obj, "metadata");
  json annotations = member(m, "annotations");
  // The Deployment controller numbers each rollout: its bookkeeping, not a change.
  if (annotations.is_object()) annotations.erase("deployment.kubernetes.io/revision");
  if (annotations.is_object() && annotations.empty()) annotations = nullptr;
  const json parts = json::array({member(m, "uid"), member(m, "labels"), annotations, member(m, "ownerReferences"),
                                  member(m, "deletionTimestamp")});
  return hash_of(parts);
}

ChildRecord record_child(const ChildKind& kind, const json& obj, bool owned) {
  const json& m = member(obj, "metadata");
  ChildRecord r;
  r.kind = &kind;
  r.owned = owned;
  r.resource_version = m.is_object() ? m.value("resourceVersion", "") : "";
  const json& g = member(m, "generation");
  r.generation = g.is_number_integer() ? g.get<int64_t>() : 0;
  r.metadata = metadata_fingerprint(obj);
  return r;
}

MemoCheck check_memo(const DgdMemo& memo, const json& dgd_head, ClusterCache& cache,
                     std::map<std::string, json>& views) {
  if (dgd_fingerprint(dgd_head) != memo.fingerprint || memo.plan_in_full) return MemoCheck::kStale;
  const json& m = member(dgd_head, "metadata");
  const std::string ns = m.value("namespace", ""), uid = m.value("uid", "");
  bool echo_pending = false;
  // Every child the cache shows owned by the DGD must be one the pass recorded.
  std::map<std::string, CachedVersion> owned;
  std::set<const ChildKind*> kinds;
  for (const auto& [key, record] : memo.children) kinds.insert(record.kind);
  for (const auto& kind : child_kinds()) {
    if (!cache.serves(kind)) {
      if (kinds.count(&kind) > 0) return MemoCheck::kStale;
      continue;
    }
    for (auto& v : cache.owned_versions(kind, ns, uid)) {
      if (memo.children.count(v.key) == 0) return MemoCheck::kStale;
      owned.emplace(v.key, std::move(v));
    }
  }
  for (const auto& [key, record] : memo.children) {
    std::optional<CachedVersion> seen;
    if (auto it = owned.find(key); it != owned.end()) {
      seen = it->second;
    } else if (!record.owned) {
      if (auto o = cache.cached_status(*record.kind, ns, name_in_key(key))) {
        seen = CachedVersion{key, o->value("/metadata/uid"_json_pointer, ""),
                             o->value("/metadata/resourceVersion"_json_pointer, "")};
        views[key] = std::move(*o);
      }
    }
    if (!seen) {
      // Not in the cache: the echo of the pass's create has not come, or it was deleted.
      if (record.before_write && record.before_write->empty()) {
        echo_pending = true;
        continue;
      }
      return MemoCheck::kStale;
    }
    if (seen->resource_version == record.resource_version) continue;
    if (record.before_write && seen->resource_version == *record.before_write) {
      echo_pending = true;
      continue;
    }
    if (record.generation == 0) return MemoCheck::kStale;
    // The version moved: unchanged when only its status did (same generation, same metadata;
    // the metadata fingerprint holds the uid, so an object deleted and created again is stale).
    auto view = views.find(key);
    if (view == views.end()) {
      auto o = cache.cached_status(*record.kind, ns, name_in_key(key));
      if (!o) return MemoCheck::kStale;
      view = views.emplace(key, std::move(*o)).first;
    }
    const json& g = member(member(view->second, "metadata"), "generation");
    if (!g.is_number_integer() || g.get<int64_t>() != record.generation) return MemoCheck::kStale;
    if (metadata_fingerprint(view->second) != record.metadata) return MemoCheck::kStale;
  }
  return echo_pending ? MemoCheck::kEchoPending : MemoCheck::kCurrent;
}

std::shared_ptr<const DgdMemo> MemoStore::get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memos_.find(key);
  return it == memos_.end() ? nullptr : it->second.memo;
}

void MemoStore::put(const std::string& key, std::shared_ptr<const DgdMemo> memo) {
  std::lock_guard<std::mutex> lock(mu_);
  memos_[key] = Entry{std::move(memo), 0};
}

bool MemoStore::wait_for_echo(const std::string& key, int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memos_.find(key);
  if (it == memos_.end()) return false;
  if (++it->second.echo_waits <= limit) return true;
  memos_.erase(it);
  return false;
}

void MemoStore::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  memos_.erase(key);
}

}  // namespace dgd::reconcile
