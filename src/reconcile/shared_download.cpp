#include "dgd/reconcile/shared_download.h"

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

SharedDownloads::Claim SharedDownloads::claim(const std::string& job) {
  std::lock_guard<std::mutex> lock(mu_);
  drop_old_locked();
  auto it = claims_.find(job);
  if (it != claims_.end()) return {false, it->second.job};
  claims_[job] = {clock_.now(), nullptr};
  return {true, nullptr};
}

void SharedDownloads::finish(const std::string& job, const nlohmann::json* created) {
  std::lock_guard<std::mutex> lock(mu_);
  if (created == nullptr) {
    claims_.erase(job);
  } else {
    claims_[job] = {clock_.now(), std::make_shared<const nlohmann::json>(*created)};
  }
  drop_old_locked();
}

void SharedDownloads::drop_old_locked() {
  // The cache has long had the Jobs of old entries.
  const auto now = clock_.now();
  for (auto it = claims_.begin(); it != claims_.end();) {
    it = now - it->second.at >= claim_age_ ? claims_.erase(it) : std::next(it);
  }
}

void SharedDownloads::note_use(const std::string& dgd, const std::string& job) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = job_of_.find(dgd);
  if (it != job_of_.end()) {
    if (it->second == job) return;
    auto users = users_.find(it->second);
    if (users != users_.end()) {
      users->second.erase(dgd);
      if (users->second.empty()) users_.erase(users);
    }
    job_of_.erase(it);
  }
  if (job.empty()) return;
  job_of_[dgd] = job;
  users_[job].insert(dgd);
}

std::vector<std::string> SharedDownloads::users_of(const std::string& job) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = users_.find(job);
  if (it == users_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace dgd::reconcile
