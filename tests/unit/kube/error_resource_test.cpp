#include <gtest/gtest.h>

#include "dgd/kube/error.h"
#include "dgd/kube/resource.h"

namespace dgd::kube {
namespace {

TEST(ErrorFromResponse, InvalidCarriesCausesWithFieldPaths) {
  auto e = error_from_response(
      422,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Deployment.apps \"web\" is invalid","reason":"Invalid","details":{"name":"web","kind":"Deployment","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.template.spec.containers[0].image"}]},"code":422})",
      "", "POST /apis/apps/v1/namespaces/ns/deployments");
  EXPECT_EQ(e.kind, ErrorKind::kInvalid);
  ASSERT_EQ(e.causes.size(), 1u);
  EXPECT_EQ(e.causes[0].field, "spec.template.spec.containers[0].image");
  std::string s = e.to_string();
  EXPECT_NE(s.find("POST /apis/apps/v1/namespaces/ns/deployments"), std::string::npos);
  EXPECT_NE(s.find("spec.template.spec.containers[0].image: Required value"), std::string::npos);
}

TEST(ErrorFromResponse, ConflictAndAlreadyExistsShareCode409) {
  EXPECT_EQ(error_from_response(409, R"({"kind":"Status","reason":"Conflict","code":409})", "", "").kind,
            ErrorKind::kConflict);
  EXPECT_EQ(error_from_response(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})", "", "").kind,
            ErrorKind::kAlreadyExists);
}

TEST(ErrorFromResponse, MapsStatusCodes) {
  struct Case { int code; const char* reason; ErrorKind want; };
  for (auto c : {Case{401, "Unauthorized", ErrorKind::kUnauthorized}, Case{403, "Forbidden", ErrorKind::kForbidden},
                 Case{404, "NotFound", ErrorKind::kNotFound}, Case{410, "Expired", ErrorKind::kGone},
                 Case{410, "Gone", ErrorKind::kGone}, Case{429, "TooManyRequests", ErrorKind::kTooManyRequests},
                 Case{500, "InternalError", ErrorKind::kInternalError},
                 Case{503, "ServiceUnavailable", ErrorKind::kServiceUnavailable},
                 Case{504, "Timeout", ErrorKind::kServerTimeout}, Case{400, "BadRequest", ErrorKind::kBadRequest},
                 Case{415, "UnsupportedMediaType", ErrorKind::kUnsupportedMediaType}}) {
    std::string body = std::string(R"({"kind":"Status","reason":")") + c.reason + "\"}";
    EXPECT_EQ(error_from_response(c.code, body, "", "").kind, c.want) << c.code << " " << c.reason;
  }
}

TEST(ErrorFromResponse, NonStatusBodyAndRetryAfter) {
  auto e = error_from_response(503, "upstream connect error", "7", "GET /x");
  EXPECT_EQ(e.kind, ErrorKind::kServiceUnavailable);
  EXPECT_EQ(e.message, "upstream connect error");
  ASSERT_TRUE(e.retry_after.has_value());
  EXPECT_EQ(e.retry_after->count(), 7);
  EXPECT_FALSE(error_from_response(429, "", "soon", "").retry_after.has_value());
}

TEST(ResourcePath, CoreGroupNamespacedAndSubresources) {
  EXPECT_EQ(resource_path(resources::config_maps(), "ns", "cm"), "/api/v1/namespaces/ns/configmaps/cm");
  EXPECT_EQ(resource_path(resources::pods(), ""), "/api/v1/pods");
  EXPECT_EQ(resource_path(resources::deployments(), "ns", "web", "status"),
            "/apis/apps/v1/namespaces/ns/deployments/web/status");
  EXPECT_EQ(resource_path(resources::leases(), "kube-system"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  // Cluster-scoped kinds ignore the namespace.
  EXPECT_EQ(resource_path(resources::namespaces(), "ignored", "prod"), "/api/v1/namespaces/prod");
  ResourceRef dgd{"nvidia.com", "v1beta1", "dynamographdeployments", "DynamoGraphDeployment", true};
  EXPECT_EQ(resource_path(dgd, "team-a", "graph"), "/apis/nvidia.com/v1beta1/namespaces/team-a/dynamographdeployments/graph");
  EXPECT_EQ(dgd.api_version(), "nvidia.com/v1beta1");
  EXPECT_EQ(resources::pods().api_version(), "v1");
}

TEST(Query, EncodesSelectorsAndKeepsOrder) {
  Query q;
  q.add("labelSelector", "app in (a,b),tier!=db").add("limit", "500").add_if(false, "x", "y");
  EXPECT_EQ(q.encode(), "?labelSelector=app%20in%20%28a%2Cb%29%2Ctier%21%3Ddb&limit=500");
  EXPECT_EQ(Query().encode(), "");
}

}  // namespace
}  // namespace dgd::kube
