// kube-sim cluster: cluster profiles (YAML files describing the simulated nodes).
//
// Format (docs/kube-sim-cluster.md has the full description):
//   name: h200-4x
//   storageClasses: {default: standard, names: [standard, shared-rwx]}
//   nodePools:                       # N identical nodes: <namePrefix><i>, i = 0..count-1
//   - name: h200
//     count: 4
//     namePrefix: h200-              # default "<name>-"
//     arch: amd64                    # kubernetes.io/arch label and nodeInfo
//     labels: {nvidia.com/gpu.product: NVIDIA-H200}
//     taints: ["nvidia.com/gpu:NoSchedule"]   # or {key, value, effect}
//     allocatable: {cpu: "224", memory: 2000Gi, nvidia.com/gpu: "8", rdma/ib: "8"}
//   nodes:                           # single nodes, same fields plus name
//   - name: login-0
//     ...
// Nodes get the standard labels (kubernetes.io/hostname, kubernetes.io/os,
// kubernetes.io/arch and their beta forms, sim.dgd.dev/pool) and a complete
// status (capacity = allocatable, Ready, addresses, nodeInfo).
// Errors throw std::runtime_error naming the file and the field.
#pragma once

#include "kubesim/cluster/objects.h"
#include "kubesim/cluster/volume_controller.h"

#include <string>
#include <vector>

namespace kubesim::cluster {

struct Profile {
  std::string name;
  std::vector<Json> nodes;  // complete Node objects, in profile order
  StorageClasses storage;
};

Profile parse_profile(const std::string& yaml_text, const std::string& origin, TimePoint now);
Profile load_profile(const std::string& path, TimePoint now);
// A path as given, or a bare name ("h200-4x") looked up in $KUBESIM_PROFILES and in
// tests/kubesim/profiles of the source tree the binary was built in.
std::string resolve_profile_path(const std::string& name_or_path);

}  // namespace kubesim::cluster
