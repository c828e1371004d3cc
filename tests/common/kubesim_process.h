// KubeSimProcess: starts a private kube-sim for a C++ test and stops it in the
// destructor. The binary is $KUBE_SIM, else DGD_BINARY_DIR "/tests/kubesim/kube-sim".
// It listens on 127.0.0.1:0 (a free port) and writes its kubeconfig into a private temp
// dir; the constructor returns once that file exists (kube-sim writes it atomically when
// it accepts connections) or fails the test with the server's log. Single-owner.
//
//   KubeSimProcess sim({"--tls", "--watch-cut-after", "3"});
//   ASSERT_TRUE(sim.ok()) << sim.log();
//   auto cfg = sim.config();   // RestConfig from the written kubeconfig
//   sim.admin("POST", "/sim/v1/compact");
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.h"
#include "dgd/kube/config.h"
#include "dgd/kube/rest_client.h"

extern char** environ;

namespace dgd::testing {

inline std::string kube_sim_binary() {
  if (const char* env = std::getenv("KUBE_SIM"); env && *env) return env;
#ifdef DGD_BINARY_DIR
  return DGD_BINARY_DIR "/tests/kubesim/kube-sim";
#else
  return "kube-sim";
#endif
}

class KubeSimProcess {
 public:
  explicit KubeSimProcess(std::vector<std::string> extra_args = {},
                          std::chrono::seconds start_timeout = std::chrono::seconds(30)) {
    kubeconfig_ = dir_.path() + "/kubeconfig";
    log_path_ = dir_.path() + "/kube-sim.log";
    std::vector<std::string> args{kube_sim_binary(), "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig_};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // The child must not inherit a blocked SIGTERM mask from a test that blocked it.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t empty;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawn(&pid_, args[0].c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      error_ = "cannot start " + args[0] + ": " + std::strerror(rc);
      pid_ = -1;
      return;
    }
    auto deadline = std::chrono::steady_clock::now() + start_timeout;
    while (!std::filesystem::exists(kubeconfig_)) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        error_ = "kube-sim exited during start-up";
        return;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        error_ = "kube-sim did not write its kubeconfig in time";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kube::KubeconfigOptions o;
    o.path = kubeconfig_;
    auto cfg = kube::load_kubeconfig(o);
    if (!cfg) {
      error_ = cfg.error().to_string();
      return;
    }
    config_ = *cfg;
  }

  ~KubeSimProcess() { stop(); }
  KubeSimProcess(const KubeSimProcess&) = delete;
  KubeSimProcess& operator=(const KubeSimProcess&) = delete;

  bool ok() const { return error_.empty(); }
  // Why start-up failed, with the server's output.
  std::string log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return error_ + "\n--- kube-sim log ---\n" + ss.str();
  }
  const std::string& kubeconfig_path() const { return kubeconfig_; }
  const std::string& url() const { return config_.server; }
  // The admin config written by kube-sim (TLS: CA data, client cert and key).
  const kube::RestConfig& config() const { return config_; }
  const TempDir& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  // Calls an admin endpoint (/sim/v1/...) with the admin credentials; returns the body.
  kube::Result<std::string> admin(const std::string& method, const std::string& path, const std::string& body = "") {
    if (!admin_) {
      kube::ClientOptions co;
      co.user_agent = "kubesim-process-admin";
      co.max_retries = 0;
      admin_ = std::make_unique<kube::RestClient>(config_, co);
    }
    kube::HttpRequest r;
    r.method = method;
    r.target = path;
    r.body = body;
    if (!body.empty()) r.headers.emplace_back("Content-Type", "application/json");
    auto resp = admin_->raw(r);
    if (!resp) return std::move(resp).error();
    if (resp->status >= 300) {
      return kube::error_from_response(resp->status, resp->body, "", method + " " + path);
    }
    return resp->body;
  }

  // SIGTERM, then SIGKILL after 3 s. Idempotent.
  void stop() {
    admin_.reset();
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
  }

 private:
  TempDir dir_;
  std::string kubeconfig_, log_path_, error_;
  pid_t pid_ = -1;
  kube::RestConfig config_;
  std::unique_ptr<kube::RestClient> admin_;
};

}  // namespace dgd::testing
