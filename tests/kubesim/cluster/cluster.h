// kube-sim cluster: the simulated GPU cluster plugged into kube-sim's store.
//
// make_cluster() loads the profile (throws std::runtime_error naming the file and
// field on a bad one), creates its nodes in the store (skipping names that
// already exist, e.g. restored with --data) and returns the Controller that runs
// every simulated controller (controllers.h) on one thread: it takes a snapshot
// of the store, applies the resulting writes, and waits for the next change or
// the next timed step. Writes that lose a race (409, 404) are dropped; the next
// pass recomputes them. With no profile the cluster is off (make_cluster
// returns nullptr) and kube-sim is a plain API server.
#pragma once

#include "kubesim/cluster/kubelet.h"
#include "kubesim/controller.h"

#include <memory>
#include <string>

namespace kubesim::cluster {

struct ClusterOptions {
  std::string profile;  // path, or a name of tests/kubesim/profiles ("h200-4x")
  KubeletOptions kubelet;
};

std::unique_ptr<Controller> make_cluster(Store& store, const ClusterOptions& opts);

}  // namespace kubesim::cluster
