// SharedDownloads: the model-download Jobs that several DGDs share (model_cache.h), seen
// across their reconciles. It owns two in-process facts the caches cannot give yet:
//  - who creates a Job: DGDs that share a cache are reconciled at once, and the cache
//    learns of a Job a few milliseconds after its create, so the first pass to claim a
//    download creates it and the others use what its create returned until the cache
//    has it (a claim whose pass died is free after `claim_age`);
//  - who uses a Job: the DGDs whose latest reconcile used it, so that a Job's watch event
//    wakes those DGDs rather than every DGD of its namespace.
// Neither changes what a reconcile decides once the cache has the Job. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/kube/clock.h"

namespace dgd::reconcile {

class SharedDownloads {
 public:
  // `clock` must outlive this.
  explicit SharedDownloads(const kube::Clock& clock = kube::real_clock(),
                           std::chrono::milliseconds claim_age = std::chrono::seconds(10))
      : clock_(clock), claim_age_(claim_age) {}
  SharedDownloads(const SharedDownloads&) = delete;
  SharedDownloads& operator=(const SharedDownloads&) = delete;

  struct Claim {
    bool mine = false;  // the caller creates the Job, then calls finish()
    // Otherwise: the Job as another pass's create returned it, or null while that create
    // is in flight.
    std::shared_ptr<const nlohmann::json> created;
  };
  // Claims the creation of download `job` ("ns/name").
  Claim claim(const std::string& job);
  // The claimer's create returned `created`, or (nullptr) did not happen: the claim is free.
  void finish(const std::string& job, const nlohmann::json* created);

  // Records that DGD `dgd` ("ns/name") uses download `job` ("ns/name"; "" for none).
  void note_use(const std::string& dgd, const std::string& job);
  // The DGDs recorded as using `job` ("ns/name"), sorted.
  std::vector<std::string> users_of(const std::string& job) const;

 private:
  void drop_old_locked();
  const kube::Clock& clock_;
  const std::chrono::milliseconds claim_age_;
  mutable std::mutex mu_;
  struct Entry {
    kube::Clock::time_point at;
    std::shared_ptr<const nlohmann::json> job;  // null while in flight
  };
  std::map<std::string, Entry> claims_;              // job -> its claim
  std::map<std::string, std::set<std::string>> users_;  // job -> DGDs
  std::map<std::string, std::string> job_of_;            // DGD -> job
};

}  // namespace dgd::reconcile
