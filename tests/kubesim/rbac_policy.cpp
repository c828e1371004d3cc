#include "kubesim/rbac_policy.h"

#include <algorithm>

namespace kubesim::rbac {

using nlohmann::json;

namespace {

std::vector<std::string> strings_of(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_array()) return out;
  for (const auto& v : obj[key])
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& set, const std::string& s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool has_all(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return has(set, w); });
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// "prefix*" covers every path starting with prefix.
bool url_covers(const std::string& owner, const std::string& path) {
  if (owner == path) return true;
  if (owner.empty() || owner.back() != '*') return false;
  std::string prefix = owner;
  while (!prefix.empty() && prefix.back() == '*') prefix.pop_back();
  return starts_with(path, prefix);
}

bool verb_matches(const PolicyRule& r, const std::string& verb) { return has(r.verbs, "*") || has(r.verbs, verb); }

bool resource_matches(const PolicyRule& r, const std::string& combined, const std::string& sub) {
  for (const auto& res : r.resources) {
    if (res == "*" || res == combined) return true;
    if (!sub.empty() && res.size() == sub.size() + 2 && starts_with(res, "*/") && res.compare(2, sub.size(), sub) == 0)
      return true;
  }
  return false;
}

// resourceCoversAll: an owner list covers resource paths exactly, by "*", or a
// subresource path by "*/<sub>".
bool resources_cover(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  if (has(owner, "*") || has_all(owner, wanted)) return true;
  for (const auto& path : wanted) {
    if (has(owner, path)) continue;
    auto slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!has(owner, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool rule_covers(const PolicyRule& owner, const PolicyRule& sub) {
  const bool verbs = has(owner.verbs, "*") || has_all(owner.verbs, sub.verbs);
  const bool groups = has(owner.api_groups, "*") || has_all(owner.api_groups, sub.api_groups);
  const bool resources = resources_cover(owner.resources, sub.resources);
  bool urls = true;
  for (const auto& path : sub.non_resource_urls)
    urls = urls && std::any_of(owner.non_resource_urls.begin(), owner.non_resource_urls.end(),
                               [&](const std::string& o) { return url_covers(o, path); });
  const bool names = sub.resource_names.empty() ? owner.resource_names.empty()
                                                : owner.resource_names.empty() || has_all(owner.resource_names, sub.resource_names);
  return verbs && groups && resources && names && urls;
}

// Go's %q of a []string: ["a" "b"].
std::string quoted_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? " \"" : "\"") + v[i] + "\"";
  return out + "]";
}

}  // namespace

PolicyRule PolicyRule::from_json(const json& rule) {
  PolicyRule r;
  r.verbs = strings_of(rule, "verbs");
  r.api_groups = strings_of(rule, "apiGroups");
  r.resources = strings_of(rule, "resources");
  r.resource_names = strings_of(rule, "resourceNames");
  r.non_resource_urls = strings_of(rule, "nonResourceURLs");
  return r;
}

json PolicyRule::to_json() const {
  json j = json::object();
  if (!api_groups.empty()) j["apiGroups"] = api_groups;
  if (!resources.empty()) j["resources"] = resources;
  if (!resource_names.empty()) j["resourceNames"] = resource_names;
  if (!non_resource_urls.empty()) j["nonResourceURLs"] = non_resource_urls;
  j["verbs"] = verbs;
  return j;
}

std::string PolicyRule::compact_string() const {
  std::vector<std::string> parts;
  if (!api_groups.empty()) parts.push_back("APIGroups:" + quoted_list(api_groups));
  if (!resources.empty()) parts.push_back("Resources:" + quoted_list(resources));
  if (!non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + quoted_list(non_resource_urls));
  if (!resource_names.empty()) parts.push_back("ResourceNames:" + quoted_list(resource_names));
  if (!verbs.empty()) parts.push_back("Verbs:" + quoted_list(verbs));
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

std::vector<PolicyRule> rules_from_json(const json& rules) {
  std::vector<PolicyRule> out;
  if (!rules.is_array()) return out;
  for (const auto& r : rules) out.push_back(PolicyRule::from_json(r));
  return out;
}

bool rule_allows(const PolicyRule& rule, const RequestAttributes& a) {
  if (!a.resource_request)
    return verb_matches(rule, a.verb) &&
           std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                       [&](const std::string& u) { return u == "*" || url_covers(u, a.path); });
  return verb_matches(rule, a.verb) && (has(rule.api_groups, "*") || has(rule.api_groups, a.api_group)) &&
         resource_matches(rule, a.combined_resource(), a.subresource) &&
         (rule.resource_names.empty() || has(rule.resource_names, a.name));
}

bool rules_allow(const std::vector<PolicyRule>& rules, const RequestAttributes& a) {
  return std::any_of(rules.begin(), rules.end(), [&](const PolicyRule& r) { return rule_allows(r, a); });
}

std::vector<PolicyRule> breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const auto& g : rule.api_groups)
    for (const auto& res : rule.resources)
      for (const auto& v : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back(PolicyRule{{v}, {g}, {res}, {}, {}});
          continue;
        }
        for (const auto& n : rule.resource_names) out.push_back(PolicyRule{{v}, {g}, {res}, {n}, {}});
      }
  for (const auto& url : rule.non_resource_urls)
    for (const auto& v : rule.verbs) out.push_back(PolicyRule{{v}, {}, {}, {}, {url}});
  return out;
}

std::vector<PolicyRule> uncovered(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant) {
  std::vector<PolicyRule> out;
  for (const auto& s : servant)
    for (const auto& sub : breakdown(s))
      if (std::none_of(owner.begin(), owner.end(), [&](const PolicyRule& o) { return rule_covers(o, sub); }))
        out.push_back(sub);
  return out;
}

}  // namespace kubesim::rbac
