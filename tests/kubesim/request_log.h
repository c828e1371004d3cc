// kube-sim: the request log and counters served under /sim/v1/requests and
// /sim/v1/counters, so tests and benchmarks can count exactly what a client did.
// Thread-safe. The log keeps the last `capacity` records; counters are totals
// since the last reset().
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kubesim {

struct RequestRecord {
  uint64_t seq = 0;
  std::string time;
  std::string method;
  std::string verb;  // get list watch create update patch delete deletecollection (or "" for non-resource)
  std::string group, version, resource, subresource, ns, name;
  std::string path;  // non-resource requests (discovery, admin)
  std::string user;
  std::string user_agent;
  std::string content_type;
  int code = 0;
  std::vector<std::string> warnings;  // `Warning` headers sent (unknown fields under fieldValidation=Warn)
};

class RequestLog {
 public:
  explicit RequestLog(size_t capacity = 100000) : capacity_(capacity) {}
  uint64_t add(RequestRecord r);
  nlohmann::json since(uint64_t seq) const;  // {"items": [...], "lastSeq": N}
  nlohmann::json counters() const;
  void reset();

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  uint64_t seq_ = 0;
  std::deque<RequestRecord> records_;
  std::map<std::string, uint64_t> by_verb_, by_resource_, by_user_agent_, by_code_, by_verb_resource_;
  uint64_t total_ = 0;
};

}  // namespace kubesim
