#include "kubesim/rbac_authorizer.h"

#include <algorithm>
#include <stdexcept>

namespace kubesim::rbac {

using nlohmann::json;

namespace {

const char* kRbacGroup = "rbac.authorization.k8s.io";

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

bool parse_bool(const std::string& v) { return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True"; }

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// fieldSelector "metadata.name=x" (or ==, among other terms): the name a list/watch is limited to.
std::string name_from_field_selector(const std::string& sel) {
  size_t start = 0;
  while (start <= sel.size()) {
    auto comma = sel.find(',', start);
    std::string term = sel.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    for (const char* prefix : {"metadata.name==", "metadata.name="})
      if (term.rfind(prefix, 0) == 0) {
        std::string name = term.substr(std::string(prefix).size());
        if (!name.empty() && name.find('/') == std::string::npos && name != "." && name != "..") return name;
      }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

// k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy: the defaults
// every cluster has, so discovery and whoami work for any authenticated user.
void add_bootstrap_policy(Authorizer::Policy& p) {
  auto add_role = [&](const std::string& name, std::vector<PolicyRule> rules) {
    p.cluster_roles.emplace(name, std::move(rules));  // a stored role of the same name wins
  };
  add_role("system:discovery", {PolicyRule{{"get"}, {}, {}, {},
                                           {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                                            "/openapi/*", "/readyz", "/version", "/version/"}}});
  add_role("system:basic-user",
           {PolicyRule{{"create"}, {"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, {}, {}},
            PolicyRule{{"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"}, {}, {}}});
  add_role("system:public-info-viewer",
           {PolicyRule{{"get"}, {}, {}, {}, {"/healthz", "/livez", "/readyz", "/version", "/version/"}}});
  auto add_binding = [&](const std::string& name, json subjects) {
    for (const auto& b : p.cluster_bindings)
      if (b.name == name) return;
    p.cluster_bindings.push_back(Authorizer::Binding{"", name, "ClusterRole", name, std::move(subjects)});
  };
  const json authenticated = {{"kind", "Group"}, {"apiGroup", kRbacGroup}, {"name", "system:authenticated"}};
  const json unauthenticated = {{"kind", "Group"}, {"apiGroup", kRbacGroup}, {"name", "system:unauthenticated"}};
  add_binding("system:discovery", json::array({authenticated}));
  add_binding("system:basic-user", json::array({authenticated}));
  add_binding("system:public-info-viewer", json::array({authenticated, unauthenticated}));
}

Authorizer::Binding binding_of(const json& obj) {
  Authorizer::Binding b;
  const json& md = obj.value("metadata", json::object());
  b.ns = md.value("namespace", "");
  b.name = md.value("name", "");
  const json ref = obj.value("roleRef", json::object());
  if (ref.is_object()) {
    b.role_kind = ref.value("kind", "");
    b.role_name = ref.value("name", "");
  }
  b.subjects = obj.value("subjects", json::array());
  if (!b.subjects.is_array()) b.subjects = json::array();
  return b;
}

// The subject of `subjects` that names `id`; nullptr when none does.
const json* subject_for(const Identity& id, const json& subjects, const std::string& binding_ns) {
  for (const auto& s : subjects) {
    if (!s.is_object()) continue;
    const std::string kind = s.value("kind", ""), name = s.value("name", "");
    if (kind == "User" && name == id.user) return &s;
    if (kind == "Group" && std::find(id.groups.begin(), id.groups.end(), name) != id.groups.end()) return &s;
    if (kind == "ServiceAccount") {
      std::string ns = s.value("namespace", "");
      if (ns.empty()) ns = binding_ns;
      if (!ns.empty() && id.user == "system:serviceaccount:" + ns + ":" + name) return &s;
    }
  }
  return nullptr;
}

std::string quoted(const std::string& s) { return json(s).dump(); }

// pkg/registry/rbac/validation rule.go: clusterRoleBindingDescriber / roleBindingDescriber
// and describeSubject, the source named in "RBAC: allowed by ...".
std::string describe(const Authorizer::Binding& b, const json& subject) {
  const std::string kind = subject.value("kind", ""), name = subject.value("name", "");
  std::string who;
  if (kind == "ServiceAccount") {
    const std::string ns = subject.value("namespace", "");
    who = kind + " " + quoted(name + "/" + (ns.empty() ? b.ns : ns));
  } else {
    who = kind + " " + quoted(name);
  }
  if (b.ns.empty())
    return "ClusterRoleBinding " + quoted(b.name) + " of " + b.role_kind + " " + quoted(b.role_name) + " to " + who;
  return "RoleBinding " + quoted(b.name + "/" + b.ns) + " of " + b.role_kind + " " + quoted(b.role_name) + " to " + who;
}

}  // namespace

Mode parse_mode(const std::string& s) {
  if (s == "AlwaysAllow") return Mode::AlwaysAllow;
  if (s == "ServiceAccounts") return Mode::ServiceAccounts;
  if (s == "RBAC") return Mode::RBAC;
  throw std::invalid_argument("--authorization-mode wants AlwaysAllow, ServiceAccounts or RBAC, got \"" + s + "\"");
}

RequestAttributes request_attributes(const std::string& method, const std::string& path,
                                     const std::map<std::string, std::string>& query) {
  RequestAttributes a;
  a.path = path;
  a.verb = lower(method);
  auto parts = split_path(path);
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return a;
  size_t i = 1;
  if (parts[0] == "apis") {
    if (parts.size() < 4) return a;
    a.api_group = parts[i++];
  }
  a.resource_request = true;
  a.api_version = parts[i++];
  if (parts[i] == "watch" || parts[i] == "proxy") {
    if (parts.size() - i < 2) {  // "/api/v1/watch": nothing to watch
      a.resource_request = false;
      return a;
    }
    a.verb = parts[i++];
  } else if (method == "POST") a.verb = "create";
  else if (method == "GET" || method == "HEAD") a.verb = "get";
  else if (method == "PUT") a.verb = "update";
  else if (method == "PATCH") a.verb = "patch";
  else if (method == "DELETE") a.verb = "delete";
  else a.verb = "";
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() >= 3 && a.verb != "proxy") a.subresource = rest[2];
  if (rest.size() >= 2) a.name = rest[1];
  a.resource = rest[0];
  auto q = [&](const char* k) {
    auto it = query.find(k);
    return it == query.end() ? std::string() : it->second;
  };
  if (a.name.empty() && a.verb == "get") a.verb = parse_bool(q("watch")) ? "watch" : "list";
  if (a.name.empty() && (a.verb == "list" || a.verb == "watch")) a.name = name_from_field_selector(q("fieldSelector"));
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  return a;
}

ApiError forbidden(const std::string& user, const RequestAttributes& a, const std::string& reason) {
  std::string msg;
  if (!a.resource_request) {
    msg = "User \"" + user + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  } else {
    msg = "User \"" + user + "\" cannot " + a.verb + " resource \"" + a.combined_resource() + "\" in API group \"" +
          a.api_group + "\"" + (a.ns.empty() ? " at the cluster scope" : " in the namespace \"" + a.ns + "\"");
  }
  if (!reason.empty()) msg += ": " + reason;
  json details = json::object();
  std::string message;
  if (!a.resource_request || a.resource.empty()) {
    message = "forbidden: " + msg;
  } else {
    const std::string qualified = ApiError::qualified(a.api_group, a.resource);
    message = a.name.empty() ? qualified + " is forbidden: " + msg : qualified + " \"" + a.name + "\" is forbidden: " + msg;
    if (!a.name.empty()) details["name"] = a.name;
    if (!a.api_group.empty()) details["group"] = a.api_group;
    details["kind"] = a.resource;
  }
  return ApiError(403, "Forbidden", message, details);
}

Identity service_account_identity(const std::string& ns, const std::string& name) {
  Identity id;
  id.user = "system:serviceaccount:" + ns + ":" + name;
  id.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"};
  return id;
}

bool is_service_account(const Identity& id) { return id.user.rfind("system:serviceaccount:", 0) == 0; }

bool is_privileged(const Identity& id) {
  return std::find(id.groups.begin(), id.groups.end(), "system:masters") != id.groups.end();
}

Authorizer::Authorizer(Store& store, Mode mode)
    : store_(store), mode_(mode), changes_(std::make_shared<std::atomic<uint64_t>>(0)) {
  // Runs under the store lock: only bump a counter (the policy is re-read lazily).
  store_.add_listener([changes = changes_](const WatchEvent& ev) {
    if (ev.resource.rfind(std::string(kRbacGroup) + "/", 0) == 0) changes->fetch_add(1);
  });
}

bool Authorizer::enforced_for(const Identity& id) const {
  if (mode_ == Mode::AlwaysAllow || is_privileged(id)) return false;
  return mode_ == Mode::RBAC || is_service_account(id);
}

void Authorizer::check(const Identity& id, const RequestAttributes& a) const {
  if (!enforced_for(id)) return;
  Decision d = authorize(id, a);
  if (!d.allowed) throw forbidden(id.user.empty() ? "system:anonymous" : id.user, a, d.reason);
}

std::shared_ptr<const Authorizer::Policy> Authorizer::policy() const {
  std::lock_guard lock(mu_);
  const uint64_t seen = changes_->load();
  if (policy_ && seen == policy_changes_) return policy_;
  // A change while we read bumps the counter past `seen`: the next call re-reads.
  auto p = std::make_shared<Policy>();
  auto list = [&](const char* plural) {
    auto t = store_.registry().find(kRbacGroup, "v1", plural);
    return t ? store_.list(*t, ListOptions{}).items : std::vector<json>{};
  };
  for (const auto& r : list("clusterroles"))
    p->cluster_roles[r["metadata"].value("name", "")] = rules_from_json(r.value("rules", json::array()));
  for (const auto& r : list("roles"))
    p->roles[r["metadata"].value("namespace", "") + "/" + r["metadata"].value("name", "")] =
        rules_from_json(r.value("rules", json::array()));
  for (const auto& b : list("clusterrolebindings")) p->cluster_bindings.push_back(binding_of(b));
  for (const auto& b : list("rolebindings")) {
    Binding binding = binding_of(b);
    p->role_bindings[binding.ns].push_back(std::move(binding));
  }
  add_bootstrap_policy(*p);
  policy_ = p;
  policy_changes_ = seen;
  return policy_;
}

std::optional<std::vector<PolicyRule>> Authorizer::role_rules(const std::string& kind, const std::string& name,
                                                              const std::string& ns, std::string* error) const {
  auto p = policy();
  if (kind == "ClusterRole") {
    auto it = p->cluster_roles.find(name);
    if (it != p->cluster_roles.end()) return it->second;
    if (error) *error = "clusterrole.rbac.authorization.k8s.io \"" + name + "\" not found";
    return std::nullopt;
  }
  if (kind == "Role") {
    auto it = p->roles.find(ns + "/" + name);
    if (it != p->roles.end()) return it->second;
    if (error) *error = "role.rbac.authorization.k8s.io \"" + name + "\" not found";
    return std::nullopt;
  }
  if (error) *error = "unsupported role reference kind: \"" + kind + "\"";
  return std::nullopt;
}

bool Authorizer::visit(const Policy& p, const Identity& id, const std::string& ns, std::vector<std::string>* errors,
                       const std::function<bool(const PolicyRule&, const Binding&, const json&)>& fn) const {
  auto rules_of = [&](const Binding& b) -> const std::vector<PolicyRule>* {
    if (b.role_kind == "ClusterRole") {
      auto it = p.cluster_roles.find(b.role_name);
      if (it != p.cluster_roles.end()) return &it->second;
      if (errors) errors->push_back("clusterrole.rbac.authorization.k8s.io \"" + b.role_name + "\" not found");
    } else if (b.role_kind == "Role" && !b.ns.empty()) {
      auto it = p.roles.find(b.ns + "/" + b.role_name);
      if (it != p.roles.end()) return &it->second;
      if (errors) errors->push_back("role.rbac.authorization.k8s.io \"" + b.role_name + "\" not found");
    } else if (errors) {
      errors->push_back("unsupported role reference kind: \"" + b.role_kind + "\"");
    }
    return nullptr;
  };
  auto visit_binding = [&](const Binding& b) {
    const json* subject = subject_for(id, b.subjects, b.ns);
    if (!subject) return false;
    const auto* rules = rules_of(b);
    if (!rules) return false;
    return std::any_of(rules->begin(), rules->end(), [&](const PolicyRule& r) { return fn(r, b, *subject); });
  };
  for (const auto& b : p.cluster_bindings)
    if (visit_binding(b)) return true;
  if (ns.empty()) return false;
  auto it = p.role_bindings.find(ns);
  if (it == p.role_bindings.end()) return false;
  for (const auto& b : it->second)
    if (visit_binding(b)) return true;
  return false;
}

Authorizer::Decision Authorizer::authorize(const Identity& id, const RequestAttributes& a) const {
  auto p = policy();
  std::vector<std::string> errors;
  Decision d;
  d.allowed = visit(*p, id, a.ns, &errors, [&](const PolicyRule& r, const Binding& b, const json& subject) {
    if (!rule_allows(r, a)) return false;
    d.reason = "RBAC: allowed by " + describe(b, subject);
    return true;
  });
  if (!d.allowed && !errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
    d.reason = "RBAC: " + (errors.size() > 1 ? "[" + joined + "]" : joined);
  }
  return d;
}

std::vector<PolicyRule> Authorizer::rules_for(const Identity& id, const std::string& ns,
                                              std::vector<std::string>* errors) const {
  auto p = policy();
  std::vector<PolicyRule> out;
  visit(*p, id, ns, errors, [&](const PolicyRule& r, const Binding&, const json&) {
    out.push_back(r);
    return false;
  });
  return out;
}

}  // namespace kubesim::rbac
