// Where and how to reach the API server: kubeconfig files (merged as kubectl does) or the
// in-cluster service account. Loading is done once at start-up; the resulting RestConfig is
// a plain value. Rotating credentials (token files, exec plugins) are handled by
// Credentials (credentials.h), which keeps the file path / plugin, not a copied token.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dgd/kube/error.h"

namespace dgd::kube {

// users[].user.exec of a kubeconfig (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string api_version;  // the ExecCredential apiVersion to speak
  std::string command;      // resolved against the kubeconfig's directory when relative with a '/'
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never | IfAvailable | Always; we never have a TTY
  std::string install_hint;
};

struct RestConfig {
  std::string server;                 // "https://host:port" (no trailing slash)
  std::string ca_pem;                 // trusted CAs; empty = the system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;        // name to verify (and send as SNI) instead of the host
  std::string client_cert_pem;        // mTLS; both or neither
  std::string client_key_pem;
  std::string token;                  // static bearer token
  std::string token_file;             // bearer token re-read from this file (rotation)
  std::optional<ExecConfig> exec;     // credential plugin
  std::string username, password;     // basic auth (legacy)
  std::string default_namespace = "default";  // context namespace / pod namespace
  std::string source;                 // "kubeconfig /path context ctx" or "in-cluster": for errors
};

struct KubeconfigOptions {
  // --kubeconfig: this file only, no merging. Empty: use KUBECONFIG, else ~/.kube/config.
  std::string path;
  // --context: overrides current-context.
  std::string context;
  // KUBECONFIG value; nullopt reads the environment. ':'-separated; empty entries skipped.
  std::optional<std::string> kubeconfig_env;
  // $HOME; nullopt reads the environment.
  std::optional<std::string> home;
};

// Loads a kubeconfig. With several files, kubectl's rules apply: for current-context and
// for each named cluster/user/context the first file that defines it wins, and relative
// paths resolve against the directory of the file that defined the entry.
// Errors (kind kConfig) name the file and the missing/invalid entry.
Result<RestConfig> load_kubeconfig(const KubeconfigOptions& options);

struct InClusterOptions {
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // KUBERNETES_SERVICE_HOST / _PORT; nullopt reads the environment.
  std::optional<std::string> host, port;
};

// In-cluster config: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (IPv6
// bracketed), the account's ca.crt, its token as token_file (re-read, bound tokens rotate),
// and its namespace. Fails with kConfig when not running in a pod.
Result<RestConfig> load_in_cluster(const InClusterOptions& options = {});

// What controller-runtime's GetConfig does: --kubeconfig, else KUBECONFIG, else in-cluster,
// else ~/.kube/config.
Result<RestConfig> load_config(const KubeconfigOptions& options);

}  // namespace dgd::kube
