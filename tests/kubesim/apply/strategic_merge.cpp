// The steps of a strategic merge, in the order kube-apiserver takes them for one object:
// an object-level `$patch`, then `$retainKeys`, then every `$setElementOrder/<field>` with
// its list, then the remaining fields one by one. Lists merge in three steps: their
// directive items, the items themselves, then the order (patch items in patch order, the
// live-only items slotted in by live position).
#include "kubesim/apply/strategic_merge.h"

#include "kubesim/apply/go_value_text.h"

#include <string>
#include <utility>
#include <vector>

namespace kubesim::apply {

using nlohmann::json;

namespace {

const std::string kDirective = "$patch";
const std::string kRetainKeys = "$retainKeys";
const std::string kDeleteFromList = "$deleteFromPrimitiveList";
const std::string kElementOrder = "$setElementOrder";

std::string status_message(int code, const std::string& library_message) {
  // A 422 is built with NewGenericServerResponse, which keeps only its own wording.
  return code == 422 ? "the server rejected our request due to an error in our request" : library_message;
}

std::string status_reason(int code) {
  if (code == 400) return "BadRequest";
  if (code == 422) return "Invalid";
  return "";  // an error without a status: metav1.StatusReasonUnknown
}

[[noreturn]] void refuse_format(const std::string& message) { throw StrategicMergeError(400, message); }
[[noreturn]] void refuse(const std::string& message) { throw StrategicMergeError(500, message); }

[[noreturn]] void missing_merge_key(const json& item, const std::string& key) {
  refuse("map: " + go_value_text(item) + " does not contain declared merge key: " + key);
}

[[noreturn]] void wrong_type(const std::string& expected, const json& actual) {
  refuse("expected a " + expected + ", but received a " + go_type_text(actual));
}

[[noreturn]] void unknown_directive(const json& value, const json& in) {
  std::string shown = value.is_string()  ? value.get<std::string>()
                      : value.is_null() ? "%!s(<nil>)"
                                        : "%!s(" + go_type_text(value) + "=" + go_value_text(value) + ")";
  refuse("unknown patch type: " + shown + " in map: " + go_value_text(in));
}

const char* const kMapType = "map[string]interface {}";
const char* const kListType = "[]interface {}";

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// `<prefix>/<field>` -> field; anything else with the prefix is a malformed directive.
std::string directive_field(const std::string& key, const std::string& prefix, const char* malformed) {
  if (key.size() <= prefix.size() || key.compare(0, prefix.size(), prefix) != 0 || key[prefix.size()] != '/')
    refuse_format(malformed);
  return key.substr(prefix.size() + 1);
}

// --- what the schema says of a field ----------------------------------------------------

struct FieldMeta {
  const TypeRef* type = nullptr;
  bool merge = false;    // patch strategy "merge" (alone or with retainKeys)
  bool replace = false;  // patch strategy "replace"
  std::string merge_key;
};

bool is_struct(const TypeRef& t) { return t.atom && !t.atom->fields.empty() && !t.atom->map_values; }

std::string struct_name(const TypeRef& t) {
  const std::string& n = t.atom->name;
  auto dot = n.rfind('.');
  return dot == std::string::npos ? n : n.substr(dot + 1);
}

FieldMeta field_meta(const TypeRef& parent, const std::string& name) {
  if (is_struct(parent) && !parent.is_struct_field(name))
    refuse("unable to find api field in struct " + struct_name(parent) + " for the json field \"" + name + "\"");
  FieldMeta m;
  m.type = &parent.field(name);
  std::string rest = m.type->patch_strategy;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string one = rest.substr(0, comma);
    if (one == "merge") m.merge = true;
    if (one == "replace") m.replace = true;
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  m.merge_key = m.type->patch_merge_key;
  return m;
}

FieldMeta list_field_meta(const TypeRef& parent, const std::string& name) {
  FieldMeta m = field_meta(parent, name);
  // The library names the kind of the type that holds the field, not the field's own.
  if (is_struct(parent) && !m.type->allows_list()) refuse("expected slice or array type, but got: struct");
  return m;
}

// --- values taken whole from the patch --------------------------------------------------

void drop_nulls(json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        drop_nulls(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (json& item : v) drop_nulls(item);
  }
}

// False when `v` is itself a map carrying `$patch`: such a value is not kept at all.
bool drop_directive_maps(json& v) {
  if (v.is_object()) {
    if (v.contains(kDirective)) return false;
    for (auto it = v.begin(); it != v.end();) {
      if (drop_directive_maps(*it)) {
        ++it;
      } else {
        it = v.erase(it);
      }
    }
  } else if (v.is_array()) {
    json kept = json::array();
    for (json& item : v) {
      if (drop_directive_maps(item)) kept.push_back(std::move(item));
    }
    v = std::move(kept);
  }
  return true;
}

void take_from_patch(json& object, const std::string& name, json value) {
  drop_nulls(value);
  if (drop_directive_maps(value)) {
    object[name] = std::move(value);
  } else {
    object.erase(name);
  }
}

// --- lists -------------------------------------------------------------------------------

// The one element type of two lists, as sliceElementType decides it.
char element_kind(const json& a, const json& b) {
  char kind = 0;
  for (const json* list : {&a, &b}) {
    for (const json& item : *list) {
      const char k = go_kind(item);
      if (kind == 0) {
        if (k == 'n') refuse("runtime error: invalid memory address or nil pointer dereference");
        if (k == 'l') throw StrategicMergeError(422, "lists of lists are not supported");
        kind = k;
      } else if (k != kind) {
        refuse("list element types are not identical: [" + go_value_text(a) + " " + go_value_text(b) + "]");
      }
    }
  }
  if (kind == 0) refuse("no elements in any of the given slices");
  return kind;
}

// Position of the first map in `list` whose `key` equals `value`; every item must be a map.
long find_by_key(const json& list, const std::string& key, const json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) refuse("value for key " + std::to_string(i) + " is not a map");
    auto it = list[i].find(key);
    if (it != list[i].end() && go_scalar_equal(*it, value)) return static_cast<long>(i);
  }
  return -1;
}

// What identifies an item when lists are ordered: its merge key value for maps, else itself.
json identity(const json& item, const std::string& key, bool maps) {
  if (!maps) return item;
  if (!item.is_object()) return nullptr;
  auto it = item.find(key);
  return it == item.end() ? json() : *it;
}

std::vector<json> identities(const json& list, const std::string& key, bool maps) {
  std::vector<json> ids;
  ids.reserve(list.size());
  for (const json& item : list) ids.push_back(identity(item, key, maps));
  return ids;
}

long position(const std::vector<json>& ids, const json& id) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (go_scalar_equal(ids[i], id)) return static_cast<long>(i);
  }
  return -1;
}

void require_merge_key(const json& item, const std::string& key) {
  if (!item.is_object()) wrong_type(kMapType, item);
  if (!item.contains(key)) missing_merge_key(item, key);
}

// The identities of an order list; with maps every item must be a map holding the key.
std::vector<json> order_ids(const json& order, const std::string& key, bool maps) {
  if (maps) {
    for (const json& item : order) require_merge_key(item, key);
  }
  return identities(order, key, maps);
}

// Sorts `items` by their place in an order list. The library's comparison calls an item
// "less" whenever either side is absent from the order; an insertion sort with that
// comparison is what sort.SliceStable does with it. Items marked `$patch: delete` go last.
json sort_by_order(json items, const std::vector<json>& order, const std::string& key, bool maps) {
  json deletions = json::array();
  if (maps) {
    for (const json& item : items) require_merge_key(item, key);
    json kept = json::array();
    for (json& item : items) {
      auto d = item.find(kDirective);
      (d != item.end() && *d == "delete" ? deletions : kept).push_back(std::move(item));
    }
    items = std::move(kept);
  }
  std::vector<long> at;
  at.reserve(items.size());
  for (const json& item : items) at.push_back(position(order, identity(item, key, maps)));
  auto less = [&](size_t a, size_t b) { return at[a] >= 0 && at[b] >= 0 ? at[a] < at[b] : true; };
  for (size_t i = 1; i < items.size(); ++i) {
    for (size_t j = i; j > 0 && less(j, j - 1); --j) {
      std::swap(items[j], items[j - 1]);
      std::swap(at[j], at[j - 1]);
    }
  }
  for (json& d : deletions) items.push_back(std::move(d));
  return items;
}

// Interleaves the live-only items into the patch items: a live-only item goes first only
// when both have a live position and its own is earlier.
json interleave(json live_only, json from_patch, const std::vector<json>& live_ids, const std::string& key, bool maps) {
  json out = json::array();
  size_t i = 0, j = 0;
  while (i < live_only.size() || j < from_patch.size()) {
    if (i >= live_only.size()) {
      out.push_back(std::move(from_patch[j++]));
    } else if (j >= from_patch.size()) {
      out.push_back(std::move(live_only[i++]));
    } else {
      const long li = position(live_ids, identity(live_only[i], key, maps));
      const long pj = position(live_ids, identity(from_patch[j], key, maps));
      if (li >= 0 && pj >= 0 && li < pj) {
        out.push_back(std::move(live_only[i++]));
      } else {
        out.push_back(std::move(from_patch[j++]));
      }
    }
  }
  return out;
}

json arrange(json from_patch, json live_only, const std::vector<json>& patch_order,
             const std::vector<json>& live_order, const std::string& key, bool maps) {
  from_patch = sort_by_order(std::move(from_patch), patch_order, key, maps);
  live_only = sort_by_order(std::move(live_only), live_order, key, maps);
  return interleave(std::move(live_only), std::move(from_patch), live_order, key, maps);
}

// Splits `merged` into the items `by` names and the others; with a merge key every item
// must be a map holding it.
std::pair<json, json> split_by_presence(json merged, const json& by, const std::string& key) {
  json present = json::array(), absent = json::array();
  for (json& item : merged) {
    bool found = false;
    if (key.empty()) {
      for (const json& b : by) found = found || go_scalar_equal(b, item);
    } else {
      if (!item.is_object()) wrong_type(kMapType, item);
      if (!item.contains(key)) missing_merge_key(item, key);
      found = find_by_key(by, key, item[key]) >= 0;
    }
    (found ? present : absent).push_back(std::move(item));
  }
  return {std::move(present), std::move(absent)};
}

json merge_object(json original, json patch, const TypeRef& type);

// Removes the live items a `{key: v, "$patch": "delete"}` item names; with a
// `{"$patch": "replace"}` item the other patch items become the list. Returns the
// patch items left to merge.
json apply_list_directives(json& live, json patch, const std::string& key) {
  json rest = json::array();
  bool replace = false;
  for (json& item : patch) {
    auto d = item.find(kDirective);
    if (d == item.end()) {
      rest.push_back(std::move(item));
    } else if (*d == "delete") {
      auto k = item.find(key);
      if (k == item.end()) missing_merge_key(item, key);
      for (long i; (i = find_by_key(live, key, *k)) >= 0;) live.erase(static_cast<size_t>(i));
    } else if (*d == "replace") {
      replace = true;
    } else if (*d == "merge") {
      refuse("merging lists cannot yet be specified in the patch");
    } else {
      unknown_directive(*d, item);
    }
  }
  if (replace) {
    live = std::move(rest);
    return json::array();
  }
  return rest;
}

json merge_list(json live, json patch, const TypeRef& item_type, const std::string& key, bool deleting) {
  if (live.empty() && patch.empty()) return live;
  const char kind = element_kind(live, patch);
  const bool maps = kind == 'm';
  json merged;
  std::vector<json> live_order;
  if (!maps) {
    if (deleting) {
      json kept = json::array();
      for (json& v : live) {
        bool named = false;
        for (const json& d : patch) named = named || go_scalar_equal(d, v);
        if (!named) kept.push_back(std::move(v));
      }
      return kept;
    }
    live_order = order_ids(live, key, maps);
    merged = json::array();
    for (const json* list : {&live, &patch}) {
      for (const json& v : *list) {
        bool seen = false;
        for (const json& m : merged) seen = seen || go_scalar_equal(m, v);
        if (!seen) merged.push_back(v);
      }
    }
  } else {
    if (key.empty()) refuse("cannot merge lists without merge key for " + (item_type.atom ? item_type.atom->name : ""));
    patch = apply_list_directives(live, std::move(patch), key);
    live_order = order_ids(live, key, maps);
    for (const json& item : patch) {
      auto k = item.find(key);
      if (k == item.end()) missing_merge_key(item, key);
      const long i = find_by_key(live, key, *k);
      if (i >= 0) {
        json& target = live[static_cast<size_t>(i)];
        target = merge_object(std::move(target), item, item_type);
      } else {
        live.push_back(item);
      }
    }
    merged = std::move(live);
  }
  auto [from_patch, live_only] = split_by_presence(std::move(merged), patch, key);
  return arrange(std::move(from_patch), std::move(live_only), order_ids(patch, key, maps), live_order, key, maps);
}

// --- objects -----------------------------------------------------------------------------

void apply_retain_keys(json& live, json& patch) {
  auto it = patch.find(kRetainKeys);
  if (it == patch.end()) return;
  json keep = std::move(*it);
  patch.erase(it);
  const char* const malformed = "invalid patch format of retainKeys";
  if (!keep.is_array()) refuse_format(malformed);
  auto listed = [&](const std::string& k) {
    for (const json& e : keep) {
      if (e.is_string() && e.get_ref<const std::string&>() == k) return true;
    }
    return false;
  };
  for (const auto& [k, v] : patch.items()) {
    if (v.is_null() || starts_with(k, kDeleteFromList) || starts_with(k, kElementOrder)) continue;
    if (!listed(k)) refuse_format(malformed);
  }
  for (auto l = live.begin(); l != live.end();) {
    if (listed(l.key())) {
      ++l;
    } else {
      l = live.erase(l);
    }
  }
}

bool merge_key_equal(const json& a, const json& b, const std::string& key) {
  if (key.empty()) return go_scalar_equal(a, b);
  if (!a.is_object()) wrong_type(kMapType, a);
  if (!b.is_object()) wrong_type(kMapType, b);
  if (!a.contains(key)) missing_merge_key(a, key);
  if (!b.contains(key)) missing_merge_key(b, key);
  return go_scalar_equal(a[key], b[key]);
}

// The patch list must be a subsequence of the $setElementOrder list (deletions aside).
void check_patch_follows_order(const json& patch_list, const json& order, const std::string& key) {
  if (order.empty() || patch_list.empty()) return;
  std::vector<const json*> items;
  for (const json& item : patch_list) {
    if (!key.empty()) {
      if (!item.is_object()) wrong_type(kMapType, item);
      auto d = item.find(kDirective);
      if (d != item.end() && *d == "delete") continue;
    }
    items.push_back(&item);
  }
  size_t p = 0, o = 0;
  while (p < items.size() && o < order.size()) {
    if (items[p]->is_object() && items[p]->contains(kDirective)) {
      ++p;
      continue;
    }
    if (merge_key_equal(*items[p], order[o], key)) ++p;
    ++o;
  }
  if (p < items.size() && o >= order.size()) {
    refuse("The order in patch list:\n" + go_value_text(patch_list) + "\n doesn't match " + kElementOrder +
           " list:\n" + go_value_text(order) + "\n");
  }
}

void apply_element_orders(json& live, json& patch, const TypeRef& type) {
  std::vector<std::string> directives;
  for (const auto& [k, v] : patch.items()) {
    if (starts_with(k, kElementOrder)) directives.push_back(k);
  }
  for (const std::string& directive : directives) {
    json order = std::move(patch[directive]);
    patch.erase(directive);
    if (!order.is_array()) wrong_type(kListType, order);
    const std::string field = directive_field(directive, kElementOrder, "invalid patch format of setElementOrder list");
    const bool in_live = live.contains(field), in_patch = patch.contains(field);
    if (in_live && !live[field].is_array()) wrong_type(kListType, live[field]);
    if (in_patch && !patch[field].is_array()) wrong_type(kListType, patch[field]);
    const FieldMeta meta = list_field_meta(type, field);
    const json live_list = in_live ? live[field] : json::array();
    const json patch_list = in_patch ? patch[field] : json::array();
    check_patch_follows_order(patch_list, order, meta.merge_key);
    json merged;
    if (in_live && !in_patch) {
      merged = live_list;
    } else if (!in_live && in_patch) {
      merged = patch_list;
      drop_directive_maps(merged);
    } else if (in_live && in_patch) {
      merged = meta.merge ? merge_list(live_list, patch_list, meta.type->item(), meta.merge_key, false) : patch_list;
    } else {
      continue;
    }
    auto [ordered, unordered] = split_by_presence(std::move(merged), order, meta.merge_key);
    const bool maps = element_kind(live_list, patch_list) == 'm';
    live[field] = arrange(std::move(ordered), std::move(unordered), order_ids(order, meta.merge_key, maps),
                          order_ids(live_list, meta.merge_key, maps), meta.merge_key, maps);
    patch.erase(field);
  }
}

json merge_object(json live, json patch, const TypeRef& type) {
  if (auto d = patch.find(kDirective); d != patch.end()) {
    if (*d == "replace") {
      patch.erase(d);
      return patch;
    }
    if (*d == "delete") return json::object();
    unknown_directive(*d, patch);
  }
  if (!live.is_object()) live = json::object();
  apply_retain_keys(live, patch);
  apply_element_orders(live, patch, type);
  for (auto& [key, value] : patch.items()) {
    std::string name = key;
    bool deleting = false;
    if (starts_with(key, kDeleteFromList)) {
      name = directive_field(key, kDeleteFromList, "invalid patch format of primitive list");
      deleting = true;
    }
    if (value.is_null()) {
      live.erase(name);
      continue;
    }
    auto current = live.find(name);
    if (current == live.end() || go_kind(*current) != go_kind(value)) {
      if (!deleting) take_from_patch(live, name, std::move(value));
      continue;
    }
    if (value.is_object()) {
      const FieldMeta meta = field_meta(type, name);
      *current = meta.replace ? std::move(value) : merge_object(std::move(*current), std::move(value), *meta.type);
    } else if (value.is_array()) {
      const FieldMeta meta = list_field_meta(type, name);
      *current = meta.merge || deleting
                     ? merge_list(std::move(*current), std::move(value), meta.type->item(), meta.merge_key, deleting)
                     : std::move(value);
    } else {
      *current = std::move(value);
    }
  }
  return live;
}

std::string json_kind_word(const json& v) {
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  return "number";
}

}  // namespace

StrategicMergeError::StrategicMergeError(int code, const std::string& library_message)
    : ApiError(code, status_reason(code), status_message(code, library_message),
               code == 422 ? json::object() : json()),
      library_message_(library_message) {}

json apply_strategic_merge_patch(const json& original, const json& patch, const TypeRef& schema) {
  if (patch.is_null()) return original;  // decodes to a nil map: nothing to merge
  if (!patch.is_object())
    throw StrategicMergeError(400, "json: cannot unmarshal " + json_kind_word(patch) +
                                       " into Go value of type map[string]interface {}");
  return merge_object(original, patch, schema);
}

}  // namespace kubesim::apply
