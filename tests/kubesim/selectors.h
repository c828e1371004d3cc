// kube-sim: label and field selectors as the API server parses them.
//
// LabelSelector accepts the query syntax of `labelSelector=`: `k=v`, `k==v`,
// `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma-separated (AND).
// FieldSelector accepts `f=v`, `f==v`, `f!=v` over the fields the server supports
// for a kind (metadata.name, metadata.namespace, plus per-kind fields such as
// involvedObject.* for events and spec.nodeName / status.phase for pods). An
// unsupported field is a 400, as on the real server. Both throw ApiError 400 on
// syntax errors.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim {

struct ResourceType;

class LabelSelector {
 public:
  LabelSelector() = default;
  static LabelSelector parse(const std::string& text);
  // From a metav1.LabelSelector object ({matchLabels, matchExpressions}).
  static LabelSelector from_object(const nlohmann::json& sel);
  bool matches(const nlohmann::json& labels) const;  // labels: object or null
  bool empty() const { return reqs_.empty(); }

 private:
  enum class Op { Eq, NotEq, In, NotIn, Exists, NotExists };
  struct Req {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Req> reqs_;
};

class FieldSelector {
 public:
  FieldSelector() = default;
  static FieldSelector parse(const std::string& text, const ResourceType& type);
  bool matches(const nlohmann::json& obj) const;
  bool empty() const { return reqs_.empty(); }
  // The value a field selector sees for `field` on `obj` (exposed for tests).
  static std::string field_value(const nlohmann::json& obj, const std::string& field);

 private:
  struct Req {
    std::string field;
    bool negate;
    std::string value;
  };
  std::vector<Req> reqs_;
};

}  // namespace kubesim
