#include "dgd/object/desired_state.h"

#include <string>
#include <vector>

#include "dgd/object/quantity.h"

namespace dgd::object {

using nlohmann::json;

namespace {

// Metadata the server owns; a desired value for these is meaningless.
bool server_managed_metadata(const std::string& key) {
  return key == "uid" || key == "resourceVersion" || key == "generation" || key == "creationTimestamp" ||
         key == "managedFields" || key == "selfLink" || key == "deletionTimestamp" ||
         key == "deletionGracePeriodSeconds";
}

bool empty_collection(const json& v) { return (v.is_object() || v.is_array()) && v.empty(); }

class Checker {
 public:
  explicit Checker(bool typed) : typed_(typed) {}

  // Returns the failing path or nullopt.
  std::optional<std::string> check(const json& live, const json& desired, const FieldSchema& schema,
                                   std::string& path, bool root) const {
    if (schema.quantity) return quantity_equal(live, desired) ? std::nullopt : fail(path);
    if (desired.is_object()) {
      if (!live.is_object()) return fail(path);
      if (schema.map_type == FieldSchema::MapType::kAtomic) {
        return values_equal(live, desired, schema) ? std::nullopt : fail(path);
      }
      const size_t mark = path.size();
      for (const auto& [key, want] : desired.items()) {
        path.resize(mark);
        path += '.';
        path += key;
        const FieldSchema& sub = schema.field(key);
        auto it = live.find(key);
        if (root && key == "metadata" && want.is_object() && it != live.end()) {
          if (auto d = check_metadata(*it, want, sub, path)) return d;
          continue;
        }
        if (want.is_null()) {
          if (it != live.end() && !it->is_null()) return fail(path);
          continue;
        }
        if (it == live.end() || it->is_null()) {
          if (empty_collection(want) && dropped_when_empty(want, sub)) continue;
          return fail(path);
        }
        if (auto d = check(*it, want, sub, path, false)) return d;
      }
      path.resize(mark);
      return std::nullopt;
    }
    if (desired.is_array()) {
      if (!live.is_array()) return fail(path);
      switch (schema.list_type) {
        case FieldSchema::ListType::kAtomic:
          return values_equal(live, desired, schema) ? std::nullopt : fail(path);
        case FieldSchema::ListType::kSet: {
          // Each desired value in live, in the same relative order (an apply
          // reorders shared items to the applied order).
          long previous = -1;
          for (const json& want : desired) {
            long found = -1;
            for (size_t i = 0; i < live.size() && found < 0; ++i) {
              if (values_equal(live[i], want, schema.items())) found = static_cast<long>(i);
            }
            if (found <= previous) return fail(path + "[=" + want.dump() + "]");
            previous = found;
          }
          return std::nullopt;
        }
        case FieldSchema::ListType::kMap: {
          std::vector<json> live_keys;
          live_keys.reserve(live.size());
          for (const json& have : live) live_keys.push_back(item_key(have, schema));
          long previous = -1;
          for (const json& want : desired) {
            json key = item_key(want, schema);
            if (key.is_null()) return fail(path + "[" + key_text(key) + "]");
            long found = -1;
            // Items usually line up: look from the previous match first.
            for (size_t n = 0; n < live_keys.size() && found < 0; ++n) {
              size_t i = (static_cast<size_t>(previous + 1) + n) % live_keys.size();
              if (live_keys[i] == key) found = static_cast<long>(i);
            }
            if (found <= previous) return fail(path + "[" + key_text(key) + "]");
            previous = found;
            const size_t mark = path.size();
            path += "[" + key_text(key) + "]";
            if (auto d = check(live[static_cast<size_t>(found)], want, schema.items(), path, false)) return d;
            path.resize(mark);
          }
          return std::nullopt;
        }
      }
    }
    return values_equal(live, desired, schema) ? std::nullopt : fail(path);
  }

 private:
  static std::optional<std::string> fail(const std::string& path) { return path.empty() ? "." : path; }

  std::optional<std::string> check_metadata(const json& live, const json& desired, const FieldSchema& schema,
                                            std::string& path) const {
    json filtered = json::object();
    for (const auto& [k, v] : desired.items()) {
      if (!server_managed_metadata(k)) filtered[k] = v;
    }
    return check(live, filtered, schema, path, false);
  }

  // The server stores no empty list and no empty Go map in a typed kind.
  bool dropped_when_empty(const json& want, const FieldSchema& schema) const {
    if (!typed_) return false;
    return want.is_array() || schema.is_map;
  }

  static bool quantity_equal(const json& live, const json& desired) {
    auto a = canonical_quantity(live);
    auto b = canonical_quantity(desired);
    if (a && b) return *a == *b;
    return live == desired;
  }

  // Whole-value equality (atomic lists and maps, scalars): numbers by value,
  // quantities canonically, objects and arrays element by element.
  static bool values_equal(const json& a, const json& b, const FieldSchema& schema) {
    if (schema.quantity) return quantity_equal(a, b);
    if (a.is_object() && b.is_object()) {
      if (a.size() != b.size()) return false;
      for (const auto& [k, v] : b.items()) {
        auto it = a.find(k);
        if (it == a.end() || !values_equal(*it, v, schema.field(k))) return false;
      }
      return true;
    }
    if (a.is_array() && b.is_array()) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!values_equal(a[i], b[i], schema.items())) return false;
      }
      return true;
    }
    return a == b;  // nlohmann compares integers and floats by value
  }

  // Key fields of a map-list item, defaults filled in; null if a key is missing.
  static json item_key(const json& item, const FieldSchema& schema) {
    if (!item.is_object()) return json();
    json key = json::object();
    for (const std::string& k : schema.list_keys) {
      auto it = item.find(k);
      if (it != item.end() && !it->is_null()) {
        key[k] = *it;
      } else if (auto d = schema.list_key_defaults.find(k); d != schema.list_key_defaults.end()) {
        key[k] = d->second;
      } else {
        return json();
      }
    }
    return key;
  }

  static std::string key_text(const json& key) {
    if (!key.is_object()) return "?";
    std::string out;
    for (const auto& [k, v] : key.items()) {
      if (!out.empty()) out += ",";
      out += k + "=" + v.dump();
    }
    return out;
  }

  bool typed_;
};

}  // namespace

bool holds_desired(const json& live, const json& desired, const FieldSchema& schema) {
  return !first_difference(live, desired, schema).has_value();
}

std::optional<std::string> first_difference(const json& live, const json& desired, const FieldSchema& schema) {
  std::string path;
  return Checker(schema.typed).check(live, desired, schema, path, true);
}

}  // namespace dgd::object
