#include "kubesim/faults_chaos.h"

#include <algorithm>
#include <set>

namespace kubesim {

using nlohmann::json;

namespace {

const std::set<std::string> kVerbs = {"get", "list", "watch", "create", "update", "patch", "delete",
                                      "deletecollection"};
const std::set<std::string> kKeys = {"seed",       "latencyMs",     "jitterMs",      "conflict",
                                     "throttle",   "retryAfterSeconds", "serverError", "watchCutEvery",
                                     "watchCut",   "watchMaxSeconds",   "expireResume", "verbs",
                                     "resources",  "userAgents",    "exemptUserAgents"};

ApiError bad(const std::string& field, const std::string& why) {
  return ApiError::bad_request("faults: " + field + ": " + why);
}

double fraction(const json& b, const char* key) {
  if (!b.contains(key)) return 0;
  if (!b[key].is_number()) throw bad(key, "must be a number in [0, 1]");
  double v = b[key].get<double>();
  if (!(v >= 0 && v <= 1)) throw bad(key, "must be a number in [0, 1]");
  return v;
}

int64_t non_negative(const json& b, const char* key, int64_t def) {
  if (!b.contains(key)) return def;
  if (!b[key].is_number_integer() || b[key].get<int64_t>() < 0) throw bad(key, "must be an integer >= 0");
  return b[key].get<int64_t>();
}

std::vector<std::string> strings(const json& b, const char* key) {
  std::vector<std::string> out;
  if (!b.contains(key)) return out;
  if (!b[key].is_array()) throw bad(key, "must be a list of strings");
  for (const auto& v : b[key]) {
    if (!v.is_string() || v.get<std::string>().empty()) throw bad(key, "must be a list of non-empty strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool any_substring(const std::vector<std::string>& subs, const std::string& s) {
  return std::any_of(subs.begin(), subs.end(), [&](const std::string& x) { return s.find(x) != std::string::npos; });
}

bool listed(const std::vector<std::string>& xs, const std::string& s) {
  return xs.empty() || std::find(xs.begin(), xs.end(), s) != xs.end();
}

}  // namespace

ChaosProfile ChaosFaults::parse(const json& b) {
  if (!b.is_object()) throw ApiError::bad_request("faults: want a JSON object, e.g. {\"throttle\": 0.05}");
  for (const auto& [k, v] : b.items())
    if (!kKeys.count(k)) throw bad(k, "unknown field");
  ChaosProfile p;
  if (b.contains("seed")) {
    if (!b["seed"].is_number_integer()) throw bad("seed", "must be an integer");
    p.seed = b["seed"].get<uint64_t>();
  }
  p.latency_ms = static_cast<int>(std::min<int64_t>(non_negative(b, "latencyMs", 0), 60000));
  p.jitter_ms = static_cast<int>(std::min<int64_t>(non_negative(b, "jitterMs", 0), 60000));
  p.conflict = fraction(b, "conflict");
  p.throttle = fraction(b, "throttle");
  p.retry_after_seconds = static_cast<int>(std::min<int64_t>(non_negative(b, "retryAfterSeconds", 1), 3600));
  p.server_error = fraction(b, "serverError");
  if (p.conflict + p.throttle + p.server_error > 1)
    throw bad("conflict+throttle+serverError", "must not exceed 1");
  p.watch_cut_every = static_cast<size_t>(non_negative(b, "watchCutEvery", 0));
  p.watch_cut = fraction(b, "watchCut");
  if (b.contains("watchMaxSeconds")) {
    if (!b["watchMaxSeconds"].is_number() || b["watchMaxSeconds"].get<double>() < 0)
      throw bad("watchMaxSeconds", "must be a number >= 0");
    p.watch_max_seconds = b["watchMaxSeconds"].get<double>();
  }
  p.expire_resume = fraction(b, "expireResume");
  p.verbs = strings(b, "verbs");
  for (const auto& v : p.verbs)
    if (!kVerbs.count(v)) throw bad("verbs", "unknown verb \"" + v + "\"");
  p.resources = strings(b, "resources");
  p.user_agents = strings(b, "userAgents");
  p.exempt_user_agents = strings(b, "exemptUserAgents");
  return p;
}

json ChaosFaults::to_json(const ChaosProfile& p) {
  return {{"seed", p.seed},
          {"latencyMs", p.latency_ms},
          {"jitterMs", p.jitter_ms},
          {"conflict", p.conflict},
          {"throttle", p.throttle},
          {"retryAfterSeconds", p.retry_after_seconds},
          {"serverError", p.server_error},
          {"watchCutEvery", p.watch_cut_every},
          {"watchCut", p.watch_cut},
          {"watchMaxSeconds", p.watch_max_seconds},
          {"expireResume", p.expire_resume},
          {"verbs", p.verbs},
          {"resources", p.resources},
          {"userAgents", p.user_agents},
          {"exemptUserAgents", p.exempt_user_agents}};
}

void ChaosFaults::set(const json& body) {
  ChaosProfile p = parse(body);
  std::lock_guard lock(mu_);
  rng_.seed(p.seed);
  profile_ = std::move(p);
}

void ChaosFaults::clear() {
  std::lock_guard lock(mu_);
  profile_.reset();
}

bool ChaosFaults::enabled() const {
  std::lock_guard lock(mu_);
  return profile_.has_value();
}

json ChaosFaults::injected() const {
  std::lock_guard lock(mu_);
  json out = json::object();
  for (const auto& [k, v] : injected_) out[k] = v;
  return out;
}

json ChaosFaults::describe() const {
  json inj = injected();
  std::lock_guard lock(mu_);
  return {{"enabled", profile_.has_value()},
          {"profile", profile_ ? to_json(*profile_) : json(nullptr)},
          {"injected", inj}};
}

void ChaosFaults::count(const std::string& kind) {
  std::lock_guard lock(mu_);
  ++injected_[kind];
}

double ChaosFaults::draw() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }

bool ChaosFaults::matches(const std::string& verb, const std::string& resource, const std::string& ua) const {
  const ChaosProfile& p = *profile_;
  if (any_substring(p.exempt_user_agents, ua)) return false;
  if (!p.user_agents.empty() && !any_substring(p.user_agents, ua)) return false;
  return listed(p.verbs, verb) && listed(p.resources, resource);
}

ChaosDecision ChaosFaults::on_request(const std::string& verb, const std::string& resource, const std::string& group,
                                      const std::string& name, const std::string& user_agent) {
  ChaosDecision d;
  std::lock_guard lock(mu_);
  if (!profile_ || !matches(verb, resource, user_agent)) return d;
  const ChaosProfile& p = *profile_;
  if (p.latency_ms > 0 || p.jitter_ms > 0) {
    int ms = p.latency_ms + (p.jitter_ms > 0 ? static_cast<int>(draw() * (p.jitter_ms + 1)) : 0);
    d.delay = std::chrono::milliseconds(ms);
    if (ms > 0) ++injected_["latency"];
  }
  const bool write = verb == "update" || verb == "patch";
  double r = draw();
  if (write && r < p.conflict) {
    ++injected_["conflict"];
    d.error = ApiError::conflict(group, resource, name,
                                 "the object has been modified; please apply your changes to the latest version "
                                 "and try again");
    return d;
  }
  r -= write ? p.conflict : 0;
  if (r >= 0 && r < p.throttle) {
    ++injected_["throttle"];
    json details = nullptr;
    if (p.retry_after_seconds > 0) details = {{"retryAfterSeconds", p.retry_after_seconds}};
    d.error = ApiError(429, "TooManyRequests", "Too many requests, please try again later.", details);
    return d;
  }
  r -= p.throttle;
  if (r >= 0 && r < p.server_error) {
    if (draw() < 0.5) {
      ++injected_["serverError500"];
      d.error = ApiError(500, "InternalError", "Internal error occurred: injected fault");
    } else {
      ++injected_["serverError503"];
      d.error = ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request");
    }
  }
  return d;
}

WatchChaos ChaosFaults::on_watch(const std::string& resource, const std::string& user_agent, bool resuming) {
  WatchChaos w;
  std::lock_guard lock(mu_);
  if (!profile_ || !matches("watch", resource, user_agent)) return w;
  const ChaosProfile& p = *profile_;
  if (resuming && p.expire_resume > 0 && draw() < p.expire_resume) {
    ++injected_["watchExpired"];
    w.expire = true;
    return w;
  }
  w.cut_after = p.watch_cut_every;
  w.cut_probability = p.watch_cut;
  if (p.watch_max_seconds > 0)
    w.cut_at = std::chrono::milliseconds(1 + static_cast<long long>(draw() * p.watch_max_seconds * 1000));
  return w;
}

bool ChaosFaults::cut_now(const WatchChaos& w) {
  if (w.cut_probability <= 0) return false;
  std::lock_guard lock(mu_);
  if (draw() >= w.cut_probability) return false;
  ++injected_["watchCut"];
  return true;
}

}  // namespace kubesim
