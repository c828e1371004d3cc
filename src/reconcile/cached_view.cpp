#include "dgd/reconcile/cached_view.h"

namespace dgd::reconcile {

using nlohmann::json;

std::optional<json> read_projected(std::string_view text, const runtime::FieldProjection& keep) {
  auto cached = runtime::CachedObject::from_text(text, keep);
  if (!cached) return std::nullopt;
  return cached->object();
}

const runtime::FieldProjection& dgd_head_fields() {
  static const runtime::FieldProjection fields({"status"});
  return fields;
}

const runtime::FieldProjection& dgd_conditions_fields() {
  static const runtime::FieldProjection fields({"status.conditions"});
  return fields;
}

const runtime::FieldProjection& child_status_fields() {
  // status.h reads a Deployment's status; model_cache.h a Job's status and backoffLimit.
  static const runtime::FieldProjection fields({"spec.replicas", "spec.backoffLimit", "status"});
  return fields;
}

namespace {

// The DGD as the reconcile reads it besides status: metadata without resourceVersion, spec.
std::optional<json> outside_status(std::string_view text) {
  static const runtime::FieldProjection spec({"spec"});
  auto o = read_projected(text, spec);
  if (!o) return std::nullopt;
  auto m = o->find("metadata");
  if (m != o->end() && m->is_object()) m->erase("resourceVersion");
  return o;
}

}  // namespace

bool changed_outside_status(std::string_view before, std::string_view after) {
  const auto a = outside_status(before);
  if (!a) return true;
  const auto b = outside_status(after);
  return !b || *a != *b;
}

}  // namespace dgd::reconcile
