#include "kubesim/cluster/compute_domain_controller.h"

#include "kubesim/cluster/scheduler.h"

#include <map>
#include <set>

namespace kubesim::cluster {
namespace {

bool claims_from(const Json& pod, const std::string& template_name) {
  const Json& claims = at_path(pod, {"spec", "resourceClaims"});
  if (!claims.is_array()) return false;
  for (const auto& c : claims) {
    if (str_at(c, {"resourceClaimTemplateName"}) == template_name) return true;
    if (str_at(c, {"source", "resourceClaimTemplateName"}) == template_name) return true;
  }
  return false;
}

}  // namespace

Writes ComputeDomainController::sync(const Snapshot& snap, const Env&) const {
  Writes out;
  std::map<std::string, const Json*> nodes;
  for (const auto& n : snap.nodes) nodes[name_of(n)] = &n;
  std::set<std::string> templates;
  for (const auto& t : snap.claim_templates) templates.insert(namespace_of(t) + "/" + name_of(t));

  for (const auto& cd : snap.compute_domains) {
    if (is_terminating(cd)) continue;
    const std::string ns = namespace_of(cd);
    const std::string tname = str_at(cd, {"spec", "channel", "resourceClaimTemplate", "name"});
    if (tname.empty()) continue;
    if (snap.claim_templates_served && !templates.count(ns + "/" + tname)) {
      std::string mode = str_at(cd, {"spec", "channel", "allocationMode"}, "Single");
      Json rct = {
          {"apiVersion", "resource.k8s.io/v1beta1"},
          {"kind", "ResourceClaimTemplate"},
          {"metadata",
           {{"name", tname},
            {"namespace", ns},
            {"labels", {{"resource.nvidia.com/computeDomain", uid_of(cd)}}},
            {"ownerReferences", Json::array({owner_reference(cd)})}}},
          {"spec",
           {{"metadata", {{"labels", {{"resource.nvidia.com/computeDomain", uid_of(cd)}}}}},
            {"spec",
             {{"devices",
               {{"requests", Json::array({{{"name", "channel"},
                                           {"deviceClassName", "compute-domain-default-channel.nvidia.com"},
                                           {"allocationMode", "ExactCount"},
                                           {"count", 1}}})},
                {"config", Json::array({{{"requests", Json::array({"channel"})},
                                         {"opaque",
                                          {{"driver", "compute-domain.nvidia.com"},
                                           {"parameters",
                                            {{"apiVersion", "resource.nvidia.com/v1beta1"},
                                             {"kind", "ComputeDomainChannelConfig"},
                                             {"domainID", uid_of(cd)},
                                             {"allocationMode", mode}}}}}}})}}}}}}}};
      out.push_back(Write::create("resource.k8s.io/v1beta1", "resourceclaimtemplates", std::move(rct),
                                  "channel template of computedomain " + name_of(cd)));
    }
    // Nodes running a pod of this domain, indexed per clique in name order.
    std::set<std::string> running;
    for (const auto& p : snap.pods) {
      if (namespace_of(p) != ns || is_terminating(p) || str_at(p, {"status", "phase"}) != "Running") continue;
      if (!claims_from(p, tname)) continue;
      std::string node = str_at(p, {"spec", "nodeName"});
      if (nodes.count(node)) running.insert(node);
    }
    Json list = Json::array();
    std::map<std::string, int> next_index;
    for (const auto& node : running) {
      const Json& n = *nodes[node];
      std::string clique = str_at(at_path(n, {"metadata", "labels"}), {Scheduler::kCliqueLabel});
      std::string ip;
      const Json& addrs = at_path(n, {"status", "addresses"});
      if (addrs.is_array())
        for (const auto& a : addrs)
          if (a.value("type", "") == "InternalIP") ip = a.value("address", "");
      list.push_back({{"name", node},
                      {"ipAddress", ip},
                      {"cliqueID", clique},
                      {"index", next_index[clique]++},
                      {"status", "Ready"}});
    }
    int64_t need = std::max<int64_t>(int_at(cd, {"spec", "numNodes"}, 0), 1);
    Json status = cd.contains("status") && cd["status"].is_object() ? cd["status"] : Json::object();
    Json before = status;
    status["status"] = static_cast<int64_t>(running.size()) >= need ? "Ready" : "NotReady";
    if (list.empty()) status.erase("nodes");
    else status["nodes"] = list;
    if (status == before) continue;
    // The reason is read before c moves into the call: argument evaluation order is
    // unspecified (clang moved c first and the read threw on null).
    std::string reason = "status " + status["status"].get<std::string>();
    Json c = cd;
    c["status"] = std::move(status);
    out.push_back(Write::update_status("resource.nvidia.com/v1beta1", "computedomains", std::move(c), std::move(reason)));
  }
  return out;
}

}  // namespace kubesim::cluster
