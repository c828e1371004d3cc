// The worker generation of a rendered graph: one 8-hex-digit hash over the pod templates of
// every worker component (types worker, prefill, decode), and what render stamps with it.
// Pure.
//
// Each generation of workers runs in its own Dynamo namespace, so a prefill worker only
// ever hands KV blocks to a decode worker of the same generation (upstream Dynamo's
// worker-hash rollouts): a worker Deployment is named `<dgd>-<lowercase component>-<hash>`,
// carries the label nvidia.com/dynamo-worker-hash=<hash> (on the Deployment and its pods)
// and its pods get DYN_NAMESPACE_WORKER_SUFFIX=<hash>, which the Dynamo runtime appends to
// DYN_NAMESPACE. The frontend discovers every generation through DYN_NAMESPACE_PREFIX (and
// DYN_NAMESPACE_PREFIX_STRICT, which accepts only "<prefix>-" followed by exactly 8
// characters of [0-9a-f]).
//
// The hash covers everything that shapes the worker pods, after recipe expansion and
// lowering (image, command and flags, env, resources, placement, volumes, labels,
// annotations), so a change of any worker rolls every worker and a frontend-only change
// rolls nothing. It leaves out what does not make pods incompatible: replicas (not in the
// template), the annotations that steer rollouts and restarts (kRolloutOnlyAnnotations),
// and the per-Deployment selector label (which holds the name, hence the hash).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dgd::render {

inline constexpr const char* kLabelWorkerHash = "nvidia.com/dynamo-worker-hash";
inline constexpr const char* kEnvWorkerSuffix = "DYN_NAMESPACE_WORKER_SUFFIX";

// Pod-template annotations the hash ignores: the rollout strategy (api/rollout.h) and the
// restart stamp (a restart re-creates pods of the same generation in place).
inline constexpr const char* kRolloutOnlyAnnotations[] = {
    "nvidia.com/deployment-strategy", "nvidia.com/deployment-rolling-update-max-surge",
    "nvidia.com/deployment-rolling-update-max-unavailable", "nvidia.com/restartAt"};

// True for a Deployment (or pod) whose nvidia.com/dynamo-component-type label is worker,
// prefill or decode.
bool is_worker_object(const nlohmann::json& obj);

// The hash of the worker Deployments among `objects` (as render builds them, named
// `<dgd>-<component>`); "" when there is none.
std::string worker_generation_hash(const std::vector<nlohmann::json>& objects);

// Renames every worker Deployment among `objects` to `<name>-<hash>` and stamps the hash
// (label, selector, DYN_NAMESPACE_WORKER_SUFFIX). No-op without workers.
void stamp_worker_generation(std::vector<nlohmann::json>& objects);

}  // namespace dgd::render
