#include "dgd/api/defaults.h"

namespace dgd::api {
namespace {

template <class T, class V> void setIfUnset(std::optional<T>& field, V value) {
  if (!field) field = T(value);
}

void defaultEngine(Engine& e, std::optional<BackendFramework> framework) {
  if (e.eplb) setIfUnset(e.eplb->enabled, true);
  if (e.speculative) setIfUnset(e.speculative->enabled, true);
  if (e.kvEvents) {
    setIfUnset(e.kvEvents->enabled, true);
    if (*e.kvEvents->enabled) {
      setIfUnset(e.kvEvents->publisher, kDefaultKvEventsPublisher);
      setIfUnset(e.kvEvents->topic, kDefaultKvEventsTopic);
      setIfUnset(e.kvEvents->port, kDefaultKvEventsPort);
    }
  }
  if (e.kvTransfer && e.kvTransfer->connector && framework != BackendFramework::kSglang) {
    setIfUnset(e.kvTransfer->role, kDefaultKvRole);
    setIfUnset(e.kvTransfer->bufferDevice, kDefaultKvBufferDevice);
  }
}

}  // namespace

void applyDefaults(Dgd& dgd) {
  Spec& spec = dgd.spec;
  for (auto& c : spec.components) {
    setIfUnset(c.replicas, kDefaultReplicas);
    if (c.engine) defaultEngine(*c.engine, spec.backendFramework);
    if (c.router && c.router->conditionalDisaggregation) {
      setIfUnset(c.router->conditionalDisaggregation->enabled, true);
    }
  }
  if (spec.model) {
    Model& m = *spec.model;
    if (m.id) setIfUnset(m.servedName, *m.id);
    if (m.cache) {
      if (m.cache->claimName) setIfUnset(m.cache->mountPath, "/" + *m.cache->claimName);
      if (m.cache->create) {
        setIfUnset(m.cache->keepOnDelete, kDefaultKeepOnDelete);
        setIfUnset(m.cache->create->accessMode, kDefaultAccessMode);
      }
    }
    if (m.download) {
      setIfUnset(m.download->enabled, true);
      setIfUnset(m.download->image, kDefaultDownloadImage);
      if (m.download->tokenSecretRef) setIfUnset(m.download->tokenSecretRef->key, kDefaultTokenKey);
    }
  }
  if (spec.placement && spec.placement->rdma) setIfUnset(spec.placement->rdma->nicSelection, NicSelection::kNone);
}

}  // namespace dgd::api
