#include "dgd/kube/config.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "dgd/kube/base64.h"

namespace dgd::kube {

namespace fs = std::filesystem;

namespace {

Error config_error(std::string message) {
  Error e;
  e.kind = ErrorKind::kConfig;
  e.message = std::move(message);
  return e;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Why read_file(path) failed, as kubectl says it: `the path "X" does not exist`, or
// `cannot read X: <the system's reason>`.
std::string unreadable(const std::string& path) {
  std::ifstream probe(path, std::ios::binary);
  const int opened = probe.is_open() ? 0 : errno;
  if (opened == ENOENT) return "the path \"" + path + "\" does not exist";
  if (opened != 0) return "cannot read " + path + ": " + std::strerror(opened);
  probe.get();  // a directory opens but cannot be read
  const int read_error = probe.bad() ? errno : 0;
  return "cannot read " + path + (read_error != 0 ? std::string(": ") + std::strerror(read_error) : std::string());
}

std::string getenv_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

// A named entry (cluster, user or context) and the directory of the file defining it.
struct Entry {
  YAML::Node node;
  std::string dir;
  std::string file;
};

struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters, users, contexts;
};

std::string resolve(const std::string& path, const std::string& dir) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).lexically_normal().string();
}

// n[key] as a string; "" when n is not a mapping or the value is not a scalar. (Subscripting
// a scalar or a missing node throws in yaml-cpp, and a kubeconfig is user input.)
std::string str(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap()) return std::string();
  auto v = n[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

// Reads one kubeconfig file into `m`; entries already present win (kubectl's merge rule).
Status merge_file(const std::string& file, Merged& m) {
  auto text = read_file(file);
  if (!text) return config_error("kubeconfig: " + unreadable(file));
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return config_error("kubeconfig " + file + ": " + e.what());
  }
  if (!root || root.IsNull()) return {};  // an empty file is allowed
  if (!root.IsMap()) return config_error("kubeconfig " + file + ": not a mapping");
  std::string dir = fs::path(file).parent_path().string();
  if (m.current_context.empty()) m.current_context = str(root, "current-context");
  auto take = [&](const char* list, const char* item, std::map<std::string, Entry>& into) -> Status {
    auto seq = root[list];
    if (!seq) return {};
    if (!seq.IsSequence()) return config_error("kubeconfig " + file + ": " + list + " is not a list");
    for (const auto& e : seq) {
      std::string name = str(e, "name");
      if (name.empty()) return config_error("kubeconfig " + file + ": " + list + "[] without name");
      // A missing block is an empty one (client-go decodes it so); anything but a mapping
      // is an error. Later code subscripts it, which yaml-cpp allows on mappings only.
      YAML::Node body = e[item] && !e[item].IsNull() ? e[item] : YAML::Node(YAML::NodeType::Map);
      if (!body.IsMap()) {
        return config_error("kubeconfig " + file + ": " + list + "[" + name + "]." + item + " is not a mapping");
      }
      into.emplace(name, Entry{body, dir, file});
    }
    return {};
  };
  if (auto s = take("clusters", "cluster", m.clusters); !s) return s;
  if (auto s = take("users", "user", m.users); !s) return s;
  if (auto s = take("contexts", "context", m.contexts); !s) return s;
  return {};
}

// `data` (base64) wins over `file` (path), as in client-go.
Result<std::string> pem_from(const YAML::Node& n, const char* data_key, const char* file_key,
                             const Entry& where, const std::string& what) {
  std::string data = str(n, data_key);
  if (!data.empty()) {
    auto decoded = base64_decode(data);
    if (!decoded) return config_error("kubeconfig " + where.file + ": " + what + "." + data_key + " is not base64");
    return *decoded;
  }
  std::string file = str(n, file_key);
  if (file.empty()) return std::string();
  std::string path = resolve(file, where.dir);
  auto content = read_file(path);
  if (!content) return config_error("kubeconfig " + where.file + ": " + what + "." + file_key + ": " + unreadable(path));
  return *content;
}

Result<RestConfig> build(const Merged& m, const std::string& context_override, const std::string& what) {
  std::string ctx_name = context_override.empty() ? m.current_context : context_override;
  if (ctx_name.empty()) return config_error(what + ": no current-context and no --context given");
  auto ctx_it = m.contexts.find(ctx_name);
  if (ctx_it == m.contexts.end()) return config_error(what + ": context \"" + ctx_name + "\" not found");
  const auto& ctx = ctx_it->second.node;
  std::string cluster_name = str(ctx, "cluster"), user_name = str(ctx, "user");
  auto cl_it = m.clusters.find(cluster_name);
  if (cl_it == m.clusters.end()) {
    return config_error(what + ": cluster \"" + cluster_name + "\" of context \"" + ctx_name + "\" not found");
  }
  RestConfig c;
  c.source = what + " context " + ctx_name;
  const auto& cl = cl_it->second.node;
  c.server = str(cl, "server");
  if (c.server.empty()) return config_error(what + ": cluster \"" + cluster_name + "\" has no server");
  while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
  c.insecure_skip_tls_verify = cl["insecure-skip-tls-verify"] && cl["insecure-skip-tls-verify"].as<bool>(false);
  c.tls_server_name = str(cl, "tls-server-name");
  auto ca = pem_from(cl, "certificate-authority-data", "certificate-authority", cl_it->second,
                     "clusters[" + cluster_name + "]");
  if (!ca) return std::move(ca).error();
  c.ca_pem = *ca;
  std::string ns = str(ctx, "namespace");
  if (!ns.empty()) c.default_namespace = ns;
  if (user_name.empty()) return c;
  auto u_it = m.users.find(user_name);
  if (u_it == m.users.end()) {
    return config_error(what + ": user \"" + user_name + "\" of context \"" + ctx_name + "\" not found");
  }
  const auto& u = u_it->second.node;
  std::string where = "users[" + user_name + "]";
  auto cert = pem_from(u, "client-certificate-data", "client-certificate", u_it->second, where);
  if (!cert) return std::move(cert).error();
  auto key = pem_from(u, "client-key-data", "client-key", u_it->second, where);
  if (!key) return std::move(key).error();
  c.client_cert_pem = *cert;
  c.client_key_pem = *key;
  if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
    return config_error(what + ": " + where + " has a client certificate without key or the reverse");
  }
  c.token = str(u, "token");
  std::string token_file = str(u, "tokenFile");
  if (!token_file.empty()) c.token_file = resolve(token_file, u_it->second.dir);
  c.username = str(u, "username");
  c.password = str(u, "password");
  if (auto ex = u["exec"]; ex && ex.IsMap()) {
    ExecConfig e;
    e.api_version = str(ex, "apiVersion");
    if (e.api_version != "client.authentication.k8s.io/v1" &&
        e.api_version != "client.authentication.k8s.io/v1beta1") {
      return config_error(what + ": " + where + ".exec.apiVersion \"" + e.api_version + "\" is not supported");
    }
    e.command = str(ex, "command");
    if (e.command.empty()) return config_error(what + ": " + where + ".exec.command is empty");
    // kubectl resolves a relative command containing a path separator against the file.
    if (e.command.find('/') != std::string::npos) e.command = resolve(e.command, u_it->second.dir);
    if (auto args = ex["args"]; args && args.IsSequence()) {
      for (const auto& a : args) {
        if (!a.IsScalar()) return config_error(what + ": " + where + ".exec.args has an entry that is not a string");
        e.args.push_back(a.as<std::string>());
      }
    }
    if (auto env = ex["env"]; env && env.IsSequence()) {
      for (const auto& kv : env) e.env.emplace_back(str(kv, "name"), str(kv, "value"));
    }
    e.provide_cluster_info = ex["provideClusterInfo"] && ex["provideClusterInfo"].as<bool>(false);
    e.interactive_mode = str(ex, "interactiveMode");
    if (e.interactive_mode.empty()) {
      if (e.api_version == "client.authentication.k8s.io/v1") {
        return config_error(what + ": " + where + ".exec.interactiveMode is required for v1");
      }
      e.interactive_mode = "IfAvailable";
    }
    if (e.interactive_mode == "Always") {
      return config_error(what + ": " + where + ".exec.interactiveMode Always needs a terminal; the operator has none");
    }
    e.install_hint = str(ex, "installHint");
    c.exec = std::move(e);
  }
  return c;
}

}  // namespace

Result<RestConfig> load_kubeconfig(const KubeconfigOptions& options) {
  std::vector<std::string> files;
  if (!options.path.empty()) {
    files.push_back(options.path);
  } else {
    std::string env = options.kubeconfig_env ? *options.kubeconfig_env : getenv_or("KUBECONFIG", "");
    std::stringstream ss(env);
    for (std::string f; std::getline(ss, f, ':');) {
      if (!f.empty()) files.push_back(f);
    }
    if (files.empty()) {
      std::string home = options.home ? *options.home : getenv_or("HOME", "");
      if (home.empty()) return config_error("no kubeconfig: KUBECONFIG and HOME are unset");
      files.push_back(home + "/.kube/config");
    }
  }
  Merged m;
  std::string what = "kubeconfig";
  for (size_t i = 0; i < files.size(); ++i) {
    // kubectl ignores missing files in KUBECONFIG but not an explicit --kubeconfig.
    if (options.path.empty() && files.size() > 1 && !fs::exists(files[i])) continue;
    if (auto s = merge_file(files[i], m); !s) return std::move(s).error();
    what += (i == 0 ? " " : ":") + files[i];
  }
  return build(m, options.context, what);
}

Result<RestConfig> load_in_cluster(const InClusterOptions& options) {
  std::string host = options.host ? *options.host : getenv_or("KUBERNETES_SERVICE_HOST", "");
  std::string port = options.port ? *options.port : getenv_or("KUBERNETES_SERVICE_PORT", "");
  if (host.empty() || port.empty()) {
    return config_error("not in a cluster: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT unset");
  }
  RestConfig c;
  c.source = "in-cluster";
  bool ipv6 = host.find(':') != std::string::npos;
  c.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  const std::string& dir = options.service_account_dir;
  c.token_file = dir + "/token";
  if (!fs::exists(c.token_file)) return config_error("in-cluster: " + c.token_file + " does not exist");
  auto ca = read_file(dir + "/ca.crt");
  if (!ca) return config_error("in-cluster: " + unreadable(dir + "/ca.crt"));
  c.ca_pem = *ca;
  if (auto ns = read_file(dir + "/namespace"); ns && !ns->empty()) {
    while (!ns->empty() && (ns->back() == '\n' || ns->back() == ' ')) ns->pop_back();
    c.default_namespace = *ns;
  }
  return c;
}

Result<RestConfig> load_config(const KubeconfigOptions& options) {
  if (!options.path.empty()) return load_kubeconfig(options);
  std::string env = options.kubeconfig_env ? *options.kubeconfig_env : getenv_or("KUBECONFIG", "");
  if (!env.empty()) return load_kubeconfig(options);
  auto in_cluster = load_in_cluster();
  if (in_cluster) return in_cluster;
  return load_kubeconfig(options);
}

}  // namespace dgd::kube
