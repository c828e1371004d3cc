// kube-sim: bearer-token authentication. Tokens map to a user and groups; they
// can be added and revoked at run time (admin endpoint /sim/v1/tokens), so a
// client can be tested re-reading a rotated token after a 401. Thread-safe.
#pragma once

#include "kubesim/http_types.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kubesim {

class TokenAuthenticator {
 public:
  // "TOKEN=user[:group1,group2]" as given to --token. Throws std::invalid_argument.
  void add_spec(const std::string& spec);
  void add(const std::string& token, Identity id);
  bool revoke(const std::string& token);
  std::optional<Identity> lookup(const std::string& token) const;
  std::vector<std::string> users() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Identity> tokens_;
};

}  // namespace kubesim
