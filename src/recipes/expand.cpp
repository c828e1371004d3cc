#include "dgd/recipes/expand.h"

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_map>

#include "dgd/api/defaults.h"
#include "dgd/api/parse.h"
#include "dgd/object/field_schema.h"
#include "dgd/object/strategic_merge.h"

namespace dgd::recipes {
namespace {

using nlohmann::json;
using Errors = std::vector<api::FieldError>;

// Objects merge key by key, anything else is replaced. `base` is consumed.
json deep_merge(json base, const json& over) {
  if (!base.is_object() || !over.is_object()) return over;
  for (auto it = over.begin(); it != over.end(); ++it) {
    auto found = base.find(it.key());
    if (found == base.end()) {
      base[it.key()] = it.value();
    } else {
      *found = deep_merge(std::move(*found), it.value());
    }
  }
  return base;
}

// Lists of {name: ...} items: an item of `over` replaces the same-named item of `base`
// in place (the first of that name); new names are appended in `over`'s order. A map of
// names keeps it linear: a user's env list can hold tens of thousands of entries.
json merge_by_name(const json& base, const json& over) {
  if (!base.is_array()) return over;
  if (!over.is_array()) return base;
  json out = base;
  std::unordered_map<std::string, size_t> index_of;  // string names only; others never match
  for (size_t i = 0; i < out.size(); ++i) {
    const json& existing = out[i];
    if (!existing.is_object()) continue;
    auto name = existing.find("name");
    if (name != existing.end() && name->is_string()) index_of.emplace(name->get<std::string>(), i);
  }
  for (const auto& item : over) {
    const json* name = nullptr;
    if (item.is_object()) {
      auto it = item.find("name");
      if (it != item.end()) name = &*it;
    }
    if (name != nullptr && name->is_string()) {
      auto [found, added] = index_of.emplace(name->get<std::string>(), out.size());
      if (!added) {
        out[found->second] = item;
        continue;
      }
    } else if (name != nullptr) {
      // A non-string name (a mistake the validation reports) matches by value as before.
      bool replaced = false;
      for (auto& existing : out) {
        if (existing.is_object() && existing.value("name", json()) == *name) {
          existing = item;
          replaced = true;
          break;
        }
      }
      if (replaced) continue;
    }
    out.push_back(item);
  }
  return out;
}

// `out` is the recipe's component (consumed); each key of `over` is merged into it once,
// so out[key] is still the recipe's value when that key is merged.
json merge_component(json out, const json& over, const std::string& path, Errors& errors) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::string& key = it.key();
    if (key == "type" && out.contains("type") && out["type"] != it.value()) {
      errors.push_back({path + ".type",
                        "the recipe defines component \"" + out.value("name", "") + "\" as type " +
                            out["type"].dump() + "; a component's type cannot change (leave type out, "
                            "or add a component with another name)"});
      continue;
    }
    if (key == "env") {
      out[key] = merge_by_name(out.value(key, json::array()), it.value());
    } else if (key == "podTemplate" && out.contains(key) && out[key].is_object() && it.value().is_object()) {
      try {
        out[key] = object::strategic_merge(out[key], it.value(), object::pod_template_spec_schema());
      } catch (const std::exception& e) {
        errors.push_back({path + ".podTemplate", std::string("cannot merge over the recipe's podTemplate: ") + e.what()});
      }
    } else if (out.contains(key)) {
      out[key] = deep_merge(std::move(out[key]), it.value());
    } else {
      out[key] = it.value();
    }
  }
  return out;
}

json merge_components(json base, const json& over, Errors& errors) {
  json out = base.is_array() ? std::move(base) : json::array();
  if (!over.is_array()) return out;
  for (size_t i = 0; i < over.size(); ++i) {
    const json& c = over[i];
    const std::string path = "spec.components[" + std::to_string(i) + "]";
    bool matched = false;
    for (auto& existing : out) {
      if (existing.is_object() && c.is_object() && existing.value("name", json()) == c.value("name", json())) {
        existing = merge_component(std::move(existing), c, path, errors);
        matched = true;
        break;
      }
    }
    if (!matched) out.push_back(c);
  }
  return out;
}

}  // namespace

json overlay_dgd(const json& base, const json& over, Errors& errors) {
  json out = base;
  if (over.contains("metadata")) out["metadata"] = over["metadata"];
  for (const char* top : {"apiVersion", "kind"}) {
    if (over.contains(top)) out[top] = over[top];
  }
  const json& spec = over.value("spec", json::object());
  // The recipe's spec is taken out of the copy of its document, merged, and put back.
  json merged = json::object();
  if (auto it = out.find("spec"); it != out.end()) merged = std::move(*it);
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    const std::string& key = it.key();
    if (key == "components") {
      merged[key] = merge_components(merged.contains(key) ? std::move(merged[key]) : json::array(), it.value(), errors);
    } else if (key == "env") {
      merged[key] = merge_by_name(merged.value(key, json::array()), it.value());
    } else if (key == "backendFramework" && merged.contains(key) && merged[key] != it.value()) {
      errors.push_back({"spec.backendFramework", "the recipe is for " + merged[key].get<std::string>() +
                                                     "; pick a recipe of framework " + it.value().dump() +
                                                     " or leave backendFramework out"});
    } else if (merged.contains(key)) {
      merged[key] = deep_merge(std::move(merged[key]), it.value());
    } else {
      merged[key] = it.value();
    }
  }
  merged.erase("recipe");
  out["spec"] = std::move(merged);
  if (over.contains("status")) out["status"] = over["status"];
  return out;
}

ExpandResult expand(const Catalog& catalog, const api::Dgd& user) {
  ExpandResult r;
  if (!user.spec.recipe) {
    r.graph = user;
    api::apply_defaults(r.graph);
    return r;
  }
  const Recipe* recipe = catalog.find(*user.spec.recipe);
  if (recipe == nullptr) {
    r.errors.push_back({"spec.recipe", catalog.explain_missing(*user.spec.recipe)});
    r.graph = user;
    return r;
  }
  json merged = overlay_dgd(recipe->document(), api::to_json(user), r.errors);
  auto parsed = api::from_json(std::move(merged));
  for (auto& e : parsed.errors) r.errors.push_back(std::move(e));
  r.graph = std::move(parsed.dgd);
  api::apply_defaults(r.graph);
  return r;
}

ExpandResult expand(const Catalog& catalog, api::Dgd&& user) {
  if (user.spec.recipe) return expand(catalog, static_cast<const api::Dgd&>(user));
  ExpandResult r;
  r.graph = std::move(user);
  api::apply_defaults(r.graph);
  return r;
}

}  // namespace dgd::recipes
