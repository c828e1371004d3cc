#include "dgd/api/defaults.h"

namespace dgd::api {
namespace {

template <class T, class V> void set_if_unset(std::optional<T>& field, V value) {
  if (!field) field = T(value);
}

void default_engine(Engine& e, std::optional<BackendFramework> framework) {
  if (e.eplb) set_if_unset(e.eplb->enabled, true);
  if (e.speculative) set_if_unset(e.speculative->enabled, true);
  if (e.kv_events) {
    set_if_unset(e.kv_events->enabled, true);
    if (*e.kv_events->enabled) {
      set_if_unset(e.kv_events->publisher, kDefaultKvEventsPublisher);
      set_if_unset(e.kv_events->topic, kDefaultKvEventsTopic);
      set_if_unset(e.kv_events->port, kDefaultKvEventsPort);
    }
  }
  if (e.kv_transfer && e.kv_transfer->connector && framework != BackendFramework::kSglang) {
    set_if_unset(e.kv_transfer->role, kDefaultKvRole);
    set_if_unset(e.kv_transfer->buffer_device, kDefaultKvBufferDevice);
  }
}

}  // namespace

void apply_defaults(Dgd& dgd) {
  Spec& spec = dgd.spec;
  for (auto& c : spec.components) {
    set_if_unset(c.replicas, kDefaultReplicas);
    if (c.engine) default_engine(*c.engine, spec.backend_framework);
    if (c.router && c.router->conditional_disaggregation) {
      set_if_unset(c.router->conditional_disaggregation->enabled, true);
    }
  }
  if (spec.model) {
    Model& m = *spec.model;
    if (m.id) set_if_unset(m.served_name, *m.id);
    if (m.cache) {
      if (m.cache->claim_name) set_if_unset(m.cache->mount_path, "/" + *m.cache->claim_name);
      if (m.cache->create) {
        set_if_unset(m.cache->keep_on_delete, kDefaultKeepOnDelete);
        set_if_unset(m.cache->create->access_mode, kDefaultAccessMode);
      }
    }
    if (m.download) {
      set_if_unset(m.download->enabled, true);
      set_if_unset(m.download->image, kDefaultDownloadImage);
      if (m.download->token_secret_ref) set_if_unset(m.download->token_secret_ref->key, kDefaultTokenKey);
    }
  }
  if (spec.placement && spec.placement->rdma) set_if_unset(spec.placement->rdma->nic_selection, NicSelection::kNone);
}

}  // namespace dgd::api
