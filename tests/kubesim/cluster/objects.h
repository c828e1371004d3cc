// kube-sim cluster: small helpers over Kubernetes objects held as JSON, shared
// by the simulated controllers (field access with defaults, conditions, owner
// references, label selectors, timestamps).
//
// Everything here is pure: no store, no clock (callers pass `now`).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kubesim::cluster {

using Json = nlohmann::json;
using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

// Field access that tolerates missing parents and wrong types.
const Json& at_path(const Json& obj, std::initializer_list<const char*> path);
std::string str_at(const Json& obj, std::initializer_list<const char*> path, const std::string& def = "");
int64_t int_at(const Json& obj, std::initializer_list<const char*> path, int64_t def);

std::string name_of(const Json& obj);
std::string namespace_of(const Json& obj);
std::string uid_of(const Json& obj);
bool is_terminating(const Json& obj);  // metadata.deletionTimestamp set

// RFC 3339 with second precision, UTC ("2026-11-30T06:20:21Z"), as metav1.Time.
std::string format_time(TimePoint t);
std::optional<TimePoint> parse_time(const std::string& s);

// Status conditions ({type, status, reason, message, lastTransitionTime, ...}).
const Json* find_condition(const Json& conditions, const std::string& type);
bool condition_true(const Json& obj, const std::string& type);  // status.conditions[type].status == "True"
// Sets a condition, keeping lastTransitionTime when the status does not change.
// `extra_times` names further timestamp fields to keep/set the same way
// (e.g. "lastProbeTime", "lastUpdateTime" for Deployments: always set to now when
// anything changed).
void set_condition(Json& conditions, const std::string& type, const std::string& status, const std::string& reason,
                   const std::string& message, TimePoint now, bool with_update_time = false);

// Owner references.
Json owner_reference(const Json& owner, bool controller = true);
const Json* controller_ref(const Json& obj);
bool controlled_by(const Json& obj, const std::string& owner_uid);

// metav1.LabelSelector ({matchLabels, matchExpressions}) against a labels map.
// A null selector matches nothing; an empty one matches everything.
bool selector_matches(const Json& selector, const Json& labels);
// Node selector requirement ({key, operator, values}) against a value lookup.
bool node_requirement_matches(const Json& req, const Json& labels);

// Parses "250ms", "2s", "1.5m", "1h" or a plain number of seconds.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& s);

// Deterministic suffix alphabet of Kubernetes generated names ("bcdfghjklmnpqrstvwxz2456789").
extern const char kNameAlphabet[];
// fnv-1a 32 bit, as the controllers' pod-template hashing uses.
uint32_t fnv32a(const std::string& data, uint32_t seed = 2166136261u);
// rand.SafeEncodeString: maps each character into kNameAlphabet.
std::string safe_encode(const std::string& s);

}  // namespace kubesim::cluster
