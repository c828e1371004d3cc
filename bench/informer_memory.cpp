// Informer cache cost: bytes per cached object for 10,000 typical Deployments (the
// operator's main child kind), against the object's compact JSON size; and the watch
// decode rate (frames split by LineFramer, decoded, compacted into the cache form, stored),
// with a DOM-based path (parse, strip, dump) as the baseline.
//   bench_informer_memory --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dgd/kube/watch.h"
#include "dgd/runtime/store.h"

namespace {

using nlohmann::json;

// A Deployment as the API server returns it for a rendered worker: labels, annotations,
// an owner reference, a container with args/env/resources/probes/volumes, status, and
// managedFields (which the cache drops).
json deployment(int i) {
  std::string name = "dsv41-flash-vllm-" + std::to_string(i) + "-decodeworker";
  json labels = {{"nvidia.com/dynamo-graph-deployment-name", "dsv41-flash-" + std::to_string(i)},
                 {"nvidia.com/dynamo-component", "DecodeWorker"},
                 {"nvidia.com/dynamo-component-type", "worker"},
                 {"app.kubernetes.io/managed-by", "dgd-operator"}};
  json container = {
      {"name", "main"},
      {"image", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1"},
      {"command", {"python3", "-m", "dynamo.vllm"}},
      {"args", {"--model", "deepseek-ai/DeepSeek-V4.1-Flash", "--tensor-parallel-size", "8", "--enable-expert-parallel",
                "--kv-cache-dtype", "fp8", "--max-num-seqs", "1024", "--max-num-batched-tokens", "8192",
                "--gpu-memory-utilization", "0.92", "--block-size", "64"}},
      {"env", {{{"name", "DYN_NAMESPACE"}, {"value", "dsv41-flash-" + std::to_string(i)}},
               {{"name", "DYN_SYSTEM_PORT"}, {"value", "9090"}},
               {{"name", "HF_TOKEN"}, {"valueFrom", {{"secretKeyRef", {{"name", "hf-token-secret"}, {"key", "HF_TOKEN"}}}}}}}},
      {"ports", {{{"name", "system"}, {"containerPort", 9090}, {"protocol", "TCP"}}}},
      {"resources", {{"limits", {{"nvidia.com/gpu", "8"}, {"rdma/ib", "4"}}}, {"requests", {{"nvidia.com/gpu", "8"}}}}},
      {"volumeMounts", {{{"name", "model-cache"}, {"mountPath", "/models"}}, {{"name", "shm"}, {"mountPath", "/dev/shm"}}}},
      {"readinessProbe", {{"httpGet", {{"path", "/health"}, {"port", "system"}}}, {"periodSeconds", 10}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"imagePullPolicy", "IfNotPresent"}};
  json d = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", name},
        {"namespace", "team-" + std::to_string(i % 50)},
        {"uid", "6f1c1e8a-4b2d-4c1e-9f7a-" + std::to_string(100000000000 + i)},
        {"resourceVersion", std::to_string(1000000 + i)},
        {"generation", 3},
        {"creationTimestamp", "2026-11-30T06:00:00Z"},
        {"labels", labels},
        {"annotations", {{"deployment.kubernetes.io/revision", "3"},
                         {"kubectl.kubernetes.io/last-applied-configuration", std::string(900, 'x')}}},
        {"ownerReferences", {{{"apiVersion", "nvidia.com/v1beta1"}, {"kind", "DynamoGraphDeployment"},
                              {"name", "dsv41-flash-" + std::to_string(i)},
                              {"uid", "0a1b2c3d-0000-4000-8000-" + std::to_string(200000000000 + i)},
                              {"controller", true}, {"blockOwnerDeletion", true}}}},
        {"managedFields", {{{"manager", "dgd-operator"}, {"operation", "Apply"}, {"apiVersion", "apps/v1"},
                            {"time", "2026-11-30T06:00:00Z"}, {"fieldsType", "FieldsV1"},
                            {"fieldsV1", {{"f:spec", {{"f:replicas", json::object()}, {"f:template", {{"f:spec", {{"f:containers", {{"k:{\"name\":\"main\"}", {{".", json::object()}, {"f:args", json::object()}, {"f:env", json::object()}}}}}}}}}}}}}}}}}},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"matchLabels", labels}}},
        {"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}},
        {"template",
         {{"metadata", {{"labels", labels}}},
          {"spec", {{"containers", {container}},
                    {"nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-H200"}}},
                    {"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}},
                    {"volumes", {{{"name", "model-cache"}, {"persistentVolumeClaim", {{"claimName", "shared-model-cache"}}}},
                                 {{"name", "shm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "80Gi"}}}}}},
                    {"restartPolicy", "Always"},
                    {"terminationGracePeriodSeconds", 30},
                    {"serviceAccountName", "dsv41-flash-" + std::to_string(i) + "-k8s-service-discovery"}}}}}}},
      {"status", {{"observedGeneration", 3}, {"replicas", 2}, {"readyReplicas", 2}, {"availableReplicas", 2},
                  {"updatedReplicas", 2},
                  {"conditions", {{{"type", "Available"}, {"status", "True"}, {"reason", "MinimumReplicasAvailable"}},
                                  {{"type", "Progressing"}, {"status", "True"}, {"reason", "NewReplicaSetAvailable"}}}}}}};
  return d;
}

size_t heap_in_use() { return mallinfo2().uordblks; }

constexpr int kObjects = 10000;

// Bytes of heap per object held by the Store (compact text form + indexes).
void BM_StoreBytesPerDeployment(benchmark::State& state) {
  std::vector<json> objects;
  objects.reserve(kObjects);
  for (int i = 0; i < kObjects; ++i) objects.push_back(deployment(i));
  double per_object = 0, compact = 0, full = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<json> copy = objects;
    size_t compact_bytes = 0, full_bytes = 0;
    for (auto& o : copy) full_bytes += o.dump().size();
    state.ResumeTiming();
    auto store = std::make_unique<dgd::runtime::Store>();
    std::vector<dgd::runtime::ObjectPtr> cached;
    cached.reserve(kObjects);
    for (auto& o : copy) cached.push_back(dgd::runtime::CachedObject::make(std::move(o)));
    for (const auto& c : cached) compact_bytes += c->json_text().size();
    (void)store->replace(std::move(cached));
    state.PauseTiming();
    // The store's footprint: heap in use with it, minus heap in use once it is gone
    // (the inputs were consumed while building it, so "before" would be too high).
    copy.clear();
    copy.shrink_to_fit();
    size_t with_store = heap_in_use();
    store.reset();
    size_t without_store = heap_in_use();
    per_object = static_cast<double>(with_store - without_store) / kObjects;
    compact = static_cast<double>(compact_bytes) / kObjects;
    full = static_cast<double>(full_bytes) / kObjects;
    state.ResumeTiming();
  }
  state.counters["bytes_per_object"] = per_object;
  state.counters["compact_json_bytes"] = compact;
  state.counters["overhead_bytes"] = per_object - compact;
  state.counters["server_json_bytes"] = full;
}
BENCHMARK(BM_StoreBytesPerDeployment)->Unit(benchmark::kMillisecond)->Iterations(3);

// For comparison: the same objects kept as parsed nlohmann::json DOMs (managedFields stripped).
void BM_JsonDomBytesPerDeployment(benchmark::State& state) {
  double per_object = 0;
  for (auto _ : state) {
    size_t before = heap_in_use();
    auto held = std::make_unique<std::vector<json>>();
    held->reserve(kObjects);
    for (int i = 0; i < kObjects; ++i) {
      json d = deployment(i);
      dgd::runtime::strip_for_cache(d);
      held->push_back(std::move(d));
    }
    per_object = static_cast<double>(heap_in_use() - before) / kObjects;
    state.PauseTiming();
    held.reset();
    state.ResumeTiming();
  }
  state.counters["bytes_per_object"] = per_object;
}
BENCHMARK(BM_JsonDomBytesPerDeployment)->Unit(benchmark::kMillisecond)->Iterations(3);

// Watch decode rate, as the informer runs it: newline-delimited MODIFIED events fed in
// 16 KiB chunks, each frame validated and decoded (decode_watch_event), compacted into
// the cache form from its text (CachedObject::from_text) and upserted into a Store
// holding 2,000 objects. One thread.
std::string watch_stream(int events) {
  std::string stream;
  for (int i = 0; i < events; ++i) {
    stream += json({{"type", "MODIFIED"}, {"object", deployment(i)}}).dump();
    stream += '\n';
  }
  return stream;
}

// Arg: 1 with values shared across cached objects (shared_text.h, the operator now), 0 without.
void BM_WatchDecode(benchmark::State& state) {
  const int events = 2000;
  const std::string stream = watch_stream(events);
  dgd::runtime::SharedTextPool pool;
  dgd::runtime::SharedTextPool* shared = state.range(0) != 0 ? &pool : nullptr;
  dgd::runtime::Store store;
  int64_t decoded = 0;
  for (auto _ : state) {
    dgd::kube::LineFramer framer;
    for (size_t off = 0; off < stream.size(); off += 16384) {
      framer.feed(std::string_view(stream).substr(off, 16384), [&](std::string_view line) {
        auto ev = dgd::kube::decode_watch_event(line);
        auto obj = dgd::runtime::CachedObject::from_text(ev->object_text, {}, shared);
        benchmark::DoNotOptimize(store.upsert(std::move(obj)));
        ++decoded;
      });
    }
  }
  state.SetItemsProcessed(decoded);
  state.SetBytesProcessed(static_cast<int64_t>(stream.size()) * state.iterations());
  state.counters["event_bytes"] = static_cast<double>(stream.size()) / events;
}
BENCHMARK(BM_WatchDecode)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same through a DOM (parse the frame with nlohmann, strip, dump the compact text):
// the baseline the decode rate is compared with.
void BM_WatchDecodeViaDom(benchmark::State& state) {
  const int events = 2000;
  const std::string stream = watch_stream(events);
  dgd::runtime::Store store;
  int64_t decoded = 0;
  for (auto _ : state) {
    dgd::kube::LineFramer framer;
    for (size_t off = 0; off < stream.size(); off += 16384) {
      framer.feed(std::string_view(stream).substr(off, 16384), [&](std::string_view line) {
        auto frame = json::parse(line);
        auto obj = dgd::runtime::CachedObject::make(std::move(frame["object"]));
        benchmark::DoNotOptimize(store.upsert(std::move(obj)));
        ++decoded;
      });
    }
  }
  state.SetItemsProcessed(decoded);
  state.SetBytesProcessed(static_cast<int64_t>(stream.size()) * state.iterations());
}
BENCHMARK(BM_WatchDecodeViaDom)->Unit(benchmark::kMillisecond);

// Store bytes per object when filled from watch-event text (the steady state of a
// running informer) rather than from parsed JSON.
void BM_StoreBytesPerDeploymentFromText(benchmark::State& state) {
  std::vector<std::string> texts;
  texts.reserve(kObjects);
  for (int i = 0; i < kObjects; ++i) texts.push_back(deployment(i).dump());
  double per_object = 0, compact = 0;
  for (auto _ : state) {
    auto store = std::make_unique<dgd::runtime::Store>();
    size_t compact_bytes = 0;
    for (const auto& t : texts) {
      auto o = dgd::runtime::CachedObject::from_text(t);
      compact_bytes += o->json_text().size();
      store->upsert(std::move(o));
    }
    state.PauseTiming();
    size_t with_store = heap_in_use();
    store.reset();
    per_object = static_cast<double>(with_store - heap_in_use()) / kObjects;
    compact = static_cast<double>(compact_bytes) / kObjects;
    state.ResumeTiming();
  }
  state.counters["bytes_per_object"] = per_object;
  state.counters["compact_json_bytes"] = compact;
  state.counters["overhead_bytes"] = per_object - compact;
}
BENCHMARK(BM_StoreBytesPerDeploymentFromText)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
