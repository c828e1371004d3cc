#include "kubesim/auth.h"

#include <algorithm>
#include <stdexcept>

namespace kubesim {

void TokenAuthenticator::add_spec(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw std::invalid_argument("--token wants TOKEN=user[:group,...], got \"" + spec + "\"");
  Identity id;
  std::string rest = spec.substr(eq + 1);
  auto colon = rest.find(':');
  id.user = rest.substr(0, colon);
  if (colon != std::string::npos) {
    std::string groups = rest.substr(colon + 1);
    size_t start = 0;
    while (start <= groups.size()) {
      auto comma = groups.find(',', start);
      std::string g = groups.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!g.empty()) id.groups.push_back(g);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  add(spec.substr(0, eq), id);
}

void TokenAuthenticator::add(const std::string& token, Identity id) {
  std::lock_guard lock(mu_);
  if (std::find(id.groups.begin(), id.groups.end(), "system:authenticated") == id.groups.end())
    id.groups.push_back("system:authenticated");
  tokens_[token] = std::move(id);
}

bool TokenAuthenticator::revoke(const std::string& token) {
  std::lock_guard lock(mu_);
  return tokens_.erase(token) > 0;
}

std::optional<Identity> TokenAuthenticator::lookup(const std::string& token) const {
  std::lock_guard lock(mu_);
  auto it = tokens_.find(token);
  if (it == tokens_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> TokenAuthenticator::users() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [t, id] : tokens_) {
    (void)t;
    out.push_back(id.user);
  }
  return out;
}

}  // namespace kubesim
