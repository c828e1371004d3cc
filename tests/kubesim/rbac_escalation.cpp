#include "kubesim/rbac_escalation.h"

#include "kubesim/api_error.h"
#include "kubesim/body_codec.h"
#include "kubesim/patch_adapter.h"

#include <set>

namespace kubesim::rbac {

using nlohmann::json;

namespace {

const char* kRbacGroup = "rbac.authorization.k8s.io";

// Go's %q of a []string.
std::string quoted_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? " \"" : "\"") + v[i] + "\"";
  return out + "]";
}

// CompactRules: missing single-verb rules of the same group/resource/name merged
// into one rule with several verbs; then sorted and unique as the apiserver lists them.
std::string describe_missing(const std::vector<PolicyRule>& missing) {
  std::vector<PolicyRule> compact;
  for (const auto& r : missing) {
    bool merged = false;
    if (r.non_resource_urls.empty())
      for (auto& c : compact)
        if (c.non_resource_urls.empty() && c.api_groups == r.api_groups && c.resources == r.resources &&
            c.resource_names == r.resource_names) {
          for (const auto& v : r.verbs)
            if (std::find(c.verbs.begin(), c.verbs.end(), v) == c.verbs.end()) c.verbs.push_back(v);
          merged = true;
          break;
        }
    if (!merged) compact.push_back(r);
  }
  std::set<std::string> lines;
  for (const auto& c : compact) lines.insert(c.compact_string());
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

// ConfirmNoEscalation: `rules` must be covered by what `id` holds in `ns` ("" = cluster).
void confirm_no_escalation(const Authorizer& authz, const Identity& id, const std::string& ns,
                           const std::vector<PolicyRule>& rules, const std::string& resource, const std::string& name) {
  std::vector<std::string> errors;
  auto owner = authz.rules_for(id, ns, &errors);
  auto missing = uncovered(owner, rules);
  if (missing.empty()) return;
  std::string msg = "user \"" + id.user + "\" (groups=" + quoted_list(id.groups) +
                    ") is attempting to grant RBAC permissions not currently held:\n" + describe_missing(missing);
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : " ") + e;
    msg += "; resolution errors: [" + joined + "]";
  }
  json details = {{"group", kRbacGroup}, {"kind", resource}};
  if (!name.empty()) details["name"] = name;
  const std::string qualified = resource + "." + kRbacGroup;
  throw ApiError(403, "Forbidden",
                 (name.empty() ? qualified : qualified + " \"" + name + "\"") + " is forbidden: " + msg, details);
}

bool has_verb_on(const Authorizer& authz, const Identity& id, const std::string& verb, const std::string& resource,
                 const std::string& name, const std::string& ns) {
  RequestAttributes a;
  a.resource_request = true;
  a.verb = verb;
  a.api_group = kRbacGroup;
  a.api_version = "*";
  a.resource = resource;
  a.name = name;
  a.ns = ns;
  return authz.authorize(id, a).allowed;
}

}  // namespace

void check_escalation(const Authorizer& authz, const Identity& id, const ResourceType& t, const std::string& ns,
                      const json& object) {
  if (t.group != kRbacGroup || !authz.enforced_for(id)) return;
  const std::string name =
      object.is_object() && object.contains("metadata") ? object["metadata"].value("name", "") : std::string();
  if (t.plural == "roles" || t.plural == "clusterroles") {
    const std::string scope = t.plural == "roles" ? ns : "";
    if (has_verb_on(authz, id, "escalate", t.plural, name, scope)) return;
    confirm_no_escalation(authz, id, scope, rules_from_json(object.value("rules", json::array())), t.plural, name);
    return;
  }
  if (t.plural == "rolebindings" || t.plural == "clusterrolebindings") {
    const json ref = object.value("roleRef", json::object());
    if (!ref.is_object()) return;  // validation rejects it
    const std::string kind = ref.value("kind", ""), role = ref.value("name", "");
    const std::string scope = t.plural == "rolebindings" ? ns : "";
    if (has_verb_on(authz, id, "bind", kind == "Role" ? "roles" : "clusterroles", role, scope)) return;
    std::string error;
    auto rules = authz.role_rules(kind, role, scope, &error);
    if (!rules) {
      if (kind == "Role" || kind == "ClusterRole")
        throw ApiError::not_found(kRbacGroup, kind == "Role" ? "roles" : "clusterroles", role);
      throw ApiError::bad_request(error);
    }
    confirm_no_escalation(authz, id, scope, *rules, t.plural, name);
  }
}

void admit_write(const Authorizer& authz, Store& store, const Identity& id, const ResourceType& t,
                 const std::string& verb, const std::string& ns, const std::string& name, const std::string& body,
                 const std::string& content_type, const std::map<std::string, std::string>& query,
                 const std::string& field_manager) {
  if (!authz.enforced_for(id)) return;
  const std::string mt = content_type.substr(0, content_type.find(';'));
  auto current = verb == "patch" ? store.try_get(t, ns, name) : std::nullopt;
  if (verb == "patch" && mt == "application/apply-patch+yaml" && !current) {
    // An apply that creates the object also needs `create`, as the apiserver's
    // create-on-update authorization checks.
    RequestAttributes a;
    a.resource_request = true;
    a.verb = "create";
    a.api_group = t.group;
    a.api_version = t.version;
    a.resource = t.plural;
    a.name = name;
    a.ns = ns;
    authz.check(id, a);
  }
  if (t.group != kRbacGroup) return;
  if (verb == "create" || verb == "update") {
    json obj = parse_body(body, content_type);
    if (!obj.is_object()) return;  // the API server answers 400
    return check_escalation(authz, id, t, ns, obj);
  }
  if (verb != "patch") return;
  auto q = [&](const char* k) {
    auto it = query.find(k);
    return it == query.end() ? std::string() : it->second;
  };
  json result;
  if (mt == "application/apply-patch+yaml") {
    if (field_manager.empty()) return;  // 422 from the API server
    json applied = parse_body(body, "yaml");
    if (!applied.is_object()) return;
    const std::string force = q("force");
    const bool forced = force == "1" || force == "t" || force == "T" || force == "true" || force == "TRUE" || force == "True";
    if (!current) {
      json seed = applied;
      if (!seed.contains("metadata") || !seed["metadata"].is_object()) seed["metadata"] = json::object();
      if (seed["metadata"].value("name", "").empty()) seed["metadata"]["name"] = name;
      result = patch::apply(t, nullptr, seed, field_manager, forced);
    } else {
      result = patch::apply(t, &*current, applied, field_manager, forced);
    }
  } else {
    if (!current) return;  // 404 from the API server
    json p = parse_json_body(body);
    if (mt == "application/json-patch+json") result = patch::json_patch(*current, p);
    else if (mt == "application/merge-patch+json" && p.is_object()) result = patch::merge(*current, p);
    else if (mt == "application/strategic-merge-patch+json") result = patch::strategic(t, *current, p);
    else return;  // 415 / 400 from the API server
  }
  if (!result.contains("metadata") || !result["metadata"].is_object()) result["metadata"] = json::object();
  result["metadata"]["name"] = name;
  check_escalation(authz, id, t, ns, result);
}

}  // namespace kubesim::rbac
