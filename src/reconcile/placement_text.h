// Words the placement messages share (placement.cpp, placement_condition.cpp). Pure.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "dgd/reconcile/placement_fit.h"

namespace dgd::reconcile {

// "a, b and c" with `sep` between items and `last_sep` before the last.
std::string join(const std::vector<std::string>& parts, const std::string& sep, const std::string& last_sep);
// The resources a sentence names: the extended ones the pod requests (GPUs, RDMA), plus
// any other that was reported short.
std::vector<std::string> named_resources(const ResourceAmounts& req, const std::set<std::string>& short_resources);

}  // namespace dgd::reconcile
