#include "dgd/kube/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dgd/kube/base64.h"

extern char** environ;

namespace dgd::kube {

namespace {

Error cred_error(std::string message) {
  Error e;
  e.kind = ErrorKind::kConfig;
  e.message = std::move(message);
  return e;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

struct ProcessOutput {
  int exit_code = -1;
  std::string out;
};

// Runs argv with `env`, capturing stdout (stderr is inherited, as kubectl does).
Result<ProcessOutput> run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return cred_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return cred_error("exec plugin " + argv[0] + ": " + std::strerror(rc));
  }
  ProcessOutput po;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      po.out.append(buf, static_cast<size_t>(n));
      if (po.out.size() > (4u << 20)) break;  // a credential is never this large
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  po.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return po;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view s) {
  std::tm tm{};
  int y, mo, d, h, mi, sec;
  int consumed = 0;
  std::string str(s);
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
    return std::nullopt;
  }
  // Beyond ~2262 nanosecond time points overflow: such a date means "never".
  if (y > 2200) return std::chrono::system_clock::time_point::max();
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  time_t t = timegm(&tm);
  auto tp = std::chrono::system_clock::from_time_t(t);
  size_t i = static_cast<size_t>(consumed);
  if (i < str.size() && str[i] == '.') {
    ++i;
    double frac = 0, scale = 0.1;
    while (i < str.size() && std::isdigit(static_cast<unsigned char>(str[i]))) {
      frac += (str[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    tp += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(frac));
  }
  if (i < str.size() && (str[i] == 'Z' || str[i] == 'z')) return tp;
  if (i < str.size() && (str[i] == '+' || str[i] == '-')) {
    int oh = 0, om = 0;
    if (std::sscanf(str.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2) return std::nullopt;
    auto off = std::chrono::hours(oh) + std::chrono::minutes(om);
    return str[i] == '+' ? tp - off : tp + off;
  }
  return std::nullopt;
}

std::string format_micro_time(std::chrono::system_clock::time_point t) {
  auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
  time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros));
  return buf;
}

Result<ExecCredentialStatus> parse_exec_credential(std::string_view json_text,
                                                   std::string_view expected_api_version) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object()) return cred_error("exec plugin output is not a JSON object");
  if (j.value("kind", "") != "ExecCredential") return cred_error("exec plugin output kind is not ExecCredential");
  if (!expected_api_version.empty() && j.value("apiVersion", "") != expected_api_version) {
    return cred_error("exec plugin answered apiVersion \"" + j.value("apiVersion", "") + "\", expected \"" +
                      std::string(expected_api_version) + "\"");
  }
  auto st = j.find("status");
  if (st == j.end() || !st->is_object()) return cred_error("exec plugin output has no status");
  ExecCredentialStatus s;
  s.token = st->value("token", "");
  s.client_cert_pem = st->value("clientCertificateData", "");
  s.client_key_pem = st->value("clientKeyData", "");
  if (s.token.empty() && s.client_cert_pem.empty()) {
    return cred_error("exec plugin status has neither token nor clientCertificateData");
  }
  if (s.client_cert_pem.empty() != s.client_key_pem.empty()) {
    return cred_error("exec plugin status has a client certificate without key or the reverse");
  }
  std::string exp = st->value("expirationTimestamp", "");
  if (!exp.empty()) {
    s.expiration = parse_rfc3339(exp);
    if (!s.expiration) return cred_error("exec plugin expirationTimestamp \"" + exp + "\" is not RFC 3339");
  }
  return s;
}

Credentials::Credentials(const RestConfig& config, Options options) : config_(config), options_(options) {
  auth_.client_cert_pem = config.client_cert_pem;
  auth_.client_key_pem = config.client_key_pem;
  if (!config.token.empty()) auth_.authorization = "Bearer " + config.token;
  else if (!config.username.empty()) auth_.authorization = "Basic " + base64_encode(config.username + ":" + config.password);
  valid_ = config.token_file.empty() && !config.exec;
  snapshot_ = auth_;
}

Auth Credentials::cached() const {
  // Not mu_: current() holds that while an exec plugin runs, and cached() is called on
  // the HTTP pool's threads (TLS handshakes), which must never wait for a plugin.
  std::lock_guard<std::mutex> l(snapshot_mu_);
  return snapshot_;
}

void Credentials::publish_locked() {
  std::lock_guard<std::mutex> l(snapshot_mu_);
  snapshot_ = auth_;
}

void Credentials::invalidate() {
  std::lock_guard<std::mutex> l(mu_);
  if (refreshable()) valid_ = false;
}

Result<Auth> Credentials::current() {
  std::lock_guard<std::mutex> l(mu_);
  auto now = std::chrono::steady_clock::now();
  if (valid_ && (!refreshable() || now < expires_)) return auth_;
  if (config_.exec) return run_exec_locked();
  // Token file: a token in the kubeconfig is used when the file cannot be read (client-go).
  std::ifstream in(config_.token_file);
  if (!in) {
    if (!config_.token.empty()) return auth_;
    return cred_error("cannot read token file " + config_.token_file);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = trim(ss.str());
  if (token.empty()) return cred_error("token file " + config_.token_file + " is empty");
  auth_.authorization = "Bearer " + token;
  valid_ = true;
  expires_ = now + options_.token_file_refresh;
  publish_locked();
  return auth_;
}

Result<Auth> Credentials::run_exec_locked() {
  const ExecConfig& e = *config_.exec;
  nlohmann::json info = {{"apiVersion", e.api_version},
                         {"kind", "ExecCredential"},
                         {"spec", {{"interactive", false}}}};
  if (e.provide_cluster_info) {
    nlohmann::json cluster = {{"server", config_.server}};
    if (!config_.tls_server_name.empty()) cluster["tls-server-name"] = config_.tls_server_name;
    if (config_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config_.ca_pem.empty()) cluster["certificate-authority-data"] = base64_encode(config_.ca_pem);
    info["spec"]["cluster"] = cluster;
  }
  std::vector<std::string> env;
  for (char** p = environ; *p; ++p) {
    if (std::strncmp(*p, "KUBERNETES_EXEC_INFO=", 21) != 0) env.emplace_back(*p);
  }
  for (const auto& [k, v] : e.env) env.push_back(k + "=" + v);
  env.push_back("KUBERNETES_EXEC_INFO=" + info.dump());
  std::vector<std::string> argv{e.command};
  argv.insert(argv.end(), e.args.begin(), e.args.end());
  auto out = run_process(argv, env);
  if (!out) {
    Error err = std::move(out).error();
    if (!e.install_hint.empty()) err.message += " (" + e.install_hint + ")";
    return err;
  }
  if (out->exit_code != 0) {
    return cred_error("exec plugin " + e.command + " exited with code " + std::to_string(out->exit_code));
  }
  auto status = parse_exec_credential(out->out, e.api_version);
  if (!status) {
    Error err = std::move(status).error();
    err.message = "exec plugin " + e.command + ": " + err.message;
    return err;
  }
  if (!status->token.empty()) auth_.authorization = "Bearer " + status->token;
  if (!status->client_cert_pem.empty()) {
    auth_.client_cert_pem = status->client_cert_pem;
    auth_.client_key_pem = status->client_key_pem;
  }
  valid_ = true;
  auto now = std::chrono::steady_clock::now();
  if (status->expiration) {
    // Clamp: a far-future expiry (year 2999) would overflow the steady clock.
    auto sys_now = std::chrono::system_clock::now();
    std::chrono::system_clock::duration left = std::chrono::hours(24 * 365);
    if (*status->expiration < sys_now + left) left = *status->expiration - sys_now;
    expires_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
  } else {
    expires_ = std::chrono::steady_clock::time_point::max();  // until a 401
  }
  publish_locked();
  return auth_;
}

}  // namespace dgd::kube
