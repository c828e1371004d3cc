// Follows apimachinery pkg/util/strategicpatch (patch.go: mergeMap, mergeSlice,
// mergePatchIntoOriginal, normalizeElementOrder) in its server mode.
#include "dgd/object/strategic_merge.h"

#include <algorithm>
#include <utility>
#include <string>
#include <vector>

namespace dgd::object {

using nlohmann::json;

PatchError::PatchError(Code code, std::string path, const std::string& message)
    : std::runtime_error(message), code_(code), path_(std::move(path)) {}

int PatchError::http_status() const { return code_ == Code::kMalformed ? 400 : 422; }

namespace {

constexpr const char* kPatch = "$patch";
constexpr const char* kRetainKeys = "$retainKeys";
const std::string kDeletePrefix = "$deleteFromPrimitiveList/";
const std::string kOrderPrefix = "$setElementOrder/";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

[[noreturn]] void invalid(const std::string& path, const std::string& message) {
  throw PatchError(PatchError::Code::kInvalid, path, path.empty() ? message : path + ": " + message);
}

// Whether clean(v) would drop anything: a null member, a directive key, or a list item
// that is a `$patch` marker. A walk without allocation, so that the common value (none
// of these) is copied whole instead of rebuilt member by member.
bool needs_cleaning(const json& v) {
  if (v.is_object()) {
    for (const auto& [k, child] : v.items()) {
      if (child.is_null() || (!k.empty() && k[0] == '$') || needs_cleaning(child)) return true;
    }
  } else if (v.is_array()) {
    for (const json& item : v) {
      if (item.is_object() && item.contains(kPatch)) return true;
      if (needs_cleaning(item)) return true;
    }
  }
  return false;
}

// A value taken from the patch wholesale: drop nulls (IgnoreUnmatchedNulls),
// directive keys, and list items that are `$patch: delete` markers.
json clean(const json& v) {
  if (!needs_cleaning(v)) return v;
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, child] : v.items()) {
      if (child.is_null() || (!k.empty() && k[0] == '$')) continue;
      out[k] = clean(child);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const json& item : v) {
      if (item.is_object() && item.contains(kPatch)) {
        if (item[kPatch] == "delete") continue;
        if (item.size() == 1) continue;  // bare {"$patch": "replace"} marker
      }
      out.push_back(clean(item));
    }
    return out;
  }
  return v;
}

// Element kind shared by two lists: 'o' objects, 's' scalars, 'a' arrays, 0 empty.
char element_kind(const json& a, const json& b, const std::string& path) {
  char kind = 0;
  for (const json* list : {&a, &b}) {
    for (const json& item : *list) {
      char k = item.is_object() ? 'o' : item.is_array() ? 'a' : 's';
      if (kind != 0 && k != kind) invalid(path, "list elements are not all of the same type");
      kind = k;
    }
  }
  if (kind == 'a') invalid(path, "lists of lists are not supported");
  return kind;
}

// Index of `item` in `list` (by merge key for objects, by value otherwise), or -1.
long index_of(const json& list, const json& item, const std::string& key) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (key.empty()) {
      if (list[i] == item) return static_cast<long>(i);
    } else if (list[i].is_object() && item.is_object() && list[i].contains(key) && item.contains(key) &&
               list[i][key] == item[key]) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

// Stable sort of `items` by their position in `order`; unknown items keep
// their relative place at the end. (Items are moved, never copied: they can be whole
// containers of a podTemplate.)
json sort_by(json items, const json& order, const std::string& key) {
  if (items.size() < 2) return items;
  std::vector<std::pair<long, json>> keyed;
  keyed.reserve(items.size());
  for (json& item : items) {
    long i = index_of(order, item, key);
    keyed.emplace_back(i < 0 ? static_cast<long>(order.size()) : i, std::move(item));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json out = json::array();
  auto& list = out.get_ref<json::array_t&>();
  list.reserve(keyed.size());
  for (auto& [i, item] : keyed) list.push_back(std::move(item));
  return out;
}

// mergeSortedSlice: interleave server-only items (left) into patch items
// (right) using their positions in the live list.
json merge_sorted(json left, json right, const json& server_order, const std::string& key) {
  if (left.empty()) return right;
  if (right.empty()) return left;
  json out = json::array();
  auto& list = out.get_ref<json::array_t&>();
  list.reserve(left.size() + right.size());
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      list.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      list.push_back(std::move(left[i++]));
    } else {
      long li = index_of(server_order, left[i], key);
      long ri = index_of(server_order, right[j], key);
      if (li >= 0 && ri >= 0 && li < ri) {
        list.push_back(std::move(left[i++]));
      } else {
        list.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

// Splits `merged` into items present in `patch_list` and the rest, sorts each
// by its order list and interleaves them (normalizeElementOrder).
json normalize_order(json merged, const json& patch_list, const json& patch_order, const json& server_order,
                     const std::string& key) {
  json patch_items = json::array(), server_only = json::array();
  for (json& item : merged) {
    (index_of(patch_list, item, key) >= 0 ? patch_items : server_only).push_back(std::move(item));
  }
  return merge_sorted(sort_by(std::move(server_only), server_order, key),
                      sort_by(std::move(patch_items), patch_order, key), server_order, key);
}

json merge_map(json original, const json& patch, const FieldSchema& schema, const std::string& path);

bool same_item(const json& a, const json& b, const std::string& key) {
  if (key.empty()) return a == b;
  return a.is_object() && b.is_object() && a.contains(key) && b.contains(key) && a[key] == b[key];
}

// validatePatchWithSetOrderList: the patch list (minus `$patch: delete`
// items) must follow the relative order of $setElementOrder.
void check_order(const json& patch_list, const json& order, const std::string& key, const std::string& path) {
  size_t p = 0, o = 0;
  std::vector<const json*> items;
  for (const json& item : patch_list) {
    if (item.is_object() && item.contains(kPatch)) continue;
    items.push_back(&item);
  }
  while (p < items.size() && o < order.size()) {
    if (same_item(*items[p], order[o], key)) ++p;
    ++o;
  }
  if (p < items.size()) {
    invalid(path, "the order in patch list " + patch_list.dump() + " doesn't match $setElementOrder list " +
                      order.dump());
  }
}

json merge_list(const json& original, const json& patch, const FieldSchema& schema, const std::string& path) {
  if (original.empty() && patch.empty()) return original;
  char kind = element_kind(original, patch, path);
  if (kind != 'o') {
    json merged = json::array();
    for (const json* list : {&original, &patch}) {
      for (const json& v : *list) {
        if (index_of(merged, v, "") < 0) merged.push_back(v);
      }
    }
    return normalize_order(std::move(merged), patch, patch, original, "");
  }
  const std::string& key = schema.patch_merge_key;
  if (key.empty()) invalid(path, "cannot merge lists without merge key");
  // Special elements: {"$patch": "replace"} and {key: v, "$patch": "delete"}. Without
  // them (the common case) the items to merge are the patch list itself, not a copy.
  json merged = original;
  const bool directives = std::any_of(patch.begin(), patch.end(), [](const json& item) {
    return item.find(kPatch) != item.end();
  });
  json filtered = json::array();
  const json& items = directives ? filtered : patch;
  bool replace = false;
  for (const json& item : directives ? patch : filtered) {
    auto directive = item.find(kPatch);
    if (directive == item.end()) {
      filtered.push_back(item);
      continue;
    }
    if (*directive == "delete") {
      if (!item.contains(key)) invalid(path, "map: " + item.dump() + " does not contain declared merge key: " + key);
      json kept = json::array();
      for (json& o : merged) {
        if (!(o.is_object() && o.contains(key) && o[key] == item[key])) kept.push_back(std::move(o));
      }
      merged = std::move(kept);
    } else if (*directive == "replace") {
      replace = true;
    } else if (*directive == "merge") {
      invalid(path, "merging lists cannot yet be specified in the patch");
    } else {
      invalid(path, "unknown patch type: " + directive->dump() + " in map: " + item.dump());
    }
  }
  if (replace) return clean(items);
  for (const json& item : items) {
    if (!item.contains(key)) invalid(path, "map: " + item.dump() + " does not contain declared merge key: " + key);
    long i = index_of(merged, item, key);
    if (i >= 0) {
      json& target = merged[static_cast<size_t>(i)];
      target = merge_map(std::move(target), item, schema.items(), path + "[" + key + "=" + item[key].dump() + "]");
    } else {
      merged.push_back(clean(item));
    }
  }
  return normalize_order(std::move(merged), items, items, original, key);
}

json merge_map(json original, const json& patch, const FieldSchema& schema, const std::string& path) {
  if (!original.is_object()) original = json::object();
  if (auto directive = patch.find(kPatch); directive != patch.end()) {
    if (*directive == "replace") return clean(patch);
    if (*directive == "delete") return json::object();
    invalid(path, "unknown patch type: " + directive->dump() + " in map: " + patch.dump());
  }
  // $retainKeys: drop every original key not listed; the patch may not set others.
  if (auto retain = patch.find(kRetainKeys); retain != patch.end()) {
    if (!retain->is_array()) invalid(path, "$retainKeys must be a list");
    for (const auto& [k, v] : patch.items()) {
      if (v.is_null() || starts_with(k, kDeletePrefix) || starts_with(k, kOrderPrefix) || k == kRetainKeys ||
          k == kPatch) {
        continue;
      }
      if (std::find(retain->begin(), retain->end(), json(k)) == retain->end()) {
        invalid(path, "doesn't match the $retainKeys list: field " + k + " is not in $retainKeys");
      }
    }
    for (auto it = original.begin(); it != original.end();) {
      if (std::find(retain->begin(), retain->end(), json(it.key())) == retain->end()) {
        it = original.erase(it);
      } else {
        ++it;
      }
    }
  }
  // $setElementOrder/<field>: merge that field now and order it by the directive.
  std::vector<std::string> done;
  for (const auto& [k, order] : patch.items()) {
    if (!starts_with(k, kOrderPrefix)) continue;
    std::string field = k.substr(kOrderPrefix.size());
    if (!order.is_array()) invalid(path, k + " must be a list");
    const FieldSchema& sub = schema.field(field);
    const std::string child = path + "." + field;
    auto orig_it = original.find(field);
    auto patch_it = patch.find(field);
    bool in_orig = orig_it != original.end() && orig_it->is_array();
    bool in_patch = patch_it != patch.end() && patch_it->is_array();
    json merged;
    if (in_orig && !in_patch) {
      merged = *orig_it;
    } else if (!in_orig && in_patch) {
      merged = clean(*patch_it);
    } else if (in_orig && in_patch) {
      merged = sub.patch_merge ? merge_list(*orig_it, *patch_it, sub, child) : clean(*patch_it);
    } else {
      continue;
    }
    const std::string key = sub.patch_merge_key;
    if (!key.empty()) {
      for (const json& o : order) {
        if (!o.is_object() || !o.contains(key)) {
          invalid(child, "$setElementOrder item " + o.dump() + " does not contain declared merge key: " + key);
        }
      }
    }
    if (in_patch) check_order(*patch_it, order, key, child);
    json server_order = in_orig ? *orig_it : json::array();
    original[field] = normalize_order(std::move(merged), order, order, server_order, key);
    done.push_back(field);
  }
  for (const auto& [k, value] : patch.items()) {
    if (k == kPatch || k == kRetainKeys || starts_with(k, kOrderPrefix)) continue;
    if (std::find(done.begin(), done.end(), k) != done.end()) continue;
    if (starts_with(k, kDeletePrefix)) {
      std::string field = k.substr(kDeletePrefix.size());
      auto it = original.find(field);
      if (it == original.end() || !it->is_array()) continue;
      if (!value.is_array()) invalid(path, k + " must be a list");
      json kept = json::array();
      for (const json& v : *it) {
        if (std::find(value.begin(), value.end(), v) == value.end()) kept.push_back(v);
      }
      *it = std::move(kept);
      continue;
    }
    if (value.is_null()) {
      original.erase(k);
      continue;
    }
    auto it = original.find(k);
    if (it == original.end() || it->type() != value.type() ||
        (it->is_number() && value.is_number())) {
      original[k] = clean(value);
      continue;
    }
    const FieldSchema& sub = schema.field(k);
    if (value.is_object()) {
      *it = merge_map(std::move(*it), value, sub, path + "." + k);
    } else if (value.is_array()) {
      *it = sub.patch_merge ? merge_list(*it, value, sub, path + "." + k) : clean(value);
    } else {
      *it = value;
    }
  }
  return original;
}

}  // namespace

json apply_strategic_merge_patch(const json& original, const json& patch, const FieldSchema& schema) {
  if (!patch.is_object()) {
    throw PatchError(PatchError::Code::kMalformed, "", "strategic merge patch must be a JSON object");
  }
  return merge_map(original, patch, schema, "");
}

json strategic_merge(const json& base, const json& overlay, const FieldSchema& schema) {
  if (!overlay.is_object()) return overlay;
  return merge_map(base, overlay, schema, "");
}

}  // namespace dgd::object
