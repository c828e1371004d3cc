// Services, as pkg/apis/core/validation/validation.go checks them (ValidateService,
// validateServicePort, ValidatePortNumOrName), and what the Service storage does to an
// update before validating it (pkg/registry/core/service/storage/storage.go:
// patchAllocatedValues; pkg/registry/core/service/strategy.go: dropTypeDependentFields).
#include "kubesim/validation/kinds.h"
#include "kubesim/validation/validate.h"

#include <map>
#include <set>

namespace kubesim::validation {

namespace {

std::string go_service_port_key(const std::string& protocol, int64_t port) {
  return "core.ServicePort{Name:\"\", Protocol:" + go_quote(protocol) + ", AppProtocol:(*string)(nil), Port:" +
         go_int(port) + ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
}

int64_t int_of(const json& obj, const char* key) {
  const json* v = child(obj, key);
  return v && v->is_number_integer() ? v->get<int64_t>() : 0;
}

bool needs_cluster_ip(const json& spec) { return str_of(spec, "type") != "ExternalName"; }
bool needs_node_port(const json& spec) {
  const std::string type = str_of(spec, "type");
  return type == "NodePort" || type == "LoadBalancer";
}
bool should_allocate_node_ports(const json& spec) {
  const std::string type = str_of(spec, "type");
  const json* allocate = child(spec, "allocateLoadBalancerNodePorts");
  return type == "NodePort" || (type == "LoadBalancer" && (!allocate || *allocate == true));
}

}  // namespace

void prepare_service_update(const json& old_svc, json& new_svc) {
  if (!new_svc.contains("spec") || !new_svc["spec"].is_object()) return;
  const json& os = object_of(old_svc, "spec");
  json& ns = new_svc["spec"];
  auto same = [&](const char* f) {
    const json* a = child(os, f);
    const json* b = child(ns, f);
    return (!a && !b) || (a && b && *a == *b);
  };
  // patchAllocatedValues: what the client left out keeps its allocated value.
  if (needs_cluster_ip(os) && needs_cluster_ip(ns)) {
    if (str_of(ns, "clusterIP").empty() && child(os, "clusterIP")) ns["clusterIP"] = os["clusterIP"];
    if (array_of(ns, "clusterIPs").empty() && !array_of(os, "clusterIPs").empty()) ns["clusterIPs"] = os["clusterIPs"];
  }
  if (needs_node_port(os) && needs_node_port(ns) && ns.contains("ports") && ns["ports"].is_array()) {
    std::map<std::string, json> by_name;
    for (const auto& p : array_of(os, "ports"))
      if (const json* np = child(p, "nodePort")) by_name[str_of(p, "name")] = *np;
    std::set<int64_t> used_new;
    for (const auto& p : ns["ports"])
      if (const json* np = child(p, "nodePort"); np && np->is_number_integer()) used_new.insert(np->get<int64_t>());
    for (auto& p : ns["ports"]) {
      if (!p.is_object()) continue;
      const json* np = child(p, "nodePort");
      auto old = by_name.find(str_of(p, "name"));
      if ((!np || *np == 0) && old != by_name.end() && old->second.is_number_integer() &&
          !used_new.count(old->second.get<int64_t>()))
        p["nodePort"] = old->second;
    }
  }
  // dropTypeDependentFields: leaving a type wipes what only that type used, when the
  // client did not change it.
  if (needs_cluster_ip(os) && !needs_cluster_ip(ns)) {
    if (same("clusterIP") && same("clusterIPs")) {
      ns.erase("clusterIP");
      ns.erase("clusterIPs");
    }
    if (same("ipFamilies")) ns.erase("ipFamilies");
    if (same("ipFamilyPolicy")) ns.erase("ipFamilyPolicy");
  }
  if (needs_node_port(os) && !needs_node_port(ns) && !should_allocate_node_ports(ns) && ns.contains("ports") &&
      ns["ports"].is_array()) {
    auto node_ports = [](const json& ports) {
      std::set<int64_t> used;
      for (const auto& p : ports)
        if (const json* n = child(p, "nodePort"); n && n->is_number_integer() && n->get<int64_t>() > 0)
          used.insert(n->get<int64_t>());
      return used;
    };
    const bool same_node_ports = node_ports(ns["ports"]) == node_ports(array_of(os, "ports"));
    if (same_node_ports)
      for (auto& p : ns["ports"])
        if (p.is_object()) p.erase("nodePort");
  }
  if (needs_node_port(os) && !needs_node_port(ns) && same("externalTrafficPolicy")) ns.erase("externalTrafficPolicy");
}

void validate_service(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  const std::string type = str_of(spec, "type");
  const bool headless = str_of(spec, "clusterIP") == "None";
  const json& ports = array_of(spec, "ports");
  if (ports.empty() && !headless && type != "ExternalName") errs.required("spec.ports");
  if (type == "ExternalName") {
    if (!array_of(spec, "clusterIPs").empty()) errs.forbidden("spec.clusterIPs", "may not be set for ExternalName services");
    if (!array_of(spec, "ipFamilies").empty()) errs.forbidden("spec.ipFamilies", "may not be set for ExternalName services");
    if (child(spec, "ipFamilyPolicy")) errs.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services");
    std::string cname = str_of(spec, "externalName");
    if (!cname.empty() && cname.back() == '.') cname.pop_back();
    if (cname.empty()) errs.required("spec.externalName");
    else errs.invalid_each("spec.externalName", go_quote(cname), is_dns1123_subdomain(cname));
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const json& sp = ports[i];
    const std::string p = index_path("spec.ports", i);
    const std::string name = str_of(sp, "name");
    if (ports.size() > 1 && name.empty()) {
      errs.required(p + ".name");
    } else if (!name.empty()) {
      errs.invalid_each(p + ".name", go_quote(name), is_dns1123_label(name));
      if (!names.insert(name).second) errs.duplicate(p + ".name", go_quote(name));
    }
    const int64_t port = int_of(sp, "port");
    errs.invalid_each(p + ".port", go_int(port), is_valid_port_num(port));
    const std::string protocol = str_of(sp, "protocol");
    if (protocol.empty()) errs.required(p + ".protocol");
    else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
      errs.not_supported(p + ".protocol", go_quote(protocol), {"SCTP", "TCP", "UDP"});
    if (const json* tp = child(sp, "targetPort")) {
      if (tp->is_number_integer()) errs.invalid_each(p + ".targetPort", go_int(tp->get<int64_t>()), is_valid_port_num(tp->get<int64_t>()));
      else if (tp->is_string()) errs.invalid_each(p + ".targetPort", go_quote(tp->get<std::string>()), is_valid_port_name(tp->get<std::string>()));
    }
    if (has_str(sp, "appProtocol"))
      errs.invalid_each(p + ".appProtocol", go_quote(str_of(sp, "appProtocol")), is_qualified_name(str_of(sp, "appProtocol")));
  }
  if (const json* sel = child(spec, "selector")) validate_labels(*sel, "spec.selector", errs);
  const std::string affinity = str_of(spec, "sessionAffinity");
  if (affinity.empty()) errs.required("spec.sessionAffinity");
  else if (affinity != "ClientIP" && affinity != "None")
    errs.not_supported("spec.sessionAffinity", go_quote(affinity), {"ClientIP", "None"});
  if (type.empty()) errs.required("spec.type");
  else if (type != "ClusterIP" && type != "ExternalName" && type != "LoadBalancer" && type != "NodePort")
    errs.not_supported("spec.type", go_quote(type), {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});
  if (type == "ClusterIP")
    for (size_t i = 0; i < ports.size(); ++i)
      if (int_of(ports[i], "nodePort") != 0)
        errs.forbidden(index_path("spec.ports", i) + ".nodePort", "may not be used when `type` is 'ClusterIP'");
  std::set<std::pair<std::string, int64_t>> seen;
  for (size_t i = 0; i < ports.size(); ++i) {
    auto key = std::make_pair(str_of(ports[i], "protocol"), int_of(ports[i], "port"));
    if (!seen.insert(key).second) errs.duplicate(index_path("spec.ports", i), go_service_port_key(key.first, key.second));
  }
}

}  // namespace kubesim::validation
