// kube-sim cluster: the simulated kubelets of every node (pure decision logic
// plus the little memory a kubelet has: when it first saw each pod, its IP).
//
// A pod bound to a node moves Pending (ContainerCreating) -> Running after
// start_delay -> Ready after ready_delay more, with the conditions
// PodReadyToStartContainers / Initialized / Ready / ContainersReady /
// PodScheduled, containerStatuses, hostIP and podIP as a real kubelet reports.
// Test knobs (annotations):
//   sim.dgd.dev/ready: "false"   on a pod: it stays (or turns) unready, and back.
//   sim.dgd.dev/fail: "<reason>" on a Job's pod, its Job or its namespace: the pod
//                                 ends Failed (exit code 1, the reason as message).
//   sim.dgd.dev/duration: "2s"   on a Job's pod or its Job: run time before it ends.
// Pods owned by a Job end Succeeded after job_duration (unless told to fail).
// A terminating pod turns unready and is removed after termination_delay.
#pragma once

#include "kubesim/cluster/snapshot.h"

#include <chrono>
#include <map>
#include <string>

namespace kubesim::cluster {

struct KubeletOptions {
  std::chrono::milliseconds start_delay{100};
  std::chrono::milliseconds ready_delay{100};
  std::chrono::milliseconds job_duration{500};
  std::chrono::milliseconds termination_delay{100};
};

inline constexpr const char* kReadyAnnotation = "sim.dgd.dev/ready";
inline constexpr const char* kFailAnnotation = "sim.dgd.dev/fail";
inline constexpr const char* kDurationAnnotation = "sim.dgd.dev/duration";

class Kubelets {
 public:
  explicit Kubelets(KubeletOptions opts) : opts_(opts) {}
  // Status writes and removals due at env.now. *next_wakeup is lowered to the
  // time the next stage change is due (unchanged when nothing is pending).
  Writes sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup);

 private:
  struct Track {
    TimePoint bound_at;
    TimePoint terminating_at;
    bool terminating_seen = false;
    std::string pod_ip;
  };
  std::string allocate_ip(const std::string& node, size_t node_index);

  KubeletOptions opts_;
  std::map<std::string, Track> tracks_;            // by pod uid
  std::map<std::string, uint32_t> next_ip_;        // by node
};

}  // namespace kubesim::cluster
