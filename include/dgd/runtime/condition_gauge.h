// A gauge that counts the objects of an informer by the status of some of their
// conditions, as kube-state-metrics does for built-in kinds: with conditions {Ready,
// Serving}, `dgd_graphs{ready="True",serving="Unknown"} 3`. Every combination of True,
// False and Unknown is present from the start (at 0); an object without one of the
// conditions counts as Unknown for it. Kept up to date by the informer's events (each
// add or update reads the object's status once), so a scrape costs nothing extra.
// The handler runs on the informer's thread (informer.h); the gauges are thread-safe.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "dgd/runtime/informer.h"

namespace dgd::runtime {

struct ConditionGaugeOptions {
  std::string name;                     // e.g. "dgd_graphs"
  std::string help;
  std::vector<std::string> conditions;  // condition types; each a label named in lower case
};

// The handler to add to the informer whose objects are counted.
EventHandler condition_gauge(std::shared_ptr<kube::MetricsRegistry> metrics, ConditionGaugeOptions options);

}  // namespace dgd::runtime
