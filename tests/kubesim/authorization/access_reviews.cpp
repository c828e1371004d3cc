#include "kubesim/authorization/access_reviews.h"

#include "kubesim/api_error.h"

namespace kubesim::authorization {

using nlohmann::json;

namespace {

const char* kGroup = "authorization.k8s.io";

std::string text(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

json object_at(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_object() ? obj[key] : json();
}

// The request a ResourceAttributes / NonResourceAttributes describes.
rbac::RequestAttributes attributes_of(const json& spec) {
  rbac::RequestAttributes a;
  if (json r = object_at(spec, "resourceAttributes"); r.is_object()) {
    a.resource_request = true;
    a.verb = text(r, "verb");
    a.api_group = text(r, "group");
    a.api_version = text(r, "version");
    a.resource = text(r, "resource");
    a.subresource = text(r, "subresource");
    a.ns = text(r, "namespace");
    a.name = text(r, "name");
  } else if (json n = object_at(spec, "nonResourceAttributes"); n.is_object()) {
    a.verb = text(n, "verb");
    a.path = text(n, "path");
  }
  return a;
}

// ValidateSubjectAccessReviewSpec and friends (pkg/apis/authorization/validation).
json spec_causes(const json& spec, bool needs_subject, bool local) {
  json causes = json::array();
  const bool res = object_at(spec, "resourceAttributes").is_object();
  const bool nonres = object_at(spec, "nonResourceAttributes").is_object();
  auto invalid = [&](const std::string& field, const std::string& value, const std::string& why) {
    causes.push_back({{"reason", "FieldValueInvalid"}, {"field", field}, {"message", "Invalid value: " + value + ": " + why}});
  };
  if (local && nonres) {
    invalid("spec.nonResourceAttributes", object_at(spec, "nonResourceAttributes").dump(), "disallowed on this kind of request");
  } else {
    if (res && nonres)
      invalid("spec.nonResourceAttributes", object_at(spec, "nonResourceAttributes").dump(),
              "cannot be specified in combination with resourceAttributes");
    if (!res && !nonres)
      invalid("spec.resourceAttributes", "\"null\"", "exactly one of nonResourceAttributes or resourceAttributes must be specified");
  }
  if (needs_subject) {
    const bool groups = spec.contains("groups") && spec["groups"].is_array() && !spec["groups"].empty();
    if (text(spec, "user").empty() && !groups)
      invalid("spec.user", "\"\"", "at least one of user or group must be specified");
  }
  return causes;
}

// The union of the privileged-group and RBAC authorizers, as kube-apiserver chains them.
json access_status(const rbac::Authorizer& authz, const Identity& subject, const rbac::RequestAttributes& a) {
  if (!authz.enforced_for(subject)) return {{"allowed", true}};
  const auto d = authz.authorize(subject, a);
  json status = {{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  return status;
}

json review_of(const ResourceType& t, const json& body) {
  json out = {{"kind", t.kind}, {"apiVersion", t.api_version()}, {"metadata", {{"creationTimestamp", nullptr}}}};
  out["spec"] = body.is_object() && body.contains("spec") && body["spec"].is_object() ? body["spec"] : json::object();
  return out;
}

json rules_review(const ResourceType& t, const json& body, const Identity& requester, const rbac::Authorizer& authz) {
  json review = review_of(t, body);
  const std::string ns = text(review["spec"], "namespace");
  if (ns.empty()) throw ApiError::bad_request("no namespace on request");
  json resource_rules = json::array(), non_resource_rules = json::array();
  std::vector<std::string> errors;
  std::vector<rbac::PolicyRule> rules;
  if (authz.enforced_for(requester)) {
    rules = authz.rules_for(requester, ns, &errors);
  } else {  // what cluster-admin, bound to system:masters on every cluster, grants
    rules = {rbac::PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}}, rbac::PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
  }
  for (const auto& r : rules) {
    if (!r.resources.empty()) {
      json rule = {{"verbs", r.verbs}};
      if (!r.api_groups.empty()) rule["apiGroups"] = r.api_groups;
      rule["resources"] = r.resources;
      if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
      resource_rules.push_back(rule);
    }
    if (!r.non_resource_urls.empty())
      non_resource_rules.push_back({{"verbs", r.verbs}, {"nonResourceURLs", r.non_resource_urls}});
  }
  json status = {{"resourceRules", resource_rules}, {"nonResourceRules", non_resource_rules}, {"incomplete", false}};
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
    status["evaluationError"] = errors.size() > 1 ? "[" + joined + "]" : joined;
  }
  review["status"] = status;
  return review;
}

}  // namespace

bool is_review(const ResourceType& t) {
  if (t.group == "authentication.k8s.io") return t.plural == "selfsubjectreviews";
  return t.group == kGroup && (t.plural == "selfsubjectaccessreviews" || t.plural == "subjectaccessreviews" ||
                               t.plural == "localsubjectaccessreviews" || t.plural == "selfsubjectrulesreviews");
}

json answer_review(const ResourceType& t, const std::string& ns, const json& body, const Identity& requester,
                   const rbac::Authorizer& authz) {
  if (!body.is_object()) throw ApiError::bad_request("the body of the request was in an unknown format");
  if (t.plural == "selfsubjectreviews")
    return {{"kind", t.kind}, {"apiVersion", t.api_version()}, {"metadata", {{"creationTimestamp", nullptr}}},
            {"status", {{"userInfo", {{"username", requester.user}, {"groups", requester.groups}}}}}};
  if (t.plural == "selfsubjectrulesreviews") return rules_review(t, body, requester, authz);

  json review = review_of(t, body);
  const json& spec = review["spec"];
  const bool local = t.plural == "localsubjectaccessreviews";
  const bool self = t.plural == "selfsubjectaccessreviews";
  if (local) {
    const std::string body_ns = text(object_at(body, "metadata"), "namespace");
    if (!body_ns.empty() && body_ns != ns)
      throw ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request");
    review["metadata"]["namespace"] = ns;
  }
  json causes = spec_causes(spec, !self, local);
  if (!causes.empty()) throw ApiError::invalid(kGroup, t.kind, "", causes);
  const rbac::RequestAttributes a = attributes_of(spec);
  if (local && a.resource_request && a.ns != ns)
    throw ApiError::bad_request("spec.resourceAttributes.namespace must match namespace: " + ns);
  Identity subject = requester;
  if (!self) {
    subject.user = text(spec, "user");
    subject.groups = spec.contains("groups") && spec["groups"].is_array() ? spec.value("groups", std::vector<std::string>{})
                                                                          : std::vector<std::string>{};
  }
  review["status"] = access_status(authz, subject, a);
  return review;
}

}  // namespace kubesim::authorization
