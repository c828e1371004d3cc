// Events: the core v1 Events a user reads in `kubectl describe dgd`.
//
// An event is recorded at most once per (DGD uid, generation, reason, message):
// the recorder remembers what it sent, and the Event's name is a hash of that
// tuple, so a restarted operator (or a second replica) that sends it again
// gets AlreadyExists instead of a duplicate. What it remembers is kept per DGD key
// and only for the DGD's current uid and generation (a newer generation never sends
// an older one's events), so it holds no more than the live DGDs' latest events. Nothing is recorded unless the
// reconcile did something or found something new, so a graph at rest costs no
// event writes. Failures to write an event are logged, never fatal.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

class Cluster;

inline constexpr const char* kReportingComponent = "dgd-operator";

// Reasons (CamelCase, stable: alerting may match on them).
inline constexpr const char* kReasonChildCreated = "ChildCreated";
inline constexpr const char* kReasonChildUpdated = "ChildUpdated";
inline constexpr const char* kReasonChildDeleted = "ChildDeleted";
inline constexpr const char* kReasonApplyFailed = "ApplyFailed";
inline constexpr const char* kReasonStatusWriteFailed = "StatusWriteFailed";
inline constexpr const char* kReasonInvalidSpec = "InvalidSpec";
inline constexpr const char* kReasonKindNotServed = "KindNotServed";
inline constexpr const char* kReasonRolloutComplete = "RolloutComplete";

// The Event object (v1) about `dgd`. `now` is RFC 3339; `instance` the reporting
// instance (pod name / identity). Pure.
nlohmann::json make_event(const nlohmann::json& dgd, const std::string& type, const std::string& reason,
                          const std::string& message, const std::string& now, const std::string& instance);

class EventRecorder {
 public:
  EventRecorder(Cluster& cluster, std::string instance) : cluster_(cluster), instance_(std::move(instance)) {}

  // Sends the event unless this (uid, generation, reason, message) was sent before.
  // `type` is "Normal" or "Warning". Returns true when it was sent now.
  bool record(const nlohmann::json& dgd, const std::string& type, const std::string& reason,
              const std::string& message);
  // Drops what is remembered about the DGD `key` ("ns/name"): it was deleted.
  void forget(const std::string& key);
  // How many DGDs the recorder remembers events of.
  size_t remembered_dgds() const;

 private:
  // The events sent about one DGD, for its uid and generation: (reason, hash of message).
  struct Sent {
    std::string uid;
    int64_t generation = 0;
    std::set<std::pair<std::string, size_t>> events;
  };
  Cluster& cluster_;
  const std::string instance_;
  mutable std::mutex mu_;
  std::map<std::string, Sent> sent_;  // by DGD key
};

// RFC 3339 UTC with seconds, e.g. "2026-11-30T06:00:00Z".
std::string now_rfc3339();

// One event message for what a reconcile pass did to several children, so a graph's
// creation costs the API server one Event, not one per child: "Created Deployment g-a"
// for one item, "Created 3 children: Deployment g-a, Service g-a, Role g-r" for more.
// Items past ~1 KB of text are counted, not listed ("... and 4 more"). Pure.
std::string summarize_children(const std::string& verb, const std::vector<std::string>& items);

}  // namespace dgd::reconcile
