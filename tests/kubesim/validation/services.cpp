// Services, as pkg/apis/core/validation/validation.go checks them (ValidateService,
// validateServicePort, ValidatePortNumOrName).
#include "kubesim/validation/kinds.h"

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

}  // namespace

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
