// Field-set algebra and the FieldsV1 encoding (structured-merge-diff fieldpath/serialize.go).
#include "kubesim/apply/field_set.h"

namespace kubesim::apply {

using nlohmann::json;

bool FieldSet::empty() const {
  if (member) return false;
  for (const auto& [k, c] : children)
    if (!c.empty()) return false;
  return true;
}

const FieldSet* FieldSet::child(const std::string& element) const {
  auto it = children.find(element);
  return it == children.end() ? nullptr : &it->second;
}

void FieldSet::compact() {
  for (auto it = children.begin(); it != children.end();) {
    it->second.compact();
    it = it->second.empty() ? children.erase(it) : std::next(it);
  }
}

namespace {

// Adds b's members to out in place: a union copies only what b brings.
void unite_into(FieldSet& out, const FieldSet& b) {
  out.member = out.member || b.member;
  for (const auto& [k, c] : b.children) unite_into(out.children[k], c);
}

}  // namespace

FieldSet unite(const FieldSet& a, const FieldSet& b) {
  FieldSet out = a;
  unite_into(out, b);
  return out;
}

FieldSet unite(FieldSet&& a, const FieldSet& b) {
  unite_into(a, b);
  return std::move(a);
}

FieldSet difference(const FieldSet& a, const FieldSet& b) {
  FieldSet out;
  out.member = a.member && !b.member;
  for (const auto& [k, c] : a.children) {
    const FieldSet* other = b.child(k);
    FieldSet d = other ? difference(c, *other) : c;
    if (!d.empty()) out.children[k] = std::move(d);
  }
  return out;
}

FieldSet intersect(const FieldSet& a, const FieldSet& b) {
  FieldSet out;
  out.member = a.member && b.member;
  for (const auto& [k, c] : a.children) {
    const FieldSet* other = b.child(k);
    if (!other) continue;
    FieldSet i = intersect(c, *other);
    if (!i.empty()) out.children[k] = std::move(i);
  }
  return out;
}

json to_fields_v1(const FieldSet& s) {
  json out = json::object();
  if (s.member && !s.children.empty()) out["."] = json::object();
  for (const auto& [k, c] : s.children)
    if (!c.empty()) out[k] = to_fields_v1(c);
  return out;
}

FieldSet from_fields_v1(const json& j) {
  FieldSet s;
  if (!j.is_object()) return s;
  for (const auto& [k, v] : j.items()) {
    if (k == ".") {
      s.member = true;
      continue;
    }
    FieldSet c = from_fields_v1(v);
    if (v.is_object() && v.empty()) c.member = true;
    s.children[k] = std::move(c);
  }
  return s;
}

std::string path_string(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& pe : elements) {
    if (pe.size() < 2) continue;
    std::string body = pe.substr(2);
    switch (pe[0]) {
      case 'f':
        out += "." + body;
        break;
      case 'k': {
        json key = json::parse(body, nullptr, false);
        std::string inner;
        if (key.is_object()) {
          for (const auto& [k, v] : key.items()) {
            if (!inner.empty()) inner += ",";
            inner += k + "=" + v.dump();
          }
        }
        out += "[" + inner + "]";
        break;
      }
      case 'v':
        out += "[=" + body + "]";
        break;
      default:
        out += "[" + body + "]";
        break;
    }
  }
  return out;
}

namespace {

void collect_paths(const FieldSet& s, std::vector<std::string>& prefix, std::vector<std::string>& out) {
  if (s.member) out.push_back(path_string(prefix));
  for (const auto& [k, c] : s.children) {
    prefix.push_back(k);
    collect_paths(c, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

std::vector<std::string> member_paths(const FieldSet& s) {
  std::vector<std::string> prefix, out;
  collect_paths(s, prefix, out);
  return out;
}

}  // namespace kubesim::apply
