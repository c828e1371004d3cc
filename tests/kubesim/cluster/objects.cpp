#include "kubesim/cluster/objects.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace kubesim::cluster {

const char kNameAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";

const Json& at_path(const Json& obj, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* cur = &obj;
  for (const char* p : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(p);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

std::string str_at(const Json& obj, std::initializer_list<const char*> path, const std::string& def) {
  const Json& v = at_path(obj, path);
  return v.is_string() ? v.get<std::string>() : def;
}

int64_t int_at(const Json& obj, std::initializer_list<const char*> path, int64_t def) {
  const Json& v = at_path(obj, path);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return static_cast<int64_t>(v.get<double>());
  return def;
}

std::string name_of(const Json& obj) { return str_at(obj, {"metadata", "name"}); }
std::string namespace_of(const Json& obj) { return str_at(obj, {"metadata", "namespace"}); }
std::string uid_of(const Json& obj) { return str_at(obj, {"metadata", "uid"}); }
bool is_terminating(const Json& obj) { return at_path(obj, {"metadata", "deletionTimestamp"}).is_string(); }

std::string format_time(TimePoint t) {
  std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<TimePoint> parse_time(const std::string& s) {
  std::tm tm{};
  int y, mo, d, h, mi;
  double sec;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6) return std::nullopt;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = static_cast<int>(sec);
  std::time_t tt = timegm(&tm);
  auto frac = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sec - static_cast<int>(sec)));
  return Clock::from_time_t(tt) + frac;
}

const Json* find_condition(const Json& conditions, const std::string& type) {
  if (!conditions.is_array()) return nullptr;
  for (const auto& c : conditions)
    if (c.is_object() && c.value("type", "") == type) return &c;
  return nullptr;
}

bool condition_true(const Json& obj, const std::string& type) {
  const Json* c = find_condition(at_path(obj, {"status", "conditions"}), type);
  return c && c->value("status", "") == "True";
}

void set_condition(Json& conditions, const std::string& type, const std::string& status, const std::string& reason,
                   const std::string& message, TimePoint now, bool with_update_time) {
  if (!conditions.is_array()) conditions = Json::array();
  Json* existing = nullptr;
  for (auto& c : conditions)
    if (c.is_object() && c.value("type", "") == type) existing = &c;
  std::string ts = format_time(now);
  if (existing) {
    bool same_status = existing->value("status", "") == status;
    bool same_all = same_status && existing->value("reason", "") == reason && existing->value("message", "") == message;
    if (same_all) return;
    (*existing)["status"] = status;
    if (!same_status || !existing->contains("lastTransitionTime")) (*existing)["lastTransitionTime"] = ts;
    if (with_update_time) (*existing)["lastUpdateTime"] = ts;
    if (reason.empty()) existing->erase("reason"); else (*existing)["reason"] = reason;
    if (message.empty()) existing->erase("message"); else (*existing)["message"] = message;
    return;
  }
  Json c = {{"type", type}, {"status", status}, {"lastTransitionTime", ts}};
  if (with_update_time) c["lastUpdateTime"] = ts;
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  conditions.push_back(std::move(c));
}

Json owner_reference(const Json& owner, bool controller) {
  return {{"apiVersion", owner.value("apiVersion", "")},
          {"kind", owner.value("kind", "")},
          {"name", name_of(owner)},
          {"uid", uid_of(owner)},
          {"controller", controller},
          {"blockOwnerDeletion", true}};
}

const Json* controller_ref(const Json& obj) {
  const Json& refs = at_path(obj, {"metadata", "ownerReferences"});
  if (!refs.is_array()) return nullptr;
  for (const auto& r : refs)
    if (r.is_object() && r.value("controller", false)) return &r;
  return nullptr;
}

bool controlled_by(const Json& obj, const std::string& owner_uid) {
  const Json* r = controller_ref(obj);
  return r && r->value("uid", "") == owner_uid;
}

namespace {

bool label_value(const Json& labels, const std::string& key, std::string* out) {
  if (!labels.is_object()) return false;
  auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

bool in_values(const Json& values, const std::string& v) {
  if (!values.is_array()) return false;
  for (const auto& x : values)
    if (x.is_string() && x.get<std::string>() == v) return true;
  return false;
}

bool parse_int(const std::string& s, int64_t* out) {
  try {
    size_t pos = 0;
    *out = std::stoll(s, &pos);
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

}  // namespace

bool selector_matches(const Json& selector, const Json& labels) {
  if (selector.is_null()) return false;
  if (!selector.is_object()) return false;
  const Json& ml = at_path(selector, {"matchLabels"});
  if (ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      std::string v;
      if (!label_value(labels, it.key(), &v) || !it.value().is_string() || v != it.value().get<std::string>())
        return false;
    }
  }
  const Json& me = at_path(selector, {"matchExpressions"});
  if (me.is_array()) {
    for (const auto& e : me) {
      std::string key = e.value("key", ""), op = e.value("operator", "");
      std::string v;
      bool has = label_value(labels, key, &v);
      const Json& values = at_path(e, {"values"});
      if (op == "In") {
        if (!has || !in_values(values, v)) return false;
      } else if (op == "NotIn") {
        if (has && in_values(values, v)) return false;
      } else if (op == "Exists") {
        if (!has) return false;
      } else if (op == "DoesNotExist") {
        if (has) return false;
      } else {
        return false;
      }
    }
  }
  return true;
}

bool node_requirement_matches(const Json& req, const Json& labels) {
  std::string key = req.value("key", ""), op = req.value("operator", "");
  std::string v;
  bool has = label_value(labels, key, &v);
  const Json& values = at_path(req, {"values"});
  if (op == "In") return has && in_values(values, v);
  if (op == "NotIn") return !has || !in_values(values, v);
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if (op == "Gt" || op == "Lt") {
    int64_t lv, rv;
    if (!has || !values.is_array() || values.size() != 1 || !values[0].is_string()) return false;
    if (!parse_int(v, &lv) || !parse_int(values[0].get<std::string>(), &rv)) return false;
    return op == "Gt" ? lv > rv : lv < rv;
  }
  return false;
}

std::optional<std::chrono::milliseconds> parse_duration(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double n;
  try {
    n = std::stod(s.substr(0, i));
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = s.substr(i);
  double ms;
  if (unit.empty() || unit == "s") ms = n * 1000;
  else if (unit == "ms") ms = n;
  else if (unit == "m") ms = n * 60000;
  else if (unit == "h") ms = n * 3600000;
  else return std::nullopt;
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

uint32_t fnv32a(const std::string& data, uint32_t seed) {
  uint32_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

std::string safe_encode(const std::string& s) {
  std::string out = s;
  const size_t n = sizeof(kNameAlphabet) - 1;
  for (auto& c : out) c = kNameAlphabet[static_cast<unsigned char>(c) % n];
  return out;
}

}  // namespace kubesim::cluster
