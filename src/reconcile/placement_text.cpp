// The words placement sentences share: lists and the resources a sentence names.
#include "reconcile/placement_text.h"

#include <algorithm>

#include "reconcile/json_path.h"

namespace dgd::reconcile {

std::string join(const std::vector<std::string>& parts, const std::string& sep, const std::string& last_sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += (i + 1 == parts.size()) ? last_sep : sep;
    out += parts[i];
  }
  return out;
}

// The resources a sentence names: the extended ones the pod requests (GPUs, RDMA),
// plus any other that was reported short.
std::vector<std::string> named_resources(const ResourceAmounts& req, const std::set<std::string>& short_resources) {
  std::vector<std::string> out;
  // nvidia.com/gpu first: it is what people count.
  if (req.count("nvidia.com/gpu") > 0 && req.at("nvidia.com/gpu") > 0) out.push_back("nvidia.com/gpu");
  for (const auto& [r, v] : req) {
    if (v > 0 && is_extended(r) && r != "nvidia.com/gpu") out.push_back(r);
  }
  for (const auto& r : short_resources) {
    if (std::find(out.begin(), out.end(), r) == out.end() && (req.count(r) > 0 || r == "pods")) out.push_back(r);
  }
  return out;
}

}  // namespace dgd::reconcile
