#include "kubesim/cluster/controllers.h"

namespace kubesim::cluster {

Writes ClusterControllers::sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) {
  Writes all;
  auto add = [&](Writes w) {
    for (auto& x : w) all.push_back(std::move(x));
  };
  add(nodes_.sync(snap, env));
  add(volumes_.sync(snap, env));
  add(compute_domains_.sync(snap, env));
  add(deployments_.sync(snap, env, next_wakeup));
  add(replicasets_.sync(snap, env, next_wakeup));
  add(jobs_.sync(snap, env, next_wakeup));
  add(scheduler_.schedule(snap, env));
  add(kubelets_.sync(snap, env, next_wakeup));
  return all;
}

}  // namespace kubesim::cluster
