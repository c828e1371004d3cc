// kube-sim: random faults ("chaos"), set per run (--faults JSON) or at run time
// (PUT /sim/v1/chaos), so a client can be shown to converge while the API server
// is slow, refuses, conflicts and cuts its watches.
//
// A profile holds fractions in [0, 1] and selectors. Each resource request that
// matches the selectors (verb, resource, user agent; an exempt user agent is never
// faulted) draws from one seeded RNG: added latency (fixed + uniform jitter), then
// at most one of 409 Conflict (update/patch only), 429 TooManyRequests with
// Retry-After, 500 InternalError or 503 ServiceUnavailable, each with the Status
// body kube-apiserver writes. A matching watch may get 410 Expired when it resumes
// from a resourceVersion, is cut (abruptly) after every N events, with a probability
// per event, or at a random time. The same seed gives the same sequence of draws;
// with concurrent clients the request order (hence who gets which fault) varies.
// Every injected fault is counted by kind. Thread-safe.
#pragma once

#include "kubesim/api_error.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kubesim {

struct ChaosProfile {
  uint64_t seed = 1;
  int latency_ms = 0;           // added to every matching request
  int jitter_ms = 0;            // plus uniform [0, jitter_ms]
  double conflict = 0;          // fraction of matching update/patch answered 409 Conflict
  double throttle = 0;          // fraction answered 429 TooManyRequests
  int retry_after_seconds = 1;  // Retry-After of the 429s (0: none)
  double server_error = 0;      // fraction answered 500 or 503 (even odds)
  size_t watch_cut_every = 0;   // cut each matching watch after N events (0: never)
  double watch_cut = 0;         // probability, per delivered event, that the watch is cut
  double watch_max_seconds = 0; // > 0: each matching watch is cut at a uniform time in (0, X] s
  double expire_resume = 0;     // fraction of resuming watches (resourceVersion > 0) answered 410 Expired
  // Selectors; empty = any. user_agents and exempt_user_agents are substrings.
  std::vector<std::string> verbs, resources, user_agents, exempt_user_agents;
};

// What to do with one request.
struct ChaosDecision {
  std::chrono::milliseconds delay{0};
  std::optional<ApiError> error;
};

// How to treat one watch stream.
struct WatchChaos {
  bool expire = false;           // answer 410 Expired instead of streaming
  size_t cut_after = 0;          // events, 0 = no limit
  double cut_probability = 0;    // per event
  std::chrono::milliseconds cut_at{0};  // lifetime, 0 = unlimited
};

class ChaosFaults {
 public:
  // Parses the JSON profile (docs/kube-sim.md, "Faults"); throws ApiError 400 naming
  // the bad field. Replaces the current profile and reseeds the RNG. Counters stay.
  void set(const nlohmann::json& body);
  void clear();  // no more random faults; counters stay
  bool enabled() const;
  // {"enabled", "profile": {...}, "injected": {kind: count}}
  nlohmann::json describe() const;
  nlohmann::json injected() const;

  ChaosDecision on_request(const std::string& verb, const std::string& resource, const std::string& group,
                           const std::string& name, const std::string& user_agent);
  WatchChaos on_watch(const std::string& resource, const std::string& user_agent, bool resuming);
  // One draw for a stream with cut_probability > 0: true = cut it now (counted).
  bool cut_now(const WatchChaos& w);
  // Counts a fault injected elsewhere (outage, restart, a /sim/v1/faults status code).
  void count(const std::string& kind);

  static ChaosProfile parse(const nlohmann::json& body);
  static nlohmann::json to_json(const ChaosProfile& p);

 private:
  bool matches(const std::string& verb, const std::string& resource, const std::string& user_agent) const;
  double draw();  // uniform [0, 1), under mu_

  mutable std::mutex mu_;
  std::optional<ChaosProfile> profile_;
  std::mt19937_64 rng_;
  std::map<std::string, uint64_t> injected_;
};

}  // namespace kubesim
