// The REST client against kube-sim over real HTTP(S): verbs and typed errors, TLS
// verification, client-certificate, bearer-token and exec-plugin auth, token rotation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/kubesim_process.h"
#include "dgd/kube/rest_client.h"

namespace dgd::kube {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;

json config_map(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", value}}}};
}

ClientOptions quick() {
  ClientOptions o;
  o.max_retries = 0;
  o.timeout = std::chrono::seconds(10);
  return o;
}

TEST(KubeSimClient, VerbsAndTypedErrors) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  RestClient c(sim.config(), quick());
  auto cms = resources::config_maps();

  auto created = c.create(cms, "default", config_map("a", "1"));
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  auto again = c.create(cms, "default", config_map("a", "1"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::kAlreadyExists);

  auto missing = c.get(cms, "default", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);

  json stale = *created;
  stale["data"]["k"] = "2";
  ASSERT_TRUE(c.update(cms, "default", stale).ok());
  stale["data"]["k"] = "3";  // same (now old) resourceVersion
  auto conflict = c.update(cms, "default", stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().kind, ErrorKind::kConflict);

  auto merged = c.patch(cms, "default", "a", PatchType::kMerge, {{"data", {{"m", "x"}}}});
  ASSERT_TRUE(merged.ok()) << merged.error().to_string();
  EXPECT_EQ((*merged)["data"]["m"], "x");
  auto jp = c.patch(cms, "default", "a", PatchType::kJson,
                    json::array({{{"op", "replace"}, {"path", "/data/k"}, {"value", "jp"}}}));
  ASSERT_TRUE(jp.ok()) << jp.error().to_string();
  EXPECT_EQ((*jp)["data"]["k"], "jp");

  auto applied = c.apply(cms, "default", "b", config_map("b", "ssa"), "dgd-operator");
  ASSERT_TRUE(applied.ok()) << applied.error().to_string();
  EXPECT_EQ((*applied)["data"]["k"], "ssa");

  ListOptions lo;
  lo.limit = 1;
  auto page = c.list(cms, "default", lo);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ((*page)["items"].size(), 1u);

  ASSERT_TRUE(c.remove(cms, "default", "a").ok());
  EXPECT_EQ(c.get(cms, "default", "a").error().kind, ErrorKind::kNotFound);
}

TEST(KubeSimClient, TlsWithTheGeneratedCaAndClientCertificate) {
  KubeSimProcess sim({"--tls"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  ASSERT_EQ(sim.url().rfind("https://", 0), 0u);
  ASSERT_FALSE(sim.config().client_cert_pem.empty());
  RestClient c(sim.config(), quick());
  auto r = c.list(resources::config_maps(), "default");
  EXPECT_TRUE(r.ok()) << r.error().to_string();

  RestConfig anonymous = sim.config();
  anonymous.client_cert_pem.clear();
  anonymous.client_key_pem.clear();
  RestClient a(anonymous, quick());
  auto denied = a.list(resources::config_maps(), "default");
  ASSERT_FALSE(denied.ok()) << "without a client certificate or token the server must refuse";
  EXPECT_EQ(denied.error().kind, ErrorKind::kUnauthorized) << denied.error().to_string();
}

TEST(KubeSimClient, AnotherCaIsRefused) {
  KubeSimProcess sim({"--tls"});
  KubeSimProcess other({"--tls"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  ASSERT_TRUE(other.ok()) << other.log();
  RestConfig c = sim.config();
  c.ca_pem = other.config().ca_pem;
  RestClient client(c, quick());
  auto r = client.list(resources::config_maps(), "default");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kTransport) << r.error().to_string();
  EXPECT_NE(r.error().message.find("SSL handshake"), std::string::npos) << r.error().message;
  // Control: the same client material with the right CA works.
  RestClient right(sim.config(), quick());
  EXPECT_TRUE(right.list(resources::config_maps(), "default").ok());
}

TEST(KubeSimClient, WrongHostNameIsRefused) {
  KubeSimProcess sim({"--tls", "--tls-san", "other.example"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  RestClient client(sim.config(), quick());  // https://127.0.0.1:port, not in the certificate
  auto r = client.list(resources::config_maps(), "default");
  ASSERT_FALSE(r.ok()) << "the certificate names only other.example";
  EXPECT_EQ(r.error().kind, ErrorKind::kTransport) << r.error().to_string();
}

TEST(KubeSimClient, TlsServerNameVerifiesAnotherName) {
  KubeSimProcess sim({"--tls", "--tls-san", "api.internal"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  RestConfig c = sim.config();
  c.tls_server_name = "api.internal";  // kubeconfig clusters[].cluster.tls-server-name
  RestClient client(c, quick());
  auto r = client.list(resources::config_maps(), "default");
  EXPECT_TRUE(r.ok()) << r.error().to_string();
}

TEST(KubeSimClient, InsecureSkipVerifyIsHonoured) {
  KubeSimProcess sim({"--tls"});
  KubeSimProcess other({"--tls"});
  ASSERT_TRUE(sim.ok() && other.ok());
  RestConfig c = sim.config();
  c.ca_pem = other.config().ca_pem;
  c.insecure_skip_tls_verify = true;  // only because the kubeconfig says so
  RestClient client(c, quick());
  EXPECT_TRUE(client.list(resources::config_maps(), "default").ok());
}

TEST(KubeSimClient, BearerTokenAuth) {
  KubeSimProcess sim({"--tls", "--token", "s3cret=alice"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  RestConfig c = sim.config();
  c.client_cert_pem.clear();
  c.client_key_pem.clear();
  c.token = "s3cret";
  RestClient good(c, quick());
  auto r = good.list(resources::config_maps(), "default");
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  c.token = "wrong";
  RestClient bad(c, quick());
  auto denied = bad.list(resources::config_maps(), "default");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().kind, ErrorKind::kUnauthorized);
}

TEST(KubeSimClient, ExecPluginSuppliesTheToken) {
  KubeSimProcess sim({"--tls", "--token", "from-plugin=bob"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  std::string plugin = sim.dir().write(
      "plugin.sh",
      "#!/bin/sh\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"from-plugin\",\"expirationTimestamp\":\"2999-01-01T00:00:00Z\"}}'\n",
      true);
  // Through a kubeconfig, as a user would configure it.
  std::string kc = sim.dir().write("exec-kubeconfig", "current-context: x\n"
                                   "clusters: [{name: c, cluster: {server: \"" + sim.url() + "\", certificate-authority: ca.pem}}]\n"
                                   "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                                   "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
                                   "command: ./plugin.sh, interactiveMode: Never}}}]\n");
  sim.dir().write("ca.pem", sim.config().ca_pem);
  KubeconfigOptions o;
  o.path = kc;
  auto cfg = load_kubeconfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  RestClient c(*cfg, quick());
  auto r = c.list(resources::config_maps(), "default");
  EXPECT_TRUE(r.ok()) << r.error().to_string();
}

TEST(KubeSimClient, RotatedTokenFileIsReReadAfter401) {
  KubeSimProcess sim({"--tls", "--token", "old-token=sa"});
  ASSERT_TRUE(sim.ok()) << sim.log();
  RestConfig c = sim.config();
  c.client_cert_pem.clear();
  c.client_key_pem.clear();
  c.token_file = sim.dir().write("token", "old-token\n");
  RestClient client(c, quick());
  ASSERT_TRUE(client.list(resources::config_maps(), "default").ok());
  // The kubelet rotates the projected token and the old one expires.
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/tokens", R"({"token":"new-token","user":"sa"})").ok());
  ASSERT_TRUE(sim.admin("DELETE", "/sim/v1/tokens/old-token").ok());
  sim.dir().write("token", "new-token\n");
  // Within the one-minute refresh period, so only the 401 can trigger the re-read.
  auto r = client.list(resources::config_maps(), "default");
  EXPECT_TRUE(r.ok()) << r.error().to_string();
}

}  // namespace
}  // namespace dgd::kube
