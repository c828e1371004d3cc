#include "dgd/runtime/leader_election.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "dgd/kube/credentials.h"
#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"

namespace dgd::runtime {

using nlohmann::json;
using Rep = kube::Clock::duration::rep;

namespace {

class RestLeaseLock final : public LeaseLock {
 public:
  RestLeaseLock(std::shared_ptr<kube::RestClient> client, std::string ns, std::string name)
      : client_(std::move(client)), ns_(std::move(ns)), name_(std::move(name)) {}

  kube::Result<Current> get() override {
    auto r = client_->get(kube::resources::leases(), ns_, name_);
    if (!r) return std::move(r).error();
    Current c;
    const json& spec = (*r).contains("spec") ? (*r)["spec"] : json::object();
    c.record.holder_identity = spec.value("holderIdentity", "");
    c.record.lease_duration_seconds = spec.value("leaseDurationSeconds", 0);
    c.record.acquire_time = spec.value("acquireTime", "");
    c.record.renew_time = spec.value("renewTime", "");
    c.record.lease_transitions = spec.value("leaseTransitions", 0);
    c.resource_version = (*r)["metadata"].value("resourceVersion", "");
    return c;
  }

  kube::Result<std::string> create(const LeaseRecord& rec) override {
    json obj = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name_}, {"namespace", ns_}}},
                {"spec", spec(rec)}};
    auto r = client_->create(kube::resources::leases(), ns_, obj);
    if (!r) return std::move(r).error();
    return (*r)["metadata"].value("resourceVersion", "");
  }

  kube::Result<std::string> update(const LeaseRecord& rec, const std::string& rv) override {
    json obj = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name_}, {"namespace", ns_}, {"resourceVersion", rv}}},
                {"spec", spec(rec)}};
    auto r = client_->update(kube::resources::leases(), ns_, obj);
    if (!r) return std::move(r).error();
    return (*r)["metadata"].value("resourceVersion", "");
  }

  std::string describe() const override { return "lease " + ns_ + "/" + name_; }

 private:
  static json spec(const LeaseRecord& r) {
    json s = {{"holderIdentity", r.holder_identity},
              {"leaseDurationSeconds", r.lease_duration_seconds},
              {"leaseTransitions", r.lease_transitions}};
    if (!r.acquire_time.empty()) s["acquireTime"] = r.acquire_time;
    if (!r.renew_time.empty()) s["renewTime"] = r.renew_time;
    return s;
  }
  std::shared_ptr<kube::RestClient> client_;
  std::string ns_, name_;
};

constexpr Rep kNotLeading = std::numeric_limits<Rep>::min();

}  // namespace

std::unique_ptr<LeaseLock> make_lease_lock(std::shared_ptr<kube::RestClient> client, std::string ns,
                                           std::string name) {
  return std::make_unique<RestLeaseLock>(std::move(client), std::move(ns), std::move(name));
}

std::string default_identity() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::random_device rd;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return std::string(host) + "_" + buf;
}

LeaderElector::LeaderElector(std::unique_ptr<LeaseLock> lock, LeaderElectionOptions options,
                             LeaderCallbacks callbacks)
    : lock_(std::move(lock)), o_(std::move(options)), cb_(std::move(callbacks)),
      clock_(o_.clock ? *o_.clock : kube::real_clock()), leader_until_(kNotLeading) {
  set_gauge(false);
}

LeaderElector::~LeaderElector() = default;

kube::Status LeaderElector::validate(const LeaderElectionOptions& o) {
  auto bad = [](std::string m) {
    kube::Error e;
    e.kind = kube::ErrorKind::kConfig;
    e.message = std::move(m);  // callers say it is about leader election
    return e;
  };
  if (o.lease_name.empty() || o.lease_namespace.empty()) return bad("lease namespace and name are required");
  if (o.identity.empty()) return bad("identity is required");
  if (o.retry_period.count() <= 0) return bad("retry period must be > 0");
  if (o.lease_duration <= o.renew_deadline) return bad("lease duration must be greater than renew deadline");
  if (o.renew_deadline.count() <= 1.2 * static_cast<double>(o.retry_period.count())) {
    return bad("renew deadline must be greater than 1.2 x retry period");
  }
  return {};
}

void LeaderElector::set_gauge(bool leading) {
  if (!o_.metrics) return;
  o_.metrics
      ->gauge("leader_election_master_status", "1 while this process holds the leader lease.",
              {{"name", o_.lease_name}})
      .set(leading ? 1 : 0);
}

bool LeaderElector::is_leader() const {
  Rep until = leader_until_.load();
  return until != kNotLeading && clock_.now().time_since_epoch().count() < until;
}

std::string LeaderElector::observed_holder() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_ ? observed_->holder_identity : "";
}

bool LeaderElector::try_acquire_or_renew() {
  // The attempt's start time: a success proves the lease was ours from here on.
  auto start = clock_.now();
  auto wall = kube::format_micro_time(std::chrono::system_clock::now());
  int duration_s = static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(o_.lease_duration).count());
  auto leading_until = [&] { return (start + o_.renew_deadline).time_since_epoch().count(); };

  auto cur = lock_->get();
  std::unique_lock<std::mutex> l(mu_);
  if (!cur) {
    if (cur.error().kind != kube::ErrorKind::kNotFound) {
      spdlog::warn("leader election: reading {} failed: {}", lock_->describe(), cur.error().to_string());
      return false;
    }
    LeaseRecord rec{o_.identity, duration_s, wall, wall, 0};
    l.unlock();
    auto rv = lock_->create(rec);
    l.lock();
    if (!rv) {
      spdlog::info("leader election: creating {} failed: {}", lock_->describe(), rv.error().to_string());
      return false;
    }
    observed_ = rec;
    observed_rv_ = *rv;
    observed_time_ = clock_.now();
    leader_until_.store(leading_until());
    return true;
  }
  const LeaseRecord& seen = cur->record;
  if (!observed_ || !(*observed_ == seen)) {
    observed_ = seen;
    observed_time_ = clock_.now();
  }
  observed_rv_ = cur->resource_version;
  if (!seen.holder_identity.empty() && seen.holder_identity != reported_leader_) {
    reported_leader_ = seen.holder_identity;
    if (cb_.on_new_leader) cb_.on_new_leader(seen.holder_identity);
  }
  bool held_by_other = !seen.holder_identity.empty() && seen.holder_identity != o_.identity;
  auto lease_for = std::chrono::seconds(seen.lease_duration_seconds);
  if (held_by_other && observed_time_ + lease_for > clock_.now()) {
    leader_until_.store(kNotLeading);  // someone else holds a valid lease: never act as leader
    return false;
  }

  LeaseRecord next = seen;
  next.holder_identity = o_.identity;
  next.lease_duration_seconds = duration_s;
  next.renew_time = wall;
  if (seen.holder_identity != o_.identity) {
    next.acquire_time = wall;
    next.lease_transitions = seen.lease_transitions + 1;
  }
  std::string rv_in = observed_rv_;
  l.unlock();
  auto rv = lock_->update(next, rv_in);
  l.lock();
  if (!rv) {
    spdlog::info("leader election: updating {} failed: {}", lock_->describe(), rv.error().to_string());
    return false;
  }
  observed_ = next;
  observed_rv_ = *rv;
  observed_time_ = clock_.now();
  leader_until_.store(leading_until());
  return true;
}

bool LeaderElector::release() {
  if (!is_leader()) return false;
  LeaseRecord rec;
  std::string rv;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!observed_ || observed_->holder_identity != o_.identity) return false;
    rec = *observed_;
    rv = observed_rv_;
  }
  // Stop acting as leader before the lease says so.
  leader_until_.store(kNotLeading);
  auto wall = kube::format_micro_time(std::chrono::system_clock::now());
  rec.holder_identity = "";
  rec.lease_duration_seconds = 1;
  rec.renew_time = wall;
  rec.acquire_time = wall;
  auto r = lock_->update(rec, rv);
  if (!r) {
    spdlog::warn("leader election: releasing {} failed: {}", lock_->describe(), r.error().to_string());
    return false;
  }
  std::lock_guard<std::mutex> l(mu_);
  observed_ = rec;
  observed_rv_ = *r;
  observed_time_ = clock_.now();
  return true;
}

bool LeaderElector::run(const kube::CancelToken& cancel) {
  std::mt19937 rng(std::random_device{}());
  // client-go's JitterFactor 1.2: wait retry_period * [1, 2.2).
  auto jittered = [&] {
    double f = 1.0 + std::uniform_real_distribution<double>(0, 1.2)(rng);
    return std::chrono::duration_cast<std::chrono::milliseconds>(o_.retry_period * f);
  };
  spdlog::info("leader election: {} trying to acquire {}", o_.identity, lock_->describe());
  while (!cancel.cancelled()) {
    if (try_acquire_or_renew()) break;
    if (!cancel.sleep_for(jittered())) return false;
  }
  if (cancel.cancelled()) return false;
  spdlog::info("leader election: {} became leader of {}", o_.identity, lock_->describe());
  set_gauge(true);
  if (cb_.on_started_leading) cb_.on_started_leading();
  // Renew every retry_period; after a failure keep trying until is_leader() expires.
  while (cancel.sleep_for(o_.retry_period)) {
    if (try_acquire_or_renew()) continue;
    if (!is_leader()) {
      spdlog::error("leader election: {} lost {}: not renewed within {} ms", o_.identity, lock_->describe(),
                    o_.renew_deadline.count());
      leader_until_.store(kNotLeading);
      set_gauge(false);
      if (cb_.on_stopped_leading) cb_.on_stopped_leading();
      return true;
    }
  }
  if (o_.release_on_cancel && release()) {
    spdlog::info("leader election: {} released {}", o_.identity, lock_->describe());
  }
  leader_until_.store(kNotLeading);
  set_gauge(false);
  if (cb_.on_stopped_leading) cb_.on_stopped_leading();
  return true;
}

}  // namespace dgd::runtime
