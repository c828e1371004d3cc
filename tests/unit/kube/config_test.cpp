#include <gtest/gtest.h>

#include <thread>

#include "common/temp_dir.h"
#include "dgd/kube/config.h"
#include "dgd/kube/credentials.h"
#include "dgd/kube/base64.h"

namespace dgd::kube {
namespace {

using testing::TempDir;

KubeconfigOptions only_env(const std::string& kubeconfig_env) {
  KubeconfigOptions o;
  o.kubeconfig_env = kubeconfig_env;
  o.home = "/nonexistent";
  return o;
}

TEST(Kubeconfig, ReadsCurrentContextWithDataFields) {
  TempDir d;
  std::string file = d.write("config", R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: )" + base64_encode("CA-PEM") + R"(
    tls-server-name: api.internal
users:
- name: u1
  user:
    client-certificate-data: )" + base64_encode("CERT") + R"(
    client-key-data: )" + base64_encode("KEY") + R"(
contexts:
- name: prod
  context: {cluster: c1, user: u1, namespace: team-a}
)");
  auto c = load_kubeconfig(only_env(file));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "CA-PEM");
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  EXPECT_EQ(c->tls_server_name, "api.internal");
  EXPECT_EQ(c->default_namespace, "team-a");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
}

TEST(Kubeconfig, RelativeFilePathsResolveAgainstTheDefiningFile) {
  TempDir d;
  d.write("sub/ca.crt", "CA-FROM-FILE");
  d.write("sub/token", "t0k3n\n");
  std::string file = d.write("sub/config", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: ca.crt, insecure-skip-tls-verify: false}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  auto c = load_kubeconfig(only_env(file));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->ca_pem, "CA-FROM-FILE");
  EXPECT_EQ(c->token_file, d.path() + "/sub/token");
  EXPECT_EQ(c->default_namespace, "default");
}

TEST(Kubeconfig, MergesKubeconfigListFirstDefinitionWins) {
  TempDir d;
  std::string a = d.write("a", R"(current-context: from-a
clusters: [{name: shared, cluster: {server: "https://first:1"}}]
contexts: [{name: from-a, context: {cluster: shared, user: ua}}]
users: [{name: ua, user: {token: token-a}}]
)");
  std::string b = d.write("b", R"(current-context: from-b
clusters:
- {name: shared, cluster: {server: "https://second:2"}}
- {name: only-b, cluster: {server: "https://b:3", insecure-skip-tls-verify: true}}
contexts:
- {name: from-b, context: {cluster: only-b, user: ub}}
users: [{name: ub, user: {token: token-b}}]
)");
  auto c = load_kubeconfig(only_env(a + "::" + b + ":" + d.path() + "/missing"));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->server, "https://first:1") << "current-context and cluster 'shared' come from the first file";
  EXPECT_EQ(c->token, "token-a");

  auto o = only_env(a + ":" + b);
  o.context = "from-b";  // --context picks an entry defined only in the second file
  auto cb = load_kubeconfig(o);
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  EXPECT_EQ(cb->server, "https://b:3");
  EXPECT_TRUE(cb->insecure_skip_tls_verify);
  EXPECT_EQ(cb->token, "token-b");
}

TEST(Kubeconfig, ExplicitPathIsNotMerged) {
  TempDir d;
  std::string a = d.write("a", "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n");
  std::string b = d.write("b", "clusters: [{name: c, cluster: {server: \"https://b:1\"}}]\n");
  KubeconfigOptions o = only_env(b);
  o.path = a;
  auto c = load_kubeconfig(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::kConfig);
  EXPECT_NE(c.error().message.find("cluster \"c\""), std::string::npos) << c.error().message;
}

TEST(Kubeconfig, ErrorsNameTheMissingPiece) {
  TempDir d;
  std::string f = d.write("c", "current-context: nope\ncontexts: []\n");
  auto c = load_kubeconfig(only_env(f));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("context \"nope\" not found"), std::string::npos) << c.error().message;
  std::string g = d.write("g", "current-context: x\nclusters: [{name: c, cluster: {server: \"https://h\"}}]\n"
                               "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                               "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n");
  auto c2 = load_kubeconfig(only_env(g));
  ASSERT_FALSE(c2.ok());
  EXPECT_NE(c2.error().message.find("without key"), std::string::npos) << c2.error().message;
}

TEST(Kubeconfig, ExecPluginConfig) {
  TempDir d;
  std::string f = d.write("c", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://h:1"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --cluster, x]
      env: [{name: A, value: "1"}]
      interactiveMode: Never
      provideClusterInfo: true
)");
  auto c = load_kubeconfig(only_env(f));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  ASSERT_TRUE(c->exec.has_value());
  EXPECT_EQ(c->exec->command, d.path() + "/bin/plugin");
  EXPECT_EQ(c->exec->args.size(), 3u);
  EXPECT_TRUE(c->exec->provide_cluster_info);
  EXPECT_EQ(c->exec->env[0].first, "A");

  std::string g = d.write("g", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://h:1"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: p}}}]
)");
  auto c2 = load_kubeconfig(only_env(g));
  ASSERT_FALSE(c2.ok());
  EXPECT_NE(c2.error().message.find("interactiveMode is required"), std::string::npos);
}

TEST(InCluster, ReadsServiceAccountFiles) {
  TempDir d;
  d.write("sa/token", "abc");
  d.write("sa/ca.crt", "CA");
  d.write("sa/namespace", "dynamo-system\n");
  InClusterOptions o;
  o.service_account_dir = d.path() + "/sa";
  o.host = "fd00::1";
  o.port = "443";
  auto c = load_in_cluster(o);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->token_file, d.path() + "/sa/token");
  EXPECT_EQ(c->ca_pem, "CA");
  EXPECT_EQ(c->default_namespace, "dynamo-system");
  o.host = "";
  EXPECT_FALSE(load_in_cluster(o).ok());
}

TEST(Credentials, TokenFileIsReReadAfterInvalidate) {
  TempDir d;
  RestConfig c;
  c.token_file = d.write("token", "one\n");
  Credentials creds(c, Credentials::Options{std::chrono::seconds(3600)});
  auto a = creds.current();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->authorization, "Bearer one");
  d.write("token", "two");
  EXPECT_EQ(creds.current()->authorization, "Bearer one") << "cached until the refresh period";
  creds.invalidate();  // what the client does after a 401
  EXPECT_EQ(creds.current()->authorization, "Bearer two");
}

TEST(Credentials, TokenFileIsReReadPeriodically) {
  TempDir d;
  RestConfig c;
  c.token_file = d.write("token", "one");
  Credentials creds(c, Credentials::Options{std::chrono::seconds(0)});
  EXPECT_EQ(creds.current()->authorization, "Bearer one");
  d.write("token", "two");
  EXPECT_EQ(creds.current()->authorization, "Bearer two");
}

// The plugin counts its runs in a file and prints a token with the given expiry.
std::string plugin_script(const std::string& dir, const std::string& expiry) {
  return "#!/bin/sh\n"
         "n=$(cat " + dir + "/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + dir + "/runs\n"
         "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) echo bad-info >&2; exit 3;; esac\n"
         "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"tok-'$n'-'$PLUGIN_ARG'\"" + expiry + "}}'\n";
}

TEST(Credentials, ExecPluginTokenCachedUntilExpiry) {
  TempDir d;
  RestConfig c;
  c.server = "https://h:1";
  ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = d.write("plugin", plugin_script(d.path(), ",\"expirationTimestamp\":\"2999-01-01T00:00:00Z\""), true);
  e.env = {{"PLUGIN_ARG", "x"}};
  e.interactive_mode = "Never";
  c.exec = e;
  Credentials creds(c);
  auto a = creds.current();
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->authorization, "Bearer tok-1-x");
  EXPECT_EQ(creds.current()->authorization, "Bearer tok-1-x") << "not expired: no second run";
  creds.invalidate();
  EXPECT_EQ(creds.current()->authorization, "Bearer tok-2-x") << "a 401 re-runs the plugin";
}

TEST(Credentials, ExpiredExecCredentialIsRenewed) {
  TempDir d;
  RestConfig c;
  ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = d.write("plugin", plugin_script(d.path(), ",\"expirationTimestamp\":\"2001-01-01T00:00:00Z\""), true);
  e.interactive_mode = "Never";
  c.exec = e;
  Credentials creds(c);
  EXPECT_EQ(creds.current()->authorization, "Bearer tok-1-");
  EXPECT_EQ(creds.current()->authorization, "Bearer tok-2-");
}

TEST(Credentials, FailingPluginIsAConfigError) {
  TempDir d;
  RestConfig c;
  ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = d.write("plugin", "#!/bin/sh\nexit 4\n", true);
  e.install_hint = "install it";
  c.exec = e;
  Credentials creds(c);
  auto a = creds.current();
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, ErrorKind::kConfig);
  EXPECT_NE(a.error().message.find("exited with code 4"), std::string::npos);
  e.command = d.path() + "/does-not-exist";
  c.exec = e;
  Credentials missing(c);
  auto m = missing.current();
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("install it"), std::string::npos) << m.error().message;
}

TEST(ExecCredential, ParsesTokenCertificateAndRejectsJunk) {
  auto s = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"clientCertificateData":"C","clientKeyData":"K","expirationTimestamp":"2026-11-30T18:04:27.5+01:00"}})",
      "client.authentication.k8s.io/v1beta1");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->client_cert_pem, "C");
  ASSERT_TRUE(s->expiration.has_value());
  EXPECT_EQ(*s->expiration, *parse_rfc3339("2026-11-30T17:04:27.5Z")) << "the offset is applied";
  EXPECT_FALSE(parse_exec_credential(R"({"kind":"ExecCredential","status":{}})", "").ok());
  EXPECT_FALSE(parse_exec_credential("x", "").ok());
  EXPECT_FALSE(parse_exec_credential(
                   R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})",
                   "client.authentication.k8s.io/v1")
                   .ok());
}

TEST(MicroTime, RoundTrips) {
  auto t = parse_rfc3339("2022-11-30T18:04:27.912073Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(format_micro_time(*t), "2022-11-30T18:04:27.912073Z");
  EXPECT_FALSE(parse_rfc3339("yesterday").has_value());
}

TEST(Base64, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(*base64_decode("aGVsbG8="), "hello");
  EXPECT_EQ(*base64_decode("aGVsbG8"), "hello");
  EXPECT_EQ(*base64_decode("aGVs\nbG8="), "hello");
  EXPECT_FALSE(base64_decode("a$b").has_value());
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
}

TEST(Base64, EncodesRfc4648VectorsAndRoundTripsEveryByte) {
  // RFC 4648 §10 vectors.
  const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* padded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(base64_encode(plain[i]), padded[i]);
    EXPECT_EQ(*base64_decode(padded[i]), plain[i]);
  }
  // The URL alphabet where the standard one has '+' and '/', decoded alike.
  const std::string bytes = "\xfb\xff\xbf";
  EXPECT_EQ(base64_encode(bytes), "+/+/");
  EXPECT_EQ(*base64_decode("-_-_"), bytes);
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  EXPECT_EQ(*base64_decode(base64_encode(all)), all);
  // Data after padding, and a lone trailing character, are not base64.
  EXPECT_FALSE(base64_decode("Zg==Zg").has_value());
  EXPECT_FALSE(base64_decode("Zm9vY").has_value());
}

}  // namespace
}  // namespace dgd::kube
