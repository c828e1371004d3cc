// Server-side apply after kube-apiserver's fieldmanager chain and
// structured-merge-diff's Updater (Apply = merge, prune, update; Update =
// compare, move ownership), on nlohmann::json with a FieldSchema.
#include "kubesim/apply/server_side_apply.h"

#include "kubesim/api_error.h"
#include "kubesim/apply/field_set.h"
#include "kubesim/apply/go_zero_object.h"
#include "kubesim/cluster/quantity.h"
#include "kubesim/openapi/swagger_document.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>


namespace kubesim::apply {

using nlohmann::json;

namespace {

const char* const kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
const char* const kBeforeFirstApply = "before-first-apply";

// ---------------------------------------------------------------------------
// Walking values with the schema.

std::string str_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

[[noreturn]] void invalid(const std::string& message) {
  throw ApiError(422, "Invalid", "the server rejected our request due to an error in our request: " + message);
}

// Whether a value is walked entry by entry (granular map) or item by item (set or
// associative list); anything else is one leaf. A value of a shape the type does not
// allow is a leaf too (the typed decoder rejects such objects before they get here).
bool granular_map(const json& v, const TypeRef& t) { return v.is_object() && t.allows_map() && !t.map_atomic(); }
bool granular_list(const json& v, const TypeRef& t) {
  return v.is_array() && t.allows_list() && t.list_type() != ListType::atomic;
}

// The server decodes quantities before merging, so what it merges, stores and compares
// is their canonical form. A value that does not parse is left for validation to report.
void canonicalize_quantities(json& v, const TypeRef& t) {
  if (t.quantity()) {
    if (v.is_string() || v.is_number()) {
      if (auto c = cluster::canonical_quantity(v.is_string() ? v.get<std::string>() : v.dump())) v = *c;
    }
    return;
  }
  if (v.is_object() && t.allows_map()) {
    for (auto it = v.begin(); it != v.end(); ++it) canonicalize_quantities(*it, t.field(it.key()));
  } else if (v.is_array() && t.allows_list()) {
    const TypeRef& item = t.item();
    for (json& e : v) canonicalize_quantities(e, item);
  }
}

// Path element of list item `item` at index `i`. Strict (applied config):
// errors for items a keyed list cannot identify; lenient (stored objects):
// falls back to the index.
std::string item_element(const json& item, const TypeRef& list, size_t i, bool strict,
                         const std::string& where) {
  if (list.list_type() == ListType::set) {
    if (item.is_object() || item.is_array()) {
      if (strict) invalid(where + ": set list items must be scalars, got " + item.dump());
      return "i:" + std::to_string(i);
    }
    return "v:" + item.dump();
  }
  if (list.list_type() == ListType::map) {
    if (!item.is_object()) {
      if (strict) invalid(where + ": associative list items must be objects, got " + item.dump());
      return "i:" + std::to_string(i);
    }
    json key = json::object();
    for (const std::string& k : list.list_keys()) {
      auto it = item.find(k);
      if (it != item.end() && !it->is_null()) {
        key[k] = *it;
      } else if (auto d = list.key_default(k)) {
        key[k] = *d;
      } else {
        if (strict) invalid(where + ": associative list with keys has an element that omits key field \"" + k +
                           "\" (and doesn't have default value)");
        return "i:" + std::to_string(i);
      }
    }
    return "k:" + key.dump();
  }
  return "i:" + std::to_string(i);
}

// Path elements of all items of a non-atomic list; strict mode rejects duplicates.
std::vector<std::string> item_elements(const json& list, const TypeRef& type, bool strict,
                                       const std::string& where) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string pe = item_element(list[i], type, i, strict, where);
    if (strict && !seen.insert(pe).second) {
      invalid(where + ": duplicate entries for key " + path_string({pe}));
    }
    out.push_back(std::move(pe));
  }
  return out;
}

// ToFieldSet: the leaf fields, list items, map entries, empty and atomic values.
void collect(const json& v, const TypeRef& s, FieldSet& node, bool strict, const std::string& where) {
  if (v.is_object()) {
    if (!granular_map(v, s) || v.empty()) {
      node.member = true;
      return;
    }
    for (const auto& [k, child] : v.items()) {
      FieldSet& c = node.children["f:" + k];
      collect(child, s.field(k), c, strict, strict ? where + "." + k : where);
      if (child.is_null() || (child.is_object() && child.empty())) c.member = true;
      if (!s.is_struct_field(k)) c.member = true;
    }
  } else if (v.is_array()) {
    if (!granular_list(v, s)) {
      node.member = true;
      return;
    }
    std::vector<std::string> pes = item_elements(v, s, strict, where);
    for (size_t i = 0; i < v.size(); ++i) {
      FieldSet& c = node.children[pes[i]];
      if (v[i].is_object() || v[i].is_array()) {
        collect(v[i], s.item(), c, strict, strict ? where + path_string({pes[i]}) : where);
      }
      c.member = true;
    }
  } else {
    node.member = true;
  }
}

// Fields the apiserver never tracks (stripMetaManager) and reset fields of
// the status subresource.
void strip(FieldSet& set, const std::string& subresource, bool status_subresource) {
  set.children.erase("f:apiVersion");
  set.children.erase("f:kind");
  if (auto it = set.children.find("f:metadata"); it != set.children.end()) {
    it->second.member = false;
    for (const char* f : {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                          "selfLink", "managedFields", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
      it->second.children.erase(std::string("f:") + f);
    }
  }
  if (status_subresource) {
    if (subresource == "status") {
      for (auto it = set.children.begin(); it != set.children.end();) {
        it = it->first == "f:status" ? std::next(it) : set.children.erase(it);
      }
    } else if (subresource.empty()) {
      set.children.erase("f:status");
    }
  }
  set.compact();
}

FieldSet field_set(const json& object, const TypeRef& type, bool strict, const std::string& subresource,
                   bool status_subresource) {
  FieldSet set;
  if (object.is_object()) collect(object, type, set, strict, "");
  strip(set, subresource, status_subresource);
  return set;
}

// Paths whose leaf value differs between two objects present in both.
void modified(const json& a, const json& b, const TypeRef& s, FieldSet& node) {
  if (granular_map(a, s) && b.is_object()) {
    for (const auto& [k, bv] : b.items()) {
      auto it = a.find(k);
      if (it == a.end()) continue;
      FieldSet& c = node.children["f:" + k];
      modified(*it, bv, s.field(k), c);
    }
    return;
  }
  if (granular_list(a, s) && b.is_array()) {
    std::vector<std::string> ape = item_elements(a, s, false, ""), bpe = item_elements(b, s, false, "");
    for (size_t j = 0; j < b.size(); ++j) {
      auto it = std::find(ape.begin(), ape.end(), bpe[j]);
      if (it == ape.end()) continue;
      FieldSet& c = node.children[bpe[j]];
      modified(a[static_cast<size_t>(it - ape.begin())], b[j], s.item(), c);
    }
    return;
  }
  if (a != b) node.member = true;
}

struct Comparison {
  FieldSet changed;  // added or modified
  FieldSet removed;
};

bool has_null(const json& v) {
  if (v.is_null()) return true;
  if (v.is_object() || v.is_array()) {
    for (const json& c : v)
      if (has_null(c)) return true;
  }
  return false;
}

json without_nulls(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, c] : v.items()) {
      if (!c.is_null()) out[k] = without_nulls(c);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const json& c : v) out.push_back(without_nulls(c));
    return out;
  }
  return v;
}

// Maps, lists and structs that `b` has where `a` has nothing (not even null):
// structured-merge-diff's Compare puts the path of such a container itself into Added (the
// "." an Update entry shows). A create compares with the kind's Go zero value
// (go_zero_object.h), which already holds the non-pointer structs and the nil fields
// written without omitempty.
void added_containers(const json* a, const json& b, const TypeRef& s, FieldSet& node, bool root) {
  const bool absent = a == nullptr;
  const bool same_shape = a != nullptr && a->type() == b.type();
  if (granular_map(b, s)) {
    if (!root && absent && !b.empty()) node.member = true;
    for (auto it = b.begin(); it != b.end(); ++it) {
      const json* ac = nullptr;
      if (same_shape) {
        auto f = a->find(it.key());
        if (f != a->end()) ac = &*f;
      }
      FieldSet child;
      added_containers(ac, *it, s.field(it.key()), child, false);
      if (!child.empty()) node.children["f:" + it.key()] = std::move(child);
    }
  } else if (granular_list(b, s)) {
    if (absent && !b.empty()) node.member = true;
    std::vector<std::string> bpe = item_elements(b, s, false, "");
    std::vector<std::string> ape;
    if (same_shape) ape = item_elements(*a, s, false, "");
    for (size_t j = 0; j < b.size(); ++j) {
      const json* ac = nullptr;
      if (auto f = std::find(ape.begin(), ape.end(), bpe[j]); f != ape.end()) ac = &(*a)[static_cast<size_t>(f - ape.begin())];
      FieldSet child;
      added_containers(ac, b[j], s.item(), child, false);
      if (!child.empty()) node.children[bpe[j]] = std::move(child);
    }
  }
}

// The object a create starts from: the Go zero value of a built-in kind, an empty object
// for a custom resource.
json zero_object_of(const json& object) {
  if (auto z = go_zero_object(str_field(object, "apiVersion"), str_field(object, "kind"))) return *z;
  return json::object();
}

// A map a write empties is no new leaf: structured-merge-diff treats an empty map as a
// leaf only when the other side is empty or absent too, so its owner keeps it.
void drop_emptied_maps(const json& a, const json& b, const TypeRef& s, FieldSet& added) {
  if (!granular_map(b, s) || !a.is_object()) return;
  for (auto it = b.begin(); it != b.end(); ++it) {
    auto f = a.find(it.key());
    auto c = added.children.find("f:" + it.key());
    if (f == a.end() || c == added.children.end()) continue;
    if (it->is_object() && it->empty() && f->is_object() && !f->empty()) {
      c->second.member = false;
    } else {
      drop_emptied_maps(*f, *it, s.field(it.key()), c->second);
    }
  }
}

// A map or list that is still there is not removed, however its entries changed: an empty
// map is a leaf of the set, but structured-merge-diff's Compare removes only what the new
// object lacks, so the owner of an emptied (or refilled) map keeps it.
void keep_present(const json& b, const TypeRef& s, FieldSet& removed) {
  if (granular_map(b, s)) {
    for (auto it = b.begin(); it != b.end(); ++it) {
      auto c = removed.children.find("f:" + it.key());
      if (c == removed.children.end()) continue;
      if (it->is_object() || it->is_array()) c->second.member = false;
      keep_present(*it, s.field(it.key()), c->second);
    }
  } else if (granular_list(b, s)) {
    std::vector<std::string> pes = item_elements(b, s, false, "");
    for (size_t i = 0; i < b.size(); ++i) {
      auto c = removed.children.find(pes[i]);
      if (c == removed.children.end()) continue;
      c->second.member = false;
      keep_present(b[i], s.item(), c->second);
    }
  }
}

Comparison compare(const json& old_obj, const json& new_obj, const TypeRef& type,
                   const std::string& subresource, bool status_subresource) {
  FieldSet old_set = field_set(old_obj, type, false, subresource, status_subresource);
  FieldSet new_set = field_set(new_obj, type, false, subresource, status_subresource);
  FieldSet mod;
  if (old_obj.is_object() && new_obj.is_object()) modified(old_obj, new_obj, type, mod);
  // Only what both sets know as fields counts as modified (strip applies too).
  mod = intersect(mod, unite(old_set, new_set));
  // A null the write adds is no change: the zero value it starts from holds it already.
  FieldSet added = difference(has_null(new_obj) ? field_set(without_nulls(new_obj), type, false, subresource, status_subresource)
                                                : new_set,
                              old_set);
  drop_emptied_maps(old_obj, new_obj, type, added);
  added.compact();
  FieldSet containers;
  if (new_obj.is_object()) {
    const json zero = old_obj.is_object() ? json() : zero_object_of(new_obj);
    added_containers(old_obj.is_object() ? &old_obj : &zero, new_obj, type, containers, true);
    strip(containers, subresource, status_subresource);
  }
  Comparison c;
  c.changed = unite(unite(std::move(added), containers), mod);
  c.removed = difference(old_set, new_set);
  if (old_obj.is_object() && new_obj.is_object()) {
    // Likewise the maps and lists a write removes leave whoever owned them.
    FieldSet gone;
    added_containers(&new_obj, old_obj, type, gone, true);
    c.removed = unite(std::move(c.removed), gone);
  }
  if (new_obj.is_object()) keep_present(new_obj, type, c.removed);
  c.removed.compact();
  return c;
}

// ---------------------------------------------------------------------------
// Merge (apply semantics) and prune.


json merge(const json& lhs, const json& rhs, const TypeRef& s);

json merge_lists(const json& lhs, const json& rhs, const TypeRef& s) {
  std::vector<std::string> lpe = item_elements(lhs, s, false, ""), rpe = item_elements(rhs, s, false, "");
  auto find = [](const std::vector<std::string>& v, const std::string& pe) -> long {
    auto it = std::find(v.begin(), v.end(), pe);
    return it == v.end() ? -1 : static_cast<long>(it - v.begin());
  };
  std::vector<std::string> shared;
  for (const std::string& pe : rpe) {
    if (find(lpe, pe) >= 0) shared.push_back(pe);
  }
  size_t next_shared = 0;
  auto item = [&](const std::string& pe) {
    long l = find(lpe, pe), r = find(rpe, pe);
    if (r < 0) return lhs[static_cast<size_t>(l)];
    return l < 0 ? without_nulls(rhs[static_cast<size_t>(r)])
                 : merge(lhs[static_cast<size_t>(l)], rhs[static_cast<size_t>(r)], s.item());
  };
  json out = json::array();
  size_t li = 0, ri = 0;
  while (li < lpe.size() || ri < rpe.size()) {
    if (li < lpe.size() && ri < rpe.size()) {
      if (lpe[li] == rpe[ri]) {
        out.push_back(item(lpe[li]));
        ++li;
        ++ri;
        ++next_shared;
        continue;
      }
      if (find(rpe, lpe[li]) >= 0 && next_shared < shared.size() && shared[next_shared] != lpe[li]) {
        ++li;  // shared item, emitted in the right's order later
        continue;
      }
    }
    if (li < lpe.size() && find(rpe, lpe[li]) < 0) {
      out.push_back(lhs[li]);
      ++li;
      continue;
    }
    if (ri < rpe.size()) {
      out.push_back(item(rpe[ri]));
      if (next_shared < shared.size() && shared[next_shared] == rpe[ri]) ++next_shared;
      ++ri;
    } else {
      ++li;  // a shared left item already emitted
    }
  }
  return out;
}

json merge(const json& lhs, const json& rhs, const TypeRef& s) {
  if (granular_map(lhs, s) && rhs.is_object()) {
    json out = lhs;
    for (const auto& [k, v] : rhs.items()) {
      if (v.is_null()) {
        out.erase(k);
        continue;
      }
      auto it = lhs.find(k);
      out[k] = it == lhs.end() ? without_nulls(v) : merge(*it, v, s.field(k));
    }
    return out;
  }
  if (granular_list(lhs, s) && rhs.is_array()) {
    return merge_lists(lhs, rhs, s);
  }
  return without_nulls(rhs);
}

// Removes what `last` (the applier's previous set) holds and no manager owns
// now (`owned`), as structured-merge-diff's prune does: a named struct field
// goes when nobody owns anything under it; a list item or map entry goes when
// nobody owns the item itself (fields others set inside it go with it). The
// key fields of a surviving list item are kept.
bool should_remove(const FieldSet* l, const FieldSet* o, bool named) {
  if (!l) return false;
  if (!o || o->empty()) return true;
  return !named && l->member && !o->member;
}

// Metadata the server owns: never pruned, whatever the sets say (upstream
// keeps them because the applied configuration carries them; a caller may
// apply a body without metadata.name).
const std::vector<std::string>& server_metadata() {
  static const std::vector<std::string> kFields = {
      "name",     "namespace",     "uid",           "resourceVersion",   "generation",
      "creationTimestamp", "selfLink", "managedFields", "deletionTimestamp", "deletionGracePeriodSeconds"};
  return kFields;
}

// Whether Go writes field `key` of the struct typed `s` when it is empty: its tag has no
// omitempty, which the definition's `required` list says.
bool written_when_empty(const TypeRef& s, const std::string& key) {
  if (!s.atom || s.atom->name.empty()) return false;
  const json* def = openapi::definition(s.atom->name);
  if (!def) return false;
  auto req = def->find("required");
  if (req == def->end() || !req->is_array()) return false;
  return std::find(req->begin(), req->end(), json(key)) != req->end();
}

// `go_typed`: the object is a built-in kind, which the server holds as a Go struct, so a list
// field prune empties is omitted when its tag has omitempty, where an unstructured object
// keeps `[]`.
void prune(json& v, const TypeRef& s, const FieldSet& last, const FieldSet& owned,
           const std::vector<std::string>& keep, bool go_typed, bool root = false) {
  static const FieldSet kNone;
  if (v.is_object()) {
    if (!granular_map(v, s)) return;
    for (auto it = v.begin(); it != v.end();) {
      const std::string pe = "f:" + it.key();
      const FieldSet* l = last.child(pe);
      if (!l || std::find(keep.begin(), keep.end(), it.key()) != keep.end()) {
        ++it;
        continue;
      }
      if (root && it.key() == "metadata") {
        const FieldSet* o = owned.child(pe);
        if (it->is_object()) prune(*it, s.field("metadata"), *l, o ? *o : kNone, server_metadata(), go_typed);
        ++it;
        continue;
      }
      const FieldSet* o = owned.child(pe);
      const bool named = s.is_struct_field(it.key());
      if (should_remove(l, o, named)) {
        it = v.erase(it);
        continue;
      }
      if (it->is_object() || it->is_array()) {
        const bool filled = !it->empty();
        prune(*it, s.field(it.key()), *l, *o, {}, go_typed);
        if (go_typed && named && filled && it->is_array() && it->empty() && !written_when_empty(s, it.key())) {
          it = v.erase(it);
          continue;
        }
      }
      ++it;
    }
  } else if (v.is_array()) {
    if (!granular_list(v, s)) return;
    std::vector<std::string> pes = item_elements(v, s, false, "");
    json out = json::array();
    for (size_t i = 0; i < v.size(); ++i) {
      const FieldSet* l = last.child(pes[i]);
      const FieldSet* o = owned.child(pes[i]);
      if (should_remove(l, o, /*named=*/false)) continue;
      if (l && o && (v[i].is_object() || v[i].is_array())) prune(v[i], s.item(), *l, *o, s.list_keys(), go_typed);
      out.push_back(std::move(v[i]));
    }
    v = std::move(out);
  }
}

// ---------------------------------------------------------------------------
// managedFields entries.

struct Manager {
  std::string manager, operation, api_version, subresource, time;
  FieldSet set;
  // Identity as upstream's BuildManagerIdentifier: Apply ignores apiVersion.
  std::tuple<std::string, std::string, std::string, std::string> id() const {
    return {manager, operation, operation == "Apply" ? std::string() : api_version, subresource};
  }
};

using Managers = std::vector<Manager>;

Managers decode(const json& entries) {
  Managers out;
  if (!entries.is_array()) return out;
  for (const json& e : entries) {
    if (!e.is_object()) continue;
    Manager m;
    m.manager = str_field(e, "manager");
    m.operation = str_field(e, "operation");
    m.api_version = str_field(e, "apiVersion");
    m.subresource = str_field(e, "subresource");
    m.time = str_field(e, "time");
    if (auto f = e.find("fieldsV1"); f != e.end()) m.set = from_fields_v1(*f);
    out.push_back(std::move(m));
  }
  return out;
}

json encode(Managers managers) {
  managers.erase(std::remove_if(managers.begin(), managers.end(), [](const Manager& m) { return m.set.empty(); }),
                 managers.end());
  std::stable_sort(managers.begin(), managers.end(), [](const Manager& p, const Manager& q) {
    return std::tie(p.operation, p.time, p.manager, p.api_version, p.subresource) <
           std::tie(q.operation, q.time, q.manager, q.api_version, q.subresource);
  });
  json out = json::array();
  for (const Manager& m : managers) {
    json e = {{"manager", m.manager}, {"operation", m.operation}, {"apiVersion", m.api_version},
              {"fieldsType", "FieldsV1"}, {"fieldsV1", to_fields_v1(m.set)}};
    if (!m.time.empty()) e["time"] = m.time;
    if (!m.subresource.empty()) e["subresource"] = m.subresource;
    out.push_back(std::move(e));
  }
  return out;
}

void drop_managed_fields(json& obj) {
  if (auto m = obj.find("metadata"); m != obj.end() && m->is_object()) {
    m->erase("managedFields");
    if (m->empty()) obj.erase("metadata");
  }
}

json without_managed_fields(const json& obj) {
  if (!obj.is_object()) return json::object();
  json out = obj;
  drop_managed_fields(out);
  return out;
}

void set_managed_fields(json& obj, const Managers& managers) {
  json encoded = encode(managers);
  if (encoded.empty()) {
    if (auto m = obj.find("metadata"); m != obj.end() && m->is_object()) m->erase("managedFields");
    return;
  }
  obj["metadata"]["managedFields"] = std::move(encoded);
}

// kubectl's client-side -> server-side apply upgrade: fields recorded in the
// last-applied annotation whose value still matches live may be taken over.
std::optional<FieldSet> last_applied_allowance(const json& live, const TypeRef& type,
                                               const std::string& subresource, bool status_subresource) {
  const json* annotations = nullptr;
  if (auto m = live.find("metadata"); m != live.end() && m->is_object()) {
    if (auto a = m->find("annotations"); a != m->end() && a->is_object()) annotations = &*a;
  }
  if (!annotations) return std::nullopt;
  auto text = annotations->find(kLastApplied);
  if (text == annotations->end() || !text->is_string() || text->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  json last = json::parse(text->get<std::string>(), nullptr, false);
  if (!last.is_object() || str_field(last, "apiVersion") != str_field(live, "apiVersion")) return std::nullopt;
  FieldSet allowed = field_set(last, type, false, subresource, status_subresource);
  Comparison c = compare(last, without_managed_fields(live), type, subresource, status_subresource);
  // Fields of last-applied that live lacks are "removed" relative to last.
  allowed = difference(difference(allowed, c.changed), c.removed);
  return allowed;
}

// The request's reset fields: what a write through this endpoint may not set.
json reset_fields(const json& applied, const std::string& subresource, bool status_subresource) {
  if (!status_subresource) return applied;
  json out = applied;
  if (subresource.empty()) {
    out.erase("status");
  } else if (subresource == "status") {
    for (auto it = out.begin(); it != out.end();) {
      const std::string& k = it.key();
      if (k == "status" || k == "apiVersion" || k == "kind") {
        ++it;
      } else if (k == "metadata" && it->is_object()) {
        json meta = json::object();
        for (const char* f : {"name", "namespace"}) {
          if (it->contains(f)) meta[f] = (*it)[f];
        }
        *it = meta;
        ++it;
      } else {
        it = out.erase(it);
      }
    }
  }
  return out;
}

}  // namespace

std::string FieldConflict::message() const {
  std::string out = "conflict with \"" + manager + "\"";
  if (!subresource.empty()) out += " with subresource \"" + subresource + "\"";
  if (operation == "Update") out += " using " + api_version;
  return out;
}

ApplyResult server_side_apply(const json& live, const json& applied, const TypeRef& type,
                              const ApplyOptions& options) {
  if (options.manager.empty()) invalid("fieldManager is required for apply requests");
  if (!applied.is_object()) invalid("apply configuration must be an object");
  if (auto m = applied.find("metadata"); m != applied.end()) {
    if (!m->is_object()) invalid("metadata must be an object");
    if (m->contains("managedFields")) invalid("metadata.managedFields must be nil");
  }
  const bool exists = live.is_object();
  // apiVersion may differ (conversion is the caller's business); kind may not.
  if (exists && applied.contains("kind") && live.contains("kind") && applied["kind"] != live["kind"]) {
    invalid("kind of the apply configuration (" + applied["kind"].dump() + ") does not match the object (" +
            live["kind"].dump() + ")");
  }

  json config = reset_fields(applied, options.subresource, options.status_subresource);
  canonicalize_quantities(config, type);
  const std::string api_version =
      config.contains("apiVersion") && config["apiVersion"].is_string() ? config["apiVersion"].get<std::string>()
                                                                         : (exists ? str_field(live, "apiVersion") : "");

  const json live_obj = exists ? without_managed_fields(live) : json::object();
  Managers managers;
  if (auto m = live.find("metadata"); exists && m != live.end() && m->is_object()) {
    if (auto f = m->find("managedFields"); f != m->end()) managers = decode(*f);
  }
  if (exists && managers.empty()) {
    // Objects created without field tracking: what exists is attributed as an update from
    // the kind's zero object (skipnonapplied).
    Manager before{kBeforeFirstApply, "Update", str_field(live, "apiVersion"), "", options.time, {}};
    before.set = compare(json(), live_obj, type, options.subresource, options.status_subresource).changed;
    managers.push_back(std::move(before));
  }

  Manager self{options.manager, "Apply", api_version, options.subresource, "", {}};
  auto self_it = std::find_if(managers.begin(), managers.end(), [&](const Manager& m) { return m.id() == self.id(); });
  const bool is_new_entry = self_it == managers.end();
  FieldSet last = is_new_entry ? FieldSet{} : self_it->set;
  if (!is_new_entry) self.time = self_it->time;
  self.set = field_set(config, type, /*strict=*/true, options.subresource, options.status_subresource);

  json merged = merge(live_obj, config, type);
  FieldSet owned = self.set;
  for (const Manager& m : managers) {
    if (m.id() != self.id()) owned = unite(std::move(owned), m.set);
  }
  if (!last.empty()) {
    const bool go_typed = go_zero_object(str_field(live_obj, "apiVersion"), str_field(live_obj, "kind")).has_value();
    prune(merged, type, last, owned, {}, go_typed, /*root=*/true);
  }

  Comparison cmp = compare(exists ? live_obj : json(), merged, type, options.subresource, options.status_subresource);
  std::vector<FieldConflict> conflicts;
  std::vector<std::pair<size_t, FieldSet>> taken;  // per manager index: conflicting set
  for (size_t i = 0; i < managers.size(); ++i) {
    const Manager& m = managers[i];
    if (m.id() == self.id()) continue;
    FieldSet c = intersect(m.set, cmp.changed);
    if (c.empty()) continue;
    for (const std::string& path : member_paths(c)) {
      conflicts.push_back({m.manager, m.operation, m.api_version, m.subresource, path});
    }
    taken.emplace_back(i, std::move(c));
  }

  bool force = options.force;
  if (!conflicts.empty() && !force && options.manager == "kubectl" && exists) {
    if (auto allowed = last_applied_allowance(live, type, options.subresource, options.status_subresource)) {
      bool all_allowed = true;
      std::vector<FieldConflict> rest;
      for (const auto& [i, c] : taken) {
        FieldSet outside = difference(c, *allowed);
        if (!outside.empty()) all_allowed = false;
        for (const std::string& path : member_paths(outside)) {
          rest.push_back({managers[i].manager, managers[i].operation, managers[i].api_version,
                          managers[i].subresource, path});
        }
      }
      if (all_allowed) {
        force = true;
      } else {
        conflicts = std::move(rest);
      }
    }
  }
  if (!conflicts.empty() && !force) {
    ApplyResult r;
    r.object = live;
    r.conflicts = std::move(conflicts);
    return r;
  }

  for (auto& [i, c] : taken) managers[i].set = difference(managers[i].set, c);
  for (Manager& m : managers) {
    if (m.id() != self.id()) m.set = difference(m.set, cmp.removed);
  }
  const bool changed = merged != live_obj;
  if (changed || is_new_entry) self.time = options.time;
  if (is_new_entry) {
    managers.push_back(std::move(self));
  } else {
    *self_it = std::move(self);
  }

  if (options.manager == "kubectl" && exists) {
    // Keep the client-side apply annotation in sync (lastAppliedUpdater).
    const json* ann = nullptr;
    if (auto m = live_obj.find("metadata"); m != live_obj.end() && m->contains("annotations")) {
      ann = &(*m)["annotations"];
    }
    if (ann && ann->is_object() && ann->contains(kLastApplied)) {
      json last_applied = applied;
      if (last_applied.contains("metadata") && last_applied["metadata"].contains("annotations")) {
        last_applied["metadata"]["annotations"].erase(kLastApplied);
        if (last_applied["metadata"]["annotations"].empty()) last_applied["metadata"].erase("annotations");
      }
      merged["metadata"]["annotations"][kLastApplied] = last_applied.dump();
    }
  }

  set_managed_fields(merged, managers);
  ApplyResult r;
  r.object = std::move(merged);
  return r;
}

json record_update(const json& old, json updated, const TypeRef& type, const UpdateOptions& options) {
  if (!updated.is_object()) return updated;
  const bool exists = old.is_object();
  Managers managers;
  const json* request_mf = nullptr;
  if (auto m = updated.find("metadata"); m != updated.end() && m->is_object()) {
    if (auto f = m->find("managedFields"); f != m->end()) request_mf = &*f;
  }
  auto old_mf = [&] {
    if (!exists) return Managers{};
    auto m = old.find("metadata");
    if (m == old.end() || !m->is_object()) return Managers{};
    auto f = m->find("managedFields");
    return f == m->end() ? Managers{} : decode(*f);
  };
  if (!options.subresource.empty() || request_mf == nullptr) {
    managers = old_mf();
  } else if (request_mf->is_array() &&
             (request_mf->empty() || (request_mf->size() == 1 && (*request_mf)[0] == json::object()))) {
    managers = {};  // reset requested
  } else {
    managers = decode(*request_mf);
    if (managers.empty()) managers = old_mf();
  }

  Manager self{options.manager, options.operation, str_field(updated, "apiVersion"), options.subresource, "", {}};
  json result = std::move(updated);
  drop_managed_fields(result);
  if (exists && managers.empty()) return result;  // untracked object: stays untracked

  // The old object keeps its managedFields here: field sets never hold them, and the
  // comparison walks them only where the new object has them too (it has none).
  Comparison cmp = compare(exists ? old : json(), result, type, options.subresource, options.status_subresource);
  bool found = false;
  for (Manager& m : managers) {
    if (m.id() == self.id()) {
      found = true;
      m.set = unite(difference(m.set, cmp.removed), cmp.changed);
      if (!cmp.changed.empty()) m.time = options.time;
    } else {
      m.set = difference(difference(m.set, cmp.changed), cmp.removed);
    }
  }
  if (!found && !cmp.changed.empty()) {
    self.set = cmp.changed;
    self.time = options.time;
    managers.push_back(std::move(self));
  }
  set_managed_fields(result, managers);
  return result;
}

json conflict_status(const std::vector<FieldConflict>& conflicts) {
  json causes = json::array();
  for (const FieldConflict& c : conflicts) {
    causes.push_back({{"reason", "FieldManagerConflict"}, {"message", c.message()}, {"field", c.field}});
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: " + conflicts[0].message() + ": " + conflicts[0].field;
  } else {
    std::vector<const FieldConflict*> sorted;
    for (const FieldConflict& c : conflicts) sorted.push_back(&c);
    std::stable_sort(sorted.begin(), sorted.end(), [](const FieldConflict* a, const FieldConflict* b) {
      return std::tie(a->manager, a->operation, a->api_version, a->subresource) <
             std::tie(b->manager, b->operation, b->api_version, b->subresource);
    });
    std::string body;
    std::string current;
    for (const FieldConflict* c : sorted) {
      std::string head = c->message();
      if (head != current) {
        if (!body.empty()) body += "\n";
        body += "conflicts with" + head.substr(std::string("conflict with").size()) + ":";
        current = head;
      }
      body += "\n- " + c->field;
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + body;
  }
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", json::object()},
          {"status", "Failure"},
          {"message", message},
          {"reason", "Conflict"},
          {"details", {{"causes", causes}}},
          {"code", 409}};
}

json fields_v1_of(const json& object, const TypeRef& type) {
  return to_fields_v1(field_set(object, type, false, "", false));
}

}  // namespace kubesim::apply
