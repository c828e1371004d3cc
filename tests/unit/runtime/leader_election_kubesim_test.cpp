// Leader election between real processes against kube-sim. Each candidate is the
// leader-election-candidate binary (candidate/leader_election_candidate.cpp): it campaigns
// on a Lease and, through a client gated on leadership, writes its name into a ConfigMap
// every 50 ms. The parent reads the Lease and kube-sim's request log, and waits for
// conditions only: how long a takeover takes is not asserted here (leader_election_test.cpp
// holds the timing rules on a fake clock).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/kubesim_process.h"
#include "dgd/kube/rest_client.h"

extern char** environ;

namespace dgd::runtime {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;
using namespace std::chrono_literals;

std::string candidate_binary() {
  if (const char* env = std::getenv("DGD_LE_CANDIDATE"); env && *env) return env;
  return DGD_BINARY_DIR "/tests/leader-election-candidate";
}

class Candidate {
 public:
  // lease: the candidate's lease duration (its renew deadline is 70 % of it).
  Candidate(const KubeSimProcess& sim, const std::string& id, std::chrono::milliseconds lease = 5000ms) {
    std::vector<std::string> env_vars{"DGD_LE_KUBECONFIG=" + sim.kubeconfig_path(), "DGD_LE_ID=" + id,
                                      "DGD_LE_LEASE_MS=" + std::to_string(lease.count())};
    for (char** e = environ; *e; ++e) env_vars.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_vars) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string self = candidate_binary();
    char* argv[] = {self.data(), nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t empty;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    std::string log = sim.dir().path() + "/candidate-" + id + ".log";
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    if (posix_spawn(&pid_, self.c_str(), &fa, &attr, argv, envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }
  ~Candidate() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0; }
  void kill_with(int sig) { kill(pid_, sig); }
  // Waits for exit; returns the exit code (or 128+signal).
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
};

template <class F>
bool eventually(F f, std::chrono::milliseconds limit = 30s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return f();
}

struct Observer {
  explicit Observer(const KubeSimProcess& sim) : client(sim.config(), kube::ClientOptions{}) {}
  json lease() {
    auto r = client.get(kube::resources::leases(), "default", "le-test");
    if (!r) {
      last_error = r.error().to_string();
      return json::object();
    }
    return (*r)["spec"];
  }
  std::string holder() { return lease().value("holderIdentity", ""); }
  kube::RestClient client;
  std::string last_error;
};

// Successful writes (apply of le-writes) and lease updates from the request log.
struct LogEntry {
  uint64_t seq;
  std::string user, verb, resource;
  int code;
};
std::vector<LogEntry> request_log(KubeSimProcess& sim) {
  std::vector<LogEntry> out;
  auto body = sim.admin("GET", "/sim/v1/requests?since=0");
  if (!body) {
    ADD_FAILURE() << "request log: " << body.error().to_string();
    return out;
  }
  json parsed = json::parse(*body);  // keep it alive: the loop iterates one of its members
  for (const auto& i : parsed["items"]) {
    out.push_back({i.value("seq", uint64_t{0}), i.value("user", ""), i.value("verb", ""), i.value("resource", ""),
                   i.value("code", 0)});
  }
  return out;
}
std::set<std::string> writers(KubeSimProcess& sim) {
  std::set<std::string> w;
  for (const auto& e : request_log(sim)) {
    if (e.resource == "configmaps" && e.verb == "patch") w.insert(e.user);
  }
  return w;
}

std::vector<std::string> token_args(const std::vector<std::string>& ids) {
  std::vector<std::string> a;
  for (const auto& id : ids) {
    a.insert(a.end(), {"--token", "lease-" + id + "=" + id, "--token", "write-" + id + "=" + id + "-writer"});
  }
  return a;
}

// Requests a user made to a resource, from the request log.
size_t requests_by(KubeSimProcess& sim, const std::string& user, const std::string& resource) {
  size_t n = 0;
  for (const auto& e : request_log(sim)) n += e.user == user && e.resource == resource;
  return n;
}

TEST(LeaderElectionKubeSim, OneLeaderAndFailoverOnKill) {
  KubeSimProcess sim(token_args({"a", "b"}));
  ASSERT_TRUE(sim.ok()) << sim.log();
  Observer obs(sim);
  Candidate a(sim, "a"), b(sim, "b");
  ASSERT_TRUE(a.started() && b.started());

  // Exactly one leads, and only it writes.
  ASSERT_TRUE(eventually([&] { return !obs.holder().empty(); }));
  std::string first = obs.holder();
  std::string second = first == "a" ? "b" : "a";
  ASSERT_TRUE(eventually([&] { return writers(sim).count(first + "-writer") > 0; }));
  // The follower has campaigned (three lease requests after the leader wrote), trying to
  // write every 50 ms all along: none of its writes may have left the process.
  size_t follower_lease_requests = requests_by(sim, second, "leases");
  ASSERT_TRUE(eventually([&] { return requests_by(sim, second, "leases") >= follower_lease_requests + 3; }))
      << "the follower stopped campaigning";
  EXPECT_EQ(writers(sim), std::set<std::string>{first + "-writer"}) << "the follower wrote";
  EXPECT_EQ(obs.holder(), first);

  // SIGKILL: no release; the follower takes over once the lease has expired by its clock.
  int transitions = obs.lease().value("leaseTransitions", 0);
  (first == "a" ? a : b).kill_with(SIGKILL);
  ASSERT_TRUE(eventually([&] { return obs.holder() == second; })) << "no takeover after SIGKILL";
  EXPECT_EQ(obs.lease().value("leaseTransitions", 0), transitions + 1);
  ASSERT_TRUE(eventually([&] { return writers(sim).count(second + "-writer") > 0; })) << "the new leader never wrote";
}

TEST(LeaderElectionKubeSim, ReleasedLeaseIsTakenWithoutWaitingForExpiry) {
  // A lease of 10 minutes: the waits below give up long before it could expire, so the
  // second candidate can only take over because the first released the lease on SIGTERM.
  constexpr auto kLongLease = 600000ms;
  KubeSimProcess sim(token_args({"a", "b"}));
  ASSERT_TRUE(sim.ok()) << sim.log();
  Observer obs(sim);
  Candidate a(sim, "a", kLongLease);
  ASSERT_TRUE(eventually([&] { return obs.holder() == "a"; })) << obs.last_error << " holder=" << obs.holder();
  Candidate b(sim, "b", kLongLease);
  // b has seen a's lease (one refused campaign) before a goes.
  ASSERT_TRUE(eventually([&] { return requests_by(sim, "b", "leases") > 0; }));
  a.kill_with(SIGTERM);
  EXPECT_EQ(a.wait(), 0) << "clean exit after SIGTERM";
  ASSERT_TRUE(eventually([&] { return obs.holder() == "b"; })) << "the released lease was not taken";
  EXPECT_EQ(obs.lease().value("leaseTransitions", 0), 1);
}

TEST(LeaderElectionKubeSim, LeaderThatCannotRenewStopsWritingBeforeTakeover) {
  KubeSimProcess sim(token_args({"a", "b"}));
  ASSERT_TRUE(sim.ok()) << sim.log();
  Observer obs(sim);
  Candidate a(sim, "a");
  ASSERT_TRUE(eventually([&] { return obs.holder() == "a"; })) << obs.last_error << " holder=" << obs.holder();
  Candidate b(sim, "b");
  ASSERT_TRUE(eventually([&] { return writers(sim).count("a-writer") > 0; }));
  // a can no longer reach the Lease (its lease credentials stop working) but its other
  // writes would still be accepted: only the leadership gate can stop them.
  ASSERT_TRUE(sim.admin("DELETE", "/sim/v1/tokens/lease-a").ok());
  ASSERT_TRUE(eventually([&] { return obs.holder() == "b"; })) << "b never took over";
  ASSERT_TRUE(eventually([&] { return writers(sim).count("b-writer") > 0; }));
  auto log = request_log(sim);
  uint64_t last_write_a = 0, takeover_b = UINT64_MAX;
  for (const auto& e : log) {
    if (e.user == "a-writer" && e.verb == "patch" && e.resource == "configmaps") last_write_a = e.seq;
    if (e.user == "b" && e.verb == "update" && e.resource == "leases" && e.code == 200 && takeover_b == UINT64_MAX) {
      takeover_b = e.seq;
    }
  }
  ASSERT_NE(last_write_a, 0u);
  ASSERT_NE(takeover_b, UINT64_MAX) << "b's acquiring update not found in the log";
  EXPECT_LT(last_write_a, takeover_b) << "a wrote after b could hold the lease";
}

}  // namespace
}  // namespace dgd::runtime
