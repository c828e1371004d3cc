#include "kubesim/crd/cel_evaluator.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

#ifndef KUBESIM_CEL_DIR
#define KUBESIM_CEL_DIR ""
#endif

namespace kubesim::crd {

using nlohmann::json;

namespace {

// An evaluation of the project's CRDs takes milliseconds; a process silent this long is stuck.
constexpr int kAnswerTimeoutMs = 30000;

bool exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

CelEvaluator& CelEvaluator::instance() {
  static CelEvaluator* evaluator = new CelEvaluator();  // never destroyed: used by detached threads
  return *evaluator;
}

CelEvaluator::~CelEvaluator() { stop(); }

void CelEvaluator::set_directory(const std::string& dir) {
  std::lock_guard lock(mu_);
  if (dir == dir_) return;
  stop();
  dir_ = dir;
}

std::string CelEvaluator::directory() const {
  std::lock_guard lock(mu_);
  return dir_.empty() ? std::string(KUBESIM_CEL_DIR) : dir_;
}

void CelEvaluator::start() {
  const std::string dir = dir_.empty() ? std::string(KUBESIM_CEL_DIR) : dir_;
  const std::string script = dir + "/cel_server.mjs";
  if (dir.empty() || !exists(script)) throw CelUnavailable("the CEL evaluator " + script + " does not exist");
  if (!exists(dir + "/node_modules/@marcbachmann/cel-js/package.json"))
    throw CelUnavailable("the CEL evaluator's packages are not installed (run `npm ci` in " + dir + ")");
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw CelUnavailable(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw CelUnavailable(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  char* argv[] = {const_cast<char*>("node"), const_cast<char*>(script.c_str()), nullptr};
  // kube-sim blocks SIGTERM/SIGINT for its sigwait; the child must not inherit that mask.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, "node", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    throw CelUnavailable(std::string("cannot start node: ") + std::strerror(rc));
  }
  // A write to a process that died must fail with EPIPE, not kill kube-sim.
  ::signal(SIGPIPE, SIG_IGN);
  pid_ = pid;
  to_child_ = in[1];
  from_child_ = out[0];
  buffer_.clear();
  sent_.clear();
}

void CelEvaluator::stop() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  sent_.clear();
  buffer_.clear();
}

json CelEvaluator::exchange(const json& request) {
  std::string line = request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(to_child_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CelUnavailable("the CEL evaluator process exited");
    off += static_cast<size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kAnswerTimeoutMs);
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string answer = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      json j = json::parse(answer, nullptr, false);
      if (j.is_discarded()) throw CelUnavailable("the CEL evaluator answered garbage: " + answer.substr(0, 200));
      if (j.value("id", json()) != request["id"]) continue;  // an answer to an abandoned request
      return j;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) throw CelUnavailable("the CEL evaluator did not answer within 30 s");
    pollfd p{from_child_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CelUnavailable("the CEL evaluator process exited");
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

json CelEvaluator::call(json request, const std::string& key, const json& schema) {
  std::lock_guard lock(mu_);
  for (int attempt = 0;; ++attempt) {
    try {
      if (pid_ < 0) start();
      request["id"] = next_id_++;
      request["key"] = key;
      if (!sent_.count(key) || request["op"] == "compile") request["schema"] = schema;
      else request.erase("schema");
      json answer = exchange(request);
      if (answer.value("unknownKey", false)) {
        // The process lost the schema (it was restarted): send it again.
        sent_.erase(key);
        if (attempt < 2) continue;
        throw CelUnavailable("the CEL evaluator keeps forgetting the schema " + key);
      }
      sent_.insert(key);
      if (answer.contains("error")) throw CelUnavailable("the CEL evaluator failed: " + answer["error"].dump());
      return answer;
    } catch (const CelUnavailable&) {
      stop();
      if (attempt >= 1) throw;  // restarted once already
    }
  }
}

json CelEvaluator::compile(const std::string& key, const json& schema) {
  return call({{"op", "compile"}}, key, schema).value("errors", json::array());
}

json CelEvaluator::validate(const std::string& key, const json& schema, const json& object, const json* old) {
  json req = {{"op", "validate"}, {"object", object}};
  if (old) req["old"] = *old;
  return call(std::move(req), key, schema).value("errors", json::array());
}

}  // namespace kubesim::crd
