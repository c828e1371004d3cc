// What refused a pod: the failing filters of a simulated fit, or those the default
// scheduler's FitError message names.
#include "dgd/reconcile/placement.h"


namespace dgd::reconcile {

Refusal failing_filters(const FitResult& result) {
  Refusal r;
  for (const auto& n : result.refused) {
    r.filters.insert(n.filters.begin(), n.filters.end());
    // As the scheduler reports it: resources only of nodes the pod may run on at all.
    if (n.fails(FitFilter::kUnschedulable) || n.fails(FitFilter::kTaint) || n.fails(FitFilter::kNodeSelector)) continue;
    for (const auto& s : n.shortfalls) r.short_resources.insert(s.resource);
  }
  return r;
}

Refusal parse_scheduler_message(const std::string& message) {
  Refusal r;
  const auto colon = message.find("nodes are available: ");
  if (colon == std::string::npos) {
    if (!message.empty()) r.other = true;
    return r;
  }
  std::string body = message.substr(colon + std::string("nodes are available: ").size());
  const auto pre = body.find(" preemption:");
  if (pre != std::string::npos) body = body.substr(0, pre);
  while (!body.empty() && (body.back() == '.' || body.back() == ' ')) body.pop_back();
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find(", ", start);
    // A taint "{key: value}" holds no ", "; a part starts with its node count.
    std::string part = body.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? body.size() : end + 2;
    const auto sp = part.find(' ');
    const std::string text = sp == std::string::npos ? part : part.substr(sp + 1);
    if (text.rfind("Insufficient ", 0) == 0) {
      r.filters.insert(FitFilter::kResources);
      r.short_resources.insert(text.substr(13));
    } else if (text == "Too many pods") {
      r.filters.insert(FitFilter::kResources);
      r.short_resources.insert("pods");
    } else if (text.find(kCliqueLabel) != std::string::npos) {
      r.filters.insert(FitFilter::kClique);
    } else if (text.find("were unschedulable") != std::string::npos) {
      r.filters.insert(FitFilter::kUnschedulable);
    } else if (text.find("untolerated taint") != std::string::npos) {
      r.filters.insert(FitFilter::kTaint);
    } else if (text.find("node affinity/selector") != std::string::npos) {
      r.filters.insert(FitFilter::kNodeSelector);
    } else if (text.find("existing pods anti-affinity") != std::string::npos) {
      r.filters.insert(FitFilter::kExistingAntiAffinity);
    } else if (text.find("pod anti-affinity") != std::string::npos) {
      r.filters.insert(FitFilter::kPodAntiAffinity);
    } else if (text.find("pod affinity") != std::string::npos) {
      r.filters.insert(FitFilter::kPodAffinity);
    } else {
      r.other = true;
    }
  }
  return r;
}

}  // namespace dgd::reconcile
