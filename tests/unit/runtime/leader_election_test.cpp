// The election algorithm against an in-memory lease and a fake clock.
#include <gtest/gtest.h>

#include <mutex>

#include "dgd/runtime/leader_election.h"

namespace dgd::runtime {
namespace {

using namespace std::chrono_literals;

// An in-memory Lease with resourceVersion checks; `fail` makes every call fail.
class MemoryLease : public LeaseLock {
 public:
  kube::Result<Current> get() override {
    std::lock_guard<std::mutex> l(mu);
    if (fail) return err(kube::ErrorKind::kServiceUnavailable);
    if (!exists) return err(kube::ErrorKind::kNotFound);
    return Current{record, std::to_string(rv)};
  }
  kube::Result<std::string> create(const LeaseRecord& r) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail) return err(kube::ErrorKind::kServiceUnavailable);
    if (exists) return err(kube::ErrorKind::kAlreadyExists);
    exists = true;
    record = r;
    return std::to_string(++rv);
  }
  kube::Result<std::string> update(const LeaseRecord& r, const std::string& v) override {
    std::lock_guard<std::mutex> l(mu);
    if (fail) return err(kube::ErrorKind::kServiceUnavailable);
    if (v != std::to_string(rv)) return err(kube::ErrorKind::kConflict);
    record = r;
    ++writes;
    return std::to_string(++rv);
  }
  std::string describe() const override { return "memory lease"; }
  static kube::Error err(kube::ErrorKind k) {
    kube::Error e;
    e.kind = k;
    return e;
  }
  std::mutex mu;
  bool exists = false, fail = false;
  LeaseRecord record;
  long rv = 0;
  int writes = 0;
};

// A LeaseLock handle sharing one MemoryLease between candidates.
class Shared : public LeaseLock {
 public:
  explicit Shared(std::shared_ptr<MemoryLease> m) : m_(std::move(m)) {}
  kube::Result<Current> get() override { return m_->get(); }
  kube::Result<std::string> create(const LeaseRecord& r) override { return m_->create(r); }
  kube::Result<std::string> update(const LeaseRecord& r, const std::string& v) override { return m_->update(r, v); }
  std::string describe() const override { return m_->describe(); }

 private:
  std::shared_ptr<MemoryLease> m_;
};

LeaderElectionOptions opts(const std::string& id, const kube::Clock& clock) {
  LeaderElectionOptions o;
  o.lease_namespace = "ns";
  o.lease_name = "dgd-operator";
  o.identity = id;
  o.clock = &clock;
  return o;
}

TEST(LeaderElection, FirstCandidateCreatesTheLeaseAndLeads) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  EXPECT_FALSE(a.is_leader());
  EXPECT_TRUE(a.try_acquire_or_renew());
  EXPECT_TRUE(a.is_leader());
  EXPECT_EQ(lease->record.holder_identity, "a");
  EXPECT_EQ(lease->record.lease_duration_seconds, 15);
  EXPECT_EQ(lease->record.lease_transitions, 0);
}

TEST(LeaderElection, OtherCandidateWaitsLeaseDurationFromItsOwnObservation) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  LeaderElector b(std::make_unique<Shared>(lease), opts("b", clock));
  ASSERT_TRUE(a.try_acquire_or_renew());
  // The record's renewTime could be from a skewed clock: only b's own observation counts.
  lease->record.renew_time = "1999-01-01T00:00:00.000000Z";
  EXPECT_FALSE(b.try_acquire_or_renew());  // b first sees the record now
  EXPECT_EQ(b.observed_holder(), "a");
  clock.advance(14s);
  EXPECT_FALSE(b.try_acquire_or_renew()) << "not expired yet by b's clock";
  EXPECT_FALSE(a.is_leader()) << "a did not renew for 14 s > renew deadline: it stopped acting as leader";
  clock.advance(1s + 1ms);
  EXPECT_TRUE(b.try_acquire_or_renew());
  EXPECT_EQ(lease->record.holder_identity, "b");
  EXPECT_EQ(lease->record.lease_transitions, 1) << "leaseTransitions counts holder changes";
  EXPECT_TRUE(b.is_leader());
  // a comes back: it sees b's valid lease and does not lead.
  EXPECT_FALSE(a.try_acquire_or_renew());
  EXPECT_FALSE(a.is_leader());
}

TEST(LeaderElection, RenewalsKeepTheLeaseAndTransitions) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  LeaderElector b(std::make_unique<Shared>(lease), opts("b", clock));
  ASSERT_TRUE(a.try_acquire_or_renew());
  std::string acquired = lease->record.acquire_time;
  for (int i = 0; i < 20; ++i) {
    clock.advance(2s);
    ASSERT_TRUE(a.try_acquire_or_renew());
    EXPECT_FALSE(b.try_acquire_or_renew()) << "the lease keeps changing: b never sees it expire";
  }
  EXPECT_EQ(lease->record.acquire_time, acquired);
  EXPECT_EQ(lease->record.lease_transitions, 0);
}

TEST(LeaderElection, IsLeaderExpiresBeforeAnotherCandidateCouldTakeOver) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  LeaderElector b(std::make_unique<Shared>(lease), opts("b", clock));
  ASSERT_TRUE(a.try_acquire_or_renew());
  ASSERT_FALSE(b.try_acquire_or_renew());  // b observes right after a's write
  lease->fail = true;                      // a can no longer renew
  for (auto t = 0ms; t < 15s; t += 100ms) {
    clock.advance(100ms);
    (void)a.try_acquire_or_renew();
    bool a_leads = a.is_leader();
    lease->fail = false;
    bool b_could_take = b.try_acquire_or_renew();
    lease->fail = true;
    EXPECT_FALSE(a_leads && b_could_take) << "two leaders at t=" << t.count() << " ms";
    if (b_could_take) break;
    if (t < 9900ms) {
      EXPECT_TRUE(a_leads) << "a keeps leading within the renew deadline, t=" << t.count();
    }
  }
  EXPECT_FALSE(a.is_leader());
}

TEST(LeaderElection, ReleaseLetsTheNextCandidateTakeOverAtOnce) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  LeaderElector b(std::make_unique<Shared>(lease), opts("b", clock));
  ASSERT_TRUE(a.try_acquire_or_renew());
  ASSERT_FALSE(b.try_acquire_or_renew());
  ASSERT_TRUE(a.release());
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(lease->record.holder_identity, "");
  EXPECT_EQ(lease->record.lease_duration_seconds, 1);
  EXPECT_TRUE(b.try_acquire_or_renew()) << "an empty holder is free immediately";
  EXPECT_EQ(lease->record.lease_transitions, 1);
}

TEST(LeaderElection, ConflictingUpdateLoses) {
  kube::FakeClock clock;
  auto lease = std::make_shared<MemoryLease>();
  lease->exists = true;
  lease->record = LeaseRecord{"", 1, "", "", 4};
  LeaderElector a(std::make_unique<Shared>(lease), opts("a", clock));
  // Someone writes between a's get and update: simulate by bumping rv via a second elector.
  LeaderElector b(std::make_unique<Shared>(lease), opts("b", clock));
  ASSERT_TRUE(b.try_acquire_or_renew());
  EXPECT_FALSE(a.try_acquire_or_renew());
  EXPECT_EQ(lease->record.holder_identity, "b");
  EXPECT_EQ(lease->record.lease_transitions, 5);
}

TEST(LeaderElection, ValidatesTimings) {
  kube::FakeClock clock;
  auto o = opts("a", clock);
  EXPECT_TRUE(LeaderElector::validate(o).ok());
  o.renew_deadline = 15s;
  EXPECT_FALSE(LeaderElector::validate(o).ok()) << "lease duration must exceed renew deadline";
  o = opts("a", clock);
  o.retry_period = 9s;
  EXPECT_FALSE(LeaderElector::validate(o).ok()) << "renew deadline must exceed 1.2 x retry period";
  o = opts("", clock);
  EXPECT_FALSE(LeaderElector::validate(o).ok());
}

TEST(LeaderElection, RunLeadsUntilCancelledThenReleases) {
  auto lease = std::make_shared<MemoryLease>();
  LeaderElectionOptions o;
  o.lease_namespace = "ns";
  o.lease_name = "l";
  o.identity = "a";
  o.lease_duration = 1500ms;
  o.renew_deadline = 1000ms;
  o.retry_period = 20ms;
  std::atomic<int> started{0}, stopped{0};
  LeaderCallbacks cb;
  cb.on_started_leading = [&] { ++started; };
  cb.on_stopped_leading = [&] { ++stopped; };
  LeaderElector a(std::make_unique<Shared>(lease), o, cb);
  kube::CancelSource cancel;
  std::thread t([&] { a.run(cancel.token()); });
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!a.is_leader() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(a.is_leader());
  while (lease->writes < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_GE(lease->writes, 3) << "renews every retry period";
  cancel.cancel();
  t.join();
  EXPECT_EQ(started.load(), 1);
  EXPECT_EQ(stopped.load(), 1);
  EXPECT_EQ(lease->record.holder_identity, "") << "released on clean shutdown";
}

TEST(LeaderElection, RunReturnsWhenRenewalsFail) {
  auto lease = std::make_shared<MemoryLease>();
  LeaderElectionOptions o;
  o.lease_namespace = "ns";
  o.lease_name = "l";
  o.identity = "a";
  o.lease_duration = 600ms;
  o.renew_deadline = 400ms;
  o.retry_period = 20ms;
  std::atomic<bool> stopped{false};
  LeaderCallbacks cb;
  cb.on_started_leading = [&] { lease->fail = true; };  // the API server becomes unreachable
  cb.on_stopped_leading = [&] { stopped = true; };
  LeaderElector a(std::make_unique<Shared>(lease), o, cb);
  kube::CancelSource cancel;
  EXPECT_TRUE(a.run(cancel.token()));  // returns by itself
  EXPECT_TRUE(stopped.load());
  EXPECT_FALSE(a.is_leader());
}

}  // namespace
}  // namespace dgd::runtime
