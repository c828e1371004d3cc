// Routes every patch flavour to kube-sim's own patch and apply code (tests/kubesim/apply)
// with the merge type of the resource.
#include "kubesim/patch_adapter.h"

#include "kubesim/api_error.h"
#include "kubesim/apply/json_patches.h"
#include "kubesim/apply/merge_schema.h"
#include "kubesim/apply/server_side_apply.h"
#include "kubesim/apply/strategic_merge.h"
#include "kubesim/cluster/quantity.h"
#include "kubesim/object_rules.h"

namespace kubesim::patch {

using nlohmann::json;

json merge(const json& target, const json& p) { return apply::apply_merge_patch(target, p); }

json json_patch(const json& target, const json& ops) { return apply::apply_json_patch(target, ops); }

json strategic(const ResourceType& t, const json& target, const json& p) {
  const apply::RootType type = apply::type_of(t);
  return apply::apply_strategic_merge_patch(target, p, type.root);
}

json apply(const ResourceType& t, const json* current, const json& applied, const std::string& manager, bool force,
           const std::string& subresource) {
  apply::ApplyOptions o;
  o.manager = manager;
  o.force = force;
  o.subresource = subresource;
  o.status_subresource = t.has_status;
  o.time = rules::now_rfc3339();
  // The apiserver checks this before anything else, as a 400 (structuredmerge.go).
  if (auto m = applied.find("metadata"); m != applied.end() && m->is_object()) {
    if (auto mf = m->find("managedFields"); mf != m->end() && !mf->is_null())
      throw ApiError::bad_request("metadata.managedFields must be nil");
  }
  const apply::RootType type = apply::type_of(t);
  auto r = apply::server_side_apply(current ? *current : json(), applied, type.root, o);
  if (!r.ok()) throw ApiError::from_status(apply::conflict_status(r.conflicts));
  return r.object;
}

void record_update(const ResourceType& t, const json* before, json& after, const std::string& manager,
                   const std::string& subresource) {
  apply::UpdateOptions o;
  o.manager = manager;
  o.subresource = subresource;
  o.status_subresource = t.has_status;
  o.time = rules::now_rfc3339();
  const apply::RootType type = apply::type_of(t);
  after = apply::record_update(before ? *before : json(), std::move(after), type.root, o);
}

std::string canonical_quantity(const std::string& q) { return cluster::canonical_quantity(q).value_or(q); }


}  // namespace kubesim::patch
