#include "dgd/reconcile/events.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>

#include "dgd/reconcile/cluster.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Event messages are capped by the API server at 1 KiB in events.k8s.io; keep the
// core ones readable and cut on a character boundary.
std::string cap(std::string msg) {
  constexpr size_t kMax = 1024;
  if (msg.size() <= kMax) return msg;
  size_t cut = kMax - 4;
  while (cut > 0 && (static_cast<unsigned char>(msg[cut]) & 0xC0) == 0x80) --cut;
  msg.resize(cut);
  return msg + " ...";
}

}  // namespace

std::string now_rfc3339() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json make_event(const json& dgd, const std::string& type, const std::string& reason, const std::string& message,
                const std::string& now, const std::string& instance) {
  const json& meta = dgd.at("metadata");
  const std::string name = meta.value("name", "");
  const std::string ns = meta.value("namespace", "");
  const std::string uid = meta.value("uid", "");
  const int64_t generation = meta.value("generation", int64_t{0});
  const std::string text = cap(message);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(
                    fnv1a64(uid + "\n" + std::to_string(generation) + "\n" + reason + "\n" + text)));
  return json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name + "." + hex}, {"namespace", ns}}},
              {"involvedObject",
               {{"apiVersion", dgd.value("apiVersion", "")},
                {"kind", dgd.value("kind", "")},
                {"name", name},
                {"namespace", ns},
                {"uid", uid},
                {"resourceVersion", meta.value("resourceVersion", "")}}},
              {"type", type},
              {"reason", reason},
              {"message", text},
              {"source", {{"component", kReportingComponent}}},
              {"reportingComponent", kReportingComponent},
              {"reportingInstance", instance},
              {"firstTimestamp", now},
              {"lastTimestamp", now},
              {"count", 1}};
}

bool EventRecorder::record(const json& dgd, const std::string& type, const std::string& reason,
                           const std::string& message) {
  const json& meta = dgd.at("metadata");
  const std::string key = meta.value("namespace", "") + "/" + meta.value("name", "");
  const std::string uid = meta.value("uid", "");
  const int64_t generation = meta.value("generation", int64_t{0});
  // The message is remembered by its hash: a ChildCreated summary can be a kilobyte.
  const std::pair<std::string, size_t> event{reason, std::hash<std::string>{}(cap(message))};
  {
    std::lock_guard<std::mutex> lock(mu_);
    Sent& sent = sent_[key];
    if (sent.uid != uid || sent.generation < generation) sent = Sent{uid, generation, {}};
    // An older generation than the one remembered (a cache that lags): sent, not remembered;
    // the Event's name makes a repeat AlreadyExists.
    if (sent.generation == generation && !sent.events.insert(event).second) return false;
  }
  json ev = make_event(dgd, type, reason, message, now_rfc3339(), instance_);
  if (auto s = cluster_.create_event(ev); !s) {
    // Not remembered: a later reconcile may try again (the name makes it idempotent).
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = sent_.find(key); it != sent_.end() && it->second.uid == uid && it->second.generation == generation) {
      it->second.events.erase(event);
    }
    spdlog::debug("dgd={}: event {} not recorded: {}", key, reason, s.error().to_string());
    return false;
  }
  return true;
}

void EventRecorder::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  sent_.erase(key);
}

size_t EventRecorder::remembered_dgds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sent_.size();
}

std::string summarize_children(const std::string& verb, const std::vector<std::string>& items) {
  if (items.size() == 1) return verb + " " + items[0];
  constexpr size_t kMaxListed = 1024;
  std::string out = verb + " " + std::to_string(items.size()) + " children: ";
  const size_t head = out.size();
  size_t listed = 0;
  for (const auto& item : items) {
    if (listed > 0 && out.size() - head + item.size() > kMaxListed) break;
    if (listed > 0) out += ", ";
    out += item;
    ++listed;
  }
  if (listed < items.size()) out += " and " + std::to_string(items.size() - listed) + " more";
  return out;
}

}  // namespace dgd::reconcile
