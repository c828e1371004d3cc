// LiveCluster: the operator's Cluster (cluster.h) over the informer stores and the
// (leadership-gated) REST client. Cached reads go through the projections of
// cached_view.h; writes go to the API server. Stores of kinds that appear late are added
// under a lock. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/rest_client.h"
#include "dgd/reconcile/cached_view.h"
#include "dgd/reconcile/child_kinds.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_plan.h"
#include "dgd/reconcile/placement_status.h"
#include "dgd/render/render.h"
#include "dgd/runtime/store.h"

namespace dgd::reconcile {

class LiveCluster final : public Cluster {
 public:
  using json = nlohmann::json;
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
    if (auto head = read_projected(o->json_text(), dgd_head_fields())) return head;
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
    // The pod template is most of the text: never parsed (a status pass reads the
    // Deployments and the Job of a DGD).
    if (auto trimmed = read_projected(o->json_text(), child_status_fields())) return trimmed;
    return Cluster::cached_status(kind, ns, name);  // not expected: the cache holds valid JSON
  }
  std::vector<CachedVersion> owned_versions(const ChildKind& kind, const std::string& ns,
                                           const std::string& owner_uid) override {
    std::vector<CachedVersion> out;
    if (const runtime::Store* s = store(kind)) {
      // Keys as object_key (child_plan.h) forms them: "group/Kind/ns/name".
      const std::string prefix = kind.resource.group + "/" + kind.resource.kind + "/";
      for (const auto& o : s->by_owner(owner_uid)) {
        if (o->ns() == ns) out.push_back({prefix + o->ns() + "/" + o->name(), o->uid(), o->resource_version()});
      }
    }
    return out;
  }
  std::vector<json> download_records(const std::string& ns, const std::string& claim) override {
    std::vector<json> out;
    if (const runtime::Store* s = store(*find_child_kind("batch/v1", "Job"))) {
      for (const auto& o : s->list(ns)) {
        auto job = read_projected(o->json_text(), child_status_fields());  // labels, annotations, status
        if (!job) continue;
        const json labels = job->value(json::json_pointer("/metadata/labels"), json::object());
        const auto label = labels.is_object() ? labels.find(render::kLabelModelCache) : labels.end();
        if (label != labels.end() && label->is_string() && *label == claim) out.push_back(std::move(*job));
      }
    }
    return out;
  }
  kube::Result<json> apply(const ChildKind& kind, const json& object) override {
    const json& m = object.at("metadata");
    return client_->apply(kind.resource, m.value("namespace", ""), m.value("name", ""), object, kFieldManager,
                          /*force=*/true);
  }
  kube::Result<json> create(const ChildKind& kind, const json& object) override {
    kube::WriteOptions wo;
    wo.field_manager = kFieldManager;
    return client_->create(kind.resource, object.value(json::json_pointer("/metadata/namespace"), ""), object, wo);
  }
  kube::Result<json> patch_status(const ChildKind& kind, const std::string& ns, const std::string& name,
                                  const json& patch) override {
    kube::WriteOptions wo;
    wo.field_manager = kFieldManager;
    return client_->patch(kind.resource, ns, name, kube::PatchType::kMerge, patch, wo, "status");
  }
  std::vector<json> cached_in(const ChildKind& kind, const std::string& ns) override {
    std::vector<json> out;
    if (const runtime::Store* s = store(kind)) {
      for (const auto& o : s->list(ns)) out.push_back(o->object());
    }
    return out;
  }
  kube::Result<json> scale(const ChildKind& kind, const json& deployment, int32_t replicas) override {
    const json& m = deployment.at("metadata");
    kube::WriteOptions o;
    o.field_manager = kFieldManager;
    return client_->patch(kind.resource, m.value("namespace", ""), m.value("name", ""), kube::PatchType::kMerge,
                          json{{"spec", {{"replicas", replicas}}}}, o);
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

}  // namespace dgd::reconcile
