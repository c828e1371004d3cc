#include "kubesim/selectors.h"

#include "kubesim/api_error.h"
#include "kubesim/resource_registry.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kubesim {

using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits on commas that are not inside parentheses.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool valid_label_key(const std::string& k) {
  if (k.empty() || k.size() > 317) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/')) return false;
  return true;
}

bool valid_label_value(const std::string& v) {
  if (v.size() > 63) return false;
  for (char c : v)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

}  // namespace

LabelSelector LabelSelector::parse(const std::string& text) {
  LabelSelector sel;
  if (trim(text).empty()) return sel;
  auto bad = [&](const std::string& why) {
    return ApiError::bad_request("unable to parse requirement: " + why + " (selector \"" + text + "\")");
  };
  for (const auto& raw : split_top(text)) {
    std::string part = trim(raw);
    if (part.empty()) throw bad("empty requirement");
    Req r;
    if (part[0] == '!') {
      r.key = trim(part.substr(1));
      r.op = Op::NotExists;
    } else if (auto p = part.find("!="); p != std::string::npos) {
      r.key = trim(part.substr(0, p));
      r.op = Op::NotEq;
      r.values = {trim(part.substr(p + 2))};
    } else if (auto p2 = part.find("=="); p2 != std::string::npos) {
      r.key = trim(part.substr(0, p2));
      r.op = Op::Eq;
      r.values = {trim(part.substr(p2 + 2))};
    } else if (auto p3 = part.find('='); p3 != std::string::npos) {
      r.key = trim(part.substr(0, p3));
      r.op = Op::Eq;
      r.values = {trim(part.substr(p3 + 1))};
    } else if (auto open = part.find('('); open != std::string::npos) {
      auto close = part.rfind(')');
      if (close == std::string::npos || close < open) throw bad("missing ')'");
      std::string head = trim(part.substr(0, open));
      auto sp = head.find_last_of(" \t");
      if (sp == std::string::npos) throw bad("expected 'in' or 'notin'");
      std::string op = trim(head.substr(sp + 1));
      r.key = trim(head.substr(0, sp));
      if (op == "in") r.op = Op::In;
      else if (op == "notin") r.op = Op::NotIn;
      else throw bad("unknown operator \"" + op + "\"");
      std::string inner = part.substr(open + 1, close - open - 1);
      size_t start = 0;
      while (true) {
        auto comma = inner.find(',', start);
        std::string v = trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!valid_label_value(v)) throw bad("invalid label value \"" + v + "\"");
        r.values.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else {
      r.key = part;
      r.op = Op::Exists;
    }
    if (!valid_label_key(r.key)) throw bad("invalid label key \"" + r.key + "\"");
    for (const auto& v : r.values)
      if (!valid_label_value(v)) throw bad("invalid label value \"" + v + "\"");
    sel.reqs_.push_back(std::move(r));
  }
  return sel;
}

LabelSelector LabelSelector::from_object(const json& sel) {
  LabelSelector out;
  if (!sel.is_object()) return out;
  if (sel.contains("matchLabels") && sel["matchLabels"].is_object())
    for (const auto& [k, v] : sel["matchLabels"].items())
      out.reqs_.push_back({k, Op::Eq, {v.is_string() ? v.get<std::string>() : v.dump()}});
  if (sel.contains("matchExpressions") && sel["matchExpressions"].is_array())
    for (const auto& e : sel["matchExpressions"]) {
      Req r;
      r.key = e.value("key", "");
      std::string op = e.value("operator", "");
      if (op == "In") r.op = Op::In;
      else if (op == "NotIn") r.op = Op::NotIn;
      else if (op == "Exists") r.op = Op::Exists;
      else r.op = Op::NotExists;
      r.values = e.value("values", std::vector<std::string>{});
      out.reqs_.push_back(std::move(r));
    }
  return out;
}

bool LabelSelector::matches(const json& labels) const {
  for (const auto& r : reqs_) {
    const bool has = labels.is_object() && labels.contains(r.key);
    std::string val = has && labels[r.key].is_string() ? labels[r.key].get<std::string>() : "";
    auto in = [&] { return std::find(r.values.begin(), r.values.end(), val) != r.values.end(); };
    switch (r.op) {
      case Op::Eq: if (!has || val != r.values[0]) return false; break;
      case Op::NotEq: if (has && val == r.values[0]) return false; break;
      case Op::In: if (!has || !in()) return false; break;
      case Op::NotIn: if (has && in()) return false; break;
      case Op::Exists: if (!has) return false; break;
      case Op::NotExists: if (has) return false; break;
    }
  }
  return true;
}

namespace {

// Fields each kind supports in field selectors (besides metadata.name/namespace).
std::set<std::string> supported_fields(const ResourceType& t) {
  std::set<std::string> f = {"metadata.name", "metadata.namespace"};
  if (t.kind == "Event" && t.group.empty())
    f.insert({"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
              "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
              "reportingComponent", "source", "type"});
  if (t.kind == "Event" && t.group == "events.k8s.io")
    f.insert({"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion",
              "reason", "reportingController", "type"});
  if (t.kind == "Pod" && t.group.empty())
    f.insert({"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
              "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"});
  if (t.kind == "Node") f.insert("spec.unschedulable");
  if (t.kind == "Secret") f.insert("type");
  if (t.kind == "Namespace") f.insert("status.phase");
  if (t.kind == "Job") f.insert("status.successful");
  if (t.kind == "ReplicaSet") f.insert("status.replicas");
  return f;
}

}  // namespace

std::string FieldSelector::field_value(const json& obj, const std::string& field) {
  if (field == "source") {  // core Event: source.component
    const json* p = &obj;
    if (p->contains("source") && (*p)["source"].is_object()) return (*p)["source"].value("component", "");
    return "";
  }
  const json* cur = &obj;
  size_t start = 0;
  while (start <= field.size()) {
    auto dot = field.find('.', start);
    std::string key = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(key)) return "";
    cur = &(*cur)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  if (cur->is_number()) return cur->dump();
  return "";
}

FieldSelector FieldSelector::parse(const std::string& text, const ResourceType& type) {
  FieldSelector sel;
  if (trim(text).empty()) return sel;
  auto fields = supported_fields(type);
  for (const auto& raw : split_top(text)) {
    std::string part = trim(raw);
    Req r;
    size_t p;
    if ((p = part.find("!=")) != std::string::npos) {
      r.field = trim(part.substr(0, p));
      r.negate = true;
      r.value = trim(part.substr(p + 2));
    } else if ((p = part.find("==")) != std::string::npos) {
      r.field = trim(part.substr(0, p));
      r.negate = false;
      r.value = trim(part.substr(p + 2));
    } else if ((p = part.find('=')) != std::string::npos) {
      r.field = trim(part.substr(0, p));
      r.negate = false;
      r.value = trim(part.substr(p + 1));
    } else {
      throw ApiError::bad_request("invalid selector: '" + text + "'; can't understand '" + part + "'");
    }
    if (!fields.count(r.field))
      throw ApiError::bad_request("field label not supported: " + r.field);
    sel.reqs_.push_back(std::move(r));
  }
  return sel;
}

bool FieldSelector::matches(const json& obj) const {
  for (const auto& r : reqs_) {
    std::string v = field_value(obj, r.field);
    if ((v == r.value) == r.negate) return false;
  }
  return true;
}

}  // namespace kubesim
