// Defaults of the DGD model: the one place they are decided (docs/api.md lists them).
//
// apply_defaults() fills unset fields whose default the renderer needs as a value; it
// never adds an engine flag that was not asked for (an unset engine setting means "the
// engine's own default", and the recipes depend on that). It is idempotent and runs in
// expand after the recipe is merged; validate() accepts a DGD before or after it.
#pragma once

#include "dgd/api/dgd.h"

namespace dgd::api {

// Component / pod level.
inline constexpr int32_t kDefaultReplicas = 1;                      // components[].replicas
inline constexpr const char* kDefaultSharedMemorySize = "8Gi";      // components[].sharedMemorySize (upstream)
inline constexpr int kFrontendHttpPort = 8000;                      // router.httpPort; Service port "http"
inline constexpr int kSystemPort = 9090;                            // worker DYN_SYSTEM_PORT; Service port "system"
inline constexpr int kNixlTelemetryPort = 19090;                    // worker NIXL Prometheus port
inline constexpr int kPlannerMetricsPort = 9085;                    // planner PLANNER_PROMETHEUS_PORT; port "metrics"
inline constexpr int32_t kMaxReplicas = 1000;                       // validation upper bound
inline constexpr size_t kMaxComponents = 25;                        // upstream MaxItems
// Model cache / download.
inline constexpr const char* kDefaultAccessMode = "ReadWriteMany";  // model.cache.create.accessMode
inline constexpr bool kDefaultKeepOnDelete = true;                  // model.cache.keepOnDelete
inline constexpr const char* kDefaultDownloadImage = "python:3.10-slim";  // model.download.image
inline constexpr const char* kDefaultTokenKey = "HF_TOKEN";         // model.download.tokenSecretRef.key
// Engine blocks (filled only inside a block the DGD opened).
inline constexpr const char* kDefaultKvEventsPublisher = "zmq";     // engine.kvEvents.publisher
inline constexpr const char* kDefaultKvEventsTopic = "kv-events";   // engine.kvEvents.topic
inline constexpr int kDefaultKvEventsPort = 5557;                   // engine.kvEvents.port
inline constexpr const char* kDefaultKvRole = "kv_both";            // engine.kvTransfer.role (vLLM)
inline constexpr const char* kDefaultKvBufferDevice = "cuda";       // engine.kvTransfer.bufferDevice (vLLM)

// Fills, where unset:
//   components[].replicas = 1
//   model.servedName = model.id;  model.cache.mountPath = "/" + claimName
//   model.cache.keepOnDelete = true (when create is set);  create.accessMode = ReadWriteMany
//   model.download.enabled = true;  .image = python:3.10-slim;  .tokenSecretRef.key = HF_TOKEN
//   placement.rdma.nicSelection = none (when rdma is set)
//   engine.eplb.enabled / speculative.enabled / kvEvents.enabled = true (block present)
//   engine.kvEvents.{publisher,topic,port} = zmq / kv-events / 5557 (when enabled)
//   engine.kvTransfer.{role,bufferDevice} = kv_both / cuda (vLLM, when a connector is set)
//   router.conditionalDisaggregation.enabled = true (block present)
// sharedMemorySize and router.httpPort stay unset: the renderer applies the constants above.
void apply_defaults(Dgd& dgd);

}  // namespace dgd::api
