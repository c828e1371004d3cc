#include "kubesim/rbac_tokens.h"

#include "kubesim/api_error.h"
#include "kubesim/base64url.h"
#include "kubesim/body_codec.h"
#include "kubesim/object_rules.h"
#include "kubesim/rbac_authorizer.h"

#include <openssl/rand.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace kubesim::rbac {

using nlohmann::json;
using SysClock = std::chrono::system_clock;

const char* const kApiAudience = "https://kubernetes.default.svc.cluster.local";

namespace {

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

std::string rfc3339(SysClock::time_point tp) {
  std::time_t t = SysClock::to_time_t(tp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ApiError invalid_request(const std::string& name, const std::string& field, const std::string& value,
                         const std::string& why) {
  return ApiError::invalid("authentication.k8s.io", "TokenRequest", name,
                           json::array({{{"reason", "FieldValueInvalid"}, {"field", field},
                                         {"message", "Invalid value: " + value + ": " + why}}}));
}

// Bound object kinds the real server accepts, with their core/v1 plural.
std::string plural_of_bindable(const std::string& kind) {
  if (kind == "Pod") return "pods";
  if (kind == "Secret") return "secrets";
  if (kind == "Node") return "nodes";
  return "";
}

}  // namespace

json token_request_body(const std::string& body, const std::string& content_type) {
  if (body.empty()) return json::object();
  return parse_body(body, content_type);
}

ServiceAccountTokens::ServiceAccountTokens(Store& store) : store_(store) {}

bool ServiceAccountTokens::still_exists(const std::string& kind, const std::string& ns, const std::string& name,
                                        const std::string& uid) const {
  const std::string plural = kind == "ServiceAccount" ? "serviceaccounts" : plural_of_bindable(kind);
  auto t = store_.registry().find("", "v1", plural);
  if (!t) return false;
  auto obj = store_.try_get(*t, t->namespaced ? ns : "", name);
  if (!obj) return false;
  const json& md = (*obj)["metadata"];
  return md.value("uid", "") == uid && !md.contains("deletionTimestamp");
}

json ServiceAccountTokens::request(const std::string& ns, const std::string& name, const json& body) {
  auto sa_type = store_.registry().find("", "v1", "serviceaccounts");
  const json sa = store_.get(*sa_type, ns, name);  // 404 serviceaccounts "x" not found
  const json spec = body.is_object() && body.contains("spec") && body["spec"].is_object() ? body["spec"] : json::object();

  int64_t seconds = 3600;
  if (spec.contains("expirationSeconds") && !spec["expirationSeconds"].is_null()) {
    if (!spec["expirationSeconds"].is_number_integer())
      throw invalid_request(name, "spec.expirationSeconds", spec["expirationSeconds"].dump(), "must be an integer");
    seconds = spec["expirationSeconds"].get<int64_t>();
    if (seconds < 600)
      throw invalid_request(name, "spec.expirationSeconds", std::to_string(seconds),
                            "may not specify a duration less than 10 minutes");
    if (seconds > int64_t{4294967295})
      throw invalid_request(name, "spec.expirationSeconds", std::to_string(seconds),
                            "may not specify a duration larger than 2^32 seconds");
  }
  std::vector<std::string> audiences;
  if (spec.contains("audiences") && spec["audiences"].is_array())
    for (const auto& a : spec["audiences"])
      if (a.is_string() && !a.get<std::string>().empty()) audiences.push_back(a.get<std::string>());
  if (audiences.empty()) audiences.push_back(kApiAudience);

  Issued issued;
  issued.ns = ns;
  issued.name = name;
  issued.uid = sa["metadata"].value("uid", "");
  issued.audiences = audiences;
  const auto now = SysClock::now();
  issued.expires = now + std::chrono::seconds(seconds);

  json k8s_claims = {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", issued.uid}}}};
  json bound = nullptr;
  if (spec.contains("boundObjectRef") && spec["boundObjectRef"].is_object()) {
    bound = spec["boundObjectRef"];
    const std::string kind = bound.value("kind", ""), bname = bound.value("name", "");
    const std::string plural = plural_of_bindable(kind);
    if (plural.empty() || bound.value("apiVersion", "v1") != "v1")
      throw invalid_request(name, "spec.boundObjectRef.kind", "\"" + kind + "\"",
                            "token may only be bound to v1 Pod, Secret or Node objects");
    if (bname.empty()) throw invalid_request(name, "spec.boundObjectRef.name", "\"\"", "must be set");
    auto t = store_.registry().find("", "v1", plural);
    const json obj = store_.get(*t, t->namespaced ? ns : "", bname);
    const std::string uid = obj["metadata"].value("uid", "");
    if (!bound.value("uid", "").empty() && bound.value("uid", "") != uid)
      throw ApiError::conflict("", kind, bname,
                               "the UID in the bound object reference (" + bound.value("uid", "") +
                                   ") does not match the UID in record. The object might have been deleted and then recreated");
    if (kind == "Pod" && obj.value("spec", json::object()).value("serviceAccountName", "default") != name)
      throw ApiError::bad_request("cannot bind token for serviceaccount \"" + name +
                                  "\" to pod running with different serviceaccount name.");
    issued.bound_kind = kind;
    issued.bound_name = bname;
    issued.bound_uid = uid;
    bound["uid"] = uid;
    std::string claim_key = kind == "Pod" ? "pod" : kind == "Secret" ? "secret" : "node";
    k8s_claims[claim_key] = {{"name", bname}, {"uid", uid}};
  }

  const int64_t iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  json claims = {{"aud", audiences},
                 {"exp", iat + seconds},
                 {"iat", iat},
                 {"iss", kApiAudience},
                 {"jti", rules::new_uid()},
                 {"kubernetes.io", k8s_claims},
                 {"nbf", iat},
                 {"sub", "system:serviceaccount:" + ns + ":" + name}};
  const std::string token = kubesim::base64url_encode(json{{"alg", "RS256"}, {"kid", "kube-sim"}}.dump()) + "." +
                            kubesim::base64url_encode(claims.dump()) + "." + kubesim::base64url_encode(random_bytes(32));
  {
    std::lock_guard lock(mu_);
    for (auto it = tokens_.begin(); it != tokens_.end();)  // forget expired tokens
      it = it->second.expires <= now ? tokens_.erase(it) : std::next(it);
    tokens_[token] = issued;
  }
  json out_spec = {{"audiences", audiences}, {"expirationSeconds", seconds}, {"boundObjectRef", bound}};
  return {{"kind", "TokenRequest"},
          {"apiVersion", "authentication.k8s.io/v1"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
          {"spec", out_spec},
          {"status", {{"token", token}, {"expirationTimestamp", rfc3339(issued.expires)}}}};
}

std::optional<Identity> ServiceAccountTokens::authenticate(const std::string& token) const {
  Issued issued;
  {
    std::lock_guard lock(mu_);
    auto it = tokens_.find(token);
    if (it == tokens_.end()) return std::nullopt;
    issued = it->second;
  }
  if (SysClock::now() >= issued.expires) return std::nullopt;
  if (std::find(issued.audiences.begin(), issued.audiences.end(), kApiAudience) == issued.audiences.end())
    return std::nullopt;
  if (!still_exists("ServiceAccount", issued.ns, issued.name, issued.uid)) return std::nullopt;
  if (!issued.bound_kind.empty() && !still_exists(issued.bound_kind, issued.ns, issued.bound_name, issued.bound_uid))
    return std::nullopt;
  return service_account_identity(issued.ns, issued.name);
}

}  // namespace kubesim::rbac
