#include "kubesim/request_log.h"

#include "kubesim/object_rules.h"

namespace kubesim {

using nlohmann::json;

uint64_t RequestLog::add(RequestRecord r) {
  std::lock_guard lock(mu_);
  r.seq = ++seq_;
  if (r.time.empty()) r.time = rules::now_rfc3339_micro();
  ++total_;
  const std::string verb = r.verb.empty() ? "nonresource" : r.verb;
  std::string res = r.resource.empty() ? r.path : (r.group.empty() ? r.resource : r.resource + "." + r.group);
  if (!r.subresource.empty()) res += "/" + r.subresource;
  ++by_verb_[verb];
  ++by_resource_[res];
  ++by_user_agent_[r.user_agent];
  ++by_code_[std::to_string(r.code)];
  ++by_verb_resource_[verb + " " + res];
  records_.push_back(std::move(r));
  while (records_.size() > capacity_) records_.pop_front();
  return seq_;
}

json RequestLog::since(uint64_t seq) const {
  std::lock_guard lock(mu_);
  json items = json::array();
  for (const auto& r : records_) {
    if (r.seq <= seq) continue;
    json j = {{"seq", r.seq}, {"time", r.time}, {"method", r.method}, {"verb", r.verb}, {"group", r.group},
              {"version", r.version}, {"resource", r.resource}, {"subresource", r.subresource},
              {"namespace", r.ns}, {"name", r.name}, {"user", r.user}, {"userAgent", r.user_agent},
              {"code", r.code}};
    if (!r.path.empty()) j["path"] = r.path;
    if (!r.content_type.empty()) j["contentType"] = r.content_type;
    if (!r.warnings.empty()) j["warnings"] = r.warnings;
    items.push_back(std::move(j));
  }
  return {{"items", items}, {"lastSeq", seq_}};
}

json RequestLog::counters() const {
  std::lock_guard lock(mu_);
  return {{"total", total_},      {"byVerb", by_verb_}, {"byResource", by_resource_}, {"byUserAgent", by_user_agent_},
          {"byCode", by_code_}, {"byVerbResource", by_verb_resource_}, {"lastSeq", seq_}};
}

void RequestLog::reset() {
  std::lock_guard lock(mu_);
  records_.clear();
  by_verb_.clear();
  by_resource_.clear();
  by_user_agent_.clear();
  by_code_.clear();
  by_verb_resource_.clear();
  total_ = 0;
}

}  // namespace kubesim
