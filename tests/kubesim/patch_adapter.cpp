// Routes every patch flavour to the project's patch library (include/dgd/kube)
// and maps its errors to the Status the real server returns.
#include "kubesim/patch_adapter.h"

#include "kubesim/api_error.h"
#include "kubesim/object_rules.h"

#include "dgd/kube/field_schema.h"
#include "dgd/kube/json_patch.h"
#include "dgd/kube/merge_patch.h"
#include "dgd/kube/quantity.h"
#include "dgd/kube/server_side_apply.h"
#include "dgd/kube/strategic_merge.h"

#include <map>
#include <memory>
#include <mutex>

namespace kubesim::patch {

using nlohmann::json;

namespace {

[[noreturn]] void rethrow(const dgd::kube::PatchError& e) {
  if (e.http_status() == 400) throw ApiError::bad_request(e.what());
  throw ApiError(e.http_status(), "Invalid",
                 std::string("the server rejected our request due to an error in our request: ") + e.what());
}

// Schemas of custom resources, built once per registered type.
const dgd::kube::FieldSchema& schema_of(const ResourceType& t) {
  if (!t.custom)
    if (const auto* s = dgd::kube::builtin_schema(t.group, t.kind)) return *s;
  static std::mutex mu;
  static std::map<const void*, std::pair<json, std::shared_ptr<dgd::kube::FieldSchema>>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[&t];
  if (!slot.second || slot.first != t.schema) {
    slot.first = t.schema;
    slot.second = std::make_shared<dgd::kube::FieldSchema>(dgd::kube::FieldSchema::custom_resource(t.schema));
  }
  return *slot.second;
}

}  // namespace

json merge(const json& target, const json& p) { return dgd::kube::apply_merge_patch(target, p); }

json json_patch(const json& target, const json& ops) {
  try {
    return dgd::kube::apply_json_patch(target, ops);
  } catch (const dgd::kube::PatchError& e) {
    rethrow(e);
  }
}

json strategic(const ResourceType& t, const json& target, const json& p) {
  try {
    return dgd::kube::apply_strategic_merge_patch(target, p, schema_of(t));
  } catch (const dgd::kube::PatchError& e) {
    rethrow(e);
  }
}

json apply(const ResourceType& t, const json* current, const json& applied, const std::string& manager, bool force) {
  dgd::kube::ApplyOptions o;
  o.manager = manager;
  o.force = force;
  o.status_subresource = t.has_status;
  o.time = rules::now_rfc3339();
  // The apiserver checks this before anything else, as a 400 (structuredmerge.go).
  if (auto m = applied.find("metadata"); m != applied.end() && m->is_object()) {
    if (auto mf = m->find("managedFields"); mf != m->end() && !mf->is_null())
      throw ApiError::bad_request("metadata.managedFields must be nil");
  }
  try {
    auto r = dgd::kube::server_side_apply(current ? *current : json(), applied, schema_of(t), o);
    if (!r.ok()) throw ApiError::from_status(dgd::kube::conflict_status(r.conflicts));
    return r.object;
  } catch (const dgd::kube::PatchError& e) {
    rethrow(e);
  }
}

void record_update(const ResourceType& t, const json* before, json& after, const std::string& manager,
                   const std::string& subresource) {
  dgd::kube::UpdateOptions o;
  o.manager = manager;
  o.subresource = subresource;
  o.status_subresource = t.has_status;
  o.time = rules::now_rfc3339();
  try {
    after = dgd::kube::record_update(before ? *before : json(), after, schema_of(t), o);
  } catch (const dgd::kube::PatchError& e) {
    rethrow(e);
  }
}

std::string canonical_quantity(const std::string& q) {
  auto c = dgd::kube::canonical_quantity(json(q));
  return c ? *c : q;
}

bool quantity_valid(const std::string& q) { return dgd::kube::Quantity::parse(q).has_value(); }

}  // namespace kubesim::patch
