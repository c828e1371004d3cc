// kube-sim cluster: command-line flags of the simulated cluster, for kube-sim's
// main.cpp (header-only so kubesim_lib does not depend on CLI11).
#pragma once

#include "kubesim/cluster/cluster.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>

namespace kubesim::cluster {

namespace cli_detail {
inline std::function<void(const double&)> store_ms(std::chrono::milliseconds& into) {
  return [&into](const double& seconds) {
    if (seconds < 0) throw CLI::ValidationError("delays must be >= 0");
    into = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
  };
}
}  // namespace cli_detail

inline void add_cli_options(CLI::App& app, ClusterOptions& o) {
  app.add_option("--profile", o.profile,
                 "simulate a GPU cluster from this profile (YAML file, or a name such as h200-4x from "
                 "tests/kubesim/profiles): nodes, scheduler, kubelets, Deployment/ReplicaSet/Job/PVC/ComputeDomain "
                 "controllers (docs/kube-sim-cluster.md); without it kube-sim is a plain API server");
  auto secs = [](std::chrono::milliseconds d) { return std::to_string(d.count() / 1000.0); };
  app.add_option_function<double>("--kubelet-start-delay", cli_detail::store_ms(o.kubelet.start_delay),
                                  "seconds from binding until a pod runs (default " + secs(o.kubelet.start_delay) + ")");
  app.add_option_function<double>("--kubelet-ready-delay", cli_detail::store_ms(o.kubelet.ready_delay),
                                  "seconds from running until a pod is Ready (default " + secs(o.kubelet.ready_delay) + ")");
  app.add_option_function<double>("--job-duration", cli_detail::store_ms(o.kubelet.job_duration),
                                  "seconds a Job's pod runs before it ends (default " + secs(o.kubelet.job_duration) +
                                      "; per pod or Job: annotation sim.dgd.dev/duration)");
  app.add_option_function<double>("--pod-termination-delay", cli_detail::store_ms(o.kubelet.termination_delay),
                                  "seconds a terminating pod (deletionTimestamp set) takes to go away (default " +
                                      secs(o.kubelet.termination_delay) + ")");
}

}  // namespace kubesim::cluster
